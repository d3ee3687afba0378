#!/usr/bin/env bash
# MCP Apps in a real browser: the notes example's `board` tool shows a page
# (ui://notes/board). Headless Chromium loads a test host (host.html) that
# connects with the official TypeScript client, calls the tool, renders its
# page and joins them with the official AppBridge (@modelcontextprotocol/ext-apps);
# the test types a note into the page and clicks its button, the page calls
# `add_note` through the host, and the new note must appear in the page and
# on the server. The screenshot is kept under target/test-output/apps/.
#
#   tests/apps/run.sh [<notes binary>]   (default target/debug/notes)
#
# Needs scripts/install-tools.sh to have run (chromium, .tools/apps).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
NOTES="${1:-$ROOT/target/debug/notes}"
[ -x "$NOTES" ] || { echo "apps: $NOTES is missing (cargo build -p mcp-examples)" >&2; exit 2; }
# shellcheck disable=SC1091
. "$ROOT/.tools/env.sh"
for v in MCP_CHROMIUM MCP_NODE; do
    [ -x "${!v:-}" ] || { echo "apps: $v='${!v:-}' is not executable; rerun scripts/install-tools.sh" >&2; exit 2; }
done
[ -d "${MCP_APPS_MODULES:-}/@modelcontextprotocol/ext-apps" ] \
    || { echo "apps: ext-apps is not installed in '${MCP_APPS_MODULES:-}'; rerun scripts/install-tools.sh" >&2; exit 2; }

WORK="$(mktemp -d "${TMPDIR:-/tmp}/mcp-apps.XXXXXX")"
OUT="$ROOT/target/test-output/apps"
SERVER_PID=
cleanup() {
    # The server ends by the signal: its status is not the test's.
    if [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null; then
        wait "$SERVER_PID" 2>/dev/null || true
    fi
    rm -rf "$WORK"
}
trap cleanup EXIT

PORT="$("$MCP_PYTHON" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')"
"$NOTES" --http "127.0.0.1:$PORT" >"$WORK/server.log" 2>&1 &
SERVER_PID=$!
for _ in $(seq 1 100); do
    "$MCP_PYTHON" -c "import socket,sys; s=socket.socket(); sys.exit(s.connect_ex(('127.0.0.1',$PORT)))" && break
    sleep 0.1
done

status=0
"$MCP_NODE" "$HERE/run.mjs" --server "http://127.0.0.1:$PORT" --tool board \
    --chromium "$MCP_CHROMIUM" --modules "$MCP_APPS_MODULES" --out "$OUT" || status=$?
if [ "$status" -ne 0 ]; then
    echo "apps: FAILED; the server's log:" >&2
    sed 's/^/  /' "$WORK/server.log" >&2
fi
exit "$status"
