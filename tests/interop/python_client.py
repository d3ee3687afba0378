#!/usr/bin/env python3
"""Drive a "calculator" MCP server with the real Python `mcp` 2.3.0 client.

    python_client.py --mode {legacy,auto,2026-07-28} [--reference] [--expect-auto V] \\
        -- <server command and args...>                      # stdio (starts the server)
    python_client.py --mode {legacy,auto,2026-07-28} [...] --url http://HOST:PORT/mcp
                                                             # Streamable HTTP (running server)
    python_client.py --mode legacy [...] --sse-url http://HOST:PORT/sse
                                                             # 2024-11-05 HTTP+SSE (running server)

Run it with the venv interpreter from scripts/install-tools.sh ($MCP_PYTHON).
Uses the high-level `mcp.Client(StdioServerParameters(...), mode=...)`, whose
typed result parsing is strict (e.g. modern results without `resultType` are
rejected, `structuredContent` is validated against the tool's `outputSchema`).

Prints one line per check (PASS/FAIL/INFO) and exits non-zero if any check
failed or the connection could not be made.

  --mode legacy       initialize handshake; expects protocol 2025-11-25
  --mode auto         server/discover probe, falls back to initialize; prints the
                      negotiated version (checked against --expect-auto if given)
  --mode 2026-07-28   adopts 2026-07-28 directly (no probe); the script then sends
                      one explicit server/discover to check the server's identity
  --reference         relax ONLY the "validation error names the argument" check
                      (still requires isError:true), for reference servers whose
                      validation message is not under our control
  --url URL           Streamable HTTP: `mcp.Client(URL, mode=...)` against an already
                      running server (nothing is started)
  --sse-url URL       legacy HTTP+SSE: `sse_client(URL)` + `ClientSession` + initialize
                      (only with --mode legacy)

Over HTTP the server process (and its calculator memory) outlives this client,
so the store/recall check does not assume the memory starts at 0: it checks the
chain store(7) -> <anything>, recall() == 7, store(11) -> 7, recall() == 11.
"""

from __future__ import annotations

import argparse
import builtins
import json
import os
import re
import sys
import traceback
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import mcp_types as types
from mcp import Client, ClientSession, StdioServerParameters
from mcp.client.sse import sse_client

SERVER_NAME = "calculator"
MODERN = "2026-07-28"
LEGACY = "2025-11-25"

# name -> (required args, {arg: JSON type})
EXPECTED_TOOLS: dict[str, tuple[set[str], dict[str, str]]] = {
    "add": ({"a", "b"}, {"a": "number", "b": "number"}),
    "subtract": ({"a", "b"}, {"a": "number", "b": "number"}),
    "multiply": ({"a", "b"}, {"a": "number", "b": "number"}),
    "divide": ({"a", "b"}, {"a": "number", "b": "number"}),
    "store": ({"value"}, {"value": "number"}),
    "recall": (set(), {}),
    "stats": ({"values"}, {"values": "array"}),
    "count_to": ({"n"}, {"n": "integer"}),
}
EXPECTED_DESCRIPTIONS = {
    "add": "Add two numbers",
    "subtract": "Subtract b from a",
    "multiply": "Multiply two numbers",
    "divide": "Divide a by b",
    "store": "Store a value in memory and return the previous one",
    "recall": "Return the value in memory",
    "stats": "Summary statistics of a list of numbers",
    "count_to": "Count to n, reporting progress",
}
STATS_EXPECTED = {"count": 3, "sum": 6.0, "mean": 2.0, "min": 1.0, "max": 3.0}

# Environment passed through to the server on top of the SDK's safe default
# (HOME, LOGNAME, PATH, SHELL, TERM, USER): the SDK does NOT inherit the rest.
PASS_ENV = ("RUST_LOG", "RUST_BACKTRACE", "MCP_LOG", "LLVM_PROFILE_FILE")


class Checks:
    def __init__(self, label: str) -> None:
        self.label = label
        self.failed: list[str] = []
        self.passed = 0

    def ok(self, name: str, cond: bool, detail: str = "") -> bool:
        if cond:
            self.passed += 1
            print(f"[{self.label}] PASS {name}" + (f" ({detail})" if detail else ""), flush=True)
        else:
            self.failed.append(name)
            print(f"[{self.label}] FAIL {name}" + (f": {detail}" if detail else ""), flush=True)
        return cond

    def info(self, msg: str) -> None:
        print(f"[{self.label}] INFO {msg}", flush=True)


def texts(result: types.CallToolResult) -> list[str]:
    return [c.text for c in result.content if isinstance(c, types.TextContent)]


def only_text(result: types.CallToolResult) -> str | None:
    t = texts(result)
    return t[0] if len(t) == 1 and len(result.content) == 1 else None


def names_argument(text: str, arg: str) -> bool:
    """Whether an error text *names* the argument `arg`, not merely contains the letter.

    Accepted forms: quoted ('a', "a", `a`), "argument a" / "parameter a" /
    "field a" / "property a", "a:" (field-prefixed message), a JSON pointer
    "/a", or a line consisting of just the name (pydantic's layout).
    """
    a = re.escape(arg)
    patterns = [
        rf"['\"`]{a}['\"`]",
        rf"\b(?:argument|parameter|param|field|property|key)s?\s+['\"`]?{a}\b",
        rf"(?<![\w/.-]){a}:",
        rf"(?<![\w])/{a}\b",
        rf"(?m)^\s*{a}\s*$",
    ]
    return any(re.search(p, text, re.IGNORECASE if len(arg) > 1 else 0) for p in patterns)


def _self_test_names_argument() -> None:
    assert names_argument("invalid type for argument 'a'", "a")
    assert names_argument("a: invalid type: string \"x\", expected f64", "a")
    assert names_argument("1 validation error for addArguments\na\n  Input should be a valid number", "a")
    assert names_argument("/a must be number", "a")
    assert not names_argument("Input should be a valid number", "a")
    assert not names_argument("invalid arguments: expected a number", "a")


class _SessionClient:
    """The slice of `mcp.Client` that `run` uses, over a bare legacy `ClientSession`."""

    def __init__(self, session: ClientSession) -> None:
        self.session = session

    @property
    def protocol_version(self) -> str | None:
        return self.session.protocol_version

    @property
    def server_info(self) -> types.Implementation | None:
        return self.session.server_info

    @property
    def server_capabilities(self) -> types.ServerCapabilities | None:
        return self.session.server_capabilities

    async def list_tools(self) -> types.ListToolsResult:
        return await self.session.list_tools()

    async def call_tool(self, name: str, arguments: dict[str, Any], **kw: Any) -> types.CallToolResult:
        return await self.session.call_tool(name, arguments, **kw)


@asynccontextmanager
async def connect(
    mode: str, server_cmd: list[str] | None, url: str | None, sse_url: str | None
) -> AsyncIterator[Any]:
    """Yield a connected client: stdio (spawns server_cmd), Streamable HTTP (url) or HTTP+SSE (sse_url)."""
    if sse_url is not None:
        # The 2024-11-05 transport: GET the SSE endpoint, POST to its `endpoint` event's URI.
        async with sse_client(sse_url) as (read, write):
            async with ClientSession(read, write, read_timeout_seconds=30) as session:
                await session.initialize()
                yield _SessionClient(session)
    elif url is not None:
        async with Client(url, mode=mode, read_timeout_seconds=30) as client:
            yield client
    else:
        assert server_cmd
        env = {k: os.environ[k] for k in PASS_ENV if k in os.environ}
        params = StdioServerParameters(command=server_cmd[0], args=server_cmd[1:], env=env or None)
        async with Client(params, mode=mode, read_timeout_seconds=30) as client:
            yield client


async def run(
    mode: str,
    server_cmd: list[str] | None,
    reference: bool,
    expect_auto: str | None,
    url: str | None = None,
    sse_url: str | None = None,
    label: str | None = None,
) -> Checks:
    c = Checks(label or mode)
    if sse_url is not None:
        c.info(f"server: HTTP+SSE {sse_url}")
    elif url is not None:
        c.info(f"server: Streamable HTTP {url}")
    else:
        c.info(f"server: {' '.join(server_cmd or [])}")
    # A stdio server is a fresh process per run; an HTTP server is shared by all runs.
    fresh_memory = url is None and sse_url is None

    async with connect(mode, server_cmd, url, sse_url) as client:
        # ---------------------------------------------------------- handshake
        pv = client.protocol_version
        if mode == "legacy":
            c.ok("protocol version", pv == LEGACY, f"negotiated {pv!r}, expected {LEGACY!r}")
        elif mode == MODERN:
            c.ok("protocol version", pv == MODERN, f"negotiated {pv!r}, expected {MODERN!r}")
        else:
            if expect_auto:
                c.ok("protocol version", pv == expect_auto, f"auto negotiated {pv!r}, expected {expect_auto!r}")
            else:
                c.ok("protocol version", pv in (LEGACY, MODERN), f"auto negotiated {pv!r}")
        modern = pv == MODERN

        info = client.server_info
        disc: types.DiscoverResult | None = None
        if mode == MODERN:
            # A pinned version skips the probe, so nothing has identified the
            # server yet: ask server/discover explicitly (a MUST in 2026-07-28)
            # and parse it with the typed model.
            raw = await client.session.send_discover(MODERN)
            disc = types.DiscoverResult.model_validate(raw)
            c.ok(
                "server/discover supportedVersions",
                MODERN in disc.supported_versions,
                f"supportedVersions={disc.supported_versions}",
            )
            stamp = (disc.meta or {}).get("io.modelcontextprotocol/serverInfo")
            info = types.Implementation.model_validate(stamp) if stamp else None
        name = info.name if info else None
        c.ok("server name", name == SERVER_NAME, f"serverInfo.name={name!r}")
        if info:
            c.info(f"serverInfo: name={info.name!r} version={info.version!r}")
        # A pinned version installs a synthesized, empty capability set, so use
        # the explicit discover result's capabilities in that mode.
        caps = disc.capabilities if disc is not None else client.server_capabilities
        c.ok("tools capability", caps.tools is not None, f"capabilities={caps.model_dump(exclude_none=True)}")

        # ---------------------------------------------------------- tools/list
        listed = await client.list_tools()
        tools = {t.name: t for t in listed.tools}
        if listed.next_cursor:
            c.info(f"tools/list returned nextCursor={listed.next_cursor!r}; only the first page is checked")
        c.ok(
            "tools/list names",
            set(tools) == set(EXPECTED_TOOLS) and len(listed.tools) == len(EXPECTED_TOOLS),
            f"got {[t.name for t in listed.tools]}",
        )
        for tname, (required, props) in EXPECTED_TOOLS.items():
            t = tools.get(tname)
            if t is None:
                c.ok(f"tool {tname}", False, "missing")
                continue
            problems: list[str] = []
            if not t.description:
                problems.append("empty description")
            elif t.description != EXPECTED_DESCRIPTIONS[tname]:
                problems.append(f"description {t.description!r} != {EXPECTED_DESCRIPTIONS[tname]!r}")
            schema = t.input_schema or {}
            if schema.get("type") != "object":
                problems.append(f"inputSchema.type={schema.get('type')!r}")
            got_props = schema.get("properties") or {}
            if set(got_props) != set(props):
                problems.append(f"properties {sorted(got_props)} != {sorted(props)}")
            for p, jtype in props.items():
                ps = got_props.get(p) or {}
                if not ps.get("description"):
                    problems.append(f"property {p!r} has no description")
                if ps.get("type") != jtype:
                    problems.append(f"property {p!r} type {ps.get('type')!r} != {jtype!r}")
                if jtype == "array" and (ps.get("items") or {}).get("type") != "number":
                    problems.append(f"property {p!r} items {ps.get('items')!r} are not numbers")
            got_req = set(schema.get("required") or [])
            if got_req != required:
                problems.append(f"required {sorted(got_req)} != {sorted(required)}")
            if tname == "stats":
                osch = t.output_schema or {}
                oprops = osch.get("properties") or {}
                want = {"count": "integer", "sum": "number", "mean": "number", "min": "number", "max": "number"}
                if osch.get("type") != "object":
                    problems.append(f"outputSchema missing or not an object: {t.output_schema!r}")
                for k, v in want.items():
                    if (oprops.get(k) or {}).get("type") != v:
                        problems.append(f"outputSchema.{k} type {(oprops.get(k) or {}).get('type')!r} != {v!r}")
            c.ok(f"tool {tname} schema", not problems, "; ".join(problems) if problems else "")

        # ---------------------------------------------------------- calls
        async def call(name: str, args: dict[str, Any], **kw: Any) -> types.CallToolResult:
            return await client.call_tool(name, args, **kw)

        r = await call("add", {"a": 2, "b": 3})
        c.ok("add(2,3)", only_text(r) == "5" and r.is_error is False, f"text={texts(r)} isError={r.is_error}")
        if modern:
            stamp = (r.meta or {}).get("io.modelcontextprotocol/serverInfo")
            c.info(f"tools/call result _meta serverInfo stamp (SHOULD): {stamp!r}")
        for tname, args, want in (
            ("add", {"a": 1.5, "b": 1}, "2.5"),
            ("subtract", {"a": 2, "b": 5}, "-3"),
            ("multiply", {"a": 2.5, "b": 4}, "10"),
            ("divide", {"a": 7, "b": 2}, "3.5"),
        ):
            r = await call(tname, args)
            c.ok(f"{tname}({args['a']},{args['b']})", only_text(r) == want and not r.is_error, f"text={texts(r)} want {want!r}")

        r = await call("divide", {"a": 1, "b": 0})
        c.ok(
            "divide(1,0) isError",
            r.is_error is True and any("division by zero" in t for t in texts(r)),
            f"isError={r.is_error} text={texts(r)}",
        )

        r = await call("stats", {"values": [1, 2, 3]})
        sc = r.structured_content
        good = (
            not r.is_error
            and isinstance(sc, dict)
            and sc == STATS_EXPECTED
            and type(sc.get("count")) is int
        )
        c.ok("stats([1,2,3]) structuredContent", good, f"structuredContent={sc!r} isError={r.is_error}")
        parsed = []
        for t in texts(r):
            try:
                parsed.append(json.loads(t))
            except ValueError:
                pass
        c.ok("stats text block holds the same JSON", sc in parsed and sc is not None, f"text={texts(r)}")
        c.ok("stats tool has outputSchema", bool(tools.get("stats") and tools["stats"].output_schema))

        r = await call("stats", {"values": []})
        c.ok(
            "stats([]) isError",
            r.is_error is True and any("no values" in t for t in texts(r)),
            f"isError={r.is_error} text={texts(r)}",
        )

        r = await call("store", {"value": 7})
        if fresh_memory:
            c.ok("store(7) returns previous 0", only_text(r) == "0" and not r.is_error, f"text={texts(r)}")
        else:
            prev = only_text(r)
            try:
                float(prev or "")
                is_number = True
            except ValueError:
                is_number = False
            c.ok("store(7) returns the previous value", is_number and not r.is_error, f"text={texts(r)}")
            c.info(f"memory before store(7) was {prev!r} (a shared HTTP server keeps it between clients)")
        r = await call("recall", {})
        c.ok("recall() == 7", only_text(r) == "7" and not r.is_error, f"text={texts(r)}")
        if not fresh_memory:
            r = await call("store", {"value": 11})
            c.ok("store(11) returns previous 7", only_text(r) == "7" and not r.is_error, f"text={texts(r)}")
            r = await call("recall", {})
            c.ok("recall() == 11", only_text(r) == "11" and not r.is_error, f"text={texts(r)}")

        progress: list[tuple[float, float | None, str | None]] = []

        async def on_progress(p: float, total: float | None, message: str | None) -> None:
            progress.append((p, total, message))

        r = await call("count_to", {"n": 3}, progress_callback=on_progress)
        c.ok("count_to(3) result", only_text(r) == "counted to 3" and not r.is_error, f"text={texts(r)}")
        increasing = all(b[0] > a[0] for a, b in zip(progress, progress[1:]))
        c.ok(
            "count_to(3) progress notifications",
            len(progress) == 3 and increasing,
            f"received {len(progress)}: {progress}",
        )

        r = await call("add", {"a": "x", "b": 3})
        all_text = "\n".join(texts(r))
        named = names_argument(all_text, "a")
        if reference and r.is_error is True and not named:
            c.info(f"--reference: argument-name check RELAXED (text does not name 'a'): {all_text!r}")
            c.ok("add(a='x') isError (relaxed)", True)
        elif reference:
            c.info("--reference given, but the strict argument-name check passed anyway")
            c.ok("add(a='x') isError naming 'a'", r.is_error is True and named, f"text={all_text!r}")
        else:
            c.ok(
                "add(a='x') isError naming 'a'",
                r.is_error is True and named,
                f"isError={r.is_error} text={all_text!r}",
            )
    return c


def _leaves(e: BaseException) -> list[BaseException]:
    """The innermost exceptions of a (possibly nested) exception group."""
    group = getattr(builtins, "BaseExceptionGroup", None)  # Python >= 3.11
    if group is not None and isinstance(e, group):
        return [leaf for sub in e.exceptions for leaf in _leaves(sub)]
    return [e]


def main() -> int:
    ap = argparse.ArgumentParser(description="Python mcp client interop checks against a calculator server")
    ap.add_argument("--mode", required=True, choices=["legacy", "auto", MODERN])
    ap.add_argument("--reference", action="store_true", help="relax only the validation-message argument-name check")
    ap.add_argument("--expect-auto", metavar="VERSION", help="in --mode auto, require this negotiated version")
    ap.add_argument("--timeout", type=float, default=120.0, help="overall timeout in seconds (default 120)")
    target = ap.add_mutually_exclusive_group()
    target.add_argument("--url", metavar="URL", help="Streamable HTTP endpoint of a running server (e.g. http://127.0.0.1:PORT/mcp)")
    target.add_argument("--sse-url", metavar="URL", help="legacy HTTP+SSE endpoint of a running server (e.g. http://127.0.0.1:PORT/sse)")
    ap.add_argument("server", nargs=argparse.REMAINDER, help="-- <server command and args...> (stdio only)")
    ns = ap.parse_args()
    server = ns.server[1:] if ns.server[:1] == ["--"] else ns.server
    if ns.url or ns.sse_url:
        if server:
            ap.error("a server command cannot be combined with --url/--sse-url")
        if ns.sse_url and ns.mode != "legacy":
            ap.error("--sse-url (the 2024-11-05 HTTP+SSE transport) needs --mode legacy")
    elif not server:
        ap.error("missing server command after -- (or --url/--sse-url)")
    _self_test_names_argument()

    label = ns.mode if not (ns.url or ns.sse_url) else f"{'sse' if ns.sse_url else 'http'}/{ns.mode}"
    try:

        async def guarded() -> Checks:
            with anyio.fail_after(ns.timeout):
                return await run(
                    ns.mode, server or None, ns.reference, ns.expect_auto, ns.url, ns.sse_url, label
                )

        checks = anyio.run(guarded)
    except BaseException as e:  # noqa: BLE001 - report anything, including ExceptionGroups
        if isinstance(e, KeyboardInterrupt):
            raise
        traceback.print_exc()
        for leaf in _leaves(e):
            print(f"[{label}] FAIL connection/protocol error: {type(leaf).__name__}: {leaf}", flush=True)
        print(f"[{label}] RESULT: FAILED (aborted)", flush=True)
        return 1
    if checks.failed:
        print(f"[{label}] RESULT: {checks.passed} passed, {len(checks.failed)} failed: {', '.join(checks.failed)}")
        return 1
    print(f"[{label}] RESULT: {checks.passed} passed, 0 failed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
