#!/usr/bin/env python3
"""Drive the reference filesystem server and our `files` with the same calls (Python `mcp` 2.3).

    .tools/pyenv/bin/python tests/toolbox/interop_files.py --ours DIR/files [--mode legacy|auto]

For each server (reference first: $MCP_NODE $MCP_SERVER_FILESYSTEM_JS ROOT, then
ours: DIR/files ROOT), in a fresh scratch root:
  tools/list   the reference tool set (read_text_file ... list_allowed_directories)
               is present; ours has exactly it plus `exists` (and optionally the
               reference's deprecated `read_file` alias); every shared tool takes the
               same parameter names as the reference's
  round trips  write_file -> disk, read_text_file (+head/tail), read_multiple_files,
               edit_file dryRun (disk unchanged) then for real, create_directory,
               list_directory, list_directory_with_sizes, move_file, search_files,
               directory_tree, get_file_info, list_allowed_directories, read_media_file,
               and exists (ours only)
each checked on disk where there is an effect. Prints PASS/FAIL lines; exits 1 if any failed.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import shutil
import sys
import tempfile
from typing import Any

import anyio
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

REFERENCE_TOOLS = {
    "read_text_file", "read_media_file", "read_multiple_files", "write_file", "edit_file",
    "create_directory", "list_directory", "list_directory_with_sizes", "move_file",
    "search_files", "directory_tree", "get_file_info", "list_allowed_directories",
}
OURS_EXTRA = {"exists"}
OPTIONAL = {"read_file"}  # the reference's deprecated alias of read_text_file


class Checks:
    def __init__(self) -> None:
        self.failed: list[str] = []
        self.passed = 0

    def ok(self, label: str, name: str, cond: bool, detail: str = "") -> bool:
        if cond:
            self.passed += 1
            print(f"[{label}] PASS {name}", flush=True)
        else:
            self.failed.append(f"{label}: {name}")
            print(f"[{label}] FAIL {name}: {detail}", flush=True)
        return cond


def text_of(r: Any) -> str:
    out = []
    for c in r.content:
        t = getattr(c, "text", None)
        if t is not None:
            out.append(t)
    if r.structured_content is not None:
        out.append(json.dumps(r.structured_content))
    return "\n".join(out)


async def drive(label: str, cmd: list[str], mode: str, c: Checks, ref_schemas: dict[str, set[str]] | None) -> dict[str, set[str]]:
    root = os.path.realpath(tempfile.mkdtemp(prefix="interop-files-" + label.replace("/", "-") + "-"))
    try:
        with open(os.path.join(root, "a.txt"), "w") as f:
            f.write("alpha\n")
        png = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")
        with open(os.path.join(root, "pixel.png"), "wb") as f:
            f.write(png)
        errlog = open(os.devnull, "w")
        params = StdioServerParameters(command=cmd[0], args=cmd[1:] + [root], cwd=root)
        async with Client(stdio_client(params, errlog=errlog), mode=mode, read_timeout_seconds=30) as client:
            print(f"[{label}] INFO protocol {client.protocol_version}, serverInfo {client.server_info and client.server_info.name!r}")
            listed = await client.list_tools()
            tools = {t.name: t for t in listed.tools}
            schemas = {n: set(((t.input_schema or {}).get("properties") or {}).keys()) for n, t in tools.items()}
            names = set(tools)
            if ref_schemas is None:
                c.ok(label, "tools/list has the reference tool set", REFERENCE_TOOLS <= names,
                     f"missing {sorted(REFERENCE_TOOLS - names)}")
                print(f"[{label}] INFO tools beyond the compared set: {sorted(names - REFERENCE_TOOLS)}")
            else:
                extra = names - REFERENCE_TOOLS - OURS_EXTRA - OPTIONAL
                c.ok(label, "tools/list names = reference set + exists",
                     names >= REFERENCE_TOOLS | OURS_EXTRA and not extra,
                     f"missing {sorted((REFERENCE_TOOLS | OURS_EXTRA) - names)}, unexpected {sorted(extra)}")
                diffs = [f"{n}: ours {sorted(schemas.get(n, set()))} vs reference {sorted(ref_schemas[n])}"
                         for n in sorted(REFERENCE_TOOLS) if n in ref_schemas and schemas.get(n) != ref_schemas[n]]
                c.ok(label, "same parameter names as the reference", not diffs, "; ".join(diffs))

            async def call(name: str, args: dict[str, Any]) -> tuple[bool, str, Any]:
                r = await client.call_tool(name, args)
                return bool(r.is_error), text_of(r), r

            # No trailing newline: the reference's tail=1 of "...\n" is the empty last line.
            p_new = os.path.join(root, "new.txt")
            err, t, _ = await call("write_file", {"path": p_new, "content": "hello\nworld\nthird"})
            disk = open(p_new).read() if os.path.exists(p_new) else None
            c.ok(label, "write_file -> disk", not err and disk == "hello\nworld\nthird", f"isError={err} disk={disk!r} {t[:200]!r}")

            err, t, _ = await call("read_text_file", {"path": p_new})
            c.ok(label, "read_text_file round trip", not err and "hello\nworld\nthird" in t, f"{t[:200]!r}")
            err, t, _ = await call("read_text_file", {"path": p_new, "head": 1})
            c.ok(label, "read_text_file head=1", not err and "hello" in t and "world" not in t, f"{t[:200]!r}")
            err, t, _ = await call("read_text_file", {"path": p_new, "tail": 1})
            c.ok(label, "read_text_file tail=1", not err and "third" in t and "hello" not in t, f"{t[:200]!r}")

            err, t, _ = await call("read_multiple_files", {"paths": [os.path.join(root, "a.txt"), p_new]})
            c.ok(label, "read_multiple_files", not err and "alpha" in t and "hello" in t, f"{t[:200]!r}")

            edits = [{"oldText": "world", "newText": "there"}]
            err, t, _ = await call("edit_file", {"path": p_new, "edits": edits, "dryRun": True})
            disk = open(p_new).read()
            c.ok(label, "edit_file dryRun leaves disk unchanged, shows a diff",
                 not err and disk == "hello\nworld\nthird" and "there" in t, f"disk={disk!r} {t[:200]!r}")
            err, t, _ = await call("edit_file", {"path": p_new, "edits": edits})
            disk = open(p_new).read()
            c.ok(label, "edit_file -> disk", not err and disk == "hello\nthere\nthird", f"disk={disk!r} {t[:200]!r}")

            p_sub = os.path.join(root, "sub", "deeper")
            err, t, _ = await call("create_directory", {"path": p_sub})
            c.ok(label, "create_directory (nested) -> disk", not err and os.path.isdir(p_sub), f"{t[:200]!r}")

            err, t, _ = await call("list_directory", {"path": root})
            c.ok(label, "list_directory", not err and all(n in t for n in ("a.txt", "new.txt", "sub")), f"{t[:300]!r}")
            err, t, _ = await call("list_directory_with_sizes", {"path": root, "sortBy": "size"})
            c.ok(label, "list_directory_with_sizes sortBy=size", not err and "new.txt" in t and "a.txt" in t, f"{t[:300]!r}")

            p_moved = os.path.join(root, "sub", "moved.txt")
            err, t, _ = await call("move_file", {"source": p_new, "destination": p_moved})
            c.ok(label, "move_file -> disk", not err and os.path.exists(p_moved) and not os.path.exists(p_new), f"{t[:200]!r}")

            err, t, _ = await call("search_files", {"path": root, "pattern": "**/moved*"})
            c.ok(label, "search_files **/moved*", not err and "moved.txt" in t, f"{t[:300]!r}")
            err, t, _ = await call("search_files", {"path": root, "pattern": "**/*.txt", "excludePatterns": ["sub/**"]})
            c.ok(label, "search_files excludePatterns", not err and "a.txt" in t and "moved.txt" not in t, f"{t[:300]!r}")

            err, t, r = await call("directory_tree", {"path": root, "excludePatterns": ["pixel.png"]})
            try:
                tree = json.loads(r.content[0].text)
            except Exception:  # noqa: BLE001
                tree = None
            flat = json.dumps(tree)
            c.ok(label, "directory_tree is JSON with the entries",
                 not err and tree is not None and "moved.txt" in flat and "deeper" in flat and "pixel.png" not in flat, f"{t[:300]!r}")

            err, t, _ = await call("get_file_info", {"path": p_moved})
            c.ok(label, "get_file_info", not err and "size" in t.lower(), f"{t[:300]!r}")

            err, t, _ = await call("list_allowed_directories", {})
            c.ok(label, "list_allowed_directories names the root", not err and root in t, f"{t[:300]!r}")

            err, t, r = await call("read_media_file", {"path": os.path.join(root, "pixel.png")})
            blobs = [getattr(x, "data", None) for x in r.content]
            c.ok(label, "read_media_file returns the PNG base64",
                 not err and any(b and base64.b64decode(b) == png for b in blobs),
                 f"content types {[x.type for x in r.content]}")

            if ref_schemas is not None:
                err, t_yes, _ = await call("exists", {"path": p_moved})
                err2, t_no, _ = await call("exists", {"path": os.path.join(root, "nope.txt")})
                c.ok(label, "exists: present vs missing differ", not err and not err2 and t_yes != t_no,
                     f"{t_yes[:100]!r} vs {t_no[:100]!r}")
            return schemas
    finally:
        shutil.rmtree(root, ignore_errors=True)


async def amain(args: argparse.Namespace) -> int:
    node, js = os.environ.get("MCP_NODE"), os.environ.get("MCP_SERVER_FILESYSTEM_JS")
    if not node or not js:
        print("interop_files.py: source .tools/env.sh (MCP_NODE, MCP_SERVER_FILESYSTEM_JS)", file=sys.stderr)
        return 2
    c = Checks()
    ref_label, our_label = f"reference/{args.mode}", f"ours/{args.mode}"
    ref_schemas: dict[str, set[str]] | None = None
    try:
        ref_schemas = await drive(ref_label, [node, js], args.mode, c, None)
    except Exception as e:  # noqa: BLE001
        c.ok(ref_label, "session", False, f"{type(e).__name__}: {e}")
    if ref_schemas is None:
        print("interop_files.py: the reference run failed; nothing to compare with", file=sys.stderr)
        return 1
    try:
        await drive(our_label, [args.ours], args.mode, c, ref_schemas)
    except Exception as e:  # noqa: BLE001
        c.ok(our_label, "session", False, f"{type(e).__name__}: {e}")
    print(f"interop_files ({args.mode}): {c.passed} passed, {len(c.failed)} failed")
    return 1 if c.failed else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ours", required=True, help="our files binary")
    ap.add_argument("--mode", default="legacy", choices=["legacy", "auto", "2026-07-28"])
    return anyio.run(amain, ap.parse_args())


if __name__ == "__main__":
    sys.exit(main())
