#!/usr/bin/env python3
"""The limits around tool results and calls, as the real Python `mcp` client
sees them, against the `reports` example over Streamable HTTP:

    python_limits.py --mode {legacy,2026-07-28} --url URL        # the result checks
    python_limits.py --mode legacy --url URL --rate N             # the rate limit checks

Result checks: a 200,000-character report cut at the default cap (100,000)
with its marker; the same under a per-tool cap of 20,000 with a resource
link to the whole, readable by the caller and refused to another caller (a
second session); the same under a raised cap (300,000: whole, and announced
in `_meta["anthropic/maxResultSizeChars"]`); a list of 20,000 orders as
structured content (items dropped until it fits, still valid against the
tool's output schema, which the client checks); a picture never cut; a
cached quote served again to its caller only. In the 2026-07-28 era without
authorization nothing tells callers apart: no link, no cache.

Rate checks: calls beyond N a second from one caller get an `isError` result
saying when to retry, every call is answered, and another caller is not slowed.

Prints one line per check (PASS/FAIL); exits non-zero if any failed.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

import anyio
from mcp import Client, MCPError

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "interop"))
from python_notes import Checks  # noqa: E402 - after the path it is found on

REPORT = 200_000


def texts(result: Any) -> list[str]:
    return [c.text for c in result.content if getattr(c, "type", "") == "text"]


def links(result: Any) -> list[Any]:
    return [c for c in result.content if getattr(c, "type", "") == "resource_link"]


async def results(mode: str, url: str) -> Checks:
    c = Checks(f"{mode} limits")
    legacy = mode == "legacy"
    async with Client(url, mode=mode, read_timeout_seconds=30) as a, Client(
        url, mode=mode, read_timeout_seconds=30
    ) as b:
        listed = {t.name: t for t in (await a.list_tools()).tools}
        meta = lambda name: (listed[name].meta or {}).get("anthropic/maxResultSizeChars")  # noqa: E731
        c.ok("a raised cap is announced to Claude hosts", meta("full_report") == 300_000, str(meta("full_report")))
        c.ok("the default cap and a lower one are not", meta("report") is None and meta("summary") is None)

        r = await a.call_tool("report", {"quarter": "2026-Q3"})
        t = texts(r)
        c.ok("the default cap: 100,000 characters shown", len(t) == 2 and len(t[0]) == 100_000, str([len(x) for x in t]))
        c.ok(
            "the marker says how much was cut",
            f"[result cut at 100000 characters: the text had {REPORT} characters; the first 100000 are shown" in t[-1],
            t[-1][:200],
        )
        c.ok("a cut text is no error", not r.is_error)

        r = await a.call_tool("summary", {"quarter": "2026-Q3"})
        t = texts(r)
        c.ok("a per-tool cap: 20,000 characters shown", len(t[0]) == 20_000, str(len(t[0])))
        found = links(r)
        if legacy:
            c.ok("the cut result links to the whole", len(found) == 1 and str(found[0].uri).startswith("mcp-result:"))
            if found:
                uri = str(found[0].uri)
                c.ok("the marker names the link", f"The whole result is at resource {uri}" in t[-1], t[-1][:300])
                whole = await a.read_resource(uri)
                full = (await a.call_tool("full_report", {"quarter": "2026-Q3"}))
                c.ok(
                    "the caller reads the whole result at the link",
                    len(whole.contents) == 1 and whole.contents[0].text == texts(full)[0],
                    str(len(whole.contents)),
                )
                try:
                    await b.read_resource(uri)
                    c.ok("another caller is refused the link", False, "it was read")
                except MCPError as e:
                    c.ok("another caller is refused the link", "resource not found" in str(e), str(e))
        else:
            c.ok("no link where nothing tells callers apart", not found, str(found))

        r = await a.call_tool("full_report", {"quarter": "2026-Q3"})
        t = texts(r)
        c.ok("a raised cap: the whole 200,000 characters", len(t) == 1 and len(t[0]) == REPORT, str([len(x) for x in t]))

        r = await a.call_tool("orders", {})
        s = r.structured_content or {}
        kept = len(s.get("orders", []))
        c.ok("a long list loses items until it fits", 0 < kept < 20_000 and s.get("total") == 20_000, str(kept))
        c.ok("the first items stay, in order", [o["id"] for o in s.get("orders", [])[:3]] == [1, 2, 3])
        c.ok(
            "the marker says how many items are kept",
            f"the structured result's longest list had 20000 items; the first {kept} are kept" in texts(r)[-1],
            texts(r)[-1][:300],
        )
        c.ok("the cut list is no error", not r.is_error)

        r = await a.call_tool("chart", {})
        images = [x for x in r.content if getattr(x, "type", "") == "image"]
        c.ok(
            "a picture is never cut",
            len(r.content) == 1 and len(images) == 1 and len(images[0].data) > 100_000,
            str([getattr(x, "type", "") for x in r.content]),
        )

        first = texts(await a.call_tool("quote", {"symbol": "ACME"}))[0]
        again = texts(await a.call_tool("quote", {"symbol": "ACME"}))[0]
        other = texts(await b.call_tool("quote", {"symbol": "ACME"}))[0]
        if legacy:
            c.ok("a cached quote is served again to its caller", first == again, f"{first} / {again}")
            c.ok("and never to another caller", other != first, f"{first} / {other}")
        else:
            c.ok("nothing is cached where nothing tells callers apart", first != again, f"{first} / {again}")
    return c


async def rates(url: str, rate: int) -> Checks:
    c = Checks(f"rate limit {rate}/s")
    async with Client(url, mode="legacy", read_timeout_seconds=30) as a, Client(
        url, mode="legacy", read_timeout_seconds=30
    ) as b:
        answers: list[Any] = []

        async def one(i: int) -> None:
            answers.append(await a.call_tool("quote", {"symbol": f"S{i}"}))

        async with anyio.create_task_group() as tg:
            for i in range(4 * rate):
                tg.start_soon(one, i)
        refused = [r for r in answers if r.is_error]
        c.ok("every call is answered", len(answers) == 4 * rate, str(len(answers)))
        c.ok("calls beyond the rate are refused", rate <= len(answers) - len(refused) < 2 * rate, str(len(refused)))
        c.ok(
            "the refusal says when to retry",
            all("rate limit: tool `quote` takes at most" in texts(r)[0] and "retry in" in texts(r)[0] for r in refused),
            texts(refused[0])[0] if refused else "",
        )
        r = await b.call_tool("quote", {"symbol": "B"})
        c.ok("another caller is not slowed", not r.is_error, texts(r)[0])
    return c


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--mode", required=True, choices=["legacy", "2026-07-28"])
    p.add_argument("--url", required=True)
    p.add_argument("--rate", type=int)
    args = p.parse_args()
    if args.rate:
        c = anyio.run(rates, args.url, args.rate)
    else:
        c = anyio.run(results, args.mode, args.url)
    return 1 if c.failed else 0


if __name__ == "__main__":
    sys.exit(main())
