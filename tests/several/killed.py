"""One legacy session through the proxy while one instance is killed.

Opens a Streamable HTTP session with the Python mcp client (2025-11-25),
calls tools through the round-robin proxy (so both instances serve it),
SIGKILLs the instance `--kill PID`, and goes on calling in the same session:
every call must succeed (the proxy sends the requests to the instance that
is left, which takes the session up from Redis). Prints one `ok` line per
step; exits 1 on the first failure.

It goes on once the proxy has seen the instance down (`--stats PORT`,
`--server NAME`: HAProxy's stats page). Until then HAProxy may still pick
the dead instance, and its retry on the other one failed about one run in
ten: an HTTP error from the proxy itself, without a JSON-RPC body, which the
instance left never saw. What is tested here is that instance taking the
session up, not HAProxy's retries.
"""

from __future__ import annotations

import argparse
import os
import csv
import io
import signal
import sys
import urllib.request

import anyio
from mcp import Client


async def gone(pid: int) -> None:
    """Waits until process `pid` has exited (a zombie counts: it serves nothing)."""
    for _ in range(200):
        try:
            with open(f"/proc/{pid}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                    return
        except FileNotFoundError:
            return
        await anyio.sleep(0.01)
    raise SystemExit(f"process {pid} is still alive 2 s after SIGKILL")


async def proxy_sees_down(stats: int, server: str) -> None:
    """Waits until HAProxy's health checks mark `server` down."""
    url = f"http://127.0.0.1:{stats}/stats;csv"
    for _ in range(500):
        rows = csv.DictReader(io.StringIO(urllib.request.urlopen(url).read().decode().lstrip("# ")))
        if any(r["pxname"] == "instances" and r["svname"] == server and r["status"].startswith("DOWN") for r in rows):
            return
        await anyio.sleep(0.01)
    raise SystemExit(f"the proxy still sends to {server} 5 s after it was killed")


async def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--url", required=True)
    ap.add_argument("--kill", type=int, required=True)
    ap.add_argument("--stats", type=int, required=True)
    ap.add_argument("--server", required=True)
    a = ap.parse_args()
    async with Client(a.url, mode="legacy", read_timeout_seconds=30) as client:
        async def call(step: str) -> None:
            r = await client.call_tool("test_simple_text", {})
            text = r.content[0].text if r.content else None
            if r.is_error or text != "This is a simple text response for testing.":
                print(f"FAIL {step}: isError={r.is_error} content={r.content}")
                sys.exit(1)
            print(f"ok {step}")

        for i in range(6):
            await call(f"call {i} before the kill")
        os.kill(a.kill, signal.SIGKILL)
        # Until it is dead, a request may still reach it and die with it (no
        # proxy replays a POST the instance had taken): wait for its end.
        await gone(a.kill)
        await proxy_sees_down(a.stats, a.server)
        print(f"ok killed instance pid {a.kill}, down at the proxy")
        for i in range(10):
            await call(f"call {i} after the kill")
        tools = await client.list_tools()
        if not any(t.name == "test_simple_text" for t in tools.tools):
            print("FAIL tools/list after the kill")
            return 1
        print("ok tools/list after the kill")
    return 0


if __name__ == "__main__":
    sys.exit(anyio.run(main))
