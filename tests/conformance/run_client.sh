#!/usr/bin/env bash
# Client conformance scenarios of @modelcontextprotocol/conformance@0.1.16, then the
# 0.2.0-alpha.12 client requirements of 2025-11-25 and 2026-07-28, against our client
# program (examples/conformance_client.rs).
#
#   tests/conformance/run_client.sh [<conformance_client binary>]   (default target/debug/conformance_client)
#
# Runs, each as a separate step with its own exit code:
#   $MCP_CONFORMANCE_0116 client --command "<binary>" --scenario S -o <out>/S
# for S in initialize, tools_call, elicitation-sep1034-client-defaults, sse-retry and the
# authorization scenarios listed below (their results go under S with `/` as `_`). The runner
# appends its mock server's URL to the command and sets MCP_CONFORMANCE_SCENARIO. The suite's
# exit code decides (1 on any FAILURE or WARNING, a timeout, or a non-zero client exit).
# Prints PASS/FAIL per scenario; exits 1 if any failed. Logs and results are kept under a temp
# dir whose path is printed. Needs scripts/install-tools.sh to have run.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"

CLIENT="${1:-$ROOT/target/debug/conformance_client}"
case "$CLIENT" in /*) ;; *) CLIENT="$PWD/$CLIENT" ;; esac
if [ ! -x "$CLIENT" ]; then
    echo "run_client.sh: client binary '$CLIENT' does not exist or is not executable (cargo build -p mcp-examples)" >&2
    exit 2
fi
case "$CLIENT" in *" "*) echo "run_client.sh: the client path must not contain spaces (the runner splits --command on spaces)" >&2; exit 2 ;; esac

if [ -z "${MCP_CONFORMANCE_0116:-}" ]; then
    # shellcheck disable=SC1091
    [ -f "$ROOT/.tools/env.sh" ] && . "$ROOT/.tools/env.sh"
fi
if [ -z "${MCP_CONFORMANCE_0116:-}" ] || [ ! -x "$MCP_CONFORMANCE_0116" ]; then
    echo "run_client.sh: conformance 0.1.16 not installed; run scripts/install-tools.sh" >&2
    exit 2
fi

OUT="$(mktemp -d "${TMPDIR:-/tmp}/mcp-client-conformance.XXXXXX")"
echo "logs and results: $OUT"

SCENARIOS=(initialize tools_call elicitation-sep1034-client-defaults sse-retry)
# Authorization (the client signs in through oxmcp_client::auth): every
# scenario of `--suite auth` (the 2025-11-25 ones and the 2025-03-26
# back-compat ones), the client-credentials extensions and the draft ones.
# Left out: auth/cross-app-access-complete-flow (the SEP-990 enterprise
# extension: an identity provider's ID token exchanged for an ID-JAG, a
# grant oxmcp_client::auth does not implement).
SCENARIOS+=(
    auth/metadata-default auth/metadata-var1 auth/metadata-var2 auth/metadata-var3
    auth/basic-cimd
    auth/scope-from-www-authenticate auth/scope-from-scopes-supported
    auth/scope-omitted-when-undefined auth/scope-step-up auth/scope-retry-limit
    auth/token-endpoint-auth-basic auth/token-endpoint-auth-post auth/token-endpoint-auth-none
    auth/pre-registration
    auth/2025-03-26-oauth-metadata-backcompat auth/2025-03-26-oauth-endpoint-fallback
    auth/client-credentials-jwt auth/client-credentials-basic
    auth/resource-mismatch auth/offline-access-scope auth/offline-access-not-supported
)
failed=0
for s in "${SCENARIOS[@]}"; do
    set +e
    "$MCP_CONFORMANCE_0116" client --command "$CLIENT" --scenario "$s" -o "$OUT/${s//\//_}" >"$OUT/${s//\//_}.log" 2>&1
    rc=$?
    set -e
    log="$OUT/${s//\//_}.log"
    if [ $rc -eq 0 ]; then
        echo "PASS client conformance 0.1.16: $s ($(grep -Eo 'Passed: [0-9]+/[0-9]+' "$log" | tail -1))"
    else
        echo "FAIL client conformance 0.1.16: $s (exit $rc); log: $log"
        tail -n 30 "$log" | sed 's/^/    /'
        failed=1
    fi
done

# 0.2.0-alpha.12: the scenarios each revision requires, one suite run each,
# against the baselines (2025-11-25: none; 2026-07-28: expected-failures-
# client-alpha-2026-07-28.yml, each entry with its reason).
if [ -z "${MCP_CONFORMANCE_ALPHA:-}" ] || [ ! -x "$MCP_CONFORMANCE_ALPHA" ]; then
    echo "run_client.sh: conformance 0.2.0-alpha.12 not installed; run scripts/install-tools.sh" >&2
    exit 2
fi
for rev in 2025-11-25 2026-07-28; do
    baseline=()
    [ -f "$HERE/expected-failures-client-alpha-$rev.yml" ] && baseline=(--expected-failures "$HERE/expected-failures-client-alpha-$rev.yml")
    log="$OUT/alpha-$rev.log"
    set +e
    "$MCP_CONFORMANCE_ALPHA" client --command "$CLIENT" --requirements "$rev" ${baseline[@]+"${baseline[@]}"} -o "$OUT/alpha-$rev" >"$log" 2>&1
    rc=$?
    set -e
    if [ $rc -eq 0 ]; then
        echo "PASS client conformance 0.2.0-alpha.12 --requirements $rev ($(grep -Eo 'Total: [0-9]+ passed, [0-9]+ failed' "$log" | tail -1) checks; the failed ones are in unscored [extension] scenarios or the baseline)"
    else
        echo "FAIL client conformance 0.2.0-alpha.12 --requirements $rev (exit $rc); log: $log"
        tail -n 30 "$log" | sed 's/^/    /'
        failed=1
    fi
done

# Every [extension] client scenario of 0.2.0-alpha.12: those listed in
# client-extensions-pending.txt must fail (one that passes is stale), the
# others must pass.
while IFS= read -r s; do
    set +e
    "$MCP_CONFORMANCE_ALPHA" client --command "$CLIENT" --scenario "$s" -o "$OUT/ext-${s//\//_}" >"$OUT/ext-${s//\//_}.log" 2>&1
    rc=$?
    set -e
    log="$OUT/ext-${s//\//_}.log"
    if grep -q "^$s[[:space:]]" "$HERE/client-extensions-pending.txt"; then
        if [ $rc -eq 0 ]; then
            echo "STALE client conformance 0.2.0-alpha.12 [extension]: $s passes but is listed in client-extensions-pending.txt"
            failed=1
        else
            echo "PENDING client conformance 0.2.0-alpha.12 [extension]: $s (exit $rc), as client-extensions-pending.txt says"
        fi
    elif [ $rc -eq 0 ]; then
        echo "PASS client conformance 0.2.0-alpha.12 [extension]: $s ($(grep -Eo 'Passed: [0-9]+/[0-9]+' "$log" | tail -1))"
    else
        echo "FAIL client conformance 0.2.0-alpha.12 [extension]: $s (exit $rc); log: $log"
        tail -n 30 "$log" | sed 's/^/    /'
        failed=1
    fi
done < <("$MCP_CONFORMANCE_ALPHA" list --client | sed -n 's/^ *- \([^ ]*\) \[extension\].*/\1/p')
exit $failed
