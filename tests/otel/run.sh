#!/usr/bin/env bash
# OpenTelemetry export, end to end (issue: traces and metrics by the MCP
# semantic conventions):
#   - the OTLP receiver's self-test against the official OpenTelemetry SDK
#     and exporters (tests/otel/selftest.py);
#   - a server, a client and an agent built without the `otel` features have
#     no OpenTelemetry crate in their `cargo tree`, and with them no exporter
#     (OTLP, Prometheus, tonic, reqwest): the examples, programs, pick those;
#   - tests/otel/check.py: the example programs export to the receiver over
#     OTLP/HTTP and OTLP/gRPC, one trace spans agent, model request, client
#     and server across processes (stdio and HTTP), the Python `mcp` client's
#     traceparent is continued, the histograms arrive, /metrics serves them.
#
#   tests/otel/run.sh [<bin dir>]   (default target/debug; needs calculator,
#                                    calculator_client and agent built)
#
# Exits 1 if a check failed, 2 if something it needs is missing.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
BIN="${1:-$ROOT/target/debug}"
if [ -z "${MCP_PYTHON:-}" ]; then
    # shellcheck disable=SC1091
    [ -f "$ROOT/.tools/env.sh" ] && . "$ROOT/.tools/env.sh"
fi
if [ -z "${MCP_PYTHON:-}" ] || [ ! -x "$MCP_PYTHON" ]; then
    echo "tests/otel/run.sh: MCP_PYTHON is not set up; run scripts/install-tools.sh" >&2
    exit 2
fi

echo "-- the receiver against the official OpenTelemetry SDK and exporters"
"$MCP_PYTHON" "$HERE/selftest.py"

echo "-- without the otel features, no OpenTelemetry crate in the tree"
cd "$ROOT"
for crate in oxmcp-server oxmcp-client oxmcp-agent; do
    found="$(cargo tree --offline -q -p "$crate" -e normal --prefix none | grep -E '^(opentelemetry[-_a-z]*|tracing-opentelemetry|oxmcp-otel|prometheus) ' | sort -u || true)"
    if [ -n "$found" ]; then
        echo "FAIL $crate (default features) depends on: $found"
        exit 1
    fi
    echo "PASS $crate with its default features has no OpenTelemetry crate in its tree"
done
found="$(cargo tree --offline -q -p oxmcp-server --features otel -e normal --prefix none | grep -cE '^(opentelemetry[-_a-z]*|tracing-opentelemetry|oxmcp-otel) ' || true)"
if [ "$found" -lt 3 ]; then
    echo "FAIL oxmcp-server --features otel should bring oxmcp-otel and the OpenTelemetry crates (found $found): the check above proves nothing"
    exit 1
fi
echo "PASS oxmcp-server --features otel brings them (the check above can fail)"

echo "-- with the otel features, no exporter (nor the SDK) in a library's tree: the program picks it (oxmcp-otel's features)"
exporters='^(opentelemetry-otlp|opentelemetry-prometheus|opentelemetry-http|opentelemetry_sdk|prometheus|tonic[-_a-z]*|reqwest) '
libraries=(
    "oxmcp-server --no-default-features --features stdio,otel"
    "oxmcp-server --all-features"
    "oxmcp-client --no-default-features --features stdio,otel"
    "oxmcp-client --all-features"
    "oxmcp-agent --no-default-features --features otel"
    "oxmcp-agent --all-features"
    "oxmcp-toolbox --all-features"
    "oxmcp-redis --all-features"
    "oxmcp-otel --no-default-features"
)
for args in "${libraries[@]}"; do
    # shellcheck disable=SC2086 # the crate and its features, split on purpose
    found="$(cargo tree --offline -q -p $args -e normal --prefix none | grep -E "$exporters" | sort -u || true)"
    if [ -n "$found" ]; then
        echo "FAIL $args pulls an exporter (a library's otel feature must not; the program enables oxmcp-otel's otlp-http, otlp-grpc, prometheus):"
        echo "$found"
        exit 1
    fi
    echo "PASS $args: no exporter nor the SDK in its tree"
done
found="$(cargo tree --offline -q -p mcp-examples -e normal --prefix none | grep -E "$exporters" | sort -u || true)"
for crate in opentelemetry-otlp opentelemetry-prometheus opentelemetry-http opentelemetry_sdk prometheus tonic reqwest; do
    if ! grep -q "^$crate " <<<"$found"; then
        echo "FAIL the examples should bring $crate (they turn oxmcp-otel's exporters on): the check above proves nothing"
        exit 1
    fi
done
echo "PASS the examples bring the exporters (the check above can fail)"

"$MCP_PYTHON" "$HERE/check.py" "$BIN"
