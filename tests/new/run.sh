#!/usr/bin/env bash
# `mcp new` for each template, then `cargo test` in each new project, as a
# user runs them:
#
#   tests/new/run.sh <target directory>     (the workspace's, e.g. target)
#
# The projects are made in a temporary directory with the `mcp` binary that
# `cargo test --workspace` built, depend on this checkout by path, and
# build into the workspace's target directory with its dev profile (the
# settings of .cargo/config.toml, which does not reach a project outside
# the checkout), so the framework crates already compiled with the same
# features are reused; each project's own first build compiles what its
# features add. The time of each step is printed.
#
# Exits 1 if a project fails to build or its tests fail.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
TARGET="$(cd "${1:?usage: run.sh <target directory>}" && pwd)"
MCP="$TARGET/debug/mcp"
[ -x "$MCP" ] || { echo "run.sh: '$MCP' is not executable (cargo build -p mcp-cli)" >&2; exit 2; }

WORK="$(mktemp -d "${TMPDIR:-/tmp}/mcp-new.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT

failed=0
total_start=$(date +%s%N)
for kind in stdio http prompts agent; do
    name="new-$kind"
    flag=()
    [ "$kind" = stdio ] || flag=("--$kind")
    start=$(date +%s%N)
    (cd "$WORK" && "$MCP" new "$name" "${flag[@]}" --framework-path "$ROOT") >/dev/null
    # CI set: a snapshot must come with the template (none is written).
    if (cd "$WORK/$name" && CI=1 CARGO_TARGET_DIR="$TARGET" cargo test --quiet \
            --config 'profile.dev.debug="line-tables-only"' \
            --config 'profile.dev.package."*".debug=false') >"$WORK/$name.log" 2>&1; then
        passed=$(grep -Eo '^test result: ok\. [0-9]+ passed' "$WORK/$name.log" | awk '{s += $4} END {print s + 0}')
        printf 'PASS  mcp new %-8s then cargo test: %s tests passed in %s ms\n' \
            "$kind" "$passed" "$(( ($(date +%s%N) - start) / 1000000 ))"
        if [ "$passed" -lt 3 ]; then
            echo "FAIL  mcp new $kind: fewer tests than the template has"; failed=1
        fi
    else
        echo "FAIL  mcp new $kind then cargo test:"; cat "$WORK/$name.log"; failed=1
    fi
done
echo "mcp new, all templates: $(( ($(date +%s%N) - total_start) / 1000000 )) ms"
exit "$failed"
