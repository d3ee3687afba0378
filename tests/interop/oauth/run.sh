#!/usr/bin/env bash
# Authorization end to end, with a real authorization server:
#
#   tests/interop/oauth/run.sh <directory with the calculator and calculator_client binaries>
#
#   1. oidc-provider 9.13.3 (provider.mjs) on a free 127.0.0.1 port: JWT access tokens
#      bound to the calculator's resource URI, Dynamic Client Registration, PKCE;
#   2. `calculator --http ADDR --issuer URL`: the calculator as a protected resource;
#   3. `calculator_client --url http://ADDR/mcp`: our client signs in (its loopback
#      redirect listener; browser.py plays the user's browser through MCP_OPEN_BROWSER)
#      and runs every check of its round trip; run again, it reuses its token file;
#   4. the Python mcp 2.3.0 client with its OAuth provider (python_oauth.py), both eras,
#      stepping up for `store`'s scope.
# (The hostile table, tokens the calculator must refuse, is mcp-server/tests/protocol/auth.rs.)
#
# Exits 1 if any step fails. Needs scripts/install-tools.sh to have run.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../.." && pwd)"
BIN="${1:?usage: run.sh <directory with calculator and calculator_client>}"
for b in calculator calculator_client; do
    [ -x "$BIN/$b" ] || { echo "oauth/run.sh: '$BIN/$b' is not executable (cargo build -p mcp-examples)" >&2; exit 2; }
done
. "$ROOT/.tools/env.sh"
. "$ROOT/tests/lib.sh"
[ -x "${MCP_PYTHON:-}" ] || { echo "oauth/run.sh: MCP_PYTHON is not set; rerun scripts/install-tools.sh" >&2; exit 1; }
[ -d "${MCP_OIDC_PROVIDER_MODULES:-}/oidc-provider" ] || { echo "oauth/run.sh: oidc-provider is not installed; rerun scripts/install-tools.sh" >&2; exit 1; }

WORK="$(mktemp -d "${TMPDIR:-/tmp}/mcp-oauth-interop.XXXXXX")"
PIDS=()
cleanup() {
    for p in "${PIDS[@]}"; do kill -- -"$p" 2>/dev/null || true; done
    rm -rf "$WORK"
}
trap cleanup EXIT
failed=0

AS_PORT="$(free_port)"
MCP_PORT="$(free_port)"
ISSUER="http://127.0.0.1:$AS_PORT"
URL="http://127.0.0.1:$MCP_PORT/mcp"

set -m
node "$HERE/provider.mjs" "$AS_PORT" "$URL" >"$WORK/provider.log" 2>&1 &
PIDS+=($!)
wait_port "$AS_PORT" "${PIDS[-1]}" "$WORK/provider.log"
"$BIN/calculator" --http "127.0.0.1:$MCP_PORT" --issuer "$ISSUER" >"$WORK/calculator.log" 2>&1 &
PIDS+=($!)
set +m
wait_port "$MCP_PORT" "${PIDS[-1]}" "$WORK/calculator.log"

# The user's browser, for calculator_client's loopback sign-in.
printf '#!/bin/sh\nexec "%s" "%s" "$1"\n' "$MCP_PYTHON" "$HERE/browser.py" >"$WORK/browser"
chmod +x "$WORK/browser"

if MCP_OPEN_BROWSER="$WORK/browser" MCP_TOKEN_FILE="$WORK/tokens.json" timeout 120 \
    "$BIN/calculator_client" --url "$URL" >"$WORK/client.log" 2>&1 \
    && ! grep -q '^FAIL' "$WORK/client.log"; then
    echo "PASS calculator_client signs in with oidc-provider and calls the protected calculator ($(grep -c '^PASS' "$WORK/client.log") checks)"
else
    echo "FAIL calculator_client against the protected calculator"
    sed 's/^/    /' "$WORK/client.log" | tail -30
    failed=1
fi
# Signed in once: a second run uses the stored tokens, no browser.
if MCP_OPEN_BROWSER=/bin/false MCP_TOKEN_FILE="$WORK/tokens.json" timeout 60 \
    "$BIN/calculator_client" --url "$URL" >"$WORK/client2.log" 2>&1 \
    && ! grep -q 'To authorize this client' "$WORK/client2.log"; then
    echo "PASS calculator_client reuses its stored tokens (no second sign-in)"
else
    echo "FAIL calculator_client with stored tokens"
    sed 's/^/    /' "$WORK/client2.log" | tail -30
    failed=1
fi

if timeout 180 "$MCP_PYTHON" "$HERE/python_oauth.py" "$URL" >"$WORK/python.log" 2>&1; then
    echo "PASS python mcp with OAuth against the protected calculator ($(grep -c '^PASS' "$WORK/python.log") checks)"
else
    echo "FAIL python mcp with OAuth against the protected calculator"
    sed 's/^/    /' "$WORK/python.log" | tail -40
    failed=1
fi
if [ $failed -ne 0 ]; then
    echo "--- provider log"; tail -20 "$WORK/provider.log" | sed 's/^/    /'
    echo "--- calculator log"; tail -20 "$WORK/calculator.log" | sed 's/^/    /'
fi
exit $failed
