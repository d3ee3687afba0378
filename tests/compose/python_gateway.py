#!/usr/bin/env python3
"""Drive the `gateway` example with the real Python `mcp` client, in one era:
the gateway mounts the calculator (stdio), the notes server (Streamable HTTP),
the Python reference calculator (stdio) and the plugins example (stdio), each
under its name, and everything is checked through it.

    python_gateway.py --mode {legacy,2026-07-28} --pids FILE -- <gateway command...>  # stdio
    python_gateway.py --mode {legacy,2026-07-28} --pids FILE --url URL                # running gateway

FILE is where the calculator's wrapper appends each process id it starts:
the script kills the newest (the one running) mid-session, and sees the
gateway start another.

Prints one line per check (PASS/FAIL); exits non-zero if any failed.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import time
from typing import Any

import anyio
import mcp_types as types
from mcp import Client, MCPError, StdioServerParameters

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "interop"))
from python_notes import Checks  # noqa: E402 - after the path it is found on


def text(result: Any) -> str:
    return "".join(getattr(c, "text", "") for c in result.content)


async def eventually(what: str, check: Any, seconds: float = 20.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if await check():
            return True
        await anyio.sleep(0.2)
    print(f"INFO never: {what}")
    return False


async def run(mode: str, server: list[str] | None, url: str | None, pids: str) -> Checks:
    c = Checks(f"{mode} {'http' if url else 'stdio'}")
    asked: dict[str, Any] = {}
    heard: list[Any] = []

    async def on_elicit(_ctx: Any, params: Any) -> types.ElicitResult:
        asked["elicitation"] = params
        title = params.message.split('("')[1].split('")')[0]
        return types.ElicitResult(action="accept", content={"title": title})

    async def on_sample(_ctx: Any, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
        asked["sampling"] = params
        return types.CreateMessageResult(
            role="assistant", content=types.TextContent(type="text", text="Shopping list"), model="stub"
        )

    async def on_message(message: Any) -> None:
        heard.append(message)

    target: Any = url if url else StdioServerParameters(command=server[0], args=server[1:])
    async with Client(
        target,
        mode=mode,
        read_timeout_seconds=60,
        elicitation_callback=on_elicit,
        sampling_callback=on_sample,
        message_handler=on_message,
    ) as client:
        # ---------------------------------------------------------- listing
        tools = [t.name for t in (await client.list_tools()).tools]
        for name in ["calc_add", "calc_count_to", "notes_add_note", "notes_delete_note", "ref_add", "plugins_install_greeter"]:
            c.ok(f"tools/list has {name}", name in tools, f"got {tools}")
        c.ok("every tool is under its mount's prefix", all(n.split("_")[0] in {"calc", "notes", "ref", "plugins"} for n in tools), f"{tools}")

        # ---------------------------------------------------------- calls
        r = await client.call_tool("calc_add", {"a": 2, "b": 3})
        c.ok("calc_add (our calculator, stdio)", text(r) == "5" and not r.is_error, f"{r}")
        r = await client.call_tool("ref_add", {"a": 2, "b": 3})
        c.ok("ref_add (the Python reference server, stdio)", text(r) == "5" and not r.is_error, f"{r}")
        r = await client.call_tool("calc_divide", {"a": 1, "b": 0})
        c.ok("a tool error passes through as a tool error", bool(r.is_error), f"{r}")
        progress: list[tuple[float, float | None, str | None]] = []

        async def on_progress(p: float, total: float | None, message: str | None) -> None:
            progress.append((p, total, message))

        r = await client.call_tool("calc_count_to", {"n": 3}, progress_callback=on_progress)
        c.ok("progress comes back through the mount", len(progress) == 3 and not r.is_error, f"{progress} {r}")

        # ---------------------------------------------------------- notes: prompts, resources, completion
        prompts = [p.name for p in (await client.list_prompts()).prompts]
        c.ok("prompts/list", prompts == ["notes_summarise"], f"got {prompts}")
        got = await client.get_prompt("notes_summarise", {"id": "1", "style": "bullets"})
        c.ok("prompts/get", "Groceries" in got.messages[0].content.resource.text, f"{got.messages}")
        uris = sorted(r.uri for r in (await client.list_resources()).resources)
        c.ok("resources/list", "notes+notes://index" in uris and "notes+notes://logo" in uris, f"got {uris}")
        index = await client.read_resource("notes+notes://index")
        c.ok(
            "resources/read names the front URI",
            "1: Groceries" in index.contents[0].text and str(index.contents[0].uri) == "notes+notes://index",
            f"{index.contents}",
        )
        templates = [t.uri_template for t in (await client.list_resource_templates()).resource_templates]
        c.ok("resources/templates/list", "notes+notes://{id}" in templates, f"{templates}")
        note = await client.read_resource("notes+notes://2")
        c.ok("read through a template", note.contents[0].text.startswith("# Ideas"), f"{note.contents}")
        try:
            await client.read_resource("notes+notes://999")
            c.ok("unknown resource is -32602 naming the front URI", False, "no error")
        except MCPError as e:
            c.ok(
                "unknown resource is -32602 naming the front URI",
                e.error.code == -32602 and (e.error.data or {}).get("uri") == "notes+notes://999",
                f"{e.error}",
            )
        done = await client.complete(
            types.PromptReference(type="ref/prompt", name="notes_summarise"), {"name": "style", "value": "b"}
        )
        c.ok("completion through the mount", done.completion.values == ["bullets"], f"{done.completion}")

        # ---------------------------------------------------------- the mounted server asks the client
        added = await client.call_tool("notes_add_note", {"title": "Gateway", "body": "milk eggs"})
        new_id = int(text(added))
        titled = await client.call_tool("notes_suggest_title", {"id": new_id})
        c.ok("sampling asked through the mount", text(titled) == "Shopping list" and "sampling" in asked, f"{titled}")

        # ---------------------------------------------------------- a subscription through the mount
        uri = f"notes+notes://{new_id}"
        if mode == "legacy":
            await client.subscribe_resource(uri)
            await client.call_tool("notes_edit_note", {"id": new_id, "body": "bread"})

            async def updated() -> bool:
                return any(
                    isinstance(m, types.ServerNotification)
                    and getattr(m, "method", "") == "notifications/resources/updated"
                    and str(getattr(m.params, "uri", "")) == uri
                    for m in heard
                )

            c.ok("a subscription's update comes back", await eventually("the update", updated), f"{heard[-5:]}")
        else:
            async with client.listen(resource_subscriptions=[uri]) as sub:
                c.ok("listen agrees to the mounted resource", list(sub.honored.resource_subscriptions or []) == [uri], f"{sub.honored}")
                await client.call_tool("notes_edit_note", {"id": new_id, "body": "bread"})
                event = None
                with anyio.move_on_after(20):
                    async for e in sub:
                        event = e
                        break
                c.ok("a subscription's update comes back", event is not None and uri in str(event), f"{event}")

        deleted = await client.call_tool("notes_delete_note", {"id": new_id})
        c.ok("elicitation asked through the mount", text(deleted) == f"note {new_id} deleted" and "elicitation" in asked, f"{deleted}")

        # ---------------------------------------------------------- a tool added upstream at run time
        # A name of this run's own: runs may share a gateway.
        greeter = f"hello_{mode.replace('-', '')}"
        r = await client.call_tool("plugins_install_greeter", {"name": greeter, "greeting": "Hi"})
        c.ok("install a tool upstream", not r.is_error, f"{r}")

        async def offered() -> bool:
            return f"plugins_{greeter}" in [t.name for t in (await client.list_tools()).tools]

        c.ok("the tool added upstream is offered", await eventually("the greeter listed", offered))
        r = await client.call_tool(f"plugins_{greeter}", {"who": "Ada"})
        c.ok("and called", text(r) == "Hi, Ada!", f"{r}")

        # ---------------------------------------------------------- a mount killed mid-session
        # The calculator running now: the last one its wrapper recorded.
        before = open(pids).read().split()
        os.kill(int(before[-1]), signal.SIGKILL)

        async def reported() -> bool:
            r = await client.call_tool("calc_add", {"a": 1, "b": 1})
            return bool(r.is_error) and "calc" in text(r)

        c.ok("a dead mount's calls say so, naming it", await eventually("calc reported down", reported))
        r = await client.call_tool("ref_add", {"a": 1, "b": 1})
        c.ok("the other mounts go on", text(r) == "2" and not r.is_error, f"{r}")

        async def back() -> bool:
            r = await client.call_tool("calc_add", {"a": 1, "b": 1})
            return not r.is_error and text(r) == "2"

        c.ok("the dead mount comes back", await eventually("calc back", back, 30))
        after = open(pids).read().split()
        c.ok("started again, once", len(after) == len(before) + 1, f"{before} -> {after}")
    return c


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--mode", required=True, choices=["legacy", "2026-07-28"])
    p.add_argument("--url")
    p.add_argument("--pids", required=True)
    p.add_argument("server", nargs="*")
    a = p.parse_args()
    if not a.url and not a.server:
        p.error("give --url or a server command after --")
    checks = anyio.run(run, a.mode, a.server, a.url, a.pids)
    print(f"{'OK' if not checks.failed else 'FAILED'} [{checks.label}] {len(checks.failed)} failed")
    return 1 if checks.failed else 0


if __name__ == "__main__":
    sys.exit(main())
