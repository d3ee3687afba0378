#!/usr/bin/env python3
"""Drive the `tool_search` example (300 tools in tool search mode) with the
real Python `mcp` client in one era: `tools/list` offers the pinned tools
and `search_tools`; a search finds a deep tool, with its full definition as
`structuredContent` (which the client checks against the output schema)
and as text; calling the found tool, which is not listed, works; bad
arguments get an isError result.

    python_search.py --mode {legacy,2026-07-28} -- <tool_search command...>

Prints one line per check (PASS/FAIL); exits non-zero if any failed.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

import anyio
from mcp import Client, StdioServerParameters

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "interop"))
from python_notes import Checks  # noqa: E402 - after the path it is found on


def text(result: Any) -> str:
    return "".join(getattr(c, "text", "") for c in result.content)


async def run(mode: str, server: list[str]) -> Checks:
    c = Checks(f"{mode} stdio")
    target = StdioServerParameters(command=server[0], args=server[1:])
    async with Client(target, mode=mode, read_timeout_seconds=60) as client:
        listed = {t.name: t for t in (await client.list_tools()).tools}
        c.ok("list: the pinned tools and the search tool", sorted(listed) == ["calendar_list_event", "github_list_issue", "search_tools"], f"{sorted(listed)}")
        search = listed.get("search_tools")
        c.ok("the search tool has an output schema", bool(search and (search.output_schema or {}).get("properties", {}).get("tools")), f"{search}")

        r = await client.call_tool("search_tools", {"query": "refund an invoice"})
        found = (r.structured_content or {}).get("tools") or []
        names = [t.get("name") for t in found]
        c.ok("search finds the deep tool first", not r.is_error and names[:1] == ["billing_refund_invoice"], f"{r}")
        c.ok("the default limit: 5 matches", len(names) == 5, f"{names}")
        c.ok("300 tools searched", (r.structured_content or {}).get("searched") == 300, f"{r.structured_content}")
        first = found[0] if found else {}
        c.ok("a full definition: its input schema", first.get("inputSchema", {}).get("required") == ["invoice_id"], json.dumps(first)[:300])
        c.ok("the same answer as text", json.loads(text(r) or "null") == r.structured_content, text(r)[:200])

        r = await client.call_tool("billing_refund_invoice", {"invoice_id": "in_42"})
        c.ok("calling the found tool, not listed, works", not r.is_error and text(r).startswith("billing_refund_invoice done") and "in_42" in text(r), f"{r}")

        r = await client.call_tool("search_tools", {"query": "billing account", "limit": 1000})
        c.ok("a huge limit is lowered to 20", len((r.structured_content or {}).get("tools") or []) == 20, f"{r.structured_content}")
        r = await client.call_tool("search_tools", {"query": "  "})
        c.ok("an empty query: isError naming `query`", r.is_error and "`query` is empty" in text(r), f"{r}")
        r = await client.call_tool("search_tools", {"query": "invoice", "limit": 0})
        c.ok("limit 0: isError naming `limit`", r.is_error and "`limit`" in text(r), f"{r}")
    return c


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--mode", required=True, choices=["legacy", "2026-07-28"])
    p.add_argument("server", nargs="+")
    a = p.parse_args()
    checks = anyio.run(run, a.mode, a.server)
    return 1 if checks.failed else 0


if __name__ == "__main__":
    sys.exit(main())
