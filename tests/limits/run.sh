#!/usr/bin/env bash
# Result-size caps, kept results, the result cache and the rate limit, with
# the real Python `mcp` client, against the `reports` example over
# Streamable HTTP:
#
#   tests/limits/run.sh <directory of the example binaries>
#
#   1. python_limits.py --mode legacy and 2026-07-28 (two sessions each):
#      the default, per-tool and raised caps, the resource link to a cut
#      result's whole (the caller reads it, another caller is refused), a
#      long structured list, a picture, a cached quote;
#   2. python_limits.py --rate: a second server at 5 calls a second.
#   3. Bad input: `reports --rate 0` is refused when the server is built,
#      the message naming the setting.
#
# Exits 1 if any check fails. Needs scripts/install-tools.sh to have run.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
BIN="$(cd "${1:?usage: run.sh <directory of the example binaries>}" && pwd)"
[ -x "$BIN/reports" ] || { echo "run.sh: '$BIN/reports' is not executable (cargo build -p mcp-examples)" >&2; exit 2; }
. "$ROOT/.tools/env.sh"
. "$ROOT/tests/lib.sh"
[ -x "${MCP_PYTHON:-}" ] || { echo "run.sh: MCP_PYTHON is not set; rerun scripts/install-tools.sh" >&2; exit 1; }

scratch mcp-limits

start_reports() { # <port> <log> <args...>
    local port="$1" log="$2"; shift 2
    set -m
    "$BIN/reports" --http "127.0.0.1:$port" "$@" >"$log" 2>&1 &
    PIDS+=($!)
    set +m
    wait_port "$port" "${PIDS[-1]}" "$log"
}

run_python() { # <label> <python_limits.py args...>
    local label="$1"; shift
    if timeout 120 "$MCP_PYTHON" "$HERE/python_limits.py" "$@" >"$WORK/py.log" 2>&1; then
        echo "PASS python mcp: $label ($(grep -c '^PASS' "$WORK/py.log") checks)"
    else
        echo "FAIL python mcp: $label"
        sed 's/^/    /' "$WORK/py.log" | tail -40
        failed=1
    fi
}

PORT="$(free_port)"
start_reports "$PORT" "$WORK/reports.log" --rate 1000
for mode in legacy 2026-07-28; do
    run_python "result caps, kept results and the cache ($mode)" --mode "$mode" --url "http://127.0.0.1:$PORT/mcp"
done

SLOW_PORT="$(free_port)"
start_reports "$SLOW_PORT" "$WORK/slow.log" --rate 5
run_python "the rate limit per caller" --mode legacy --url "http://127.0.0.1:$SLOW_PORT/mcp" --rate 5

rc=0
timeout 30 "$BIN/reports" --rate 0 </dev/null >"$WORK/out.txt" 2>"$WORK/err.txt" || rc=$?
if [ "$rc" = 1 ] && grep -qF "rate_limit: the rate of every tool call: a rate of zero calls" "$WORK/err.txt" && [ ! -s "$WORK/out.txt" ]; then
    echo "PASS refused: reports --rate 0 names the setting"
else
    echo "FAIL refused: reports --rate 0 (exit $rc)"
    sed 's/^/    /' "$WORK/err.txt" "$WORK/out.txt" | head -20
    failed=1
fi

exit "$failed"
