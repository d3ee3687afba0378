#!/usr/bin/env python3
"""The Python `mcp` client as a peer whose trace our server must continue.

    python_peer.py --traceparent TP -- <server command and args...>
        stdio, legacy handshake: `tools/call add {a: 2, b: 3}` with
        `params._meta.traceparent = TP` (SEP-414), then `tools/call nope`
        (a tool that does not exist: a JSON-RPC error the server's span
        records), then closes (the server's session ends).
    python_peer.py --header-traceparent TP --url http://HOST:PORT/mcp
        Streamable HTTP, legacy handshake, every HTTP request carrying the
        `traceparent: TP` header and no trace context in `_meta`:
        `tools/call add {a: 2, b: 3}`.

Run with the venv interpreter from scripts/install-tools.sh ($MCP_PYTHON).
The server process inherits this process's environment (its OTEL_*
variables), which the Python client otherwise filters. Prints PASS/FAIL
lines and exits non-zero if any check failed.
"""

from __future__ import annotations

import argparse
import os
import sys

import anyio
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

failed = 0


def check(ok: bool, what: str) -> None:
    global failed
    print(f"{'PASS' if ok else 'FAIL'} {what}", flush=True)
    if not ok:
        failed += 1


def text_of(result) -> str:
    return " ".join(getattr(block, "text", "") for block in result.content)


async def over_stdio(traceparent: str, command: list[str]) -> None:
    params = StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ))
    async with Client(params, mode="legacy") as client:
        result = await client.call_tool("add", {"a": 2, "b": 3}, meta={"traceparent": traceparent})
        check(not result.is_error and "5" in text_of(result), f"stdio: add(2, 3) with _meta.traceparent answered {text_of(result)!r}")
        try:
            result = await client.call_tool("nope", {})
            check(bool(result.is_error), "stdio: calling an unknown tool fails")
        except Exception as e:  # the JSON-RPC error -32602, as the spec names it
            check("nope" in str(e), f"stdio: calling an unknown tool is a JSON-RPC error ({e})")


async def over_http(traceparent: str, url: str) -> None:
    http = create_mcp_http_client(headers={"traceparent": traceparent})
    async with http:
        async with Client(streamable_http_client(url, http_client=http), mode="legacy") as client:
            result = await client.call_tool("add", {"a": 2, "b": 3})
            check(not result.is_error and "5" in text_of(result), f"http: add(2, 3) with a traceparent header answered {text_of(result)!r}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--traceparent", help="sent in _meta (stdio)")
    parser.add_argument("--header-traceparent", help="sent as the HTTP header (with --url)")
    parser.add_argument("--url")
    parser.add_argument("command", nargs="*")
    args = parser.parse_args()
    if args.url and args.header_traceparent:
        anyio.run(over_http, args.header_traceparent, args.url)
    elif args.command and args.traceparent:
        anyio.run(over_stdio, args.traceparent, args.command)
    else:
        parser.error("give --traceparent with a server command, or --header-traceparent with --url")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
