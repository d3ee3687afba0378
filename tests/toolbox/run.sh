#!/usr/bin/env bash
# Toolbox comparison and interop suite: our `files` and `fetch` example servers side by
# side with the reference servers (@modelcontextprotocol/server-filesystem and
# mcp-server-fetch, both installed by scripts/install-tools.sh).
#
#   tests/toolbox/run.sh <target dir>          e.g. tests/toolbox/run.sh target/debug
#
# <target dir> holds our binaries `files` and `fetch`. Runs:
#   interop_files.py --mode legacy / auto   (Python mcp 2.3.0 client: the same calls against
#                                            the reference filesystem server and ours;
#                                            tools/list names and parameters match, round trips)
#   inspector files, reference (legacy)     (MCP Inspector CLI 2.12.0: tools/list, write_file,
#   inspector files, ours (legacy, modern)   read_text_file, list_directory, checked on disk;
#                                            the reference serves the legacy era only)
#   hostile.py                              (the hostile table, judged by effect, in a private
#                                            network namespace; fails if ours is not refused)
# and prints a summary; exits non-zero if any run failed.
#
# Environment: INSPECTOR_TIMEOUT (seconds per Inspector run, default 60).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"

case "${1:-}" in
    -h|--help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
esac
if [ $# -ne 1 ]; then
    echo "usage: $0 <target dir holding files and fetch>" >&2
    exit 2
fi
TARGET="$(cd "$1" 2>/dev/null && pwd)" || { echo "run.sh: target dir '$1' does not exist" >&2; exit 2; }
FILES="$TARGET/files"
FETCH="$TARGET/fetch"
for b in "$FILES" "$FETCH"; do
    [ -x "$b" ] || { echo "run.sh: $b does not exist or is not executable" >&2; exit 2; }
done

ENV_FILE="$ROOT/.tools/env.sh"
[ -f "$ENV_FILE" ] || { echo "run.sh: $ENV_FILE is missing; run scripts/install-tools.sh first" >&2; exit 1; }
# shellcheck source=/dev/null
. "$ENV_FILE"
for v in MCP_PYTHON MCP_INSPECTOR MCP_NODE MCP_SERVER_FETCH; do
    [ -x "${!v:-}" ] || { echo "run.sh: $v='${!v:-}' is not executable; rerun scripts/install-tools.sh" >&2; exit 1; }
done
[ -f "${MCP_SERVER_FILESYSTEM_JS:-}" ] || { echo "run.sh: MCP_SERVER_FILESYSTEM_JS='${MCP_SERVER_FILESYSTEM_JS:-}' is missing; rerun scripts/install-tools.sh" >&2; exit 1; }
REF_FILES=("$MCP_NODE" "$MCP_SERVER_FILESYSTEM_JS")
TIMEOUT="${INSPECTOR_TIMEOUT:-60}"

echo "== toolbox suite: ours $FILES, $FETCH"
echo "== reference: server-filesystem $("$MCP_NODE" -p "require('$(dirname "$MCP_SERVER_FILESYSTEM_JS")/../package.json').version"), mcp-server-fetch $("$MCP_PYTHON" -c 'import importlib.metadata as m; print(m.version("mcp-server-fetch"))'), python mcp $("$MCP_PYTHON" -c 'import importlib.metadata as m; print(m.version("mcp"))')"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/toolbox_run.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT

NAMES=()
RESULTS=()
FAILS=0
run() { # <label> <command...>
    local label="$1"; shift
    echo
    echo "== $label"
    local start=$SECONDS rc=0
    "$@" || rc=$?
    local took=$((SECONDS - start))
    NAMES+=("$label")
    if [ "$rc" = 0 ]; then
        RESULTS+=("PASS (${took}s)")
    else
        RESULTS+=("FAIL (exit $rc, ${took}s)")
        FAILS=$((FAILS + 1))
    fi
}

# inspector_files <label> <era> <server command...>: the Inspector CLI drives a files server
# rooted in a fresh scratch dir (the root is appended to the command).
inspector_files() {
    local label="$1" era="$2"; shift 2
    local server=("$@") dir root failed=0 out rc
    dir="$(mktemp -d "$WORK/insp.XXXXXX")"
    root="$dir/root"
    mkdir -p "$root"
    printf 'alpha\n' >"$root/a.txt"
    insp() { # <name> <inspector args...> ; sets rc, output in $dir/<name>.{out,err}
        local name="$1"; shift
        set +e
        (cd "$dir" && HOME="$MCP_TOOLS_HOME" timeout "$TIMEOUT" "$MCP_INSPECTOR" --cli --protocol-era "$era" --format json \
            "$@" -- "${server[@]}" "$root") >"$dir/$name.out" 2>"$dir/$name.err"
        rc=$?
        set -e
    }
    check() { # <name> <python expr over r (result) and texts(r)> <description>
        local name="$1" expr="$2" what="$3" why
        if [ "$rc" != 0 ]; then
            echo "[inspector/$label/$era] FAIL $what: exit $rc"
            head -c 1500 "$dir/$name.out" "$dir/$name.err" 2>/dev/null | sed 's/^/    /'
            failed=$((failed + 1))
            return
        fi
        if why="$("$MCP_PYTHON" - "$dir/$name.out" "$expr" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
r = doc.get("result") if isinstance(doc, dict) else None
if r is None:
    print(f"no result: {str(doc)[:300]}"); sys.exit(1)
def texts(r):
    return "\n".join(c.get("text", "") for c in r.get("content", []) if c.get("type") == "text")
if not eval(sys.argv[2], {"r": r, "texts": texts}):
    print(f"`{sys.argv[2]}` is false for {json.dumps(r)[:500]}"); sys.exit(1)
EOF
        )"; then
            echo "[inspector/$label/$era] PASS $what"
        else
            echo "[inspector/$label/$era] FAIL $what: $why"
            failed=$((failed + 1))
        fi
    }
    local want='{"read_text_file","read_media_file","read_multiple_files","write_file","edit_file","create_directory","list_directory","list_directory_with_sizes","move_file","search_files","directory_tree","get_file_info","list_allowed_directories"}'
    insp list --method tools/list
    check list "$want <= {t['name'] for t in r['tools']}" "tools/list has the reference tool set"
    insp write --method tools/call --tool-name write_file --tool-arg "path=$root/insp.txt" "content=hello inspector"
    check write "not r.get('isError') and open('$root/insp.txt').read() == 'hello inspector'" "write_file -> disk"
    insp read --method tools/call --tool-name read_text_file --tool-arg "path=$root/insp.txt"
    check read "not r.get('isError') and 'hello inspector' in texts(r)" "read_text_file round trip"
    insp ls --method tools/call --tool-name list_directory --tool-arg "path=$root"
    check ls "not r.get('isError') and 'insp.txt' in texts(r) and 'a.txt' in texts(r)" "list_directory"
    insp out --method tools/call --tool-name write_file --tool-arg "path=$root/../escaped.txt" "content=x"
    if [ -e "$dir/escaped.txt" ]; then
        echo "[inspector/$label/$era] FAIL write_file ../escaped.txt created a file outside the root"
        failed=$((failed + 1))
    else
        echo "[inspector/$label/$era] PASS write_file ../escaped.txt: nothing created outside the root (exit $rc)"
    fi
    echo "[inspector/$label/$era] RESULT: $failed failed"
    [ "$failed" = 0 ]
}

for mode in legacy auto; do
    run "python mcp client: reference vs ours, mode=$mode" \
        "$MCP_PYTHON" "$HERE/interop_files.py" --mode "$mode" --ours "$FILES"
done
run "inspector cli: reference filesystem, era=legacy" inspector_files reference legacy "${REF_FILES[@]}"
for era in legacy modern; do
    run "inspector cli: ours files, era=$era" inspector_files ours "$era" "$FILES"
done
run "hostile table (files + fetch, private netns)" "$MCP_PYTHON" "$HERE/hostile.py" --target "$TARGET"

echo
echo "== summary (ours: $TARGET)"
for i in "${!NAMES[@]}"; do
    printf '  %-52s %s\n' "${NAMES[$i]}" "${RESULTS[$i]}"
done
echo "toolbox: $(( ${#NAMES[@]} - FAILS )) passed, $FAILS failed"
[ "$FAILS" = 0 ]
