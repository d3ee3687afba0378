#!/usr/bin/env bash
# Which of this workspace's source files one `tools/call` over Streamable
# HTTP (2026-07-28, stateless) passes through, in the order it first
# enters each, with the functions it runs there.
#
#   scripts/call-path.sh            # prints the files, then the count
#   scripts/call-path.sh --functions  # also each function, in call order
#   scripts/call-path.sh --release [--functions]
#                                   # the optimized build (with the release
#                                   # profile's line tables): only the
#                                   # functions left out of line, as they run
#
# It builds the HTTP bench server (`bench-ours-http`: one `add` tool, as a
# user writes it), starts it on a free loopback port, makes two warm-up
# calls (so that what runs once per process is not counted), then attaches
# gdb with a breakpoint on every function of this workspace's crates, makes
# the measured call with curl, and lists where the breakpoints hit. Needs
# gdb, nm, curl and python3; it is a tool for reading the code, not a test.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
work=$(mktemp -d)
trap 'kill "${server:-0}" 2>/dev/null || true; rm -rf "$work"' EXIT

export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
profile=debug
if [ "${1:-}" = --release ]; then
    profile=release
    shift
fi
cargo build -q -p mcp-bench --bin bench-ours-http $([ $profile = release ] && echo --release)
bin="$CARGO_TARGET_DIR/$profile/bench-ours-http"

nm -C --defined-only "$bin" | awk '$2 ~ /^[tTwW]$/' |
    grep -E 'mcp_(server|types|wire|uri_template)::|bench_ours_http::' |
    awk '{print $1}' > "$work/addrs"

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$bin" --port "$port" 2>"$work/server.err" &
server=$!
meta='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"call-path","version":"1"}}'
body='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2},'"$meta"'}}'
call() {
    curl -sf -m 60 "http://127.0.0.1:$port/mcp" -H 'Content-Type: application/json' \
        -H 'Accept: application/json, text/event-stream' -H 'MCP-Protocol-Version: 2026-07-28' \
        -H 'Mcp-Method: tools/call' -H 'Mcp-Name: add' -d "$body" >"$work/reply"
    grep -q '"text":"3"' "$work/reply" || { echo "unexpected reply: $(cat "$work/reply")" >&2; exit 1; }
}
for _ in 1 2 3 4 5 6 7 8 9 10; do call 2>/dev/null && break; sleep 0.5; done
call

cat >"$work/trace.gdb" <<GDB
set pagination off
set confirm off
python
import gdb
pid = gdb.selected_inferior().pid
base = next(int(l.split('-')[0], 16) for l in open(f'/proc/{pid}/maps') if '$bin' in l)
hits = []
class Hit(gdb.Breakpoint):
    def stop(self):
        frame = gdb.selected_frame()
        sal = frame.find_sal()
        hits.append((sal.symtab.fullname() if sal.symtab else '?', frame.name() or '?'))
        return False
for a in open('$work/addrs'):
    Hit('*0x%x' % (base + int(a, 16)), internal=True)
open('$work/ready', 'w').write('')
end
continue
python open('$work/hits', 'w').write(''.join(f'{f}\t{n}\n' for f, n in hits))
GDB
gdb -p "$server" -batch -x "$work/trace.gdb" >"$work/gdb.log" 2>&1 &
for _ in $(seq 1 600); do [ -f "$work/ready" ] && break; sleep 0.5; done
[ -f "$work/ready" ] || { echo "gdb did not attach: $(tail -3 "$work/gdb.log")" >&2; exit 1; }
sleep 1
call
kill -INT "$server"
for _ in $(seq 1 60); do [ -f "$work/hits" ] && break; sleep 0.5; done

python3 - "$work/hits" "$root/" "${1:-}" <<'PY'
import sys
hits, root, verbose = sys.argv[1], sys.argv[2], sys.argv[3] == '--functions'
order, names = [], {}
for line in open(hits):
    path, name = line.rstrip('\n').split('\t', 1)
    if not path.startswith(root):
        continue  # the standard library's and dependencies' code
    path = path[len(root):]
    if path not in names:
        order.append(path)
        names[path] = []
    if name not in names[path]:
        names[path].append(name)
for path in order:
    print(f'{len(names[path]):3} {path}')
    if verbose:
        for name in names[path]:
            print(f'      {name}')
print(f'{len(order)} files, {sum(len(n) for n in names.values())} functions')
PY
