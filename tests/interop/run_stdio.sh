#!/usr/bin/env bash
# Stdio interop suite: drive a stdio "calculator" MCP server with real external clients.
#
#   tests/interop/run_stdio.sh [--reference] <server binary> [server args...]
#
# Runs, each against fresh server processes:
#   python_client.py --mode legacy       (Python mcp 2.3.0, initialize handshake, expects 2025-11-25)
#   python_client.py --mode auto         (server/discover probe; expects $EXPECT_AUTO, default 2026-07-28)
#   python_client.py --mode 2026-07-28   (pinned modern era, no probe)
#   inspector_stdio.sh --era legacy      (MCP Inspector CLI 2.12.0)
#   inspector_stdio.sh --era modern
# and prints a summary; exits non-zero if any run failed.
#
#   --reference   pass --reference to python_client.py (relaxes ONLY the check that an
#                 argument-validation error names the argument) for foreign reference servers
#
# Environment: EXPECT_AUTO (version `auto` must negotiate; empty = accept 2025-11-25 or
# 2026-07-28), INSPECTOR_TIMEOUT (seconds per Inspector run, default 60).
# Needs scripts/install-tools.sh to have run (it sources <repo>/.tools/env.sh).
#
# Example (the Python reference server):
#   tests/interop/run_stdio.sh .tools/pyenv/bin/python tests/interop/reference_calculator.py
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"

REFERENCE=()
while [ $# -gt 0 ]; do
    case "$1" in
        --reference) REFERENCE=(--reference); shift ;;
        --) shift; break ;;
        -h|--help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) break ;;
    esac
done
if [ $# -lt 1 ]; then
    echo "usage: $0 [--reference] <server binary> [server args...]" >&2
    exit 2
fi
SERVER=("$@")
if [[ "${SERVER[0]}" == */* ]] && [ ! -x "${SERVER[0]}" ]; then
    echo "run_stdio.sh: server binary '${SERVER[0]}' does not exist or is not executable" >&2
    exit 2
fi

ENV_FILE="$ROOT/.tools/env.sh"
if [ ! -f "$ENV_FILE" ]; then
    echo "run_stdio.sh: $ENV_FILE is missing; run scripts/install-tools.sh first" >&2
    exit 1
fi
# shellcheck source=/dev/null
. "$ENV_FILE"
for v in MCP_PYTHON MCP_INSPECTOR; do
    [ -x "${!v}" ] || { echo "run_stdio.sh: $v='${!v}' is not executable; rerun scripts/install-tools.sh" >&2; exit 1; }
done

EXPECT_AUTO="${EXPECT_AUTO-2026-07-28}"
AUTO_ARGS=()
[ -n "$EXPECT_AUTO" ] && AUTO_ARGS=(--expect-auto "$EXPECT_AUTO")

echo "== stdio interop against: ${SERVER[*]}"
echo "== node $(node --version), python mcp $("$MCP_PYTHON" -c 'import importlib.metadata as m; print(m.version("mcp"))'), inspector $(HOME="$MCP_TOOLS_HOME" "$MCP_INSPECTOR" --cli --version 2>/dev/null || echo '?')"
[ ${#REFERENCE[@]} -gt 0 ] && echo "== --reference: the validation-message argument-name check is relaxed for python_client.py"

NAMES=()
RESULTS=()
FAILS=0
run() { # <label> <command...>
    local label="$1"; shift
    echo
    echo "== $label"
    local start=$SECONDS rc=0
    "$@" || rc=$?
    local took=$((SECONDS - start))
    NAMES+=("$label")
    if [ "$rc" = 0 ]; then
        RESULTS+=("PASS (${took}s)")
    else
        RESULTS+=("FAIL (exit $rc, ${took}s)")
        FAILS=$((FAILS + 1))
    fi
}

for mode in legacy auto 2026-07-28; do
    extra=()
    [ "$mode" = auto ] && extra=(${AUTO_ARGS[@]+"${AUTO_ARGS[@]}"})
    run "python mcp client, mode=$mode" \
        "$MCP_PYTHON" "$HERE/python_client.py" --mode "$mode" ${REFERENCE[@]+"${REFERENCE[@]}"} \
        ${extra[@]+"${extra[@]}"} -- "${SERVER[@]}"
done
for era in legacy modern; do
    run "inspector cli, era=$era" "$HERE/inspector_stdio.sh" --era "$era" -- "${SERVER[@]}"
done

echo
echo "== summary (${SERVER[*]})"
for i in "${!NAMES[@]}"; do
    printf '  %-36s %s\n' "${NAMES[$i]}" "${RESULTS[$i]}"
done
echo "interop: $(( ${#NAMES[@]} - FAILS )) passed, $FAILS failed"
[ "$FAILS" = 0 ]
