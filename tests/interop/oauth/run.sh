#!/usr/bin/env bash
# Authorization end to end, with a real authorization server configured as
# the identity providers behave:
#
#   tests/interop/oauth/run.sh <directory with the calculator and calculator_client binaries>
#
# Two oidc-provider 9.13.3 processes (provider.mjs), each on a free 127.0.0.1
# port, each serving several clients and calculators:
#
#   provider 1, with Dynamic Client Registration:
#     (b) audience = the resource (the spec's shape): `calculator --issuer`;
#         calculator_client registers itself, signs in (its loopback redirect
#         listener; browser.py plays the user's browser through
#         MCP_OPEN_BROWSER) and runs every check of its round trip, then again
#         from its token file; the Python mcp client with its OAuth provider,
#         both eras, stepping up for `store`'s scope;
#     (a) audience = the client id (Entra ID v2.0, Auth0/WorkOS by a setting):
#         `calculator --issuer --audience calculator-app`; the pre-registered
#         client `calculator-app`, for calculator_client and Python; then
#         Entra's own shape, calculator_client without `resource` and with an
#         `api://.../.default` scope (the provider refuses `resource` beside
#         `.default`, as Entra does: checked too), and a token for the
#         resource URI refused by that calculator (`--audience` replaces it);
#   provider 2, without registration, with Client ID Metadata Documents:
#     (c) no registration endpoint: the pre-registered client `calculator-pre`
#         for both clients, and no registration attempted (the provider's
#         request log); calculator_client with no client id is refused,
#         naming pre-registration;
#     (d) metadata documents only: each client's client id is the https URL
#         of its metadata document, served on 127.0.0.1 (a certificate made by
#         cert.py, trusted through NODE_EXTRA_CA_CERTS) and fetched by the
#         provider (oidc-provider resolves URL client ids natively; provider.mjs
#         only lets that fetch reach loopback, through its `fetch` hook).
#
# The Python mcp 2.3.0 client cannot leave out `resource` (it sends it
# whenever the server has resource metadata), so Entra's own shape is ours
# only; this script says so in its output.
# Before all that, `calculator --audience` with a malformed value or without
# --issuer is refused at start.
# (The hostile tables, tokens the calculator must refuse, are
# mcp-server/tests/protocol/auth.rs and auth_audiences.rs.)
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

# The user's browser, for calculator_client's loopback sign-in.
printf '#!/bin/sh\nexec "%s" "%s" "$1"\n' "$MCP_PYTHON" "$HERE/browser.py" >"$WORK/browser"
chmod +x "$WORK/browser"

# client <label> <log> <url> [calculator_client options...]: its round trip
# through a sign-in, every check passing.
client() {
    local label="$1" log="$2" url="$3"; shift 3
    if MCP_OPEN_BROWSER="$WORK/browser" timeout 120 \
        "$BIN/calculator_client" --url "$url" "$@" >"$log" 2>&1 \
        && ! grep -q '^FAIL' "$log"; then
        echo "PASS $label ($(grep -c '^PASS' "$log") checks)"
    else
        echo "FAIL $label"
        sed 's/^/    /' "$log" | tail -30
        failed=1
    fi
}

# python_client <label> <url> [python_oauth.py options...]
python_client() {
    local label="$1" url="$2"; shift 2
    local log="$WORK/python-${label//[^a-z0-9]/_}.log"
    if timeout 180 "$MCP_PYTHON" "$HERE/python_oauth.py" "$url" --label "$label" "$@" >"$log" 2>&1; then
        echo "PASS $label ($(grep -c '^PASS' "$log") checks)"
    else
        echo "FAIL $label"
        sed 's/^/    /' "$log" | tail -40
        failed=1
    fi
}

# refused_sign_in <label> <expected text> <url> [calculator_client options...]
refused_sign_in() {
    local label="$1" want="$2" url="$3"; shift 3
    local log="$WORK/refused.log"
    if ! MCP_OPEN_BROWSER="$WORK/browser" timeout 60 \
        "$BIN/calculator_client" --url "$url" "$@" >"$log" 2>&1 \
        && grep -qF -- "$want" "$log"; then
        echo "PASS refused: $label"
    else
        echo "FAIL refused: $label (wanted: $want)"
        sed 's/^/    /' "$log" | tail -20
        failed=1
    fi
}

# A malformed audience is refused at start, naming the option, with the
# usage line (which names --audience).
refused_at_start "calculator --audience 'a b'" "--audience: \`audiences\`: \`a b\` is not an audience" \
    "$BIN/calculator" --http 127.0.0.1:1 --issuer http://127.0.0.1:2 --audience "a b"
refused_at_start "calculator --audience without --issuer" "[--issuer URL [--audience AUDIENCE]..." \
    "$BIN/calculator" --http 127.0.0.1:1 --audience calculator-app

# ---- provider 1: registration open; audience = the resource, or the client id.
AS1_PORT="$(free_port)"
RES_PORT="$(free_port)"
APP_PORT="$(free_port)"
ISSUER1="http://127.0.0.1:$AS1_PORT"
URL="http://127.0.0.1:$RES_PORT/mcp"
APP_URL="http://127.0.0.1:$APP_PORT/mcp"
serve_on "$WORK/provider1.log" "$AS1_PORT" \
    node "$HERE/provider.mjs" "$AS1_PORT" "$URL,$APP_URL" --client-audience calculator-app
serve_on "$WORK/calculator.log" "$RES_PORT" \
    "$BIN/calculator" --http "127.0.0.1:$RES_PORT" --issuer "$ISSUER1"
serve_on "$WORK/calculator-app.log" "$APP_PORT" \
    "$BIN/calculator" --http "127.0.0.1:$APP_PORT" --issuer "$ISSUER1" --audience calculator-app

# (b) audience = the resource, Dynamic Client Registration.
MCP_TOKEN_FILE="$WORK/tokens.json" \
    client "calculator_client signs in with oidc-provider and calls the protected calculator" \
    "$WORK/client.log" "$URL"
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
python_client "python mcp with OAuth against the protected calculator" "$URL"

# (a) audience = the client id: a pre-registered client, `--audience` on the calculator.
client "audience = client id: calculator_client as the pre-registered calculator-app" \
    "$WORK/client-app.log" "$APP_URL" --client-id calculator-app --client-issuer "$ISSUER1"
python_client "audience = client id: python mcp as the pre-registered calculator-app" "$APP_URL" \
    --client-id calculator-app
client "audience = client id, Entra's shape: calculator_client without resource, api://calculator/.default" \
    "$WORK/client-entra.log" "$APP_URL" --client-id calculator-app --client-issuer "$ISSUER1" \
    --no-resource --scope api://calculator/.default --scope offline_access
refused_sign_in "the provider refuses resource beside a .default scope, as Entra does" "invalid_target" \
    "$APP_URL" --client-id calculator-app --client-issuer "$ISSUER1" --scope api://calculator/.default
refused_sign_in "calculator --audience calculator-app refuses a token naming its resource URI" \
    "the token was issued for another resource" "$APP_URL"
echo "INFO python mcp cannot leave out the resource parameter (it sends it whenever the server has resource metadata): Entra's own shape is run with calculator_client only"

# ---- provider 2: no registration endpoint; Client ID Metadata Documents.
AS2_PORT="$(free_port)"
DOC_PORT="$(free_port)"
PRE_PORT="$(free_port)"
ISSUER2="http://127.0.0.1:$AS2_PORT"
PRE_URL="http://127.0.0.1:$PRE_PORT/mcp"
DOCS="https://127.0.0.1:$DOC_PORT/clients"
"$MCP_PYTHON" "$HERE/cert.py" "$WORK"
NODE_EXTRA_CA_CERTS="$WORK/cert.pem" serve_on "$WORK/provider2.log" "$AS2_PORT" \
    node "$HERE/provider.mjs" "$AS2_PORT" "$PRE_URL" --no-registration --client calculator-pre \
    --metadata-documents "$DOC_PORT" "$WORK/cert.pem" "$WORK/key.pem"
serve_on "$WORK/calculator-pre.log" "$PRE_PORT" \
    "$BIN/calculator" --http "127.0.0.1:$PRE_PORT" --issuer "$ISSUER2"

# (c) no registration endpoint: pre-registered clients, nothing registered.
client "no registration endpoint: calculator_client as the pre-registered calculator-pre" \
    "$WORK/client-pre.log" "$PRE_URL" --client-id calculator-pre --client-issuer "$ISSUER2"
python_client "no registration endpoint: python mcp as the pre-registered calculator-pre" "$PRE_URL" \
    --client-id calculator-pre
refused_sign_in "no registration endpoint and no client id: calculator_client says to pre-register" \
    "pre-register a client" "$PRE_URL"

# (d) metadata documents only: the client id is the document's https URL.
client "metadata documents: calculator_client's client id is its document's URL" \
    "$WORK/client-cimd.log" "$PRE_URL" --client-metadata-url "$DOCS/calculator_client.json"
python_client "metadata documents: python mcp's client id is its document's URL" "$PRE_URL" \
    --client-metadata-url "$DOCS/python.json"
for name in calculator_client python; do
    if grep -q "^document GET /clients/$name.json 200" "$WORK/provider2.log"; then
        echo "PASS the provider fetched $name's metadata document"
    else
        echo "FAIL the provider never fetched $name's metadata document"
        failed=1
    fi
done
if "$MCP_PYTHON" -c 'import sys, urllib.request; sys.exit("registration_endpoint" not in urllib.request.urlopen(sys.argv[1]).read().decode())' \
        "$ISSUER2/.well-known/openid-configuration" \
    || grep -q '^request POST /reg' "$WORK/provider2.log"; then
    echo "FAIL provider 2 offers or received a registration"
    failed=1
else
    echo "PASS no registration endpoint offered, and no client tried to register"
fi

if [ $failed -ne 0 ]; then
    for log in provider1 provider2 calculator calculator-app calculator-pre; do
        echo "--- $log log"; tail -20 "$WORK/$log.log" | sed 's/^/    /'
    done
fi
exit $failed
