# What the test scripts share. Source it after `.tools/env.sh`:
#   . "$ROOT/tests/lib.sh"
# The functions use MCP_PYTHON and MCP_INSPECTOR (from env.sh), and
# `inspector_check` uses the caller's WORK directory and sets its `failed`.

# scratch <name>: sets WORK to a fresh directory, PIDS to an empty list of
# process groups (a script adds each server it starts with `set -m`), and
# failed=0; at exit, the groups are killed and WORK removed.
scratch() {
    WORK="$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX")"
    PIDS=()
    failed=0
    trap 'for pid in "${PIDS[@]}"; do kill -- -"$pid" 2>/dev/null || true; done; rm -rf "$WORK"' EXIT
}

# A free TCP port on 127.0.0.1 (nothing listens on it when this returns).
free_port() {
    "$MCP_PYTHON" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

# wait_port <port> <pid> <log>: waits (30 s at most) until something listens
# on 127.0.0.1:<port>; exits 1, showing <log>, if <pid> dies first or nothing comes.
wait_port() {
    for _ in $(seq 1 300); do
        "$MCP_PYTHON" -c "import socket,sys; s=socket.socket(); sys.exit(s.connect_ex(('127.0.0.1',$1)))" && return 0
        kill -0 "$2" 2>/dev/null || { echo "$(basename "$0"): a server died:"; cat "$3"; exit 1; }
        sleep 0.1
    done
    echo "$(basename "$0"): nothing listens on port $1:"; cat "$3"; exit 1
}

# json_holds <file> <python expression over r> [key]: whether the JSON
# document in <file> (its member <key>, when given) makes the expression true.
json_holds() {
    "$MCP_PYTHON" -c '
import json, sys
r = json.load(open(sys.argv[1]))
if len(sys.argv) > 3:
    r = r[sys.argv[3]]
sys.exit(0 if eval(sys.argv[2]) else 1)' "$@"
}

# serve_on <log> <port> <program> <args...>: starts the program in a process
# group of its own (added to PIDS, killed at exit by `scratch`), its output
# in <log>, and returns once <port> listens.
serve_on() {
    local log="$1" port="$2"; shift 2
    set -m
    "$@" >"$log" 2>&1 &
    PIDS+=($!)
    set +m
    wait_port "$port" "${PIDS[-1]}" "$log"
}

# inspector_check <label> <python expression over r (the result)> <inspector args...>:
# runs the MCP Inspector CLI and checks its JSON result; prints PASS or FAIL
# (with the output), and sets failed=1 on a failure.
inspector_check() {
    local label="$1" expr="$2"; shift 2
    mkdir -p "$WORK/home"
    if HOME="$WORK/home" timeout 60 "$MCP_INSPECTOR" --cli --format json "$@" >"$WORK/out.json" 2>"$WORK/err.log" \
        && json_holds "$WORK/out.json" "$expr" result; then
        echo "PASS inspector: $label"
    else
        echo "FAIL inspector: $label"
        head -c 2000 "$WORK/out.json" "$WORK/err.log" | sed 's/^/    /'
        failed=1
    fi
}

# refused_at_start <label> <expected text> <program> <args...>: the program,
# started with its stdin closed, must exit 2 with the text on stderr and
# nothing on stdout; prints PASS or FAIL, and sets failed=1 on a failure.
refused_at_start() {
    local label="$1" want="$2"; shift 2
    local rc=0
    timeout 30 "$@" </dev/null >"$WORK/out.txt" 2>"$WORK/err.txt" || rc=$?
    if [ "$rc" = 2 ] && grep -qF -- "$want" "$WORK/err.txt" && [ ! -s "$WORK/out.txt" ]; then
        echo "PASS refused: $label"
    else
        echo "FAIL refused: $label (exit $rc)"
        sed 's/^/    /' "$WORK/err.txt" "$WORK/out.txt" | head -20
        failed=1
    fi
}
