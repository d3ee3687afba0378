#!/usr/bin/env python3
"""Hostile-input table: the reference servers vs our toolboxes, judged by EFFECT.

    .tools/pyenv/bin/python tests/toolbox/hostile.py --target DIR [--only files|fetch]

DIR holds our example servers `files` and `fetch` (e.g. target/debug). The
reference servers come from .tools/env.sh (scripts/install-tools.sh):
@modelcontextprotocol/server-filesystem ($MCP_NODE $MCP_SERVER_FILESYSTEM_JS ROOT) and
mcp-server-fetch ($MCP_SERVER_FETCH --ignore-robots-txt, so robots.txt checks do not
mask the result).

Every case is judged by what happened, never by the message:
  files: a snapshot of everything under the scratch dir except the root (the
         "outside" dir and the sibling "root2") is taken before and after the case;
         any change = ESCAPED. Secret tokens live only in the CONTENT of files
         outside the root, in the NAME of an outside file that no case names, and in
         the size of one outside file; seeing any of them in a result (text, or
         decoded base64 media) = ESCAPED.
  fetch: recording HTTP listeners on every target address (0.0.0.0:80 and [::]:80
         inside a private network namespace whose loopback also holds 10.0.0.1,
         169.254.169.254, 192.168.1.1 and 100.64.0.1); any TCP connection accepted
         on them during the case, or their secret body in the result = ESCAPED.
Cells: "refused" (no effect), "ESCAPED" (the effect happened), "error" (no effect,
but the case could not be run: the server died, timed out, or lacks the tool),
"n/a" (the server has no such tool). Control rows check that the harness sees an
effect when one is allowed ("ok" / "FAILED").

RULE: no packet leaves this machine's loopback. The script re-executes itself
under `unshare -rn` (a new user + network namespace that has only `lo`) before
anything else runs, and refuses to run if it sees any other interface.

Exit status: 0 if ours is "refused" in every case and its controls are "ok";
1 otherwise (a reference failure is reported, not an error); 2 on setup errors.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import http.server
import io
import json
import os
import re
import secrets
import shutil
import socket
import socketserver
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

NETNS_ENV = "MCP_TOOLBOX_HOSTILE_NETNS"
EXTRA_ADDRS = ["10.0.0.1", "169.254.169.254", "192.168.1.1", "100.64.0.1"]
TARGET_PORT = 80  # the port of every hostile URL (the default for http://)
REDIRECT_PORT = 8080  # the "allowed host" 127.0.0.1:8080 that redirects
CALL_TIMEOUT = float(os.environ.get("HOSTILE_CALL_TIMEOUT", "25"))


# --------------------------------------------------------------------------- netns
def reexec_in_netns() -> None:
    if os.environ.get(NETNS_ENV) == "1":
        return
    for tool in ("unshare", "ip"):
        if shutil.which(tool) is None:
            print(f"hostile.py: `{tool}` not found (run scripts/install-tools.sh)", file=sys.stderr)
            sys.exit(2)
    setup = "ip link set lo up" + "".join(f" && ip addr add {a}/32 dev lo" for a in EXTRA_ADDRS)
    env = dict(os.environ, **{NETNS_ENV: "1"})
    cmd = ["unshare", "-rn", "sh", "-c", setup + ' && exec "$@"', "sh",
           sys.executable, os.path.abspath(__file__), *sys.argv[1:]]
    os.execvpe("unshare", cmd, env)


def assert_isolated() -> None:
    """Only `lo` may exist, so nothing can leave the namespace."""
    out = subprocess.run(["ip", "-o", "link"], capture_output=True, text=True, check=True).stdout
    names = [line.split(":")[1].strip().split("@")[0] for line in out.splitlines() if line.strip()]
    if names != ["lo"]:
        print(f"hostile.py: refusing to run: network interfaces {names}, expected only lo", file=sys.stderr)
        sys.exit(2)
    addrs = subprocess.run(["ip", "-o", "addr"], capture_output=True, text=True, check=True).stdout
    for a in EXTRA_ADDRS:
        if f" {a}/32 " not in addrs:
            print(f"hostile.py: {a} is not on lo:\n{addrs}", file=sys.stderr)
            sys.exit(2)


# --------------------------------------------------------------------------- listeners
class Recorder:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.events: list[tuple[str, str]] = []  # (listener label, "local addr <- peer" / request line)

    def add(self, label: str, what: str) -> None:
        with self.lock:
            self.events.append((label, what))

    def mark(self) -> int:
        with self.lock:
            return len(self.events)

    def since(self, mark: int) -> list[tuple[str, str]]:
        with self.lock:
            return list(self.events[mark:])


RECORDER = Recorder()
LEAK_BODY = "LEAKED-" + secrets.token_hex(8)  # body of every hostile target
CONTROL_BODY = "CONTROL-" + secrets.token_hex(8)  # body of the allowed redirector's /ok


def make_server(label: str, family: int, addr: tuple, handler_factory) -> socketserver.TCPServer:
    class Server(http.server.ThreadingHTTPServer):
        address_family = family
        daemon_threads = True
        allow_reuse_address = True

        def server_bind(self) -> None:
            if family == socket.AF_INET6:
                self.socket.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            socketserver.TCPServer.server_bind(self)

        def process_request(self, request, client_address) -> None:
            # Record the ACCEPT, before a byte is read: a connection counts as contact.
            try:
                local = request.getsockname()
            except OSError:
                local = "?"
            RECORDER.add(label, f"connection to {local} from {client_address}")
            super().process_request(request, client_address)

    return Server(addr, handler_factory(label))


def target_handler(label: str):
    class H(http.server.BaseHTTPRequestHandler):
        def log_message(self, *a: Any) -> None:
            pass

        def _serve(self) -> None:
            RECORDER.add(label, f"{self.command} {self.path} Host={self.headers.get('Host')}")
            body = (LEAK_BODY + "\n").encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        do_GET = do_POST = do_HEAD = do_PUT = _serve

    return H


REDIRECTS = {
    "/to-metadata": f"http://169.254.169.254/latest/meta-data/",
    "/to-10": "http://10.0.0.1/admin",
    "/to-loopback-80": "http://127.0.0.1/",
    "/to-localhost": "http://localhost/",
    "/to-file": "file:///etc/passwd",
}


def redirect_handler(label: str):
    class H(http.server.BaseHTTPRequestHandler):
        def log_message(self, *a: Any) -> None:
            pass

        def _serve(self) -> None:
            path = self.path.split("?")[0]
            if path in REDIRECTS:
                self.send_response(302)
                self.send_header("Location", REDIRECTS[path])
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            body = (CONTROL_BODY + "\n").encode() if path == "/ok" else b"not found\n"
            self.send_response(200 if path == "/ok" else 404)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        do_GET = do_POST = do_HEAD = _serve

    return H


def start_listeners() -> list[socketserver.TCPServer]:
    servers = [
        make_server("target v4 :80", socket.AF_INET, ("0.0.0.0", TARGET_PORT), target_handler),
        make_server("target v6 :80", socket.AF_INET6, ("::", TARGET_PORT), target_handler),
        # Everything else on the hostile addresses, in case a client picks another port.
        make_server("redirector 127.0.0.1:8080", socket.AF_INET, ("127.0.0.1", REDIRECT_PORT), redirect_handler),
    ]
    for s in servers:
        threading.Thread(target=s.serve_forever, daemon=True).start()
    return servers


# --------------------------------------------------------------------------- MCP plumbing
class ToolMissing(Exception):
    pass


class Conn:
    """A lazily (re)connected stdio MCP client: a dead server is restarted for the next case."""

    def __init__(self, label: str, cmd: list[str], cwd: str | None, errlog: io.TextIOBase) -> None:
        self.label, self.cmd, self.cwd, self.errlog = label, cmd, cwd, errlog
        self.stack: contextlib.AsyncExitStack | None = None
        self.client: Any = None
        self.tools: dict[str, Any] = {}

    async def open(self) -> None:
        from mcp import Client, StdioServerParameters
        from mcp.client.stdio import stdio_client

        if self.client is not None:
            return
        params = StdioServerParameters(command=self.cmd[0], args=self.cmd[1:], cwd=self.cwd,
                                       env={k: os.environ[k] for k in ("RUST_LOG", "RUST_BACKTRACE") if k in os.environ} or None)
        stack = contextlib.AsyncExitStack()
        try:
            # No fail_after around entering the client (its task group must not be
            # entered inside a cancel scope that exits first): read_timeout_seconds
            # bounds initialize and tools/list.
            client = await stack.enter_async_context(
                Client(stdio_client(params, errlog=self.errlog), mode="legacy", read_timeout_seconds=CALL_TIMEOUT))
            listed = await client.list_tools()
        except BaseException:
            with contextlib.suppress(BaseException):
                await stack.aclose()
            raise
        self.stack, self.client = stack, client
        self.tools = {t.name: t for t in listed.tools}

    async def close(self) -> None:
        if self.stack is not None:
            with contextlib.suppress(BaseException):
                await self.stack.aclose()
        self.stack, self.client = None, None

    async def has(self, name: str) -> bool:
        await self.open()
        return name in self.tools

    async def call(self, name: str, args: dict[str, Any]) -> str:
        """Call a tool; return everything the result shows (text, decoded blobs, error text)."""
        import anyio
        from mcp.shared.exceptions import MCPError

        await self.open()
        if name not in self.tools:
            raise ToolMissing(f"{self.label} has no tool {name!r}")
        try:
            with anyio.fail_after(CALL_TIMEOUT):
                r = await self.client.call_tool(name, args)
        except MCPError as e:  # a JSON-RPC error answer: the server is alive and said no
            return f"[jsonrpc error] {e}"
        except BaseException:
            await self.close()  # reconnect for the next case
            raise
        return flatten(r.model_dump(mode="json", by_alias=True, exclude_none=True))


def flatten(doc: Any) -> str:
    """All strings of a result, with base64 `data` / `blob` fields also decoded."""
    out: list[str] = []

    def walk(v: Any, key: str = "") -> None:
        if isinstance(v, dict):
            for k, x in v.items():
                walk(x, k)
        elif isinstance(v, list):
            for x in v:
                walk(x, key)
        elif isinstance(v, str):
            out.append(v)
            if key in ("data", "blob"):
                with contextlib.suppress(Exception):
                    out.append(base64.b64decode(v, validate=False).decode("utf-8", "replace"))
        elif v is not None:
            out.append(json.dumps(v))

    walk(doc)
    return "\n".join(out)


@dataclass
class Outcome:
    cell: str  # refused | ESCAPED | error | n/a | ok | FAILED
    detail: str = ""


def short(s: str, n: int = 90) -> str:
    s = " ".join(s.split())
    return s if len(s) <= n else s[: n - 3] + "..."


# --------------------------------------------------------------------------- files
class FilesWorld:
    """/tmp/hostile-files-XXXX/{root, root2 (shares the root's prefix), outside}."""

    def __init__(self, label: str) -> None:
        self.base = os.path.realpath(tempfile.mkdtemp(prefix=f"hostile-files-{label}-", dir="/tmp"))
        self.root = os.path.join(self.base, "root")
        self.root2 = os.path.join(self.base, "root2")
        self.outside = os.path.join(self.base, "outside")
        self.secret_text = "SECRET-" + secrets.token_hex(8)
        self.sibling_text = "SIBLING-" + secrets.token_hex(8)
        self.hidden_name = "hidden-" + secrets.token_hex(8) + ".txt"  # never named by any case
        self.size = 31337  # size of outside/sized.bin (get_file_info leak)
        self.populate()

    def populate(self) -> None:
        """(Re)create the fixture, so a case that escaped cannot mask the next one."""
        for d in (self.root2, self.outside):
            shutil.rmtree(d, ignore_errors=True)
        if os.path.isdir(self.root):
            for name in os.listdir(self.root):  # the root itself stays (the server resolved it)
                p = os.path.join(self.root, name)
                if os.path.isdir(p) and not os.path.islink(p):
                    shutil.rmtree(p)
                else:
                    os.unlink(p)
        for name in os.listdir(self.base):
            if name not in ("root", "root2", "outside"):
                p = os.path.join(self.base, name)
                shutil.rmtree(p) if os.path.isdir(p) and not os.path.islink(p) else os.unlink(p)
        for d in (self.root, self.root2, self.outside):
            os.makedirs(d, exist_ok=True)
        self.write(os.path.join(self.outside, "secret.txt"), self.secret_text + "\n")
        self.write(os.path.join(self.outside, self.hidden_name), "hidden\n")
        with open(os.path.join(self.outside, "sized.bin"), "wb") as f:
            f.write(b"z" * self.size)
        self.write(os.path.join(self.root2, "secret.txt"), self.sibling_text + "\n")
        self.write(os.path.join(self.root, "inside.txt"), "inside\n")
        self.write(os.path.join(self.root, "ok.txt"), "ok\n")
        os.symlink(os.path.join(self.outside, "secret.txt"), os.path.join(self.root, "link_file"))
        os.symlink(self.outside, os.path.join(self.root, "link_dir"))
        os.symlink(self.root2, os.path.join(self.root, "link_sibling"))
        os.symlink(os.path.join(self.outside, "created-by-dangling.txt"), os.path.join(self.root, "dangling"))

    @staticmethod
    def write(path: str, text: str) -> None:
        with open(path, "w") as f:
            f.write(text)

    def snapshot(self) -> dict[str, str]:
        """Everything under base except root/: path -> kind + content digest."""
        snap: dict[str, str] = {}
        for dirpath, dirnames, filenames in os.walk(self.base, followlinks=False):
            if dirpath == self.base:
                dirnames[:] = [d for d in dirnames if d != "root"]
                filenames = [f for f in filenames]
            for d in dirnames:
                p = os.path.join(dirpath, d)
                snap[p] = "link->" + os.readlink(p) if os.path.islink(p) else "dir"
            for f in filenames:
                p = os.path.join(dirpath, f)
                if os.path.islink(p):
                    snap[p] = "link->" + os.readlink(p)
                else:
                    with open(p, "rb") as fh:
                        snap[p] = "file:" + fh.read().hex()[:200] + f":{os.path.getsize(p)}"
        # Something created next to base itself (e.g. /tmp/hostile-files-x-XXXX/../)?
        return snap

    def leaks(self, text: str) -> list[str]:
        found = []
        for tok, what in ((self.secret_text, "outside file content"), (self.sibling_text, "root2 file content"),
                          (self.hidden_name, "outside file name"), (str(self.size), "outside file size")):
            if tok in text:
                found.append(what)
        return found

    def cleanup(self) -> None:
        shutil.rmtree(self.base, ignore_errors=True)


Call = tuple[str, Callable[["FilesWorld"], dict[str, Any]]]


def files_cases() -> list[tuple[str, list[Call]]]:
    o = lambda w, *p: os.path.join(w.outside, *p)  # noqa: E731
    r = lambda w, *p: os.path.join(w.root, *p)  # noqa: E731
    return [
        ("read ../ (root/../outside)", [("read_text_file", lambda w: {"path": r(w, "..", "outside", "secret.txt")})]),
        ("read ../ relative (cwd=root)", [("read_text_file", lambda w: {"path": "../outside/secret.txt"})]),
        ("read absolute outside", [("read_text_file", lambda w: {"path": o(w, "secret.txt")})]),
        ("read_multiple_files with outside", [("read_multiple_files", lambda w: {"paths": [r(w, "ok.txt"), o(w, "secret.txt")]})]),
        ("read_media_file outside", [("read_media_file", lambda w: {"path": o(w, "secret.txt")})]),
        ("write ../ new file", [("write_file", lambda w: {"path": r(w, "..", "outside", "new1.txt"), "content": "PWNED"})]),
        ("write ../ relative (cwd=root)", [("write_file", lambda w: {"path": "../outside/new1r.txt", "content": "PWNED"})]),
        ("write absolute outside (new)", [("write_file", lambda w: {"path": o(w, "new2.txt"), "content": "PWNED"})]),
        ("write absolute outside (overwrite)", [("write_file", lambda w: {"path": o(w, "secret.txt"), "content": "PWNED"})]),
        ("symlink in root -> outside: read", [("read_text_file", lambda w: {"path": r(w, "link_file")})]),
        ("symlink in root -> outside: media", [("read_media_file", lambda w: {"path": r(w, "link_file")})]),
        ("symlink in root -> outside: write", [("write_file", lambda w: {"path": r(w, "link_file"), "content": "PWNED"})]),
        ("symlink in root -> outside: edit", [("edit_file", lambda w: {"path": r(w, "link_file"), "edits": [{"oldText": "SECRET", "newText": "PWNED"}]})]),
        ("dangling symlink -> outside: write", [("write_file", lambda w: {"path": r(w, "dangling"), "content": "PWNED"})]),
        ("symlinked parent: read", [("read_text_file", lambda w: {"path": r(w, "link_dir", "secret.txt")})]),
        ("symlinked parent: write", [("write_file", lambda w: {"path": r(w, "link_dir", "new3.txt"), "content": "PWNED"})]),
        ("symlinked parent: create_directory", [("create_directory", lambda w: {"path": r(w, "link_dir", "newdir")})]),
        ("symlinked parent: list_directory", [("list_directory", lambda w: {"path": r(w, "link_dir")})]),
        ("sibling prefix root2: read", [("read_text_file", lambda w: {"path": os.path.join(w.root2, "secret.txt")})]),
        ("sibling prefix root2: write", [("write_file", lambda w: {"path": os.path.join(w.root2, "new4.txt"), "content": "PWNED"})]),
        ("sibling prefix via root/../root2", [("read_text_file", lambda w: {"path": r(w, "..", "root2", "secret.txt")})]),
        ("symlink in root -> root2: read", [("read_text_file", lambda w: {"path": r(w, "link_sibling", "secret.txt")})]),
        ("NUL byte: read", [("read_text_file", lambda w: {"path": o(w, "secret.txt") + "\x00"}),
                            ("read_text_file", lambda w: {"path": r(w, "ok.txt") + "\x00/../../outside/secret.txt"})]),
        ("NUL byte: write", [("write_file", lambda w: {"path": o(w, "nul1.txt") + "\x00" + r(w, "x.txt"), "content": "PWNED"}),
                             ("write_file", lambda w: {"path": r(w, "..", "outside", "nul2.txt") + "\x00", "content": "PWNED"})]),
        ("list_directory outside", [("list_directory", lambda w: {"path": w.outside})]),
        ("list_directory_with_sizes outside", [("list_directory_with_sizes", lambda w: {"path": w.outside})]),
        ("directory_tree (follows link_dir?)", [("directory_tree", lambda w: {"path": w.root})]),
        ("search_files (follows link_dir?)", [("search_files", lambda w: {"path": w.root, "pattern": "**/hidden-*"}),
                                              ("search_files", lambda w: {"path": w.root, "pattern": "hidden"})]),
        ("search_files outside", [("search_files", lambda w: {"path": w.outside, "pattern": "**/*"})]),
        ("get_file_info outside", [("get_file_info", lambda w: {"path": o(w, "sized.bin")})]),
        ("move_file root -> outside", [("move_file", lambda w: {"source": r(w, "inside.txt"), "destination": o(w, "moved.txt")})]),
        ("move_file outside -> root", [("move_file", lambda w: {"source": o(w, "secret.txt"), "destination": r(w, "stolen.txt")})]),
        ("move_file into symlinked parent", [("move_file", lambda w: {"source": r(w, "ok.txt"), "destination": r(w, "link_dir", "moved2.txt")})]),
        ("create_directory outside", [("create_directory", lambda w: {"path": o(w, "newdir2")})]),
        ("edit_file outside", [("edit_file", lambda w: {"path": o(w, "secret.txt"), "edits": [{"oldText": "SECRET", "newText": "PWNED"}]})]),
    ]


async def exists_case(conn: Conn, w: FilesWorld) -> Outcome:
    """`exists` (ours only): answering differently for an outside file and a missing one leaks."""
    if not await conn.has("exists"):
        return Outcome("n/a", "no exists tool")
    a = await conn.call("exists", {"path": os.path.join(w.outside, "secret.txt")})
    b = await conn.call("exists", {"path": os.path.join(w.outside, "no-such-file.txt")})
    c = await conn.call("exists", {"path": os.path.join(w.root, "link_dir", "secret.txt")})
    d = await conn.call("exists", {"path": os.path.join(w.root, "link_dir", "no-such-file.txt")})
    norm = lambda s, n: s.replace("no-such-file.txt", "secret.txt")  # noqa: E731
    if norm(a, 0) != norm(b, 0) or norm(c, 0) != norm(d, 0):
        return Outcome("ESCAPED", f"outside existence visible: {short(a, 40)!r} vs {short(b, 40)!r}")
    return Outcome("refused", short(a))


async def run_files_case(conn: Conn, w: FilesWorld, calls: list[Call]) -> Outcome:
    before = w.snapshot()
    texts: list[str] = []
    err = ""
    missing = False
    for tool, mk in calls:
        try:
            texts.append(await conn.call(tool, mk(w)))
        except ToolMissing as e:
            missing, err = True, str(e)
        except BaseException as e:  # noqa: BLE001
            err = f"{type(e).__name__}: {e}"
    after = w.snapshot()
    w.populate()
    changed = sorted(set(before.items()) ^ set(after.items()))
    leaked = w.leaks("\n".join(texts))
    if changed or leaked:
        paths = sorted({os.path.relpath(p, w.base) for p, _ in changed})
        why = []
        if paths:
            why.append("changed outside: " + ", ".join(paths))
        if leaked:
            why.append("leaked " + ", ".join(leaked))
        return Outcome("ESCAPED", "; ".join(why))
    if missing:
        return Outcome("error", err)
    if err:
        return Outcome("error", short(err))
    return Outcome("refused", short(" | ".join(texts)))


async def files_control(conn: Conn, w: FilesWorld) -> Outcome:
    """Inside the root, write then read back (and list): the harness sees an allowed effect."""
    p = os.path.join(w.root, "control.txt")
    tok = "CONTROL-" + secrets.token_hex(6)
    try:
        await conn.call("write_file", {"path": p, "content": tok})
        back = await conn.call("read_text_file", {"path": p})
    except BaseException as e:  # noqa: BLE001
        return Outcome("FAILED", short(f"{type(e).__name__}: {e}"))
    on_disk = open(p).read() if os.path.exists(p) else None
    if on_disk == tok and tok in back:
        return Outcome("ok", "write+read inside the root")
    return Outcome("FAILED", f"on disk {on_disk!r}, read back {short(back, 60)!r}")


async def files_table(ref_cmd: list[str], ours_cmd: list[str], errlog: io.TextIOBase) -> tuple[list[tuple[str, Outcome, Outcome]], str]:
    rows: dict[str, list[Outcome]] = {}
    order: list[str] = []
    for which, cmd_prefix in (("reference", ref_cmd), ("ours", ours_cmd)):
        w = FilesWorld(which)
        conn = Conn(f"{which} files", cmd_prefix + [w.root], cwd=w.root, errlog=errlog)
        try:
            entries: list[tuple[str, Callable[[], Awaitable[Outcome]]]] = [
                ("control: write+read inside root", lambda: files_control(conn, w))]
            for name, calls in files_cases():
                entries.append((name, lambda calls=calls: run_files_case(conn, w, calls)))
            entries.append(("exists outside (ours only)", lambda: exists_case(conn, w)))
            for name, fn in entries:
                try:
                    out = await fn()
                except BaseException as e:  # noqa: BLE001 -- e.g. the server cannot start
                    out = Outcome("error" if not name.startswith("control") else "FAILED", short(f"{type(e).__name__}: {e}"))
                if name not in rows:
                    order.append(name)
                    rows[name] = []
                rows[name].append(out)
        finally:
            await conn.close()
            w.cleanup()
    return [(n, rows[n][0], rows[n][1]) for n in order], "files"


# --------------------------------------------------------------------------- fetch
FETCH_CASES: list[tuple[str, str]] = [
    ("127.0.0.1", "http://127.0.0.1/"),
    ("localhost", "http://localhost/"),
    ("[::1]", "http://[::1]/"),
    ("[::ffff:127.0.0.1]", "http://[::ffff:127.0.0.1]/"),
    ("2130706433 (decimal)", "http://2130706433/"),
    ("0x7f000001 (hex)", "http://0x7f000001/"),
    ("0177.0.0.1 (octal)", "http://0177.0.0.1/"),
    ("127.1 (short)", "http://127.1/"),
    ("0.0.0.0", "http://0.0.0.0/"),
    ("169.254.169.254 (metadata)", "http://169.254.169.254/latest/meta-data/"),
    ("10.0.0.1", "http://10.0.0.1/"),
    ("192.168.1.1", "http://192.168.1.1/"),
    ("100.64.0.1 (CGNAT)", "http://100.64.0.1/"),
    ("file:///etc/passwd", "file:///etc/passwd"),
]
REDIRECT_CASES: list[tuple[str, str]] = [
    ("allowed host, other port (127.0.0.1:80)", "http://127.0.0.1/"),
    ("redirect allowed -> 169.254.169.254", f"http://127.0.0.1:{REDIRECT_PORT}/to-metadata"),
    ("redirect allowed -> 10.0.0.1", f"http://127.0.0.1:{REDIRECT_PORT}/to-10"),
    ("redirect allowed -> 127.0.0.1:80", f"http://127.0.0.1:{REDIRECT_PORT}/to-loopback-80"),
    ("redirect allowed -> localhost:80", f"http://127.0.0.1:{REDIRECT_PORT}/to-localhost"),
    ("redirect allowed -> file:///etc/passwd", f"http://127.0.0.1:{REDIRECT_PORT}/to-file"),
]
PASSWD_RE = re.compile(r"root:[^:\n]*:0:0:")


def url_args(tool: Any, url: str) -> dict[str, Any]:
    """{"url": url} plus a placeholder for any other required string argument (e.g. post's body)."""
    args: dict[str, Any] = {"url": url}
    schema = tool.input_schema or {}
    props = schema.get("properties") or {}
    for req in schema.get("required") or []:
        if req in args:
            continue
        t = (props.get(req) or {}).get("type")
        args[req] = {"string": "x", "object": {}, "array": [], "integer": 0, "number": 0, "boolean": False}.get(t, "x")
    return args


async def run_fetch_case(conn: Conn, tools: list[str], url: str) -> Outcome:
    """Each of `tools` (that the server has) on `url`; the worst outcome wins."""
    results: list[tuple[str, Outcome]] = []
    for tool in tools:
        try:
            if not await conn.has(tool):
                continue
        except BaseException as e:  # noqa: BLE001
            return Outcome("error", short(f"cannot start: {type(e).__name__}: {e}"))
        mark = RECORDER.mark()
        text, err = "", ""
        try:
            text = await conn.call(tool, url_args(conn.tools[tool], url))
        except BaseException as e:  # noqa: BLE001
            err = f"{type(e).__name__}: {e}"
        time.sleep(0.05)  # let a listener thread record a late accept
        contact = [f"{lbl}: {what}" for lbl, what in RECORDER.since(mark) if not lbl.startswith("redirector")]
        leaked = LEAK_BODY in text or bool(PASSWD_RE.search(text))
        if contact or leaked:
            why = ("contacted " + contact[0]) if contact else "leaked body in result"
            results.append((tool, Outcome("ESCAPED", why)))
        elif err:
            results.append((tool, Outcome("error", short(err))))
        else:
            results.append((tool, Outcome("refused", short(text))))
    if not results:
        return Outcome("error", f"none of the tools {tools} exist")
    for worst in ("ESCAPED", "error"):
        bad = [(t, o) for t, o in results if o.cell == worst]
        if bad:
            return Outcome(worst, "; ".join(f"{t}: {o.detail}" for t, o in bad))
    return Outcome("refused", "; ".join(f"{t}: {o.detail}" for t, o in results))


async def fetch_control(conn: Conn, tools: list[str]) -> Outcome:
    """The allowed listener is reached and its body returned: the harness sees contact."""
    outs = []
    for tool in tools:
        try:
            if not await conn.has(tool):
                continue
            mark = RECORDER.mark()
            text = await conn.call(tool, url_args(conn.tools[tool], f"http://127.0.0.1:{REDIRECT_PORT}/ok"))
        except BaseException as e:  # noqa: BLE001
            return Outcome("FAILED", short(f"{tool}: {type(e).__name__}: {e}"))
        time.sleep(0.05)
        contact = [w for lbl, w in RECORDER.since(mark) if lbl.startswith("redirector")]
        if not (contact and CONTROL_BODY in text):
            return Outcome("FAILED", f"{tool}: contact={bool(contact)} body={CONTROL_BODY in text}: {short(text, 60)}")
        outs.append(tool)
    if not outs:
        return Outcome("FAILED", f"none of the tools {tools} exist")
    return Outcome("ok", f"{'+'.join(outs)} reached the allowed listener")


async def fetch_table(ref_cmd: list[str], ours_bin: str, errlog: io.TextIOBase) -> tuple[list[tuple[str, Outcome, Outcome]], str]:
    ref_tools = ["fetch"]
    our_tools = ["fetch", "get", "post"]
    rows: list[tuple[str, Outcome, Outcome]] = []
    ref = Conn("reference fetch", ref_cmd + ["--ignore-robots-txt"], None, errlog)
    # The reference refuses every private address, so its control needs --allow-private-ips.
    ref_open = Conn("reference fetch (--allow-private-ips)", ref_cmd + ["--ignore-robots-txt", "--allow-private-ips"], None, errlog)
    ours = Conn("ours fetch", [ours_bin], None, errlog)
    ours_allow = Conn("ours fetch --allow-host", [ours_bin, "--allow-host", f"127.0.0.1:{REDIRECT_PORT}"], None, errlog)
    try:
        rows.append(("control: allowed 127.0.0.1:8080/ok", await fetch_control(ref_open, ref_tools),
                     await fetch_control(ours_allow, our_tools)))
        for name, url in FETCH_CASES:
            rows.append((name, await run_fetch_case(ref, ref_tools, url), await run_fetch_case(ours, our_tools, url)))
        for name, url in REDIRECT_CASES:
            rows.append((name, await run_fetch_case(ref, ref_tools, url), await run_fetch_case(ours_allow, our_tools, url)))
    finally:
        for c in (ref, ref_open, ours, ours_allow):
            await c.close()
    return rows, "fetch"


# --------------------------------------------------------------------------- table
def print_table(title: str, rows: list[tuple[str, Outcome, Outcome]], verbose: bool) -> None:
    w = max(len(r[0]) for r in rows)
    print(f"\n== hostile {title}: reference vs ours (judged by effect)")
    print(f"  {'case':<{w}}  {'reference':<9}  {'ours':<9}")
    print(f"  {'-' * w}  {'-' * 9}  {'-' * 9}")
    for name, ref, ours in rows:
        print(f"  {name:<{w}}  {ref.cell:<9}  {ours.cell:<9}")
        if verbose or ref.cell not in ("refused", "ok", "n/a") or ours.cell not in ("refused", "ok"):
            print(f"  {'':<{w}}    ref : {ref.detail}")
            print(f"  {'':<{w}}    ours: {ours.detail}")


def ours_failures(rows: list[tuple[str, Outcome, Outcome]]) -> list[str]:
    return [f"{name}: {ours.cell}" for name, _, ours in rows if ours.cell not in ("refused", "ok", "n/a")]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--target", required=True, help="directory holding our `files` and `fetch` binaries")
    ap.add_argument("--only", choices=["files", "fetch"], help="run one table only")
    ap.add_argument("--verbose", "-v", action="store_true", help="print every cell's detail")
    args = ap.parse_args()

    reexec_in_netns()
    assert_isolated()

    import anyio

    node = os.environ.get("MCP_NODE")
    fs_js = os.environ.get("MCP_SERVER_FILESYSTEM_JS")
    fetch_ref = os.environ.get("MCP_SERVER_FETCH")
    for name, val in (("MCP_NODE", node), ("MCP_SERVER_FILESYSTEM_JS", fs_js), ("MCP_SERVER_FETCH", fetch_ref)):
        if not val or not os.path.exists(val):
            print(f"hostile.py: ${name}={val!r} is missing: run scripts/install-tools.sh and source .tools/env.sh", file=sys.stderr)
            return 2
    target = os.path.abspath(args.target)
    ours_files = os.path.join(target, "files")
    ours_fetch = os.path.join(target, "fetch")
    for b in ((ours_files,) if args.only == "files" else (ours_fetch,) if args.only == "fetch" else (ours_files, ours_fetch)):
        if not os.access(b, os.X_OK):
            print(f"hostile.py: {b} is not an executable (build the examples first)", file=sys.stderr)
            return 2

    log_path = os.path.join(tempfile.gettempdir(), f"hostile-servers-{os.getpid()}.log")
    errlog = open(log_path, "w")
    print(f"== hostile table; servers' stderr -> {log_path}")
    print(f"== reference: node {fs_js}; {fetch_ref} --ignore-robots-txt")
    print(f"== ours: {ours_files}; {ours_fetch}")

    listeners = start_listeners() if args.only != "files" else []
    tables = []
    try:
        if args.only != "fetch":
            tables.append(anyio.run(files_table, [node, fs_js], [ours_files], errlog))
        if args.only != "files":
            tables.append(anyio.run(fetch_table, [fetch_ref], ours_fetch, errlog))
    finally:
        for s in listeners:
            s.shutdown()
        errlog.close()

    failures: list[str] = []
    ref_fail: list[str] = []
    for rows, title in tables:
        print_table(title, rows, args.verbose)
        failures += [f"{title}: {f}" for f in ours_failures(rows)]
        ref_fail += [f"{title}: {n}: {r.cell}" for n, r, _ in rows if r.cell not in ("refused", "ok", "n/a")]
    print()
    if ref_fail:
        print(f"reference: {len(ref_fail)} case(s) not refused (reported, not an error):")
        for f in ref_fail:
            print(f"  {f}")
    if failures:
        print(f"OURS FAILED {len(failures)} case(s):")
        for f in failures:
            print(f"  {f}")
        return 1
    print("ours: every hostile case refused, controls ok")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
