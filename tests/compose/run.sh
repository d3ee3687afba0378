#!/usr/bin/env bash
# One server from many, with clients written by others: the `gateway`
# example mounts our calculator (stdio), the notes server (Streamable HTTP),
# the Python reference calculator (stdio) and the plugins example (stdio).
#
#   tests/compose/run.sh <directory of the example binaries>
#
#   1. Python mcp (tests/compose/python_gateway.py), --mode legacy and
#      2026-07-28, over stdio (a fresh gateway each) and over Streamable HTTP
#      (gateway --listen): prefixed listings, calls, progress, a prompt,
#      resources and a template, completion, sampling and elicitation asked
#      by the notes server and answered by the client, a subscription, a tool
#      added upstream at run time seen downstream, the calculator killed
#      mid-session (its calls say so, the others go on, it comes back).
#   2. MCP Inspector CLI, --protocol-era legacy and modern, over stdio and
#      HTTP: tools/list, tools/call, resources/read through the gateway.
#   3. Bad input: a mount whose command does not exist, a URL that does not
#      answer as an MCP server, an invalid prefix, an mcpServers file that
#      does not parse: refused at start (exit 2), the message naming the
#      mount or the line.
#
# Exits 1 if any check fails. Needs scripts/install-tools.sh to have run.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
BIN="$(cd "${1:?usage: run.sh <directory of the example binaries>}" && pwd)"
for b in gateway calculator notes plugins; do
    [ -x "$BIN/$b" ] || { echo "run.sh: '$BIN/$b' is not executable (cargo build -p mcp-examples)" >&2; exit 2; }
done
. "$ROOT/.tools/env.sh"
. "$ROOT/tests/lib.sh"
for v in MCP_PYTHON MCP_INSPECTOR; do
    [ -x "${!v:-}" ] || { echo "run.sh: $v='${!v:-}' is not executable; rerun scripts/install-tools.sh" >&2; exit 1; }
done

scratch oxmcp-compose

# The notes server, over Streamable HTTP.
NOTES_PORT="$(free_port)"
set -m
"$BIN/notes" --http "127.0.0.1:$NOTES_PORT" >"$WORK/notes.log" 2>&1 &
PIDS+=($!)
set +m
wait_port "$NOTES_PORT" "${PIDS[-1]}" "$WORK/notes.log"
NOTES_URL="http://127.0.0.1:$NOTES_PORT/mcp"

# The gateway's arguments; the calculator's wrapper records each process id
# it starts in $1 (the checks kill it mid-session).
# Printed shell-quoted, for `eval "args=($(mounts FILE))"`.
mounts() {
    printf '%q ' --stdio "calc=sh -c 'echo \$\$ >> $1; exec $BIN/calculator'" \
        --http "notes=$NOTES_URL" \
        --stdio "ref=$MCP_PYTHON $ROOT/tests/interop/reference_calculator.py" \
        --stdio "plugins=$BIN/plugins"
}

# ---------------------------------------------------------------- Python mcp
run_python() { # <label> <pids file> <python_gateway.py args...>
    local label="$1" pids="$2"; shift 2
    if "$MCP_PYTHON" "$HERE/python_gateway.py" --pids "$pids" "$@" >"$WORK/py.log" 2>&1; then
        echo "PASS python mcp: gateway $label ($(grep -c '^PASS' "$WORK/py.log") checks)"
    else
        echo "FAIL python mcp: gateway $label"
        sed 's/^/    /' "$WORK/py.log" | tail -40
        failed=1
    fi
}
n=0
for mode in legacy 2026-07-28; do
    n=$((n + 1)); : >"$WORK/pids$n"
    eval "args=($(mounts "$WORK/pids$n"))"
    run_python "stdio $mode" "$WORK/pids$n" --mode "$mode" -- "$BIN/gateway" "${args[@]}"
done
# One gateway over Streamable HTTP for both eras (each run adds and deletes
# its own note, and kills the calculator it finds in the file).
n=$((n + 1)); : >"$WORK/pids$n"
GATEWAY_PORT="$(free_port)"
eval "args=($(mounts "$WORK/pids$n"))"
set -m
"$BIN/gateway" "${args[@]}" --listen "127.0.0.1:$GATEWAY_PORT" >"$WORK/gateway.log" 2>&1 &
PIDS+=($!)
set +m
wait_port "$GATEWAY_PORT" "${PIDS[-1]}" "$WORK/gateway.log"
GATEWAY_URL="http://127.0.0.1:$GATEWAY_PORT/mcp"
for mode in legacy 2026-07-28; do
    run_python "http $mode" "$WORK/pids$n" --mode "$mode" --url "$GATEWAY_URL"
done

# ---------------------------------------------------------------- Inspector CLI
: >"$WORK/pids.inspector"
eval "args=($(mounts "$WORK/pids.inspector"))"
for era in legacy modern; do
    for where in stdio http; do
        if [ "$where" = stdio ]; then
            target=(-- "$BIN/gateway" "${args[@]}"); pre=()
        else
            target=(); pre=(--transport http --server-url "$GATEWAY_URL")
        fi
        tag="gateway $where $era"
        inspector_check "$tag tools/list" '{"calc_add", "notes_add_note", "ref_add"} <= {t["name"] for t in r["tools"]}' \
            --protocol-era "$era" "${pre[@]}" --method tools/list "${target[@]}"
        inspector_check "$tag tools/call" 'r["content"][0]["text"] == "5"' \
            --protocol-era "$era" "${pre[@]}" --method tools/call --tool-name calc_add --tool-arg a=2 --tool-arg b=3 "${target[@]}"
        inspector_check "$tag resources/read" 'r["contents"][0]["text"].startswith("# Groceries") and r["contents"][0]["uri"] == "notes+notes://1"' \
            --protocol-era "$era" "${pre[@]}" --method resources/read --uri notes+notes://1 "${target[@]}"
    done
done

# ---------------------------------------------------------------- refused at start
refused() { # <label> <expected text> <gateway args...>
    refused_at_start "$1" "$2" "$BIN/gateway" "${@:3}"
}
refused "a command that does not exist" 'mount `calc`: the command `/no/such/server` does not exist' \
    --stdio calc=/no/such/server
refused "an invalid prefix" 'mount `my_calc`: the prefix "my_calc" would make invalid tool names' \
    --stdio "my_calc=$BIN/calculator"
refused "a URL that does not answer as an MCP server" 'mount `shop`: it does not answer as an MCP server' \
    --http "shop=http://127.0.0.1:$NOTES_PORT/nothing-here"
printf '{\n  "mcpServers": {\n    "calc": { "command": "%s", }\n  }\n}\n' "$BIN/calculator" >"$WORK/bad.json"
refused "an mcpServers file that does not parse" "configuration: line 3, column" --config "$WORK/bad.json"
printf '{ "mcpServers": { "calc": { "command": "%s" } } }\n' "$BIN/calculator" >"$WORK/good.json"
refused "--proxy with two servers" "--proxy offers one server's names as they are: 2 servers given" \
    --proxy --config "$WORK/good.json" --http "notes=$NOTES_URL"
exit $failed
