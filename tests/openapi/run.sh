#!/usr/bin/env bash
# An HTTP API as MCP tools, with a real API and a real client: the `openapi`
# example reads the OpenAPI document of a FastAPI application on loopback
# (tests/openapi/shop.py: path, query, header, cookie and body parameters,
# enums, nested models, an API key, error statuses, an image).
#
#   tests/openapi/run.sh <directory of the example binaries>
#
#   1. Python mcp (tests/openapi/python_openapi.py), --mode legacy and
#      2026-07-28, over stdio: every operation called, what the shop holds
#      afterwards checked against each call.
#   2. The GitHub REST API's document (api.github.com.json of the npm
#      package @octokit/openapi, about 1,100 operations) loaded whole and
#      with an include filter: both build, and their time and peak memory
#      are printed.
#   3. Bad input: a Swagger 2.0 document, a dangling $ref, an operation
#      without a description in --strict: refused at start (exit 2), naming
#      the document position.
#
# Exits 1 if any check fails. Needs scripts/install-tools.sh to have run.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
BIN="$(cd "${1:?usage: run.sh <directory of the example binaries>}" && pwd)"
[ -x "$BIN/openapi" ] || { echo "run.sh: '$BIN/openapi' is not executable (cargo build -p mcp-examples)" >&2; exit 2; }
. "$ROOT/.tools/env.sh"
. "$ROOT/tests/lib.sh"
[ -x "${MCP_PYTHON:-}" ] || { echo "run.sh: MCP_PYTHON is not set; rerun scripts/install-tools.sh" >&2; exit 1; }
[ -f "${MCP_GITHUB_OPENAPI:-}" ] || { echo "run.sh: MCP_GITHUB_OPENAPI='${MCP_GITHUB_OPENAPI:-}' is missing; rerun scripts/install-tools.sh" >&2; exit 1; }

scratch mcp-openapi

# ---------------------------------------------------------------- the shop
PORT="$(free_port)"
KEY="key-$RANDOM$RANDOM"
set -m
"$MCP_PYTHON" "$HERE/shop.py" --port "$PORT" --key "$KEY" >"$WORK/shop.log" 2>&1 &
PIDS+=($!)
set +m
wait_port "$PORT" "${PIDS[-1]}" "$WORK/shop.log"
SHOP="http://127.0.0.1:$PORT"

for mode in legacy 2026-07-28; do
    if "$MCP_PYTHON" "$HERE/python_openapi.py" --mode "$mode" --shop "$SHOP" -- \
        "$BIN/openapi" "$SHOP/openapi.json" --allow-host "127.0.0.1:$PORT" --base-url "$SHOP" \
        --header "X-Shop-Key: $KEY" >"$WORK/py.log" 2>&1; then
        echo "PASS python mcp: openapi shop stdio $mode ($(grep -c '^PASS' "$WORK/py.log") checks)"
    else
        echo "FAIL python mcp: openapi shop stdio $mode"
        sed 's/^/    /' "$WORK/py.log" | tail -40
        failed=1
    fi
done

# ---------------------------------------------------------------- a large document
# Loads, reports on stderr, serves nothing (stdin is empty), exits 0.
# The time it takes and the peak memory (maximum resident set) of the process.
measured() { # <command...>
    "$MCP_PYTHON" -c '
import resource, subprocess, sys, time
start = time.monotonic()
rc = subprocess.run(sys.argv[1:], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL).returncode
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(f"{time.monotonic() - start:.2f} s, peak {peak // 1024} MiB")
sys.exit(rc)' "$@"
}
load() { # <label> <openapi args...>
    local label="$1"; shift
    if measured "$BIN/openapi" "$MCP_GITHUB_OPENAPI" --base-url https://api.github.com "$@" \
        >"$WORK/time.txt" 2>"$WORK/err.txt"; then
        echo "PASS large document: $label ($(grep -c 'is left out\|has neither' "$WORK/err.txt" || true) operations reported; $(cat "$WORK/time.txt"))"
    else
        echo "FAIL large document: $label"
        sed 's/^/    /' "$WORK/err.txt" | tail -10
        failed=1
    fi
}
load "the GitHub REST API, every operation"
load "the GitHub REST API, --include tag:issues" --include tag:issues

# ---------------------------------------------------------------- refused at start
refused() { # <label> <expected text> <openapi args...>
    refused_at_start "$1" "$2" "$BIN/openapi" "${@:3}"
}
printf '{"swagger": "2.0", "info": {"title": "t", "version": "1"}, "paths": {}}' >"$WORK/swagger.json"
refused "a Swagger 2.0 document" "at /swagger: this is a Swagger (OpenAPI 2.0) document; convert it" "$WORK/swagger.json"
cat >"$WORK/dangling.yaml" <<'YAML'
openapi: 3.0.3
info: {title: t, version: '1'}
servers: [{url: 'http://127.0.0.1:1'}]
paths:
  /things:
    get:
      summary: Things
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Thing'}
YAML
refused "a \$ref that points nowhere" 'at /paths/~1things/get/responses/200/content/application~1json/schema: the $ref "#/components/schemas/Thing" points nowhere' "$WORK/dangling.yaml"
sed 's/      summary: Things//; s/{$ref: .#\/components\/schemas\/Thing.}/{type: object}/' "$WORK/dangling.yaml" >"$WORK/bare.yaml"
refused "--strict and an operation without a description" "at /paths/~1things/get: the operation GET /things has neither a summary nor a description" "$WORK/bare.yaml" --strict
exit $failed
