#!/usr/bin/env bash
# `mcp install` checked by the hosts themselves: the real Claude Code and
# Gemini CLI (from npm, pinned by scripts/install-tools.sh), each in a HOME
# and a project directory of this test's own, read what `mcp install` wrote
# and report our calculator (built in debug) connected, in the user and the
# project scope; after `mcp uninstall` they no longer list it. A server that
# cannot start (/bin/false) is installed beside it and must be reported as
# failing, so a host that connects nothing cannot pass.
#
#   tests/install/run.sh <directory of the binaries (mcp, calculator)>
#
# No login and no network: `claude mcp list` and `gemini mcp list` start
# each server and report its health without an account. What the hosts ask
# of a user first is done as that user would, in the test's HOME:
#   - Claude Code starts a project's `.mcp.json` servers only once approved
#     (its approval prompt); the `enabledMcpjsonServers` setting in
#     ~/.claude/settings.json approves them by name.
#   - Gemini CLI serves MCP servers only in a folder the user trusted (its
#     trust dialog, docs/cli/trusted-folders.md), recorded in
#     ~/.gemini/trustedFolders.json.
#
# Exits 1 if any check fails. Needs scripts/install-tools.sh to have run.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
BIN="$(cd "${1:?usage: run.sh <directory of the binaries (mcp, calculator)>}" && pwd)"
for b in mcp calculator; do
    [ -x "$BIN/$b" ] || { echo "run.sh: '$BIN/$b' is not executable (cargo build -p oxmcp-cli -p mcp-examples)" >&2; exit 2; }
done
. "$ROOT/.tools/env.sh"
. "$ROOT/tests/lib.sh"
for v in MCP_CLAUDE MCP_GEMINI; do
    [ -x "${!v:-}" ] || { echo "run.sh: $v='${!v:-}' is not executable; rerun scripts/install-tools.sh" >&2; exit 1; }
done

scratch mcp-install
export HOME="$WORK/home"
export XDG_CONFIG_HOME="$HOME/.config"
unset CLAUDE_CONFIG_DIR CODEX_HOME
# Claude Code's documented switches for a machine that reaches no service:
# no update check, no telemetry or error reporting.
export DISABLE_AUTOUPDATER=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1
PROJECT="$WORK/project"
mkdir -p "$HOME/.claude" "$HOME/.gemini" "$PROJECT"
cd "$PROJECT"
# The calculator as a user's project has it: installed by a relative path,
# which `mcp install` makes absolute.
ln -s "$BIN/calculator" "$PROJECT/calculator"
MCP="$BIN/mcp"

printf '{\n  "enabledMcpjsonServers": ["calc-project"]\n}\n' >"$HOME/.claude/settings.json"
printf '{\n  "%s": "TRUST_FOLDER"\n}\n' "$PROJECT" >"$HOME/.gemini/trustedFolders.json"
# Gemini CLI strips comments from its settings before parsing them: a
# user's comment is kept by `mcp install`, and Gemini still reads the file.
printf '{\n  // my servers, kept by hand\n  "mcpServers": {}\n}\n' >"$HOME/.gemini/settings.json"

# run <label> <command...>: runs it (stdin closed, 60 s at most) into
# $WORK/out.txt; a failure to run is a failed check.
run() {
    local label="$1"; shift
    if ! timeout 60 "$@" </dev/null >"$WORK/out.txt" 2>&1; then
        echo "FAIL $label: exit status $? from $*"
        sed 's/^/    /' "$WORK/out.txt" | head -20
        failed=1
        return 1
    fi
}

# expect <label> <grep -E pattern> <command...>: the output has a line matching.
expect() {
    local label="$1" pattern="$2"; shift 2
    run "$label" "$@" || return 0
    if grep -Eq -- "$pattern" "$WORK/out.txt"; then
        echo "PASS $label"
    else
        echo "FAIL $label: no line matches /$pattern/"
        sed 's/^/    /' "$WORK/out.txt" | head -20
        failed=1
    fi
}

# absent <label> <grep -E pattern> <command...>: no line of the output matches.
absent() {
    local label="$1" pattern="$2"; shift 2
    run "$label" "$@" || return 0
    if grep -Eq -- "$pattern" "$WORK/out.txt"; then
        echo "FAIL $label: a line matches /$pattern/"
        sed 's/^/    /' "$WORK/out.txt" | head -20
        failed=1
    else
        echo "PASS $label"
    fi
}

CALC="$PROJECT/calculator"
for host in claude-code gemini-cli; do
    expect "$host: mcp install (user scope)" "^added \`calc-user\`" \
        "$MCP" install "$host" calc-user -- ./calculator
    expect "$host: mcp install (project scope)" "^added \`calc-project\`" \
        "$MCP" install "$host" calc-project --scope project -- ./calculator
    expect "$host: mcp install of a server that cannot start" "^added \`broken\`" \
        "$MCP" install "$host" broken -- /bin/false
    expect "$host: the same install again changes nothing" "nothing changed" \
        "$MCP" install "$host" calc-user -- ./calculator
done

if grep -q '// my servers, kept by hand' "$HOME/.gemini/settings.json"; then
    echo "PASS gemini-cli: the comment in its settings kept"
else
    echo "FAIL gemini-cli: the comment in its settings was lost"; sed 's/^/    /' "$HOME/.gemini/settings.json"; failed=1
fi

# Claude Code: `NAME: COMMAND  - ✔ Connected` per server.
expect "claude mcp list: the user-scope calculator connected" "^calc-user: $CALC .*Connected" "$MCP_CLAUDE" mcp list
expect "claude mcp list: the project-scope calculator connected" "^calc-project: $CALC .*Connected" "$MCP_CLAUDE" mcp list
expect "claude mcp list: the server that cannot start is reported failing" "^broken: /bin/false .*Failed" "$MCP_CLAUDE" mcp list
# Gemini CLI: `✓ NAME: COMMAND  (stdio) - Connected` per server.
expect "gemini mcp list: the user-scope calculator connected" "calc-user: $CALC .*\(stdio\) - Connected" "$MCP_GEMINI" mcp list
expect "gemini mcp list: the project-scope calculator connected" "calc-project: $CALC .*\(stdio\) - Connected" "$MCP_GEMINI" mcp list
expect "gemini mcp list: the server that cannot start is reported failing" "broken: /bin/false .*Disconnected" "$MCP_GEMINI" mcp list

for host in claude-code gemini-cli; do
    expect "$host: mcp uninstall (user scope)" "^removed \`calc-user\`" "$MCP" uninstall "$host" calc-user
    expect "$host: mcp uninstall (project scope)" "^removed \`calc-project\`" \
        "$MCP" uninstall "$host" calc-project --scope project
done
absent "claude mcp list: the calculators are gone" "^calc-" "$MCP_CLAUDE" mcp list
expect "claude mcp list: the other server stays" "^broken: " "$MCP_CLAUDE" mcp list
absent "gemini mcp list: the calculators are gone" "calc-" "$MCP_GEMINI" mcp list
expect "gemini mcp list: the other server stays" "broken: " "$MCP_GEMINI" mcp list

if [ "$failed" != 0 ]; then
    echo "mcp install: a check failed"
    exit 1
fi
echo "mcp install: every check passed"
