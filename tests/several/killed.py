"""One legacy session through the proxy while one instance is killed.

Opens a Streamable HTTP session with the Python mcp client (2025-11-25),
calls tools through the round-robin proxy (so both instances serve it),
SIGKILLs the instance `--kill PID`, and goes on calling in the same session:
every call must succeed (the proxy sends the requests to the instance that
is left, which takes the session up from Redis). Prints one `ok` line per
step; exits 1 on the first failure.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys

import anyio
from mcp import Client


async def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--url", required=True)
    ap.add_argument("--kill", type=int, required=True)
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
        print(f"ok killed instance pid {a.kill}")
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
