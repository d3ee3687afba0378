#!/usr/bin/env bash
# Several instances, one service: two instances of an example behind HAProxy
# (round-robin, no stickiness: each request balanced on its own), sharing
# state in Redis, driven by clients written by others.
#
#   tests/several/run.sh <target dir with conformance_server and notes>
#
#   1. two `conformance_server --redis` behind the proxy: the three official
#      conformance runs (0.1.16 --suite all, 0.2.0-alpha.12 --requirements
#      2025-11-25 and 2026-07-28) pass through it, with the same empty
#      expected-failures lists as against one server, and so do the
#      [extension] scenarios (tasks: each request of a task lands on either
#      instance);
#   2. the proxy really balanced request by request: both instances served
#      requests (HAProxy's own counters);
#   3. two `notes --redis` behind the proxy: the Python mcp client (legacy,
#      2026-07-28) and the MCP Inspector CLI (legacy, modern) through it; the
#      Python client (both eras) through nginx in front of the same two,
#      round-robin too (its access log shows both instances served);
#   4. one instance killed (SIGKILL) in the middle of a session: the session
#      goes on through the proxy on the other;
#   5. the same two conformance servers without --redis behind the same
#      proxy FAIL the 0.1.16 run: the setup can tell shared state from none.
#
# redis-server and haproxy come from Debian's packages (scripts/install-tools.sh
# installs them); each is started on free loopback ports and stopped at the end.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
BIN="${1:?usage: run.sh <target dir, e.g. target/debug>}"
BIN="$(cd "$BIN" && pwd)"
for b in conformance_server notes; do
    [ -x "$BIN/$b" ] || { echo "several: $BIN/$b is missing (cargo build -p mcp-examples)" >&2; exit 2; }
done
for b in redis-server haproxy nginx; do
    command -v "$b" >/dev/null || { echo "several: $b is missing; run scripts/install-tools.sh" >&2; exit 1; }
done
. "$ROOT/.tools/env.sh"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/mcp-several.XXXXXX")"
PIDS=()
cleanup() {
    local rc=$?
    for p in "${PIDS[@]}"; do kill -KILL -- "-$p" 2>/dev/null || kill -KILL "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    if [ "$rc" != 0 ]; then
        for f in "$WORK"/*.log; do echo "---- $f (tail)"; tail -n 30 "$f"; done
    fi
    rm -rf "$WORK"
    exit "$rc"
}
trap cleanup EXIT

free_port() { "$MCP_PYTHON" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
wait_port() {
    local port=$1 pid=$2
    for _ in $(seq 1 200); do
        "$MCP_PYTHON" -c "import socket,sys; s=socket.socket(); sys.exit(s.connect_ex(('127.0.0.1',$port)))" && return 0
        kill -0 "$pid" 2>/dev/null || { echo "several: process $pid died before listening on $port" >&2; return 1; }
        sleep 0.1
    done
    echo "several: nothing listens on $port after 20 s" >&2
    return 1
}
# start <name> <command...>: in its own process group, logs in $WORK/<name>.log
start() {
    local name=$1; shift
    set -m
    "$@" >"$WORK/$name.log" 2>&1 </dev/null &
    local pid=$!
    set +m
    PIDS+=("$pid")
    eval "PID_$name=$pid"
}
stop() {
    local pid
    eval "pid=\${PID_$1:-}"
    [ -n "$pid" ] || return 0
    kill -TERM -- "-$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL -- "-$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
}

failed=0
pass() { echo "PASS several: $*"; }
fail() { echo "FAIL several: $*"; failed=1; }

# ---------------------------------------------------------------- Redis
RPORT="$(free_port)"
start redis redis-server --bind 127.0.0.1 --port "$RPORT" --save "" --appendonly no
wait_port "$RPORT" "$PID_redis"
REDIS="redis://127.0.0.1:$RPORT/0"
export MCP_REQUEST_STATE_KEYS="k1:$("$MCP_PYTHON" -c 'import secrets; print(secrets.token_hex(32))')"
echo "== redis-server $(redis-server --version | sed -n 's/.*v=\([^ ]*\).*/\1/p') on 127.0.0.1:$RPORT; haproxy $(haproxy -v | sed -n '1s/^HAProxy version \([^ ]*\).*/\1/p')"

# ---------------------------------------------------------------- the proxy
PA="$(free_port)"; PB="$(free_port)"; PROXY="$(free_port)"; STATS="$(free_port)"
cat >"$WORK/haproxy.cfg" <<CFG
global
    maxconn 2000
defaults
    mode http
    timeout connect 2s
    timeout client 120s
    timeout server 120s
    timeout tunnel 120s
    # Each request is balanced on its own: both connections close after each
    # response, so no request follows the previous one to its instance, and
    # no kept-alive connection outlives an instance that was killed (with
    # client-side keep-alive, HAProxy 2.6 dropped the next request on such a
    # connection without an answer in about one run in four).
    option httpclose
    http-reuse never
    retries 3
    option redispatch 1
frontend mcp
    bind 127.0.0.1:$PROXY
    default_backend instances
backend instances
    balance roundrobin
    server a 127.0.0.1:$PA check inter 300ms fall 1 rise 2
    server b 127.0.0.1:$PB check inter 300ms fall 1 rise 2
frontend stats
    bind 127.0.0.1:$STATS
    stats enable
    stats uri /stats
CFG
start haproxy haproxy -db -f "$WORK/haproxy.cfg"
wait_port "$PROXY" "$PID_haproxy"
served() {  # served <server name>: requests HAProxy sent to it so far
    "$MCP_PYTHON" - "$STATS" "$1" <<'PY'
import csv, io, sys, urllib.request
rows = csv.DictReader(io.StringIO(urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/stats;csv").read().decode().lstrip("# ")))
print(next(int(r["stot"] or 0) for r in rows if r["pxname"] == "instances" and r["svname"] == sys.argv[2]))
PY
}
two() {  # two <binary> <flag for the address> <extra args...>: instances a and b
    local bin=$1 flag=$2; shift 2
    local addr_a addr_b
    if [ "$flag" = --port ]; then addr_a="$PA"; addr_b="$PB"; else addr_a="127.0.0.1:$PA"; addr_b="127.0.0.1:$PB"; fi
    start a "$bin" "$flag" "$addr_a" "$@"
    start b "$bin" "$flag" "$addr_b" "$@"
    wait_port "$PA" "$PID_a"; wait_port "$PB" "$PID_b"
    sleep 1  # the proxy's health checks see both up
}
URL="http://localhost:$PROXY/mcp"

# ---------------------------------------------------------------- 1, 2: conformance
echo "== two conformance_server --redis behind the proxy at $URL"
two "$BIN/conformance_server" --port --redis "$REDIS"
a0="$(served a)"; b0="$(served b)"
if "$ROOT/tests/conformance/run.sh" --out "$WORK/conformance" --url-of-running-server "$URL"; then
    pass "the three conformance runs and the [extension] scenarios (tasks created on one instance, polled, updated and cancelled on the other) through the proxy (two instances, shared state in Redis)"
else
    fail "the conformance runs through the proxy"
fi
a1="$(served a)"; b1="$(served b)"
echo "== requests balanced: a served $((a1 - a0)), b served $((b1 - b0))"
if [ $((a1 - a0)) -gt 50 ] && [ $((b1 - b0)) -gt 50 ]; then
    pass "both instances served requests ($((a1 - a0)) and $((b1 - b0)))"
else
    fail "the proxy did not balance: a served $((a1 - a0)), b $((b1 - b0))"
fi

# ---------------------------------------------------------------- 4: an instance killed
echo "== SIGKILL one instance in the middle of a session"
if "$MCP_PYTHON" "$HERE/killed.py" --url "$URL" --kill "$PID_a" --stats "$STATS" --server a >"$WORK/killed.log" 2>&1; then
    pass "a session goes on after its instance was killed ($(grep -c '^ok' "$WORK/killed.log") steps)"
else
    fail "a session after its instance was killed"; sed 's/^/    /' "$WORK/killed.log"
fi
stop a; stop b

# ---------------------------------------------------------------- 3: clients written by others
echo "== two notes --redis behind the proxy: Python mcp and the MCP Inspector CLI"
two "$BIN/notes" --http --redis "$REDIS"
if "$ROOT/tests/interop/run_notes.sh" "$BIN/notes" --url "http://127.0.0.1:$PROXY/mcp"; then
    pass "Python mcp (legacy, 2026-07-28) and the Inspector CLI (legacy, modern) through the proxy"
else
    fail "Python mcp and the Inspector CLI through the proxy"
fi
NGINX="$(free_port)"
mkdir -p "$WORK/nginx"
# As root, nginx's workers would switch to a user that cannot reach $WORK.
[ "$(id -u)" = 0 ] && echo "user root;" >"$WORK/nginx.conf" || : >"$WORK/nginx.conf"
cat >>"$WORK/nginx.conf" <<CFG
daemon off;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/error.log warn;
events { worker_connections 256; }
http {
    log_format upstream '\$request \$status \$upstream_addr';
    access_log $WORK/nginx/access.log upstream;
    client_body_temp_path $WORK/nginx/body;
    proxy_temp_path $WORK/nginx/proxy;
    fastcgi_temp_path $WORK/nginx/fastcgi;
    uwsgi_temp_path $WORK/nginx/uwsgi;
    scgi_temp_path $WORK/nginx/scgi;
    upstream mcp {
        server 127.0.0.1:$PA max_fails=1 fail_timeout=2s;
        server 127.0.0.1:$PB max_fails=1 fail_timeout=2s;
    }
    server {
        listen 127.0.0.1:$NGINX;
        location /mcp {
            proxy_pass http://mcp;
            proxy_set_header Host \$http_host;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_buffering off;
            proxy_read_timeout 120s;
            proxy_next_upstream error timeout;
        }
    }
}
CFG
start nginx nginx -c "$WORK/nginx.conf" -p "$WORK/nginx"
wait_port "$NGINX" "$PID_nginx"
nginx_ok=1
for mode in legacy 2026-07-28; do
    if ! "$MCP_PYTHON" "$ROOT/tests/interop/python_notes.py" --mode "$mode" --url "http://127.0.0.1:$NGINX/mcp" >"$WORK/nginx-$mode.log" 2>&1; then
        nginx_ok=0; sed 's/^/    /' "$WORK/nginx-$mode.log" | tail -30
    fi
done
na="$(grep -c "127.0.0.1:$PA\$" "$WORK/nginx/access.log" || true)"
nb="$(grep -c "127.0.0.1:$PB\$" "$WORK/nginx/access.log" || true)"
if [ "$nginx_ok" = 1 ] && [ "$na" -gt 5 ] && [ "$nb" -gt 5 ]; then
    pass "Python mcp (legacy, 2026-07-28) through nginx round-robin (a served $na requests, b $nb)"
else
    fail "Python mcp through nginx (a served $na requests, b $nb)"
fi
stop nginx
stop a; stop b

# ---------------------------------------------------------------- 5: without the store
echo "== the same two conformance servers WITHOUT --redis behind the proxy must fail"
two "$BIN/conformance_server" --port
if "$ROOT/tests/conformance/run.sh" --only 0.1.16 --out "$WORK/conformance-no-store" --url-of-running-server "$URL" >"$WORK/no-store.log" 2>&1; then
    fail "without a shared store the conformance run passed through the proxy: the setup cannot tell"
else
    pass "without a shared store the conformance run fails through the proxy ($(grep -c 'FAIL' "$WORK/no-store.log") failing lines), as it must"
fi
stop a; stop b

exit $failed
