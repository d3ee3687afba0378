#!/usr/bin/env python3
"""Drive the `openapi` example, serving the FastAPI shop (tests/openapi/shop.py)
as tools, with the real Python `mcp` client in one era: every operation is
called, and what the shop holds afterwards (its /state route, read directly)
is checked against what each call should have done.

    python_openapi.py --mode {legacy,2026-07-28} --shop http://127.0.0.1:PORT -- <openapi command...>

Prints one line per check (PASS/FAIL); exits non-zero if any failed.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import urllib.request
from typing import Any

import anyio
from mcp import Client, StdioServerParameters

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "interop"))
from python_notes import Checks  # noqa: E402 - after the path it is found on


def text(result: Any) -> str:
    return "".join(getattr(c, "text", "") for c in result.content)


async def run(mode: str, shop: str, server: list[str]) -> Checks:
    c = Checks(f"{mode} stdio")

    def state() -> dict:
        with urllib.request.urlopen(f"{shop}/state", timeout=10) as r:
            return json.load(r)

    target = StdioServerParameters(command=server[0], args=server[1:])
    async with Client(target, mode=mode, read_timeout_seconds=60) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        want = {"list_items", "create_item", "get_item", "set_price", "delete_item", "place_order", "logo"}
        c.ok("one tool per operation", set(tools) == want, f"got {sorted(tools)}")
        c.ok("descriptions from summary and description", tools["create_item"].description == "Add an item\n\nNeeds the shop's API key.", f"{tools['create_item'].description!r}")
        hints = {n: t.annotations for n, t in tools.items()}
        c.ok("GET is read only", hints["get_item"].read_only_hint is True, f"{hints['get_item']}")
        c.ok("DELETE is destructive", hints["delete_item"].destructive_hint is True, f"{hints['delete_item']}")
        c.ok("PUT is idempotent", hints["set_price"].idempotent_hint is True, f"{hints['set_price']}")
        body = tools["create_item"].input_schema["properties"]["body"]
        c.ok("the body's schema: an enum", body["properties"]["category"].get("enum") == ["tools", "toys", "books"], json.dumps(body)[:400])
        dims = body["properties"]["dimensions"]
        nested = any(alt.get("properties", {}).get("width_cm", {}).get("exclusiveMinimum") == 0 for alt in dims.get("anyOf", [dims]))
        c.ok("the body's schema: a nested model, resolved", nested, json.dumps(dims)[:400])
        c.ok("the API key is no argument", "X-Shop-Key" not in json.dumps(tools["create_item"].input_schema), "")
        c.ok("an output schema", (tools["get_item"].output_schema or {}).get("properties", {}).get("name") is not None, f"{tools['get_item'].output_schema}")

        r = await client.call_tool("list_items", {"category": "toys"})
        listed = (r.structured_content or {}).get("result")
        c.ok("query parameters (an enum)", [i["name"] for i in listed or []] == ["Kite"], f"{r}")

        r = await client.call_tool(
            "create_item",
            {"body": {"name": "Chess set", "category": "toys", "price_cents": 2500, "dimensions": {"width_cm": 40, "height_cm": 40}, "tags": ["wood"]}},
        )
        made = r.structured_content or {}
        held = state()["items"].get(str(made.get("id")))
        c.ok("a JSON body, with the API key sent", not r.is_error and held and held["name"] == "Chess set" and held["dimensions"]["width_cm"] == 40, f"{r} {held}")
        new_id = made.get("id")

        r = await client.call_tool("get_item", {"item_id": new_id, "x-request-id": "req-7", "session": "s-1"})
        s = state()
        c.ok("a path parameter", (r.structured_content or {}).get("name") == "Chess set", f"{r}")
        c.ok("a header and a cookie parameter", s["last_request_id"] == "req-7" and s["last_session"] == "s-1", f"{s}")

        r = await client.call_tool("set_price", {"item_id": new_id, "body": {"price_cents": 1999}})
        c.ok("PUT with a body", not r.is_error and state()["items"][str(new_id)]["price_cents"] == 1999, f"{r}")

        r = await client.call_tool("place_order", {"body": {"item_id": new_id, "quantity": 2, "note": "gift"}})
        c.ok("an order placed", (r.structured_content or {}).get("total_cents") == 3998 and state()["orders"][-1]["note"] == "gift", f"{r}")

        r = await client.call_tool("place_order", {"body": {"item_id": 999, "quantity": 1}})
        c.ok("409 is a tool error with the status and the body", bool(r.is_error) and "HTTP 409" in text(r) and "not sold here" in text(r), f"{r}")
        r = await client.call_tool("get_item", {"item_id": 999})
        c.ok("404 is a tool error", bool(r.is_error) and "HTTP 404" in text(r), f"{r}")
        r = await client.call_tool("create_item", {"body": {"name": "", "category": "toys", "price_cents": -1}})
        c.ok("422 (the API's validation) is a tool error", bool(r.is_error) and "HTTP 422" in text(r), f"{r}")
        before = len(state()["items"])
        r = await client.call_tool("list_items", {"category": "food"})
        c.ok("an argument outside the enum is refused", bool(r.is_error), f"{r}")
        c.ok("and nothing changed", len(state()["items"]) == before)

        r = await client.call_tool("logo", {})
        c.ok("an image response is image content", r.content and r.content[0].type == "image" and r.content[0].mime_type == "image/png", f"{r}")

        r = await client.call_tool("delete_item", {"item_id": new_id})
        c.ok("DELETE", not r.is_error and str(new_id) not in state()["items"], f"{r}")
    return c


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--mode", required=True, choices=["legacy", "2026-07-28"])
    p.add_argument("--shop", required=True)
    p.add_argument("server", nargs="+")
    a = p.parse_args()
    checks = anyio.run(run, a.mode, a.shop, a.server)
    print(f"{'OK' if not checks.failed else 'FAILED'} [{checks.label}] {len(checks.failed)} failed")
    return 1 if checks.failed else 0


if __name__ == "__main__":
    sys.exit(main())
