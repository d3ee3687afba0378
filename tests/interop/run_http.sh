#!/usr/bin/env bash
# HTTP interop suite: drive an HTTP "calculator" MCP server with real external clients.
#
#   tests/interop/run_http.sh [options] <server binary> [server args...]
#   tests/interop/run_http.sh [options] --reference
#   tests/interop/run_http.sh [options] --url http://HOST:PORT/mcp [--sse-url URL | --no-sse]
#
# Starts `<server binary> [server args...] --http 127.0.0.1:<free port>` in its own process
# group (killed on exit), waits (<= $START_TIMEOUT s, default 20) for the port to accept
# connections, then runs, each as a separate check:
#   python_client.py --url  .../mcp --mode legacy      (Python mcp 2.3.0, Streamable HTTP, 2025-11-25)
#   python_client.py --url  .../mcp --mode auto        (server/discover probe; expects $EXPECT_AUTO)
#   python_client.py --url  .../mcp --mode 2026-07-28  (pinned modern era, stateless)
#   python_client.py --sse-url .../sse --mode legacy   (2024-11-05 HTTP+SSE: sse_client + ClientSession)
#   inspector_stdio.sh --url .../mcp --transport http --era legacy   (MCP Inspector CLI 2.12.0)
#   inspector_stdio.sh --url .../mcp --transport http --era modern
#   inspector_stdio.sh --url .../sse --transport sse  --era legacy
#   server still running after all clients; server stdout stayed empty (not for --reference,
#   whose uvicorn access log goes to stdout)
# and prints a summary; exits non-zero if any check failed.
#
# Options:
#   --reference       with a server binary: only relax python_client.py's "validation error
#                     names the argument" check (as in run_stdio.sh). Without one: test the
#                     Python reference tests/interop/reference_calculator.py, started twice
#                     (--transport streamable-http, and --transport sse on a second port,
#                     since it serves one transport per process), and relax that check.
#   --mcp-path PATH   Streamable HTTP path on the started server (default /mcp)
#   --sse-path PATH   HTTP+SSE path on the started server (default /sse)
#   --sse-url URL     HTTP+SSE URL to test instead of http://127.0.0.1:<port><sse-path>
#   --no-sse          skip the two HTTP+SSE checks
#   --url URL         do not start anything: test the server already running at URL
#                     (its HTTP+SSE URL defaults to URL's origin + --sse-path)
#
# Environment: EXPECT_AUTO (version `auto` must negotiate; default 2026-07-28; empty =
# accept 2025-11-25 or 2026-07-28), INSPECTOR_TIMEOUT (seconds per Inspector run, default 60),
# START_TIMEOUT (seconds to wait for the port, default 20), KEEP_LOGS=1 (keep the server logs).
# RUST_LOG / RUST_BACKTRACE reach the started server through the inherited environment.
# Needs scripts/install-tools.sh to have run (it sources <repo>/.tools/env.sh).
#
# Examples:
#   tests/interop/run_http.sh target/debug/calculator
#   tests/interop/run_http.sh --reference
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"

usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit "${1:-2}"; }

REFERENCE=()
MCP_PATH=/mcp
SSE_PATH=/sse
SSE_URL=""
NO_SSE=0
URL=""
SERVER=()
while [ $# -gt 0 ]; do
    case "$1" in
        --reference) REFERENCE=(--reference); shift ;;
        --mcp-path) [ $# -ge 2 ] || usage; MCP_PATH="$2"; shift 2 ;;
        --sse-path) [ $# -ge 2 ] || usage; SSE_PATH="$2"; shift 2 ;;
        --sse-url) [ $# -ge 2 ] || usage; SSE_URL="$2"; shift 2 ;;
        --no-sse) NO_SSE=1; shift ;;
        --url) [ $# -ge 2 ] || usage; URL="$2"; shift 2 ;;
        -h|--help) usage 0 ;;
        --) shift; SERVER+=("$@"); break ;;
        -*) if [ ${#SERVER[@]} -gt 0 ]; then SERVER+=("$1"); shift; else echo "run_http.sh: unknown option $1" >&2; usage; fi ;;
        *) SERVER+=("$1"); shift ;;
    esac
done
# Options after the binary are still recognised above (`run_http.sh target/debug/calculator
# --reference` works); anything else after it is passed to the server.

ENV_FILE="$ROOT/.tools/env.sh"
if [ ! -f "$ENV_FILE" ]; then
    echo "run_http.sh: $ENV_FILE is missing; run scripts/install-tools.sh first" >&2
    exit 1
fi
# shellcheck source=/dev/null
. "$ENV_FILE"
for v in MCP_PYTHON MCP_INSPECTOR; do
    [ -x "${!v}" ] || { echo "run_http.sh: $v='${!v}' is not executable; rerun scripts/install-tools.sh" >&2; exit 1; }
done

MODE=""
if [ -n "$URL" ]; then
    [ ${#SERVER[@]} -eq 0 ] || { echo "run_http.sh: --url cannot be combined with a server binary" >&2; exit 2; }
    MODE=url
elif [ ${#SERVER[@]} -gt 0 ]; then
    MODE=binary
    if [[ "${SERVER[0]}" == */* ]] && [ ! -x "${SERVER[0]}" ]; then
        echo "run_http.sh: server binary '${SERVER[0]}' does not exist or is not executable" >&2
        exit 2
    fi
elif [ ${#REFERENCE[@]} -gt 0 ]; then
    MODE=reference
else
    echo "usage: $0 [options] <server binary> [server args...] | --reference | --url URL   (--help for more)" >&2
    exit 2
fi

START_TIMEOUT="${START_TIMEOUT:-20}"
EXPECT_AUTO="${EXPECT_AUTO-2026-07-28}"
AUTO_ARGS=()
[ -n "$EXPECT_AUTO" ] && AUTO_ARGS=(--expect-auto "$EXPECT_AUTO")

LOGDIR="$(mktemp -d "${TMPDIR:-/tmp}/run_http.XXXXXX")"
PIDS=()      # process-group leaders we started
LABELS=()
PREFIXES=()

cleanup() {
    local rc=$? i pid
    for i in "${!PIDS[@]}"; do
        pid="${PIDS[$i]}"
        kill -0 "$pid" 2>/dev/null || continue
        kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
        for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        if kill -0 "$pid" 2>/dev/null; then
            echo "run_http.sh: ${LABELS[$i]} (pid $pid) ignored SIGTERM for 5 s; SIGKILL" >&2
            kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
        fi
        wait "$pid" 2>/dev/null || true
    done
    if [ "${KEEP_LOGS:-0}" = 1 ] || [ "$rc" != 0 ]; then
        echo "run_http.sh: server logs kept in $LOGDIR" >&2
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

# start_server <label> <log prefix> <command...>: runs it in a new session/process group
# (stdout and stderr to $LOGDIR/<prefix>.{out,err}); sets STARTED_PID.
start_server() {
    local label="$1" prefix="$2"; shift 2
    echo "== starting $label: $*"
    setsid "$@" >"$LOGDIR/$prefix.out" 2>"$LOGDIR/$prefix.err" </dev/null &
    STARTED_PID=$!
    PIDS+=("$STARTED_PID")
    LABELS+=("$label")
    PREFIXES+=("$prefix")
}

# wait_port <pid> <port> <label> <log prefix>: poll until 127.0.0.1:<port> accepts connections.
wait_port() {
    local pid="$1" port="$2" label="$3" prefix="$4" deadline=$((SECONDS + START_TIMEOUT))
    while :; do
        if ! kill -0 "$pid" 2>/dev/null; then
            local st=0; wait "$pid" 2>/dev/null || st=$?
            echo "run_http.sh: $label exited (status $st) before accepting connections on port $port" >&2
            tail -n 40 "$LOGDIR/$prefix.err" "$LOGDIR/$prefix.out" >&2 || true
            exit 1
        fi
        if "$MCP_PYTHON" - "$port" <<'EOF' 2>/dev/null
import socket, sys
s = socket.socket(); s.settimeout(0.5)
try:
    s.connect(("127.0.0.1", int(sys.argv[1])))
finally:
    s.close()
EOF
        then
            echo "== $label accepts connections on 127.0.0.1:$port (after $((SECONDS - deadline + START_TIMEOUT)) s)"
            return 0
        fi
        if [ "$SECONDS" -ge "$deadline" ]; then
            echo "run_http.sh: FAIL: $label did not accept connections on 127.0.0.1:$port within ${START_TIMEOUT}s" >&2
            tail -n 40 "$LOGDIR/$prefix.err" "$LOGDIR/$prefix.out" >&2 || true
            exit 1
        fi
        sleep 0.2
    done
}

case "$MODE" in
    binary)
        PORT="$(free_port)"
        start_server "server" server "${SERVER[@]}" --http "127.0.0.1:$PORT"
        wait_port "$STARTED_PID" "$PORT" "server" server
        MCP_URL="http://127.0.0.1:$PORT$MCP_PATH"
        [ -n "$SSE_URL" ] || SSE_URL="http://127.0.0.1:$PORT$SSE_PATH"
        WHAT="${SERVER[*]} --http 127.0.0.1:$PORT"
        ;;
    reference)
        REF="$HERE/reference_calculator.py"
        PORT="$(free_port)"
        start_server "reference (streamable-http)" server "$MCP_PYTHON" "$REF" --transport streamable-http --port "$PORT"
        wait_port "$STARTED_PID" "$PORT" "reference (streamable-http)" server
        MCP_URL="http://127.0.0.1:$PORT$MCP_PATH"
        WHAT="reference_calculator.py (streamable-http :$PORT"
        if [ "$NO_SSE" = 0 ] && [ -z "$SSE_URL" ]; then
            SSE_PORT="$(free_port)"
            start_server "reference (sse)" server-sse "$MCP_PYTHON" "$REF" --transport sse --port "$SSE_PORT"
            wait_port "$STARTED_PID" "$SSE_PORT" "reference (sse)" server-sse
            SSE_URL="http://127.0.0.1:$SSE_PORT$SSE_PATH"
            WHAT="$WHAT, sse :$SSE_PORT"
        fi
        WHAT="$WHAT)"
        ;;
    url)
        MCP_URL="$URL"
        if [ -z "$SSE_URL" ]; then
            origin="$("$MCP_PYTHON" -c 'import sys, urllib.parse as u; p = u.urlsplit(sys.argv[1]); print(f"{p.scheme}://{p.netloc}")' "$URL")"
            SSE_URL="$origin$SSE_PATH"
        fi
        WHAT="running server at $URL"
        ;;
esac

echo "== HTTP interop against: $WHAT"
echo "== Streamable HTTP: $MCP_URL"
if [ "$NO_SSE" = 0 ]; then echo "== HTTP+SSE:        $SSE_URL"; else echo "== HTTP+SSE:        skipped (--no-sse)"; fi
echo "== node $(node --version), python mcp $("$MCP_PYTHON" -c 'import importlib.metadata as m; print(m.version("mcp"))'), inspector $(HOME="$MCP_TOOLS_HOME" "$MCP_INSPECTOR" --cli --version 2>/dev/null || echo '?')"
[ ${#REFERENCE[@]} -gt 0 ] && echo "== --reference: the validation-message argument-name check is relaxed for python_client.py"

NAMES=()
RESULTS=()
FAILS=0
record() { # <label> <rc> <seconds>
    NAMES+=("$1")
    if [ "$2" = 0 ]; then
        RESULTS+=("PASS (${3}s)")
        echo "== PASS $1"
    else
        RESULTS+=("FAIL (exit $2, ${3}s)")
        FAILS=$((FAILS + 1))
        echo "== FAIL $1 (exit $2)"
    fi
}
run() { # <label> <command...>
    local label="$1"; shift
    echo
    echo "== $label"
    local start=$SECONDS rc=0
    "$@" || rc=$?
    record "$label" "$rc" $((SECONDS - start))
}

for mode in legacy auto 2026-07-28; do
    extra=()
    [ "$mode" = auto ] && extra=(${AUTO_ARGS[@]+"${AUTO_ARGS[@]}"})
    run "python mcp client, http, mode=$mode" \
        "$MCP_PYTHON" "$HERE/python_client.py" --mode "$mode" ${REFERENCE[@]+"${REFERENCE[@]}"} \
        ${extra[@]+"${extra[@]}"} --url "$MCP_URL"
done
if [ "$NO_SSE" = 0 ]; then
    run "python mcp sse_client, sse, legacy" \
        "$MCP_PYTHON" "$HERE/python_client.py" --mode legacy ${REFERENCE[@]+"${REFERENCE[@]}"} --sse-url "$SSE_URL"
fi
for era in legacy modern; do
    run "inspector cli, http, era=$era" "$HERE/inspector_stdio.sh" --era "$era" --url "$MCP_URL" --transport http
done
if [ "$NO_SSE" = 0 ]; then
    run "inspector cli, sse, era=legacy" "$HERE/inspector_stdio.sh" --era legacy --url "$SSE_URL" --transport sse
fi

# Contract checks on the processes we started: they must still be up, and print nothing on stdout.
for i in "${!PIDS[@]}"; do
    pid="${PIDS[$i]}"
    prefix="${PREFIXES[$i]}"
    echo
    if kill -0 "$pid" 2>/dev/null; then
        echo "== ${LABELS[$i]} is still running"
        record "${LABELS[$i]} still running" 0 0
    else
        st=0; wait "$pid" 2>/dev/null || st=$?
        echo "== ${LABELS[$i]} died during the run (status $st); stderr tail:"
        tail -n 40 "$LOGDIR/$prefix.err" | sed 's/^/    /'
        record "${LABELS[$i]} still running" 1 0
    fi
    if [ "$MODE" = reference ]; then
        # uvicorn writes its access log to stdout; the silence contract is ours, not the reference's.
        echo "== INFO ${LABELS[$i]}: stdout not checked ($(wc -l <"$LOGDIR/$prefix.out") lines of uvicorn access log)"
    elif [ -s "$LOGDIR/$prefix.out" ]; then
        echo "== ${LABELS[$i]} wrote to stdout (it must print nothing there); first lines:"
        head -n 10 "$LOGDIR/$prefix.out" | cut -c1-200 | sed 's/^/    /'
        record "${LABELS[$i]} stdout empty" 1 0
    else
        record "${LABELS[$i]} stdout empty" 0 0
    fi
done

echo
echo "== summary ($WHAT)"
for i in "${!NAMES[@]}"; do
    printf '  %-44s %s\n' "${NAMES[$i]}" "${RESULTS[$i]}"
done
echo "http interop: $(( ${#NAMES[@]} - FAILS )) passed, $FAILS failed"
[ "$FAILS" = 0 ]
