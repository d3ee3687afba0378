#!/usr/bin/env bash
# Makes sure the TypeScript SDK's reference server, @modelcontextprotocol/server-everything
# (pinned version below), is installed in <repo>/.tools/server-everything, and prints the
# command line that starts it, on one line (words separated by spaces; the paths hold none):
#
#   tests/interop/ensure_everything.sh [stdio|streamableHttp|sse]   (default stdio)
#   -> /…/.tools/node22/…/bin/node /…/.tools/server-everything/node_modules/…/dist/index.js stdio
#
# For streamableHttp and sse the server listens on $PORT (set it in the environment of the
# printed command). Installs with npm on first use (Node 22 from .tools via .tools/env.sh, or
# `node` on PATH); concurrent callers wait for one another (flock). Progress and errors go to
# stderr; exits 1 when the server cannot be installed (with the tail of npm's log), 2 on a
# usage error. Used by tests/interop/run_client.sh and tests/agent/run_interop.sh.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"

TRANSPORT="${1:-stdio}"
case "$TRANSPORT" in
    stdio | streamableHttp | sse) ;;
    *)
        echo "usage: ensure_everything.sh [stdio|streamableHttp|sse]" >&2
        exit 2
        ;;
esac

if [ -z "${MCP_NODE:-}" ] && [ -f "$ROOT/.tools/env.sh" ]; then
    # shellcheck disable=SC1091
    . "$ROOT/.tools/env.sh"
fi
NODE="${MCP_NODE:-$(command -v node || true)}"
if [ -z "$NODE" ] || [ ! -x "$NODE" ]; then
    echo "ensure_everything.sh: no node: run scripts/install-tools.sh" >&2
    exit 1
fi

EVERYTHING_VERSION=2026.8.31
EVERYTHING_DIR="$ROOT/.tools/server-everything"
PACKAGE_DIR="$EVERYTHING_DIR/node_modules/@modelcontextprotocol/server-everything"
EVERYTHING="$PACKAGE_DIR/dist/index.js"

installed() {
    [ -f "$EVERYTHING" ] &&
        [ "$("$NODE" -p "require('$PACKAGE_DIR/package.json').version" 2>/dev/null || true)" = "$EVERYTHING_VERSION" ]
}

if ! installed; then
    mkdir -p "$EVERYTHING_DIR"
    LOG="$EVERYTHING_DIR/npm-install.log"
    (
        # One install at a time: another run may be installing right now.
        if command -v flock >/dev/null 2>&1; then
            flock -w 600 9 || echo "ensure_everything.sh: waited 600 s for another install; going on" >&2
        fi
        if ! installed; then
            echo "ensure_everything.sh: npm install @modelcontextprotocol/server-everything@$EVERYTHING_VERSION (into .tools/server-everything)" >&2
            [ -f "$EVERYTHING_DIR/package.json" ] || echo '{"private":true}' >"$EVERYTHING_DIR/package.json"
            (cd "$EVERYTHING_DIR" && timeout 600 npm install --no-audit --no-fund --loglevel=error \
                "@modelcontextprotocol/server-everything@$EVERYTHING_VERSION") >"$LOG" 2>&1 || true
        fi
    ) 9>"$EVERYTHING_DIR/.install.lock"
    if ! installed; then
        echo "ensure_everything.sh: cannot install @modelcontextprotocol/server-everything@$EVERYTHING_VERSION" >&2
        tail -n 20 "$LOG" 2>/dev/null | sed 's/^/    /' >&2 || true
        exit 1
    fi
fi

echo "$NODE $EVERYTHING $TRANSPORT"
