#!/usr/bin/env bash
# `mcp list`, `call`, `read`, `prompt` and `check` (the oxmcp-cli binary) against real
# servers, started as users start them:
#
#   tests/cli/run.sh <directory with the mcp, calculator and notes binaries>
#
#   our calculator and notes examples        stdio, and Streamable HTTP (--http)
#   the Python mcp 2.3 reference calculator  stdio (reference_calculator.py), and
#                                            Streamable HTTP (reference_http_dual.py),
#                                            also its HTTP+SSE endpoint (the fallback)
#   TypeScript server-everything             stdio and Streamable HTTP
#                                            (tests/interop/ensure_everything.sh)
#
# each in both eras where the server speaks them (`--era legacy` and
# `--era 2026-07-28`; server-everything is legacy only, and is asked for
# 2026-07-28 too, which must be refused in one line). Every `--json` output is
# parsed with Python's json module and checked; the bad inputs (an unknown
# tool, a wrong key or type, a server that does not start, a URL that is not
# MCP, an unreachable one) must exit 1 with one line on stderr naming the fix
# and nothing on stdout. Last, OAuth: `calculator --http --issuer` with
# oidc-provider (tests/interop/oauth/provider.mjs); `mcp call` registers,
# opens the browser (browser.py through MCP_OPEN_BROWSER), takes the
# loopback redirect, keeps the tokens in $XDG_CONFIG_HOME/mcp/tokens.json
# (mode 0600), and the next commands, in both eras, sign in no more.
# `mcp check --call` on our servers and the reference (clean) and on
# tests/cli/bad_server.py (each finding reported, exit status 1).
# Exits 1 if any check fails. Needs
# scripts/install-tools.sh to have run.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
BIN="${1:?usage: run.sh <directory with the mcp, calculator and notes binaries>}"
for b in mcp calculator notes; do
    [ -x "$BIN/$b" ] || { echo "cli/run.sh: '$BIN/$b' is not executable (cargo build -p oxmcp-cli -p mcp-examples)" >&2; exit 2; }
done
. "$ROOT/.tools/env.sh"
. "$ROOT/tests/lib.sh"
[ -x "${MCP_PYTHON:-}" ] || { echo "cli/run.sh: MCP_PYTHON is not set; rerun scripts/install-tools.sh" >&2; exit 1; }
MCP="$BIN/mcp"
scratch oxmcp-cli
# No token from the user's own config directory, none left behind.
export XDG_CONFIG_HOME="$WORK/config"

# ok <label> <python expression over r (the parsed --json output)> <mcp args...>
ok() {
    local label="$1" expr="$2"; shift 2
    if timeout 60 "$MCP" "$@" >"$WORK/out.json" 2>"$WORK/err.txt" \
        && json_holds "$WORK/out.json" "$expr"; then
        echo "PASS $label"
    else
        echo "FAIL $label (wanted: $expr)"
        head -c 1500 "$WORK/out.json" "$WORK/err.txt" | sed 's/^/    /'
        failed=1
    fi
}

# refused <label> <text wanted on stderr> <mcp args...>: exit 1, one line on
# stderr holding the text, nothing on stdout.
refused() {
    local label="$1" want="$2"; shift 2
    local rc=0
    timeout 60 "$MCP" "$@" >"$WORK/out.txt" 2>"$WORK/err.txt" </dev/null || rc=$?
    if [ "$rc" = 1 ] && grep -qF -- "$want" "$WORK/err.txt" \
        && [ "$(wc -l <"$WORK/err.txt")" = 1 ] && [ ! -s "$WORK/out.txt" ]; then
        echo "PASS refused: $label"
    else
        echo "FAIL refused: $label (exit $rc; wanted one line on stderr with: $want)"
        head -c 1500 "$WORK/out.txt" "$WORK/err.txt" | sed 's/^/    /'
        failed=1
    fi
}

# serve <name> <port> <program> <args...>: a server, its log $WORK/<name>.log.
serve() {
    local name="$1"; shift
    serve_on "$WORK/$name.log" "$@"
}

# calculator_checks <label> <server...>: the calculator's tools in both eras.
calculator_checks() {
    local label="$1"; shift
    for era in legacy 2026-07-28; do
        ok "$label ($era): list --json has add with its schema" \
            'any(t["name"] == "add" and t["inputSchema"]["properties"]["a"]["type"] == "number" for t in r["tools"])' \
            list --json --era "$era" "$@"
        ok "$label ($era): call add a=2 b=3.5 (numbers converted by the schema)" \
            'r["content"][0]["text"] == "5.5" and not r.get("isError")' \
            call add a=2 b=3.5 --json --era "$era" "$@"
        ok "$label ($era): call stats values=[1,2,3,4] (JSON for an array), structured content" \
            'r["structuredContent"]["mean"] == 2.5 and r["structuredContent"]["count"] == 4' \
            call stats 'values=[1,2,3,4]' --json --era "$era" "$@"
        ok "$label ($era): call --args JSON" \
            'r["content"][0]["text"] == "42"' \
            call multiply --args '{"a": 6, "b": 7}' --json --era "$era" "$@"
    done
    refused "$label: divide by zero is the tool's error, exit 1" "tool \`divide\` reported an error" \
        call divide a=1 b=0 "$@"
}

# ---- our calculator
calculator_checks "calculator over stdio" -- "$BIN/calculator"
if timeout 60 "$MCP" call count_to n=3 --progress -- "$BIN/calculator" >"$WORK/out.txt" 2>"$WORK/err.txt" \
    && [ "$(grep -c '^progress [123]/3' "$WORK/err.txt")" = 3 ] && ! grep -q progress "$WORK/out.txt"; then
    echo "PASS calculator over stdio: call count_to n=3 --progress shows 3 progress lines on stderr"
else
    echo "FAIL calculator: progress"; cat "$WORK/out.txt" "$WORK/err.txt" | sed 's/^/    /'; failed=1
fi
if timeout 60 "$MCP" call count_to n=3 -- "$BIN/calculator" >/dev/null 2>"$WORK/err.txt" && [ ! -s "$WORK/err.txt" ]; then
    echo "PASS calculator over stdio: no progress on stderr when it is not a terminal and --progress is not given"
else
    echo "FAIL calculator: progress without --progress"; sed 's/^/    /' "$WORK/err.txt"; failed=1
fi
# On a terminal (script(1) gives it one): colour, unless NO_COLOR; progress
# without --progress.
ESC="$(printf '\033')"
if script -qec "$MCP list -- $BIN/calculator" /dev/null >"$WORK/tty.txt" 2>&1 && grep -q "${ESC}\[1madd${ESC}\[0m" "$WORK/tty.txt" \
    && NO_COLOR=1 script -qec "$MCP list -- $BIN/calculator" /dev/null >"$WORK/tty-plain.txt" 2>&1 \
    && grep -q '^add  Add two numbers' "$WORK/tty-plain.txt" && ! grep -q "$ESC" "$WORK/tty-plain.txt"; then
    echo "PASS calculator over stdio: colour on a terminal, none with NO_COLOR"
else
    echo "FAIL colour"; cat -v "$WORK/tty.txt" "$WORK/tty-plain.txt" | head -10 | sed 's/^/    /'; failed=1
fi
if script -qec "$MCP call count_to n=2 -- $BIN/calculator" /dev/null >"$WORK/tty.txt" 2>&1 \
    && [ "$(grep -c '^progress [12]/2' "$WORK/tty.txt")" = 2 ]; then
    echo "PASS calculator over stdio: progress shown on a terminal without --progress"
else
    echo "FAIL progress on a terminal"; cat -v "$WORK/tty.txt" | sed 's/^/    /'; failed=1
fi
CALC_PORT="$(free_port)"
serve calculator "$CALC_PORT" "$BIN/calculator" --http "127.0.0.1:$CALC_PORT"
calculator_checks "calculator over Streamable HTTP" "http://127.0.0.1:$CALC_PORT/mcp"
ok "calculator over HTTP: --header is sent (the server still answers)" 'len(r["tools"]) >= 5' \
    list --json --header 'X-Trace: cli-test' "http://127.0.0.1:$CALC_PORT/mcp"

# ---- the bad inputs
refused "an unknown tool, naming the tools there are" "the server has no tool \`nope\`: its tools are add," \
    call nope -- "$BIN/calculator"
refused "an unknown key, naming the parameters" "tool \`add\` has no parameter \`c\`: its parameters are a, b" \
    call add a=1 b=2 c=3 -- "$BIN/calculator"
refused "a value of the wrong type, in the schema's words" "argument \`a\` of tool \`add\` (The first number) must be a number, not \`two\`" \
    call add a=two b=2 -- "$BIN/calculator"
refused "--args checked against the whole schema, at the value's path" "the arguments of tool \`stats\` do not fit its input schema at \`/values/1\`: \"x\" is not of type \"number\"" \
    call stats --args '{"values": [1, "x"]}' -- "$BIN/calculator"
refused "a missing required argument" "tool \`add\` needs \`b\` (The second number): add b=VALUE" \
    call add a=1 -- "$BIN/calculator"
refused "a server that does not start, its stderr shown" "its last stderr lines: no such database" \
    list -- sh -c 'echo "no such database" >&2; exit 3'
refused "a command that does not exist" "cannot start the server \`$WORK/nothing-here\`" \
    list -- "$WORK/nothing-here"
WEB_PORT="$(free_port)"
serve web "$WEB_PORT" "$MCP_PYTHON" -m http.server "$WEB_PORT" --bind 127.0.0.1 --directory "$WORK"
refused "a URL that is not MCP, with what it answered" "is not an MCP server (the server answered HTTP 501" \
    list "http://127.0.0.1:$WEB_PORT/"
DEAD_PORT="$(free_port)"
refused "an unreachable URL" "cannot reach http://127.0.0.1:$DEAD_PORT/mcp" list "http://127.0.0.1:$DEAD_PORT/mcp"
refused "a server that never answers, within --timeout" "did not start as an MCP server (no answer within 1s)" \
    list --timeout 1 -- sleep 30
refused "no server given" "no server given: add the server's URL, or \`-- COMMAND ARGS\` to start one" list

# ---- our notes server: prompts and resources
notes_checks() {
    local label="$1"; shift
    for era in legacy 2026-07-28; do
        ok "$label ($era): list --prompts --resources --json" \
            '[p["name"] for p in r["prompts"]] == ["summarise"] and any(x["uri"] == "notes://index" for x in r["resources"]) and any(t["uriTemplate"] == "notes://{id}" for t in r["resourceTemplates"]) and "tools" in r' \
            list --prompts --resources --json --era "$era" "$@"
        ok "$label ($era): read notes://1" \
            '"Groceries" in r["contents"][0]["text"]' read notes://1 --json --era "$era" "$@"
        ok "$label ($era): prompt summarise id=2 style=bullets" \
            'r["messages"][0]["role"] == "user" and "Ideas" in r["messages"][0]["content"]["resource"]["text"] and "bullets" in r["messages"][-1]["content"]["text"]' \
            prompt summarise id=2 style=bullets --json --era "$era" "$@"
    done
    refused "$label: a prompt's missing argument" "prompt \`summarise\` needs \`id\`" prompt summarise "$@"
    refused "$label: a resource that is not there" "reading \`notes://999\` failed" read notes://999 "$@"
}
notes_checks "notes over stdio" -- "$BIN/notes"
NOTES_PORT="$(free_port)"
serve notes "$NOTES_PORT" "$BIN/notes" --http "127.0.0.1:$NOTES_PORT"
notes_checks "notes over Streamable HTTP" "http://127.0.0.1:$NOTES_PORT/mcp"

# ---- the Python reference calculator (mcp 2.3)
calculator_checks "Python reference over stdio" -- "$MCP_PYTHON" "$ROOT/tests/interop/reference_calculator.py"
PY_PORT="$(free_port)"
serve python "$PY_PORT" "$MCP_PYTHON" "$ROOT/tests/interop/reference_http_dual.py" --http "127.0.0.1:$PY_PORT"
calculator_checks "Python reference over Streamable HTTP" "http://127.0.0.1:$PY_PORT/mcp"
ok "Python reference over HTTP+SSE (/sse: Streamable HTTP refused, the fallback taken)" \
    'any(t["name"] == "add" for t in r["tools"])' list --json --era legacy "http://127.0.0.1:$PY_PORT/sse"
ok "calculator over HTTP+SSE (/sse)" \
    'any(t["name"] == "add" for t in r["tools"])' list --json --era legacy "http://127.0.0.1:$CALC_PORT/sse"

# ---- TypeScript server-everything (legacy era only)
if ! everything="$("$ROOT/tests/interop/ensure_everything.sh" stdio 2>"$WORK/ensure.log")" \
    || ! everything_http="$("$ROOT/tests/interop/ensure_everything.sh" streamableHttp 2>>"$WORK/ensure.log")"; then
    echo "FAIL server-everything cannot be installed"; sed 's/^/    /' "$WORK/ensure.log" | tail -20
    exit 1
fi
read -r -a EVERYTHING <<<"$everything"
read -r -a EVERYTHING_HTTP <<<"$everything_http"
EV_PORT="$(free_port)"
PORT="$EV_PORT" serve everything "$EV_PORT" "${EVERYTHING_HTTP[@]}"
for target in "stdio|--|${EVERYTHING[*]}" "Streamable HTTP|http://127.0.0.1:$EV_PORT/mcp"; do
    IFS='|' read -r how first rest <<<"$target"
    if [ "$first" = "--" ]; then read -r -a server <<<"-- $rest"; else server=("$first"); fi
    label="server-everything over $how"
    for era in legacy auto; do
        ok "$label ($era): list --prompts --resources --json" \
            'any(t["name"] == "get-sum" for t in r["tools"]) and any(p["name"] == "args-prompt" for p in r["prompts"]) and len(r["resources"]) > 0' \
            list --prompts --resources --json --era "$era" "${server[@]}"
        ok "$label ($era): call get-sum a=2 b=3" '"5" in r["content"][0]["text"]' \
            call get-sum a=2 b=3 --json --era "$era" "${server[@]}"
    done
    ok "$label: call get-tiny-image, an image block" 'any(c["type"] == "image" for c in r["content"])' \
        call get-tiny-image --json "${server[@]}"
    ok "$label: prompt args-prompt city=Paris" '"Paris" in r["messages"][0]["content"]["text"]' \
        prompt args-prompt city=Paris --json "${server[@]}"
    ok "$label: read a static resource" 'len(r["contents"][0]["text"]) > 0' \
        read demo://resource/static/document/features.md --json "${server[@]}"
    refused "$label: a value outside the schema's enum" 'must be one of "New York", "Chicago", "Los Angeles", not `London`' \
        call get-structured-content location=London "${server[@]}"
    refused "$label: --era 2026-07-28 against a legacy-only server" "refused the MCP handshake" \
        list --era 2026-07-28 "${server[@]}"
done
if timeout 60 "$MCP" call trigger-long-running-operation duration=1 steps=2 --progress -- "${EVERYTHING[@]}" \
    >"$WORK/out.txt" 2>"$WORK/err.txt" && [ "$(grep -c '^progress [12]/2' "$WORK/err.txt")" = 2 ]; then
    echo "PASS server-everything: progress of trigger-long-running-operation on stderr"
else
    echo "FAIL server-everything: progress"; cat "$WORK/out.txt" "$WORK/err.txt" | sed 's/^/    /'; failed=1
fi

# ---- mcp check: our servers and the reference are clean; a bad server's every finding reported
for server in "$BIN/calculator" "$BIN/notes" "$MCP_PYTHON $ROOT/tests/interop/reference_calculator.py"; do
    read -r -a command <<<"$server"
    ok "check --call: $(basename "${command[-1]}") is clean in both eras (read-only tools called where it marks them)" 'r["errors"] == 0 and r["findings"] == []' \
        check --call --json -- "${command[@]}"
done
ok "check: server-everything has warnings only (legacy era only; a parameter without a description)" \
    'r["errors"] == 0 and any("2026-07-28" in f["message"] for f in r["findings"]) and all(f["level"] == "warning" for f in r["findings"])' \
    check --json -- "${EVERYTHING[@]}"
rc=0
timeout 60 "$MCP" check --call --json -- "$MCP_PYTHON" "$HERE/bad_server.py" >"$WORK/out.json" 2>"$WORK/err.txt" || rc=$?
if [ "$rc" = 1 ] && json_holds "$WORK/out.json" '(
r["errors"] == 1
and any(f["level"] == "error" and f["item"] == "tool `undocumented`" and "no description" in f["message"] for f in r["findings"])
and any(f["level"] == "warning" and f["item"] == "tool `labels`" and "strict mode" in f["message"] for f in r["findings"])
and any(f["level"] == "warning" and "the tool listing is about" in f["message"] and 55000 < int(f["message"].split("about ")[1].split()[0]) < 70000 for f in r["findings"])
and any(f["level"] == "warning" and f["item"] == "tool `dump`" and "over the 25000 hosts take from one call" in f["message"] for f in r["findings"]))'; then
    echo "PASS check --call: the bad server's missing description (error), strict-mode refusal, 60 k-token listing and 30 k-token result (warnings) reported, exit 1"
else
    echo "FAIL check: the bad server (exit $rc)"; head -c 3000 "$WORK/out.json" "$WORK/err.txt" | sed 's/^/    /'; failed=1
fi

# ---- OAuth: a protected calculator, signed in to with oidc-provider
[ -d "${MCP_OIDC_PROVIDER_MODULES:-}/oidc-provider" ] || { echo "FAIL oidc-provider is not installed; rerun scripts/install-tools.sh"; exit 1; }
AS_PORT="$(free_port)"
SAFE_PORT="$(free_port)"
SAFE_URL="http://127.0.0.1:$SAFE_PORT/mcp"
serve provider "$AS_PORT" node "$ROOT/tests/interop/oauth/provider.mjs" "$AS_PORT" "$SAFE_URL"
serve protected "$SAFE_PORT" "$BIN/calculator" --http "127.0.0.1:$SAFE_PORT" --issuer "http://127.0.0.1:$AS_PORT"
# The user's browser: the scripted one of the OAuth interop tests.
printf '#!/bin/sh\nexec "%s" "%s" "$1"\n' "$MCP_PYTHON" "$ROOT/tests/interop/oauth/browser.py" >"$WORK/browser"
chmod +x "$WORK/browser"
TOKENS="$XDG_CONFIG_HOME/mcp/tokens.json"
if MCP_OPEN_BROWSER="$WORK/browser" timeout 120 "$MCP" call add a=2 b=3 --json "$SAFE_URL" \
        >"$WORK/out.json" 2>"$WORK/err.txt" \
    && json_holds "$WORK/out.json" 'r["content"][0]["text"] == "5"' \
    && grep -q "To authorize this client" "$WORK/err.txt" \
    && [ "$(stat -c %a "$TOKENS")" = 600 ]; then
    echo "PASS OAuth: mcp call signs in (registration, browser, loopback redirect), tokens kept in the config directory with mode 0600"
else
    echo "FAIL OAuth: sign-in"; cat "$WORK/out.json" "$WORK/err.txt" | sed 's/^/    /'
    ls -l "$TOKENS" 2>&1 | sed 's/^/    /'; failed=1
fi
for era in legacy 2026-07-28; do
    if MCP_OPEN_BROWSER=/bin/false timeout 60 "$MCP" list --json --era "$era" "$SAFE_URL" \
            >"$WORK/out.json" 2>"$WORK/err.txt" \
        && json_holds "$WORK/out.json" 'any(t["name"] == "add" for t in r["tools"])' \
        && ! grep -q "To authorize" "$WORK/err.txt"; then
        echo "PASS OAuth ($era): a second command uses the stored tokens (no browser)"
    else
        echo "FAIL OAuth ($era): stored tokens"; cat "$WORK/out.json" "$WORK/err.txt" | sed 's/^/    /'; failed=1
    fi
done

exit $failed
