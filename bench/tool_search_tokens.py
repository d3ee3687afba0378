#!/usr/bin/env python3
"""Count the input tokens of one model request with and without tool search.

    TOOL_SEARCH_BODIES=/tmp/ts cargo test -p oxmcp-agent --test agent \
        tool_search::without_search_the_first_turn_offers_all_300_tools_and_is_far_larger
    python bench/tool_search_tokens.py /tmp/ts

The test writes the first turn's Anthropic Messages request bodies of the
300-tool set (three MCP servers of 100 tools), without search
(`without_search.json`: every tool) and with it (`with_search.json`: two
pinned tools and `search_tools`). This prints, for each, its size in bytes
and its tokens by OpenAI's o200k_base encoding (the `bpe-openai` package
from PyPI: a real BPE tokenizer, bundled, no download), for the whole body
and for its `tools` array. Anthropic's own tokenizer is not published, so
for Claude the counts are an estimate of the same order (Anthropic's
token-counting endpoint gives the exact figure, and adds the few hundred
tokens of its tool-use system prompt).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import bpe_openai


def main() -> int:
    folder = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/ts")
    encoding = bpe_openai.get_encoding("o200k_base")
    print(f"{'request':<16}{'tools':>7}{'bytes':>10}{'tokens':>10}{'tools: tokens':>16}")
    for name in ("without_search", "with_search"):
        text = (folder / f"{name}.json").read_text()
        body = json.loads(text)
        tools = json.dumps(body.get("tools", []), separators=(",", ":"))
        print(f"{name:<16}{len(body.get('tools', [])):>7}{len(text.encode()):>10}"
              f"{len(encoding.encode(text)):>10}{len(encoding.encode(tools)):>16}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
