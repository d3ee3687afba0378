#!/usr/bin/env bash
# Agent tool sets against real servers: examples/agent_interop.rs with
#   - our calculator over stdio (target/debug/calculator),
#   - the Python `mcp` reference calculator over stdio (tests/interop/reference_calculator.py,
#     started as tests/interop/run_client.sh starts it: "$MCP_PYTHON" reference_calculator.py),
#   - the TypeScript SDK's server-everything over stdio (installed on first use, and its
#     command printed, by tests/interop/ensure_everything.sh, as for run_client.sh),
#   - the conformance fixture (target/debug/conformance_server, Streamable HTTP on a free port:
#     it serves nothing else), started by agent_interop itself.
#
#   tests/agent/run_interop.sh [<bin dir>]   (default target/debug; needs calculator,
#                                             conformance_server and agent_interop built:
#     cargo build -p mcp-examples --bin agent_interop --bin calculator --bin conformance_server)
#
# Checks (each a PASS/FAIL line of agent_interop, relayed): one ToolSet of the local Calculator
# toolbox, the calculator with prefix `calc.`, the reference server with prefix `py_` and an
# allow list, server-everything with a block list (names, calls of each kind, arguments refused
# before the server, diagnostics); collisions naming both sources; provider names; the strict
# form of every tool of the calculator, the fixture and server-everything (OpenAI's rules,
# values round-tripping to the original schema; the tools that fall back in diagnostics()).
# Exits 1 if any check failed (a FAIL line, a non-zero exit, a timeout, processes left
# behind), 2 if something it needs is missing.
#
# Environment: AGENT_INTEROP_TIMEOUT (seconds for agent_interop, default 240), KEEP_LOGS=1.
# Needs scripts/install-tools.sh to have run (it sources <repo>/.tools/env.sh for $MCP_PYTHON).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"

BIN="${1:-$ROOT/target/debug}"
missing=()
for b in calculator conformance_server agent_interop; do
    [ -x "$BIN/$b" ] || missing+=("$BIN/$b")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "run_interop.sh: missing ${missing[*]}: run cargo build -p mcp-examples --bin agent_interop --bin calculator --bin conformance_server" >&2
    exit 2
fi
if [ -z "${MCP_PYTHON:-}" ] || [ -z "${MCP_NODE:-}" ]; then
    # shellcheck disable=SC1091
    [ -f "$ROOT/.tools/env.sh" ] && . "$ROOT/.tools/env.sh"
fi
if [ -z "${MCP_PYTHON:-}" ] || [ ! -x "$MCP_PYTHON" ]; then
    echo "run_interop.sh: MCP_PYTHON is not set up; run scripts/install-tools.sh" >&2
    exit 2
fi
export MCP_PYTHON
REFERENCE="$ROOT/tests/interop/reference_calculator.py"
TIMEOUT="${AGENT_INTEROP_TIMEOUT:-240}"

LOGDIR="$(mktemp -d "${TMPDIR:-/tmp}/run_interop.XXXXXX")"
GROUP=""

# Ends agent_interop's process group (it, and the servers it started), if any is left.
end_group() {
    [ -n "$GROUP" ] || return 0
    if kill -0 -- "-$GROUP" 2>/dev/null; then
        kill -TERM -- "-$GROUP" 2>/dev/null || true
        for _ in $(seq 1 50); do kill -0 -- "-$GROUP" 2>/dev/null || break; sleep 0.1; done
        kill -KILL -- "-$GROUP" 2>/dev/null || true
    fi
}

cleanup() {
    local rc=$?
    end_group
    if [ "${KEEP_LOGS:-0}" = 1 ] || [ "$rc" != 0 ]; then
        echo "run_interop.sh: logs kept in $LOGDIR" >&2
    else
        rm -rf "$LOGDIR"
    fi
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

if ! EVERYTHING="$("$ROOT/tests/interop/ensure_everything.sh" stdio 2>"$LOGDIR/ensure-everything.log")"; then
    echo "FAIL [server-everything] cannot install @modelcontextprotocol/server-everything"
    sed 's/^/    /' "$LOGDIR/ensure-everything.log" | tail -n 25
    exit 1
fi

echo "== agent_interop (timeout ${TIMEOUT} s)"
echo "   calculator: $BIN/calculator; fixture: $BIN/conformance_server"
echo "   reference:  $MCP_PYTHON $REFERENCE"
echo "   everything: $EVERYTHING"
# Its own process group (setsid), so that whatever it leaves behind can be found and ended;
# timeout ends it (and its group) if it hangs.
setsid timeout -k 10 "$TIMEOUT" "$BIN/agent_interop" \
    --calculator "$BIN/calculator" \
    --conformance "$BIN/conformance_server" \
    --python "$MCP_PYTHON" \
    --reference "$REFERENCE" \
    --everything "$EVERYTHING" \
    >"$LOGDIR/agent_interop.out" 2>"$LOGDIR/agent_interop.err" </dev/null &
GROUP=$!
rc=0
wait "$GROUP" || rc=$?

cat "$LOGDIR/agent_interop.out"

FAILED=0
if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
    echo "FAIL agent_interop did not finish within $TIMEOUT s"
    FAILED=1
elif [ $rc -ne 0 ] && ! grep -q '^FAIL' "$LOGDIR/agent_interop.out"; then
    echo "FAIL agent_interop exited with $rc and no FAIL line"
    FAILED=1
fi
grep -q '^FAIL' "$LOGDIR/agent_interop.out" && FAILED=1
if ! grep -q '^PASS' "$LOGDIR/agent_interop.out"; then
    echo "FAIL agent_interop passed no check"
    FAILED=1
fi

# Nothing may be left running: the servers are closed (or killed) when agent_interop ends.
# (Zombies do not count: they are dead, waiting for init to reap them.)
alive_in_group() {
    ps -e -o pid=,pgid=,stat=,args= | awk -v g="$GROUP" '$2 == g && $3 !~ /^Z/'
}
leftovers=""
for _ in $(seq 1 20); do
    leftovers="$(alive_in_group)"
    [ -n "$leftovers" ] || break
    sleep 0.1
done
if [ -n "$leftovers" ]; then
    echo "FAIL processes left behind by agent_interop:"
    printf '%s\n' "$leftovers" | sed 's/^/    /'
    FAILED=1
else
    echo "PASS no process left behind"
fi
end_group

if [ $FAILED -ne 0 ]; then
    echo "== agent_interop stderr (last 30 lines):"
    tail -n 30 "$LOGDIR/agent_interop.err" | sed 's/^/    /'
fi
echo
echo "== summary"
echo "$(grep -c '^PASS' "$LOGDIR/agent_interop.out") passed, $(grep -c '^FAIL' "$LOGDIR/agent_interop.out") failed (agent_interop exit $rc)"
grep '^INFO strict summary' "$LOGDIR/agent_interop.out" || true
exit $FAILED
