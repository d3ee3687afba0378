#!/usr/bin/env python3
"""Reference "calculator" MCP server written with the Python `mcp` 2.3.0 SDK.

It offers exactly the tool set of the framework's Rust calculator example, so
the interop scripts (python_client.py, inspector_stdio.sh) can be proved
against a known-good, dual-era (legacy 2025-11-25 + modern 2026-07-28) peer,
and so our own client can later be tested against a foreign server.

Run it with the venv interpreter installed by scripts/install-tools.sh:

    .tools/pyenv/bin/python tests/interop/reference_calculator.py            # stdio
    .tools/pyenv/bin/python tests/interop/reference_calculator.py \\
        --transport streamable-http --port 3200                             # http://127.0.0.1:3200/mcp

Known difference from the Rust server: argument-validation failures come back
as `isError: true` with pydantic's message (which names the argument), not
with the Rust server's wording.
"""

from __future__ import annotations

import argparse
import math
from decimal import Decimal
from typing import Annotated

from mcp.server.mcpserver import Context, MCPServer
from mcp_types import CallToolResult, TextContent
from pydantic import BaseModel, Field

SERVER_NAME = "calculator"
SERVER_VERSION = "0.1.0"


def rust_f64(x: float) -> str:
    """Format a float like Rust's `impl Display for f64`.

    Shortest round-trip digits, never exponent notation, no trailing ".0":
    5.0 -> "5", 2.5 -> "2.5", 1e20 -> "100000000000000000000", -0.0 -> "-0".
    """
    x = float(x)
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    s = format(Decimal(repr(x)), "f")
    if "." in s:
        s = s.rstrip("0").rstrip(".")
    return s


def text(s: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=s)])


def error(s: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=s)], is_error=True)


class Stats(BaseModel):
    count: int
    sum: float
    mean: float
    min: float
    max: float


A = Annotated[float, Field(description="The first number")]
B = Annotated[float, Field(description="The second number")]

mcp = MCPServer(SERVER_NAME, version=SERVER_VERSION)

# The calculator's memory. One per server process: stdio serves one client per
# process, so store/recall pair up in both eras (the modern era is stateless
# per request, but the process is not).
_memory: float = 0.0


@mcp.tool(description="Add two numbers", structured_output=False)
def add(a: A, b: B) -> CallToolResult:
    return text(rust_f64(a + b))


@mcp.tool(description="Subtract b from a", structured_output=False)
def subtract(a: A, b: B) -> CallToolResult:
    return text(rust_f64(a - b))


@mcp.tool(description="Multiply two numbers", structured_output=False)
def multiply(a: A, b: B) -> CallToolResult:
    return text(rust_f64(a * b))


@mcp.tool(description="Divide a by b", structured_output=False)
def divide(a: A, b: B) -> CallToolResult:
    if b == 0:
        return error("division by zero")
    return text(rust_f64(a / b))


@mcp.tool(description="Store a value in memory and return the previous one", structured_output=False)
def store(value: Annotated[float, Field(description="The value to store")]) -> CallToolResult:
    global _memory
    previous, _memory = _memory, float(value)
    return text(rust_f64(previous))


@mcp.tool(description="Return the value in memory", structured_output=False)
def recall() -> CallToolResult:
    return text(rust_f64(_memory))


@mcp.tool(description="Summary statistics of a list of numbers", structured_output=True)
def stats(values: Annotated[list[float], Field(description="The numbers to summarise")]) -> Stats:
    if not values:
        # An isError result skips output-schema validation (SDK and spec alike).
        return error("no values")  # type: ignore[return-value]
    total = float(sum(values))
    return Stats(count=len(values), sum=total, mean=total / len(values), min=min(values), max=max(values))


@mcp.tool(description="Count to n, reporting progress", structured_output=False)
async def count_to(n: Annotated[int, Field(description="The number to count to")], ctx: Context) -> CallToolResult:
    for i in range(1, n + 1):
        # A no-op when the caller sent no progressToken.
        await ctx.report_progress(i, n, f"{i}/{n}")
    return text(f"counted to {n}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--transport", choices=["stdio", "streamable-http", "sse"], default="stdio")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=3200)
    args = p.parse_args()
    if args.transport == "stdio":
        mcp.run("stdio")
    else:
        mcp.run(args.transport, host=args.host, port=args.port)  # type: ignore[call-overload]


if __name__ == "__main__":
    main()
