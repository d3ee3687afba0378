#!/usr/bin/env python3
"""A slow MCP server written with the Python `mcp` SDK, for our client's
long-call tests (mcp-client/tests/client/long_calls.rs):

- `progress_for(seconds)`: reports progress once a second, then answers;
- `stall(seconds)`: says nothing until it answers; if the call is cancelled
  first, it appends a line to the file named by `--cancelled`.

    slow_reference.py --cancelled FILE      # stdio
"""

from __future__ import annotations

import argparse

import anyio
from mcp.server.mcpserver import Context, MCPServer


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--cancelled", required=True)
    a = p.parse_args()
    server = MCPServer("slow")

    @server.tool(description="Report progress once a second for `seconds` seconds, then answer")
    async def progress_for(seconds: int, ctx: Context) -> str:
        for i in range(seconds):
            await anyio.sleep(1)
            await ctx.report_progress(i + 1, seconds, f"second {i + 1}")
        return f"done after {seconds} s"

    @server.tool(description="Say nothing for `seconds` seconds, then answer")
    async def stall(seconds: int) -> str:
        try:
            await anyio.sleep(seconds)
        except anyio.get_cancelled_exc_class():
            with open(a.cancelled, "a") as f:
                f.write("stall cancelled\n")
            raise
        return "stalled"

    server.run("stdio")


if __name__ == "__main__":
    main()
