#!/usr/bin/env bash
# Client interop suite: our client (oxmcp-client) against our calculator and against the Python
# `mcp` 2.3 reference calculator, through the typed clients of examples/calculator_client.rs
# and examples/foreign_client.rs.
#
#   tests/interop/run_client.sh [<bin dir>]   (default target/debug; needs calculator,
#                                              calculator_client and foreign_client built)
#
# Runs, each as a separate check (every PASS/FAIL line of the programs is relayed, prefixed
# with the check's label):
#   calculator_client                 our calculator over stdio (typed client from a declared
#                                     trait: add, divide by zero -> Error::Tool, store/recall,
#                                     structured stats, count_to progress)
#   calculator_client --url           our calculator started with --http, Streamable HTTP (auto era)
#   foreign_client --era auto|legacy  tests/interop/reference_calculator.py over stdio
#   foreign_client --url --era auto|legacy
#                                     the same server started with --transport streamable-http
#   (foreign_client: tools/list, declared-trait connect, text/structured/isError results,
#    progress, and a mismatched declaration giving Error::Incompatible with every difference)
#   foreign_client --everything       the TypeScript SDK's reference server
#                                     @modelcontextprotocol/server-everything@2026.8.31 (legacy
#                                     era only), over stdio and Streamable HTTP (auto, legacy):
#                                     echo, get-sum, structured get-structured-content, isError,
#                                     progress of trigger-long-running-operation, the mismatch.
#                                     Installed on first use into .tools/server-everything by
#                                     tests/interop/ensure_everything.sh (npm, Node 22 from
#                                     .tools), which prints the command; an install failure is a FAIL.
# then a summary; exits 1 if any check failed (a non-zero exit or any FAIL line).
#
# Environment: START_TIMEOUT (seconds to wait for a port, default 20), KEEP_LOGS=1.
# Needs scripts/install-tools.sh to have run (it sources <repo>/.tools/env.sh for $MCP_PYTHON).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"

BIN="${1:-$ROOT/target/debug}"
for b in calculator calculator_client foreign_client; do
    if [ ! -x "$BIN/$b" ]; then
        echo "run_client.sh: $BIN/$b is missing: run cargo build -p mcp-examples" >&2
        exit 2
    fi
done
if [ -z "${MCP_PYTHON:-}" ]; then
    # shellcheck disable=SC1091
    [ -f "$ROOT/.tools/env.sh" ] && . "$ROOT/.tools/env.sh"
fi
if [ -z "${MCP_PYTHON:-}" ] || [ ! -x "$MCP_PYTHON" ]; then
    echo "run_client.sh: MCP_PYTHON is not set up; run scripts/install-tools.sh" >&2
    exit 2
fi
export MCP_PYTHON
START_TIMEOUT="${START_TIMEOUT:-20}"
REFERENCE="$HERE/reference_calculator.py"

LOGDIR="$(mktemp -d "${TMPDIR:-/tmp}/run_client.XXXXXX")"
PIDS=()

cleanup() {
    local rc=$? pid
    for pid in ${PIDS[@]+"${PIDS[@]}"}; do
        kill -0 "$pid" 2>/dev/null || continue
        kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
        for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL -- "-$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    if [ "${KEEP_LOGS:-0}" = 1 ] || [ "$rc" != 0 ]; then
        echo "run_client.sh: logs kept in $LOGDIR" >&2
    else
        rm -rf "$LOGDIR"
    fi
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

free_port() {
    "$MCP_PYTHON" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

# start_server <log prefix> <command...>: in its own process group; sets STARTED_PID.
start_server() {
    local prefix="$1"; shift
    echo "== starting: $*"
    setsid "$@" >"$LOGDIR/$prefix.out" 2>"$LOGDIR/$prefix.err" </dev/null &
    STARTED_PID=$!
    PIDS+=("$STARTED_PID")
}

# wait_port <pid> <port> <log prefix>
wait_port() {
    local pid="$1" port="$2" prefix="$3" deadline=$((SECONDS + START_TIMEOUT))
    while :; do
        if ! kill -0 "$pid" 2>/dev/null; then
            echo "run_client.sh: server exited before accepting connections on port $port" >&2
            tail -n 40 "$LOGDIR/$prefix.err" "$LOGDIR/$prefix.out" >&2 || true
            exit 1
        fi
        if "$MCP_PYTHON" -c 'import socket,sys; s=socket.create_connection(("127.0.0.1",int(sys.argv[1])),0.5); s.close()' "$port" 2>/dev/null; then
            return 0
        fi
        if [ $SECONDS -ge $deadline ]; then
            echo "run_client.sh: no connection on port $port within $START_TIMEOUT s" >&2
            exit 1
        fi
        sleep 0.2
    done
}

RESULTS=()
FAILED=0
# check <label> <command...>: runs it (timeout 120 s), relays its PASS/FAIL lines.
check() {
    local label="$1"; shift
    local log="$LOGDIR/check-${#RESULTS[@]}.log" rc=0
    echo "== $label: $*"
    timeout 120 "$@" >"$log" 2>"$log.err" </dev/null || rc=$?
    sed -e "s/^\(PASS\|FAIL\) /\1 [$label] /" "$log"
    if [ $rc -eq 0 ] && ! grep -q '^FAIL' "$log"; then
        RESULTS+=("PASS $label")
    else
        RESULTS+=("FAIL $label (exit $rc)")
        FAILED=1
        sed 's/^/    stderr: /' "$log.err" | tail -n 20
    fi
}

check "calculator_client, our calculator over stdio" "$BIN/calculator_client" "$BIN/calculator"

PORT="$(free_port)"
start_server calculator-http "$BIN/calculator" --http "127.0.0.1:$PORT"
wait_port "$STARTED_PID" "$PORT" calculator-http
check "calculator_client, our calculator over Streamable HTTP" "$BIN/calculator_client" --url "http://127.0.0.1:$PORT/mcp"

for era in auto legacy; do
    check "foreign_client, Python reference over stdio ($era)" \
        "$BIN/foreign_client" --era "$era" -- "$MCP_PYTHON" "$REFERENCE"
done

PY_PORT="$(free_port)"
start_server reference-http "$MCP_PYTHON" "$REFERENCE" --transport streamable-http --port "$PY_PORT"
wait_port "$STARTED_PID" "$PY_PORT" reference-http
for era in auto legacy; do
    check "foreign_client, Python reference over Streamable HTTP ($era)" \
        "$BIN/foreign_client" --era "$era" --url "http://127.0.0.1:$PY_PORT/mcp"
done

# server-everything: installed on first use by ensure_everything.sh, which prints the command.
EVERYTHING_STDIO=()
EVERYTHING_HTTP=()
if everything_line="$("$HERE/ensure_everything.sh" stdio 2>"$LOGDIR/ensure-everything.log")"; then
    read -r -a EVERYTHING_STDIO <<<"$everything_line"
    read -r -a EVERYTHING_HTTP <<<"$("$HERE/ensure_everything.sh" streamableHttp 2>>"$LOGDIR/ensure-everything.log")"
fi
if [ ${#EVERYTHING_STDIO[@]} -eq 0 ] || [ ${#EVERYTHING_HTTP[@]} -eq 0 ]; then
    echo "FAIL [server-everything] cannot install @modelcontextprotocol/server-everything"
    sed 's/^/    /' "$LOGDIR/ensure-everything.log" 2>/dev/null | tail -n 25
    RESULTS+=("FAIL TypeScript server-everything: not installed")
    FAILED=1
else
    check "foreign_client --everything, TypeScript server-everything over stdio" \
        "$BIN/foreign_client" --everything -- "${EVERYTHING_STDIO[@]}"
    EV_PORT="$(free_port)"
    start_server everything-http env PORT="$EV_PORT" "${EVERYTHING_HTTP[@]}"
    wait_port "$STARTED_PID" "$EV_PORT" everything-http
    for era in auto legacy; do
        check "foreign_client --everything, TypeScript server-everything over Streamable HTTP ($era)" \
            "$BIN/foreign_client" --everything --era "$era" --url "http://127.0.0.1:$EV_PORT/mcp"
    done
fi

echo
echo "== summary"
printf '%s\n' "${RESULTS[@]}"
exit $FAILED
