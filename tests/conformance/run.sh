#!/usr/bin/env bash
# Server conformance suites against the conformance fixture server.
#
#   tests/conformance/run.sh [options] <conformance_server binary> [server args...]
#   tests/conformance/run.sh [options] --url-of-running-server http://localhost:PORT/mcp
#
# Starts `<binary> [server args...] --port <free port>` in its own process group (killed on
# exit), waits (<= $START_TIMEOUT s, default 20) until 127.0.0.1:<port> accepts connections,
# then runs, in order, each as a separate step with its own exit code:
#   1. conformance 0.1.16          server --url http://localhost:<port>/mcp --suite all
#                                  --expected-failures tests/conformance/expected-failures-0.1.16.yml
#   2. conformance 0.2.0-alpha.12  server --url ... --requirements 2025-11-25
#                                  --expected-failures .../expected-failures-alpha-2025-11-25.yml
#   3. conformance 0.2.0-alpha.12  server --url ... --requirements 2026-07-28
#                                  --expected-failures .../expected-failures-alpha-2026-07-28.yml
#   4. conformance 0.2.0-alpha.12  server --url ... --scenario S, for every server scenario
#                                  `list --server` marks [extension]; those named in
#                                  tests/conformance/extensions-pending.txt (`name  # reason`)
#                                  must fail, all others must pass
# The suites' own exit codes decide (with a baseline: exit 1 on any unlisted FAILURE/WARNING
# or on any listed entry that now passes). The script exits 1 if any step failed, if a
# baseline file is malformed (checked first: parses, known scenario names, scored ones only,
# a `# reason` on every entry), or if the started server died. Each suite's console log and
# -o results (checks.json per scenario) are kept under a temp dir whose path is printed.
#
# Options:
#   --url-of-running-server URL   do not start a binary; test the server already at URL
#   --only STEP                   run only STEP (0.1.16 | alpha-2025-11-25 | alpha-2026-07-28 |
#                                 alpha-extensions);
#                                 repeatable
#   --out DIR                     put logs and results in DIR instead of a new temp dir
#   --expected-failures-dir DIR   read the three expected-failures-*.yml from DIR instead of
#                                 tests/conformance/ (to try a baseline out)
#   --timeout MS                  per-scenario timeout for the alpha runs (its default: 30000)
#   --verbose                     pass --verbose to the suites (checks as JSON)
#
# Environment: START_TIMEOUT (seconds, default 20). Needs scripts/install-tools.sh to have run.
# Example:
#   tests/conformance/run.sh target/debug/conformance_server
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"

usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit "${1:-2}"; }

URL=""
ONLY=()
OUT=""
EF_DIR="$HERE"
TIMEOUT_MS=""
VERBOSE=()
SERVER=()
while [ $# -gt 0 ]; do
    case "$1" in
        --url-of-running-server) [ $# -ge 2 ] || usage; URL="$2"; shift 2 ;;
        --only) [ $# -ge 2 ] || usage; ONLY+=("$2"); shift 2 ;;
        --out) [ $# -ge 2 ] || usage; OUT="$2"; shift 2 ;;
        --expected-failures-dir) [ $# -ge 2 ] || usage; EF_DIR="$(cd "$2" && pwd)"; shift 2 ;;
        --timeout) [ $# -ge 2 ] || usage; TIMEOUT_MS="$2"; shift 2 ;;
        --verbose) VERBOSE=(--verbose); shift ;;
        -h|--help) usage 0 ;;
        --) shift; SERVER+=("$@"); break ;;
        -*) if [ ${#SERVER[@]} -gt 0 ]; then SERVER+=("$1"); shift; else echo "run.sh: unknown option $1" >&2; usage; fi ;;
        *) SERVER+=("$1"); shift ;;
    esac
done
if [ -n "$URL" ] && [ ${#SERVER[@]} -gt 0 ]; then
    echo "run.sh: --url-of-running-server cannot be combined with a server binary" >&2; exit 2
fi
if [ -z "$URL" ] && [ ${#SERVER[@]} -eq 0 ]; then
    echo "usage: $0 [options] <conformance_server binary> [args...] | --url-of-running-server URL   (--help for more)" >&2
    exit 2
fi
if [ ${#SERVER[@]} -gt 0 ] && [[ "${SERVER[0]}" == */* ]] && [ ! -x "${SERVER[0]}" ]; then
    echo "run.sh: server binary '${SERVER[0]}' does not exist or is not executable" >&2; exit 2
fi
ALL_STEPS=(0.1.16 alpha-2025-11-25 alpha-2026-07-28 alpha-extensions)
for s in ${ONLY[@]+"${ONLY[@]}"}; do
    case " ${ALL_STEPS[*]} " in *" $s "*) ;; *) echo "run.sh: unknown --only step '$s' (one of: ${ALL_STEPS[*]})" >&2; exit 2 ;; esac
done
STEPS=()
for s in "${ALL_STEPS[@]}"; do
    if [ ${#ONLY[@]} -eq 0 ] || [[ " ${ONLY[*]} " == *" $s "* ]]; then STEPS+=("$s"); fi
done

ENV_FILE="$ROOT/.tools/env.sh"
if [ ! -f "$ENV_FILE" ]; then
    echo "run.sh: $ENV_FILE is missing; run scripts/install-tools.sh first" >&2; exit 1
fi
# shellcheck source=/dev/null
. "$ENV_FILE"
for v in MCP_CONFORMANCE_0116 MCP_CONFORMANCE_ALPHA MCP_PYTHON; do
    [ -x "${!v:-}" ] || { echo "run.sh: $v='${!v:-}' is not executable; rerun scripts/install-tools.sh" >&2; exit 1; }
done
case "$(node --version 2>/dev/null)" in
    v2[2-9].*|v[3-9][0-9].*) ;;
    *) echo "run.sh: the suites need Node >= 22 first on PATH (got '$(node --version 2>/dev/null)')" >&2; exit 1 ;;
esac
V0116="$("$MCP_CONFORMANCE_0116" --version)"
VALPHA="$("$MCP_CONFORMANCE_ALPHA" --version)"
REQ_DIR="$(cd "$(dirname "$MCP_CONFORMANCE_ALPHA")/../@modelcontextprotocol/conformance/requirements" && pwd)"

if [ -z "$OUT" ]; then
    OUT="$(mktemp -d "${TMPDIR:-/tmp}/conformance.XXXXXX")"
else
    mkdir -p "$OUT"
    OUT="$(cd "$OUT" && pwd)"
fi

SERVER_PID=""
cleanup() {
    local rc=$?
    if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then
        kill -TERM -- "-$SERVER_PID" 2>/dev/null || kill -TERM "$SERVER_PID" 2>/dev/null || true
        for _ in $(seq 1 50); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.1; done
        if kill -0 "$SERVER_PID" 2>/dev/null; then
            echo "run.sh: server (pid $SERVER_PID) ignored SIGTERM for 5 s; SIGKILL" >&2
            kill -KILL -- "-$SERVER_PID" 2>/dev/null || kill -KILL "$SERVER_PID" 2>/dev/null || true
        fi
        wait "$SERVER_PID" 2>/dev/null || true
    fi
    echo "run.sh: logs and results in $OUT" >&2
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

echo "== conformance: node $(node --version), conformance $V0116 and $VALPHA"
echo "== output dir: $OUT"

# ---------------------------------------------------------------- baseline files
echo "== checking the expected-failures files"
"$MCP_CONFORMANCE_0116" list --server | sed -n 's/^ *- \([^ ]*\).*/\1/p' >"$OUT/scenarios-0.1.16.txt"
LINT_FAIL=0
for step in "${STEPS[@]}"; do
    case "$step" in
        0.1.16)
            node "$HERE/report.mjs" lint "$EF_DIR/expected-failures-0.1.16.yml" 0.1.16 "$OUT/scenarios-0.1.16.txt" || LINT_FAIL=1 ;;
        alpha-extensions)
            "$MCP_CONFORMANCE_ALPHA" list --server | sed -n 's/^ *- \([^ ]*\) \[extension\].*/\1/p' >"$OUT/scenarios-extensions.txt"
            [ -s "$OUT/scenarios-extensions.txt" ] || { echo "run.sh: no [extension] server scenarios listed" >&2; LINT_FAIL=1; }
            while IFS= read -r line; do
                case "$line" in ''|'#'*) continue ;; esac
                name="${line%%[[:space:]]*}"
                grep -qx "$name" "$OUT/scenarios-extensions.txt" || { echo "run.sh: extensions-pending.txt names '$name', not an [extension] server scenario" >&2; LINT_FAIL=1; }
                [[ "$line" == *'# '* ]] || { echo "run.sh: extensions-pending.txt: '$name' has no '# reason'" >&2; LINT_FAIL=1; }
            done <"$HERE/extensions-pending.txt" ;;
        alpha-*)
            rev="${step#alpha-}"
            node "$HERE/report.mjs" scenarios "$REQ_DIR/$rev.yaml" >"$OUT/scenarios-$step.txt"
            node "$HERE/report.mjs" lint "$EF_DIR/expected-failures-$step.yml" alpha "$OUT/scenarios-$step.txt" "$REQ_DIR/$rev.yaml" || LINT_FAIL=1 ;;
    esac
done
if [ "$LINT_FAIL" != 0 ]; then
    echo "run.sh: FAIL: malformed expected-failures file(s); see above" >&2
    exit 1
fi

# ---------------------------------------------------------------- server
if [ -z "$URL" ]; then
    PORT="$("$MCP_PYTHON" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')"
    echo "== starting: ${SERVER[*]} --port $PORT"
    setsid "${SERVER[@]}" --port "$PORT" >"$OUT/server.stdout" 2>"$OUT/server.stderr" </dev/null &
    SERVER_PID=$!
    deadline=$((SECONDS + ${START_TIMEOUT:-20}))
    while :; do
        if ! kill -0 "$SERVER_PID" 2>/dev/null; then
            st=0; wait "$SERVER_PID" 2>/dev/null || st=$?
            SERVER_PID=""
            echo "run.sh: FAIL: the server exited (status $st) before accepting connections on port $PORT" >&2
            tail -n 40 "$OUT/server.stderr" "$OUT/server.stdout" >&2 || true
            exit 1
        fi
        if "$MCP_PYTHON" -c 'import socket,sys; s=socket.create_connection(("127.0.0.1", int(sys.argv[1])), 0.5); s.close()' "$PORT" 2>/dev/null; then
            break
        fi
        if [ "$SECONDS" -ge "$deadline" ]; then
            echo "run.sh: FAIL: the server did not accept connections on 127.0.0.1:$PORT within ${START_TIMEOUT:-20}s" >&2
            tail -n 40 "$OUT/server.stderr" "$OUT/server.stdout" >&2 || true
            exit 1
        fi
        sleep 0.2
    done
    # localhost, not 127.0.0.1: dns-rebinding-protection sends Host/Origin localhost:<port>.
    URL="http://localhost:$PORT/mcp"
    echo "== server up at $URL (pid $SERVER_PID)"
else
    echo "== using the running server at $URL"
fi

# ---------------------------------------------------------------- suites
NAMES=()
RESULTS=()
FAILS=0
server_alive() {
    [ -z "$SERVER_PID" ] && return 0
    kill -0 "$SERVER_PID" 2>/dev/null
}
# The [extension] server scenarios, one run each: pending ones must fail or
# be skipped (a pending one that passes is stale), every other one must pass.
# A scenario whose checks the suite skips is reported as such, with the
# suite's reason (tasks-status-notifications skips itself: its harness is
# being rewritten upstream).
run_extensions() {
    local failures=0 name rc skipped pending
    while IFS= read -r name; do
        "$MCP_CONFORMANCE_ALPHA" server --url "$URL" --scenario "$name" -o "$res" >"$res/$name.log" 2>&1
        rc=$?
        skipped="$(grep -c 'SKIPPED' "$res/$name.log" || true)"
        pending=0
        grep -q "^$name[[:space:]]" "$HERE/extensions-pending.txt" && pending=1
        if [ "$pending" = 1 ]; then
            if [ "$rc" = 0 ] && [ "$skipped" = 0 ]; then
                echo "STALE   $name: listed in extensions-pending.txt, but it passes"; failures=$((failures + 1))
            else
                echo "PENDING $name (exit $rc, $skipped checks skipped), as extensions-pending.txt says"
            fi
        elif [ "$rc" != 0 ]; then
            echo "FAIL    $name"; grep -E 'FAILURE|Passed:' "$res/$name.log" | tail -n 8 | sed 's/^/          /'
            failures=$((failures + 1))
        elif [ "$skipped" != 0 ]; then
            echo "SKIPPED $name: the suite skips $skipped check(s): $(grep -m1 'SKIPPED' "$res/$name.log" | sed 's/.*SKIPPED[^ ]* *//' | cut -c1-160)"
        else
            echo "PASS    $name ($(grep -o 'Passed: [0-9]*/[0-9]*' "$res/$name.log" | tail -n1))"
        fi
    done <"$OUT/scenarios-extensions.txt"
    [ "$failures" = 0 ]
}

i=0
for step in "${STEPS[@]}"; do
    i=$((i + 1))
    res="$OUT/$step"
    log="$OUT/$step.log"
    mkdir -p "$res"
    case "$step" in
        alpha-extensions)
            label="conformance $VALPHA [extension] server scenarios"
            cmd=(run_extensions)
            req="" ;;
        0.1.16)
            label="conformance $V0116 --suite all"
            cmd=("$MCP_CONFORMANCE_0116" server --url "$URL" --suite all
                 --expected-failures "$EF_DIR/expected-failures-0.1.16.yml" -o "$res" ${VERBOSE[@]+"${VERBOSE[@]}"})
            req="" ;;
        alpha-*)
            rev="${step#alpha-}"
            label="conformance $VALPHA --requirements $rev"
            cmd=("$MCP_CONFORMANCE_ALPHA" server --url "$URL" --requirements "$rev"
                 --expected-failures "$EF_DIR/expected-failures-$step.yml" -o "$res" ${VERBOSE[@]+"${VERBOSE[@]}"})
            [ -n "$TIMEOUT_MS" ] && cmd+=(--timeout "$TIMEOUT_MS")
            req="$REQ_DIR/$rev.yaml" ;;
    esac
    echo
    echo "================================================================"
    echo "== [$i/${#STEPS[@]}] $label"
    echo "== \$ ${cmd[*]}"
    echo "================================================================"
    start=$SECONDS
    set +e
    "${cmd[@]}" 2>&1 | tee "$log"
    rc=${PIPESTATUS[0]}
    set -e
    took=$((SECONDS - start))
    echo
    echo "== [$i/${#STEPS[@]}] $label: exit code $rc (${took}s)"
    if [ "$step" != alpha-extensions ]; then
        node "$HERE/report.mjs" summarize "$label" "$log" "$res" ${req:+"$req"} || true
    fi
    echo "  console log: $log"
    echo "  results:     $res"
    NAMES+=("$label")
    if [ "$rc" = 0 ]; then RESULTS+=("PASS (exit 0, ${took}s)"); else RESULTS+=("FAIL (exit $rc, ${took}s)"); FAILS=$((FAILS + 1)); fi
    if ! server_alive; then
        st=0; wait "$SERVER_PID" 2>/dev/null || st=$?
        SERVER_PID=""
        echo "== FAIL: the server died during '$label' (status $st); stderr tail:"
        tail -n 40 "$OUT/server.stderr" | sed 's/^/    /'
        NAMES+=("server alive after $label")
        RESULTS+=("FAIL (exit status $st)")
        FAILS=$((FAILS + 1))
        break
    fi
done

if [ -n "$SERVER_PID" ] && [ -s "$OUT/server.stdout" ]; then
    echo
    echo "== note: the server wrote to stdout (it should print nothing there): $OUT/server.stdout"
fi
echo
echo "== conformance summary ($URL)"
for j in "${!NAMES[@]}"; do
    printf '  %-58s %s\n' "${NAMES[$j]}" "${RESULTS[$j]}"
done
echo "conformance: $(( ${#NAMES[@]} - FAILS )) passed, $FAILS failed; logs and results: $OUT"
[ "$FAILS" = 0 ]
