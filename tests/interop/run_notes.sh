#!/usr/bin/env bash
# Prompts, resources, completion, sampling and elicitation with clients written
# by others, against the `notes` example:
#
#   tests/interop/run_notes.sh <notes binary> [--url URL]
#
# With --url, nothing is started and only the HTTP checks run, against the
# server (or the proxy in front of several) at URL.
#
#   1. Python mcp 2.3.0 (tests/interop/python_notes.py), --mode legacy and 2026-07-28,
#      over stdio (a fresh server each) and over Streamable HTTP (one server on a free
#      127.0.0.1 port): prompts/list and get, resources (text, binary, template),
#      completion, an elicitation and a sampling request answered by its callbacks.
#   2. MCP Inspector CLI 2.12.0, --protocol-era legacy and modern, over stdio and HTTP:
#      prompts/list, prompts/get, resources/list, resources/read, resources/templates/list.
#
# Exits 1 if any check fails. Needs scripts/install-tools.sh to have run.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
NOTES="${1:?usage: run_notes.sh <notes binary> [--url URL]}"
GIVEN_URL=""
if [ "${2:-}" = --url ]; then GIVEN_URL="${3:?--url needs a URL}"; fi
[ -x "$NOTES" ] || { echo "run_notes.sh: '$NOTES' is not executable (cargo build -p mcp-examples)" >&2; exit 2; }
. "$ROOT/.tools/env.sh"
. "$ROOT/tests/lib.sh"
for v in MCP_PYTHON MCP_INSPECTOR; do
    [ -x "${!v:-}" ] || { echo "run_notes.sh: $v='${!v:-}' is not executable; rerun scripts/install-tools.sh" >&2; exit 1; }
done

WORK="$(mktemp -d "${TMPDIR:-/tmp}/mcp-notes-interop.XXXXXX")"
SERVER_PID=""
cleanup() {
    [ -n "$SERVER_PID" ] && kill -- -"$SERVER_PID" 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT
failed=0

WHERE=(stdio http)
if [ -n "$GIVEN_URL" ]; then
    WHERE=(http)
    URL="$GIVEN_URL"
else
PORT="$("$MCP_PYTHON" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')"
set -m
"$NOTES" --http "127.0.0.1:$PORT" >"$WORK/server.log" 2>&1 &
SERVER_PID=$!
set +m
for _ in $(seq 1 200); do
    "$MCP_PYTHON" -c "import socket,sys; s=socket.socket(); sys.exit(s.connect_ex(('127.0.0.1',$PORT)))" && break
    kill -0 "$SERVER_PID" 2>/dev/null || { echo "run_notes.sh: the HTTP server died:"; cat "$WORK/server.log"; exit 1; }
    sleep 0.1
done
URL="http://127.0.0.1:$PORT/mcp"
fi

# ---------------------------------------------------------------- Python mcp
for mode in legacy 2026-07-28; do
    for where in "${WHERE[@]}"; do
        if [ "$where" = stdio ]; then
            args=(-- "$NOTES")
        else
            args=(--url "$URL")
        fi
        if "$MCP_PYTHON" "$HERE/python_notes.py" --mode "$mode" "${args[@]}" >"$WORK/py.log" 2>&1; then
            echo "PASS python mcp: notes $where $mode ($(grep -c '^PASS' "$WORK/py.log") checks)"
        else
            echo "FAIL python mcp: notes $where $mode"
            sed 's/^/    /' "$WORK/py.log" | tail -40
            failed=1
        fi
    done
done

# ---------------------------------------------------------------- Inspector CLI
for era in legacy modern; do
    for where in "${WHERE[@]}"; do
        if [ "$where" = stdio ]; then
            target=(-- "$NOTES"); pre=()
        else
            target=(); pre=(--transport http --server-url "$URL")
        fi
        tag="notes $where $era"
        inspector_check "$tag prompts/list" '[p["name"] for p in r["prompts"]] == ["summarise"]' \
            --protocol-era "$era" "${pre[@]}" --method prompts/list "${target[@]}"
        inspector_check "$tag prompts/get" 'r["messages"][0]["content"]["resource"]["uri"] == "notes://1"' \
            --protocol-era "$era" "${pre[@]}" --method prompts/get --prompt-name summarise --prompt-args id=1 "${target[@]}"
        inspector_check "$tag resources/list" 'sorted(x["uri"] for x in r["resources"]) == ["notes://index", "notes://logo"]' \
            --protocol-era "$era" "${pre[@]}" --method resources/list "${target[@]}"
        inspector_check "$tag resources/read" 'r["contents"][0]["text"].startswith("# Ideas")' \
            --protocol-era "$era" "${pre[@]}" --method resources/read --uri notes://2 "${target[@]}"
        inspector_check "$tag resources/templates/list" '[t["uriTemplate"] for t in r["resourceTemplates"]] == ["notes://{id}"]' \
            --protocol-era "$era" "${pre[@]}" --method resources/templates/list "${target[@]}"
    done
done
exit $failed
