#!/usr/bin/env python3
"""Drive the `notes` example with the real Python `mcp` 2.3.0 client: prompts,
resources (text, binary, template), completion, and the server's questions
(an elicitation before a deletion, a sampling request), in one era.

    python_notes.py --mode {legacy,2026-07-28} -- <notes command...>   # stdio (starts it)
    python_notes.py --mode {legacy,2026-07-28} --url http://HOST:PORT/mcp  # running server

Prints one line per check (PASS/FAIL/INFO); exits non-zero if any failed.
Each run adds and deletes its own note, so runs can share an HTTP server.
"""

from __future__ import annotations

import argparse
import base64
import sys
from typing import Any

import anyio
import mcp_types as types
from mcp import Client, MCPError, StdioServerParameters

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


class Checks:
    def __init__(self, label: str) -> None:
        self.label = label
        self.failed: list[str] = []

    def ok(self, name: str, cond: bool, detail: str = "") -> None:
        print(f"{'PASS' if cond else 'FAIL'} [{self.label}] {name}" + (f": {detail}" if detail and not cond else ""))
        if not cond:
            self.failed.append(name)


async def run(mode: str, server: list[str] | None, url: str | None) -> Checks:
    c = Checks(f"{mode} {'http' if url else 'stdio'}")
    asked: dict[str, Any] = {}

    async def on_elicit(_ctx: Any, params: Any) -> types.ElicitResult:
        asked["elicitation"] = params
        # The user confirms by typing the title the message quotes.
        title = params.message.split('("')[1].split('")')[0]
        return types.ElicitResult(action="accept", content={"title": title})

    async def on_sample(_ctx: Any, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
        asked["sampling"] = params
        return types.CreateMessageResult(
            role="assistant", content=types.TextContent(type="text", text="Shopping list"), model="stub"
        )

    target: Any = url if url else StdioServerParameters(command=server[0], args=server[1:])
    async with Client(
        target, mode=mode, read_timeout_seconds=30, elicitation_callback=on_elicit, sampling_callback=on_sample
    ) as client:
        # ---------------------------------------------------------- prompts
        prompts = await client.list_prompts()
        names = [p.name for p in prompts.prompts]
        c.ok("prompts/list", names == ["summarise"], f"got {names}")
        args = {a.name: a.required for a in (prompts.prompts[0].arguments or [])}
        c.ok("prompt arguments", args == {"id": True, "style": False}, f"got {args}")
        got = await client.get_prompt("summarise", {"id": "1", "style": "bullets"})
        kinds = [m.content.type for m in got.messages]
        c.ok("prompts/get", kinds == ["resource", "text"], f"got {kinds}")
        c.ok(
            "prompt embeds the note",
            "Groceries" in got.messages[0].content.resource.text and "bullets" in got.messages[1].content.text,
            f"{got.messages}",
        )
        try:
            await client.get_prompt("summarise", {"id": "x"})
            c.ok("prompts/get with a bad argument is an error", False, "no error")
        except Exception as e:  # noqa: BLE001 - any MCP error will do, its message is checked
            c.ok("prompts/get with a bad argument is an error", "id" in str(e), str(e))

        # ---------------------------------------------------------- resources
        listed = await client.list_resources()
        uris = sorted(r.uri for r in listed.resources)
        c.ok("resources/list", uris == ["notes://index", "notes://logo"], f"got {uris}")
        index = await client.read_resource("notes://index")
        c.ok("read text", "1: Groceries" in index.contents[0].text, f"{index.contents}")
        logo = await client.read_resource("notes://logo")
        blob = base64.b64decode(logo.contents[0].blob)
        c.ok("read binary", blob.startswith(PNG_MAGIC) and logo.contents[0].mime_type == "image/png", f"{logo.contents}")
        templates = await client.list_resource_templates()
        c.ok(
            "resources/templates/list",
            [t.uri_template for t in templates.resource_templates] == ["notes://{id}"],
            f"{templates.resource_templates}",
        )
        note = await client.read_resource("notes://2")
        c.ok("read a template", note.contents[0].text.startswith("# Ideas"), f"{note.contents}")
        try:
            await client.read_resource("notes://999")
            c.ok("unknown resource is -32602 naming the URI", False, "no error")
        except MCPError as e:  # anything else is not an MCP error reply: it fails the run
            c.ok(
                "unknown resource is -32602 naming the URI",
                e.error.code == -32602 and (e.error.data or {}).get("uri") == "notes://999",
                f"{e.error}",
            )

        # ---------------------------------------------------------- completion
        done = await client.complete(types.PromptReference(type="ref/prompt", name="summarise"), {"name": "style", "value": "b"})
        c.ok("complete a prompt argument", done.completion.values == ["bullets"], f"{done.completion}")
        done = await client.complete(
            types.ResourceTemplateReference(type="ref/resource", uri="notes://{id}"), {"name": "id", "value": "2"}
        )
        c.ok("complete a template variable", "2" in done.completion.values, f"{done.completion}")

        # ---------------------------------------------------------- asking the client
        added = await client.call_tool("add_note", {"title": "Interop", "body": "milk eggs"})
        new_id = int(added.content[0].text)
        titled = await client.call_tool("suggest_title", {"id": new_id})
        c.ok("sampling answered", titled.content[0].text == "Shopping list" and "sampling" in asked, f"{titled}")
        deleted = await client.call_tool("delete_note", {"id": new_id})
        c.ok(
            "elicitation answered",
            deleted.content[0].text == f"note {new_id} deleted" and "elicitation" in asked,
            f"{deleted}",
        )
        schema = asked["elicitation"].requested_schema if "elicitation" in asked else {}
        c.ok("elicitation form", schema.get("properties", {}).get("title", {}).get("type") == "string", f"{schema}")
    return c


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--mode", required=True, choices=["legacy", "2026-07-28"])
    p.add_argument("--url")
    p.add_argument("server", nargs="*")
    a = p.parse_args()
    if not a.url and not a.server:
        p.error("give --url or a server command after --")
    checks = anyio.run(run, a.mode, a.server, a.url)
    print(f"{'OK' if not checks.failed else 'FAILED'} [{checks.label}] {len(checks.failed)} failed")
    return 1 if checks.failed else 0


if __name__ == "__main__":
    sys.exit(main())
