#!/usr/bin/env bash
# Drive a "calculator" MCP server with the MCP Inspector CLI (2.12.0).
#
#   tests/interop/inspector_stdio.sh [--era legacy|modern|auto]... <server command and args...>
#   tests/interop/inspector_stdio.sh [--era ...]... --url URL [--transport http|sse]
#
# Without --url the server is a stdio command. With --url the Inspector talks to
# an already running server at URL over --transport (default http = Streamable
# HTTP; sse = the 2024-11-05 HTTP+SSE transport, which is legacy only, so use
# --era legacy with it).
#
# Default eras: legacy, then modern. For each era it runs (each invocation
# starts a fresh server process, as the Inspector CLI does one method per run):
#   tools/list                      -> the 8 calculator tool names
#   tools/call add a=2 b=3          -> exit 0, text "5", not isError
#   tools/call divide a=1 b=0       -> exit 5 (the Inspector's "tool returned isError:true"),
#                                      text contains "division by zero"
#   tools/call stats values=[1,2,3] -> exit 0, structuredContent {count:3,sum:6,mean:2,min:1,max:3}
# Prints one line per check; exits non-zero if any check failed.
#
# Needs the tools from scripts/install-tools.sh: if MCP_INSPECTOR is not set,
# <repo>/.tools/env.sh is sourced. The Inspector's HOME is pointed at a
# scratch dir (it writes ~/.mcp-inspector/). Env vars RUST_LOG and
# RUST_BACKTRACE are forwarded to the server (the Inspector, like the TS SDK,
# passes only a minimal environment to stdio servers).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"

usage() { sed -n '2,5p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

ERAS=()
URL=""
TRANSPORT=""
while [ $# -gt 0 ]; do
    case "$1" in
        --era) [ $# -ge 2 ] || usage; ERAS+=("$2"); shift 2 ;;
        --era=*) ERAS+=("${1#--era=}"); shift ;;
        --url) [ $# -ge 2 ] || usage; URL="$2"; shift 2 ;;
        --url=*) URL="${1#--url=}"; shift ;;
        --transport) [ $# -ge 2 ] || usage; TRANSPORT="$2"; shift 2 ;;
        --transport=*) TRANSPORT="${1#--transport=}"; shift ;;
        --) shift; break ;;
        -h|--help) usage ;;
        *) break ;;
    esac
done
if [ -n "$URL" ]; then
    [ $# -eq 0 ] || { echo "inspector_stdio.sh: a server command cannot be combined with --url" >&2; exit 2; }
    TRANSPORT="${TRANSPORT:-http}"
    case "$TRANSPORT" in http|sse) ;; *) echo "inspector_stdio.sh: unknown --transport '$TRANSPORT' (http or sse)" >&2; exit 2 ;; esac
else
    [ -z "$TRANSPORT" ] || { echo "inspector_stdio.sh: --transport needs --url" >&2; exit 2; }
    [ $# -ge 1 ] || usage
fi
[ ${#ERAS[@]} -gt 0 ] || ERAS=(legacy modern)
for e in "${ERAS[@]}"; do
    case "$e" in legacy|modern|auto) ;; *) echo "inspector_stdio.sh: unknown era '$e'" >&2; exit 2 ;; esac
done
SERVER=("$@")

if [ -z "${MCP_INSPECTOR:-}" ]; then
    [ -f "$ROOT/.tools/env.sh" ] || { echo "inspector_stdio.sh: $ROOT/.tools/env.sh missing; run scripts/install-tools.sh" >&2; exit 1; }
    # shellcheck source=/dev/null
    . "$ROOT/.tools/env.sh"
fi
[ -x "${MCP_INSPECTOR:-}" ] || { echo "inspector_stdio.sh: MCP_INSPECTOR='${MCP_INSPECTOR:-}' is not executable" >&2; exit 1; }
case "$(node --version 2>/dev/null)" in
    v2[2-9].*|v[3-9][0-9].*) ;;
    *) echo "inspector_stdio.sh: the Inspector needs Node >= 22 first on PATH (got '$(node --version 2>/dev/null)'); source .tools/env.sh" >&2; exit 1 ;;
esac
PY="${MCP_PYTHON:-python3}"
INSPECTOR_HOME="${MCP_TOOLS_HOME:-$ROOT/.tools/home}"
mkdir -p "$INSPECTOR_HOME"
TIMEOUT="${INSPECTOR_TIMEOUT:-60}"

ENV_ARGS=()
for v in RUST_LOG RUST_BACKTRACE; do
    if [ -n "${!v:-}" ]; then ENV_ARGS+=(-e "$v=${!v}"); fi
done

WORK="$(mktemp -d "${TMPDIR:-/tmp}/inspector_stdio.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT

FAILED=0
PASSED=0
ERA=""

# Label prefix: "inspector/<era>" for stdio, "inspector/<transport>/<era>" for a URL.
TAG="inspector${URL:+/$TRANSPORT}"
pass() { PASSED=$((PASSED + 1)); echo "[$TAG/$ERA] PASS $*"; }
fail() {
    FAILED=$((FAILED + 1))
    echo "[$TAG/$ERA] FAIL $1"
    shift
    for f in "$@"; do
        [ -s "$f" ] || continue
        echo "    --- $(basename "$f") ---"
        head -c 4000 "$f" | sed 's/^/    /'
        echo
    done
}

# inspector <name> <inspector args...>: runs the CLI, sets RC; output in $WORK/<name>.{out,err}
inspector() {
    local name="$1"; shift
    set +e
    if [ -n "$URL" ]; then
        HOME="$INSPECTOR_HOME" timeout "$TIMEOUT" "$MCP_INSPECTOR" --cli --protocol-era "$ERA" --format json \
            --transport "$TRANSPORT" --server-url "$URL" "$@" >"$WORK/$name.out" 2>"$WORK/$name.err"
    else
        HOME="$INSPECTOR_HOME" timeout "$TIMEOUT" "$MCP_INSPECTOR" --cli --protocol-era "$ERA" --format json \
            ${ENV_ARGS[@]+"${ENV_ARGS[@]}"} "$@" -- "${SERVER[@]}" >"$WORK/$name.out" 2>"$WORK/$name.err"
    fi
    RC=$?
    set -e
    if [ "$RC" = 124 ]; then echo "timed out after ${TIMEOUT}s" >>"$WORK/$name.err"; fi
}

# json_check <file> <python expression over `r` (the parsed "result" object)> -> prints a reason on mismatch
json_check() {
    "$PY" - "$1" "$2" <<'EOF'
import json, sys
path, expr = sys.argv[1], sys.argv[2]
try:
    doc = json.load(open(path))
except Exception as e:
    print(f"stdout is not one JSON document: {e}"); sys.exit(1)
if not isinstance(doc, dict) or "result" not in doc:
    print(f"no 'result' key in output: {str(doc)[:300]}"); sys.exit(1)
r = doc["result"]
def texts(r):
    return [c.get("text") for c in r.get("content", []) if c.get("type") == "text"]
ok = eval(expr, {"r": r, "texts": texts})
if not ok:
    print(f"result does not satisfy `{expr}`: {json.dumps(r)[:600]}"); sys.exit(1)
EOF
}

EXPECTED_NAMES='["add","count_to","divide","multiply","recall","stats","store","subtract"]'

for ERA in "${ERAS[@]}"; do
    if [ -n "$URL" ]; then
        echo "[$TAG/$ERA] server: $URL (transport $TRANSPORT)"
    else
        echo "[$TAG/$ERA] server: ${SERVER[*]}"
    fi

    inspector list --method tools/list
    if [ "$RC" != 0 ]; then
        fail "tools/list exited $RC (expected 0)" "$WORK/list.out" "$WORK/list.err"
    elif why="$(json_check "$WORK/list.out" "sorted(t['name'] for t in r['tools']) == $EXPECTED_NAMES and all(t.get('description') and t.get('inputSchema', {}).get('type') == 'object' for t in r['tools'])")"; then
        pass "tools/list: 8 calculator tools with descriptions and object inputSchemas"
    else
        fail "tools/list: $why" "$WORK/list.err"
    fi

    inspector add --method tools/call --tool-name add --tool-arg a=2 b=3
    if [ "$RC" != 0 ]; then
        fail "tools/call add a=2 b=3 exited $RC (expected 0)" "$WORK/add.out" "$WORK/add.err"
    elif why="$(json_check "$WORK/add.out" "texts(r) == ['5'] and not r.get('isError', False)")"; then
        pass "tools/call add a=2 b=3 -> \"5\""
    else
        fail "tools/call add: $why" "$WORK/add.err"
    fi

    inspector divide --method tools/call --tool-name divide --tool-arg a=1 b=0
    if [ "$RC" != 5 ]; then
        fail "tools/call divide a=1 b=0 exited $RC (expected 5 = tool returned isError:true)" "$WORK/divide.out" "$WORK/divide.err"
    elif why="$(json_check "$WORK/divide.out" "r.get('isError') is True and any('division by zero' in (t or '') for t in texts(r))")"; then
        pass "tools/call divide a=1 b=0 -> exit 5, isError, \"division by zero\""
    else
        fail "tools/call divide: $why" "$WORK/divide.err"
    fi

    inspector stats --method tools/call --tool-name stats --tool-arg 'values=[1,2,3]'
    if [ "$RC" != 0 ]; then
        fail "tools/call stats values=[1,2,3] exited $RC (expected 0)" "$WORK/stats.out" "$WORK/stats.err"
    elif why="$(json_check "$WORK/stats.out" "r.get('structuredContent') == {'count': 3, 'sum': 6, 'mean': 2, 'min': 1, 'max': 3} and not r.get('isError', False)")"; then
        pass "tools/call stats values=[1,2,3] -> structuredContent {count:3,sum:6,mean:2,min:1,max:3}"
    else
        fail "tools/call stats: $why" "$WORK/stats.err"
    fi
done

ERA="${ERAS[*]}"
ERA="${ERA// /+}"
if [ "$FAILED" -gt 0 ]; then
    echo "[$TAG/$ERA] RESULT: $PASSED passed, $FAILED failed"
    exit 1
fi
echo "[$TAG/$ERA] RESULT: $PASSED passed, 0 failed"
