#!/usr/bin/env python3
"""Transparent stdio tap: run a server command and log every line both ways.

    stdio_tap.py LOGFILE -- <server command and args...>

Put it in front of any stdio MCP server to see exactly what a client sends
(`>` client->server) and what the server answers (`<` server->client), plus
stdin EOF / signals / the server's exit status. stderr passes through.
Debugging aid only; the interop scripts do not need it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time

START = time.monotonic()


def main() -> int:
    argv = sys.argv[1:]
    if len(argv) < 3 or argv[1] != "--":
        print(__doc__, file=sys.stderr)
        return 2
    log_path, cmd = argv[0], argv[2:]
    log = open(log_path, "a", buffering=1, encoding="utf-8")
    lock = threading.Lock()

    def note(direction: str, line: str) -> None:
        with lock:
            log.write(f"{time.monotonic() - START:8.3f} {direction} {line.rstrip(chr(10))}\n")

    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def forward_signal(signum: int, _frame: object) -> None:
        note("!", f"tap got signal {signal.Signals(signum).name}; forwarding")
        proc.send_signal(signum)

    for s in (signal.SIGTERM, signal.SIGINT):
        signal.signal(s, forward_signal)

    def pump_in() -> None:
        assert proc.stdin is not None
        for raw in sys.stdin.buffer:
            note(">", raw.decode("utf-8", "replace"))
            try:
                proc.stdin.write(raw)
                proc.stdin.flush()
            except BrokenPipeError:
                break
        note("!", "client closed stdin (EOF)")
        try:
            proc.stdin.close()
        except BrokenPipeError:
            pass

    def pump_out() -> None:
        assert proc.stdout is not None
        for raw in proc.stdout:
            note("<", raw.decode("utf-8", "replace"))
            try:
                sys.stdout.buffer.write(raw)
                sys.stdout.buffer.flush()
            except BrokenPipeError:
                break

    threading.Thread(target=pump_in, daemon=True).start()
    t_out = threading.Thread(target=pump_out, daemon=True)
    t_out.start()
    rc = proc.wait()
    t_out.join(timeout=2)
    note("!", f"server exited with {rc}")
    return rc if rc >= 0 else 128 - rc


if __name__ == "__main__":
    sys.exit(main())
