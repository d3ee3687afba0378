#!/usr/bin/env bash
# `mcp new` for each template, then `cargo test` in each new project, as a
# user runs them:
#
#   tests/new/run.sh <target directory>     (the workspace's, e.g. target)
#
# The projects are made in a temporary directory with the `mcp` binary that
# `cargo test --workspace` built, depend on this checkout by path, and
# build into the workspace's target directory with its dev profile (the
# settings of .cargo/config.toml, which does not reach a project outside
# the checkout), so the framework crates already compiled with the same
# features are reused; each project's own first build compiles what its
# features add. The time of each step is printed. Then `mcp dev` in the
# stdio project: its listing, a rebuild and restart on a source change,
# Ctrl-C; `mcp dev -- COMMAND` with the server's stderr; and `--inspector`
# (the MCP Inspector from .tools: needs scripts/install-tools.sh to have run).
#
# Exits 1 if a project fails to build or its tests fail.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
TARGET="$(cd "${1:?usage: run.sh <target directory>}" && pwd)"
MCP="$TARGET/debug/mcp"
[ -x "$MCP" ] || { echo "run.sh: '$MCP' is not executable (cargo build -p oxmcp-cli)" >&2; exit 2; }

WORK="$(mktemp -d "${TMPDIR:-/tmp}/mcp-new.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT

failed=0
total_start=$(date +%s%N)
for kind in stdio http prompts agent; do
    name="new-$kind"
    flag=()
    [ "$kind" = stdio ] || flag=("--$kind")
    start=$(date +%s%N)
    (cd "$WORK" && "$MCP" new "$name" "${flag[@]}" --framework-path "$ROOT") >/dev/null
    # CI set: a snapshot must come with the template (none is written).
    if (cd "$WORK/$name" && CI=1 CARGO_TARGET_DIR="$TARGET" cargo test --quiet \
            --config 'profile.dev.debug="line-tables-only"' \
            --config 'profile.dev.package."*".debug=false') >"$WORK/$name.log" 2>&1; then
        passed=$(grep -Eo '^test result: ok\. [0-9]+ passed' "$WORK/$name.log" | awk '{s += $4} END {print s + 0}')
        printf 'PASS  mcp new %-8s then cargo test: %s tests passed in %s ms\n' \
            "$kind" "$passed" "$(( ($(date +%s%N) - start) / 1000000 ))"
        if [ "$passed" -lt 3 ]; then
            echo "FAIL  mcp new $kind: fewer tests than the template has"; failed=1
        fi
    else
        echo "FAIL  mcp new $kind then cargo test:"; cat "$WORK/$name.log"; failed=1
    fi
done
echo "mcp new, all templates: $(( ($(date +%s%N) - total_start) / 1000000 )) ms"

# wait_for <file> <count> <pattern>: until <file> has <count> lines matching
# <pattern> (300 s at most: a build inside `mcp dev` on a loaded 2-core
# machine took over a minute; a pass returns as soon as the line is there).
wait_for() {
    for _ in $(seq 1 3000); do
        [ "$(grep -c -- "$3" "$1" 2>/dev/null || true)" -ge "$2" ] && return 0
        sleep 0.1
    done
    return 1
}

# mcp dev in the stdio project: built and listed; a description changed in
# src/lib.rs rebuilt, restarted and listed anew; Ctrl-C ends it with 0.
dev_start=$(date +%s%N)
project="$WORK/new-stdio"
(cd "$project" && exec env CARGO_TARGET_DIR="$TARGET" "$MCP" dev >"$WORK/dev.out" 2>"$WORK/dev.err") &
dev_pid=$!
if wait_for "$WORK/dev.out" 1 "greet: Greet someone by name"; then
    sed -i 's/Greet someone by name/Greet someone, warmly/' "$project/src/lib.rs"
    if wait_for "$WORK/dev.out" 1 "greet: Greet someone, warmly" \
        && [ "$(grep -c 'new-stdio 0.1.0: 2 tools' "$WORK/dev.out")" -ge 2 ] \
        && grep -q "a change: restarting" "$WORK/dev.err"; then
        kill -INT "$dev_pid"
        if wait "$dev_pid"; then
            echo "PASS  mcp dev: built, listed, rebuilt and listed anew on a change, Ctrl-C ends it ($(( ($(date +%s%N) - dev_start) / 1000000 )) ms)"
        else
            echo "FAIL  mcp dev: Ctrl-C did not end it with 0"; failed=1
        fi
    else
        echo "FAIL  mcp dev: no new listing after a change:"; cat "$WORK/dev.out" "$WORK/dev.err"; failed=1
    fi
else
    echo "FAIL  mcp dev: no listing:"; cat "$WORK/dev.out" "$WORK/dev.err"; failed=1
fi
kill "$dev_pid" 2>/dev/null || true

# mcp dev -- COMMAND: the server's stderr shown, each line marked; a
# program that cannot start is one line and exit status 1.
(cd "$project" && exec "$MCP" dev -- sh -c 'echo "starting up" >&2; exec "$0"' "$TARGET/debug/new-stdio" \
    >"$WORK/cmd.out" 2>"$WORK/cmd.err") &
cmd_pid=$!
if wait_for "$WORK/cmd.out" 1 "2 tools" && wait_for "$WORK/cmd.err" 1 "^server | starting up$"; then
    echo "PASS  mcp dev -- COMMAND: listed, the server's stderr shown"
else
    echo "FAIL  mcp dev -- COMMAND:"; cat "$WORK/cmd.out" "$WORK/cmd.err"; failed=1
fi
kill -INT "$cmd_pid" 2>/dev/null || true
wait "$cmd_pid" 2>/dev/null || true
set +e
(cd "$WORK" && "$MCP" dev -- "$WORK/no-such-server") >"$WORK/bad.out" 2>"$WORK/bad.err"
code=$?
set -e
if [ "$code" = 1 ] && [ ! -s "$WORK/bad.out" ] && [ "$(wc -l <"$WORK/bad.err")" = 1 ] \
    && grep -q "^mcp: cannot start \`$WORK/no-such-server\`" "$WORK/bad.err"; then
    echo "PASS  mcp dev -- a missing program: one line, exit status 1"
else
    echo "FAIL  mcp dev -- a missing program (exit $code):"; cat "$WORK/bad.out" "$WORK/bad.err"; failed=1
fi

# mcp dev --inspector: the MCP Inspector from .tools (scripts/install-tools.sh)
# started on the server's command, its address printed and serving its page;
# ended with mcp dev.
. "$ROOT/.tools/env.sh"
[ -x "${MCP_INSPECTOR:-}" ] || { echo "run.sh: MCP_INSPECTOR is not set; rerun scripts/install-tools.sh" >&2; exit 1; }
(cd "$project" && exec "$MCP" dev --inspector --watch src -- "$TARGET/debug/new-stdio" \
    >"$WORK/insp.out" 2>"$WORK/insp.err") &
insp_pid=$!
if wait_for "$WORK/insp.out" 1 "^inspector: http://" && wait_for "$WORK/insp.out" 1 "2 tools"; then
    address="$(sed -n 's/^inspector: //p' "$WORK/insp.out" | head -1)"
    if "$MCP_PYTHON" -c 'import sys, urllib.request; sys.exit(urllib.request.urlopen(sys.argv[1], timeout=10).status != 200)' "$address"; then
        echo "PASS  mcp dev --inspector: the Inspector's page at $address"
    else
        echo "FAIL  mcp dev --inspector: $address does not answer"; failed=1
    fi
else
    echo "FAIL  mcp dev --inspector:"; cat "$WORK/insp.out" "$WORK/insp.err"; failed=1
fi
# SIGTERM (what service managers and task runners send) ends it as Ctrl-C
# does: status 0, and nothing it started left running: not the Inspector
# (its page gone) nor the server the Inspector's proxy started.
kill -TERM "$insp_pid" 2>/dev/null || true
set +e
wait "$insp_pid"
code=$?
set -e
# running <path>: how many processes run <path> (the last character in
# brackets, so that grep's own command line does not match).
running() {
    local pattern="${1%?}[${1: -1}]"
    for f in /proc/[0-9]*/cmdline; do { tr '\0' ' ' <"$f"; } 2>/dev/null; echo; done \
        | grep -c -- "$pattern" || true
}
if [ "$code" = 0 ] && [ "$(running "$TARGET/debug/new-stdio")" = 0 ] \
    && ! "$MCP_PYTHON" -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=5)' "${address:-http://127.0.0.1:1/}" 2>/dev/null; then
    echo "PASS  mcp dev --inspector: SIGTERM ends it (status 0), the Inspector and its server with it"
else
    echo "FAIL  mcp dev --inspector: after SIGTERM, exit $code, $(running "$TARGET/debug/new-stdio") server(s) left"; failed=1
fi
exit "$failed"
