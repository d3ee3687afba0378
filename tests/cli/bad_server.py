#!/usr/bin/env python3
"""A server written to be bad, for `mcp check` (tests/cli/run.sh), with the
Python `mcp` SDK over stdio:

  - `undocumented`: a tool with no description (an error);
  - `labels`: a parameter that is a map of strings, a schema OpenAI's strict
    mode refuses (a warning: it is sent non-strict);
  - `huge`: a description of about 60,000 tokens, which makes the listing
    larger than hosts afford (a warning);
  - `dump`: a read-only tool whose result is about 30,000 tokens, more than
    hosts take from one call (a warning of `mcp check --call`).

    .tools/pyenv/bin/python tests/cli/bad_server.py
"""

from typing import Annotated

from mcp.server.mcpserver import MCPServer
from mcp_types import ToolAnnotations
from pydantic import Field

mcp = MCPServer("bad", version="0.0.1")


@mcp.tool(description="")
def undocumented(x: Annotated[int, Field(description="A number")]) -> str:
    return str(x)


@mcp.tool(description="Attach labels")
def labels(labels: Annotated[dict[str, str], Field(description="Name to value")]) -> str:
    return ",".join(labels)


@mcp.tool(description="Does a lot. " + "It is described at great length. " * 7_300)
def huge(n: Annotated[int, Field(description="A number")]) -> str:
    return str(n)


@mcp.tool(description="Dump everything", annotations=ToolAnnotations(readOnlyHint=True))
def dump(topic: Annotated[str, Field(description="What to dump")]) -> str:
    return f"{topic}: " + "row of data " * 10_000


if __name__ == "__main__":
    mcp.run()
