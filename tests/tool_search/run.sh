#!/usr/bin/env bash
# Tool search with a real client: the `tool_search` example (300 tools in
# tool search mode, two pinned) driven by the Python `mcp` client
# (tests/tool_search/python_search.py), --mode legacy and 2026-07-28, over
# stdio: the list, a search for a deep tool, the call of what it found, bad
# arguments. Then a pinned tool that does not exist: refused at start
# (exit 2), naming it.
#
#   tests/tool_search/run.sh <directory of the example binaries>
#
# Exits 1 if any check fails. Needs scripts/install-tools.sh to have run.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
BIN="$(cd "${1:?usage: run.sh <directory of the example binaries>}" && pwd)"
[ -x "$BIN/tool_search" ] || { echo "run.sh: '$BIN/tool_search' is not executable (cargo build -p mcp-examples)" >&2; exit 2; }
. "$ROOT/.tools/env.sh"
. "$ROOT/tests/lib.sh"
[ -x "${MCP_PYTHON:-}" ] || { echo "run.sh: MCP_PYTHON is not set; rerun scripts/install-tools.sh" >&2; exit 1; }

scratch mcp-tool-search
LOG="$WORK/py.log"
SERVER=("$BIN/tool_search" --search --pin github_list_issue --pin calendar_list_event)
for mode in legacy 2026-07-28; do
    if "$MCP_PYTHON" "$HERE/python_search.py" --mode "$mode" -- "${SERVER[@]}" >"$LOG" 2>&1; then
        echo "PASS python mcp: tool search stdio $mode ($(grep -c '^PASS' "$LOG") checks)"
    else
        echo "FAIL python mcp: tool search stdio $mode"
        sed 's/^/    /' "$LOG" | tail -40
        failed=1
    fi
done

refused_at_start "a pinned tool that does not exist" 'the pinned tool `github_list_isue` does not exist' \
    "$BIN/tool_search" --search --pin github_list_isue
exit "$failed"
