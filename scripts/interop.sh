#!/usr/bin/env bash
# The interop, conformance and host steps of the test suite: real MCP
# clients and servers written by others (Python mcp, the MCP Inspector CLI,
# the official conformance suites, TypeScript server-everything, Claude Code,
# Gemini CLI, oidc-provider, headless Chromium, HAProxy and Redis) against the
# example binaries, one step after another:
#
#   scripts/interop.sh <directory of the example binaries and mcp>
#
# They need what scripts/install-tools.sh installs, and start nothing cargo
# builds: scripts/test.sh runs them beside its last builds, from a copy of
# the binaries (hard links) that those builds cannot replace. Step times
# count from TEST_START (seconds since the epoch; default: now).
# Any failure stops the run with a non-zero exit.
set -euo pipefail
cd "$(dirname "$0")/.."

BIN="$(cd "${1:?usage: scripts/interop.sh <directory of the example binaries>}" && pwd)"
start=${TEST_START:-$(date +%s)}
step() { printf '\n==== [%ss] %s\n' "$(( $(date +%s) - start ))" "$*"; }

step "interop over stdio: Python mcp client (legacy, auto, 2026-07-28) and MCP Inspector CLI (legacy, modern)"
tests/interop/run_stdio.sh "$BIN/calculator"

step "interop over HTTP: Python mcp client (Streamable HTTP legacy/auto/2026-07-28, HTTP+SSE) and MCP Inspector CLI (http legacy/modern, sse)"
tests/interop/run_http.sh "$BIN/calculator"

step "interop, prompts and resources: Python mcp client (legacy, 2026-07-28; stdio, HTTP: prompts, text/binary/template resources, completion, elicitation, sampling) and MCP Inspector CLI (legacy, modern; stdio, HTTP)"
tests/interop/run_notes.sh "$BIN/notes"

step "one server from many: the gateway example mounts the calculator (stdio), notes (Streamable HTTP), the Python reference server and plugins; Python mcp (legacy, 2026-07-28; stdio, HTTP) and the MCP Inspector CLI drive it: prefixed items, calls, progress, prompts, resources, completion, sampling, elicitation, a subscription, a tool added upstream, a mount killed and back; bad configurations refused at start"
tests/compose/run.sh "$BIN"

step "OpenAPI as tools: the openapi example serves a FastAPI application's document; Python mcp (legacy, 2026-07-28) calls every operation and checks what the API holds; the GitHub REST API's document (about 1,100 operations) loads whole and filtered, with its time and peak memory; bad documents refused at start"
tests/openapi/run.sh "$BIN"

step "limits hosts meet: the reports example with Python mcp (legacy, 2026-07-28): results cut at the default, a per-tool and a raised cap with their markers, the whole of a cut result read by its caller and refused to another, a long structured list, a picture, a cached quote per caller; the rate limit per caller; a zero rate refused at build"
tests/limits/run.sh "$BIN"

step "tool search: the tool_search example (300 tools, two pinned) driven by Python mcp (legacy, 2026-07-28): the list offers the pinned tools and search_tools, a search finds a deep tool with its definition, calling it works, bad arguments get isError; a pin that does not exist refused at start"
tests/tool_search/run.sh "$BIN"

step "MCP Apps in a browser: headless Chromium hosts the notes board page with the official AppBridge (@modelcontextprotocol/ext-apps); its button calls add_note through the host; screenshot in target/test-output/apps/"
tests/apps/run.sh "$BIN/notes"

step "official conformance suites: 0.1.16 --suite all, 0.2.0-alpha.12 --requirements 2025-11-25 and 2026-07-28"
tests/conformance/run.sh "$BIN/conformance_server"

step "several instances, one service: two conformance_server --redis behind HAProxy round-robin (no stickiness) pass the three conformance runs; Python mcp and the Inspector CLI drive two notes --redis through it; a session outlives its instance (SIGKILL); without --redis the same setup fails"
tests/several/run.sh "$BIN"

step "our client: conformance 0.1.16 client scenarios (core and authorization), 0.2.0-alpha.12 client requirements of 2025-11-25 and 2026-07-28; calculator_client (stdio, HTTP); foreign_client against the Python reference and TS server-everything (stdio, HTTP)"
tests/conformance/run_client.sh "$BIN/conformance_client"
tests/interop/run_client.sh "$BIN"

step "the mcp command line: list, call, read, prompt, check against our calculator and notes, the Python reference server and TypeScript server-everything (stdio, Streamable HTTP, both eras; --json parsed; bad input refused in one line; OAuth sign-in with oidc-provider, tokens kept 0600; check clean on ours, findings on a bad Python server)"
tests/cli/run.sh "$BIN"

step "authorization with a real authorization server (oidc-provider) configured as the identity providers behave (audience the resource; audience the client id, Entra's no-resource .default shape; no registration endpoint; metadata documents only): calculator --issuer [--audience] as a protected resource; calculator_client and the Python mcp client sign in (code flow, PKCE, registration, step-up) and call it"
tests/interop/oauth/run.sh "$BIN"

step "agent tool sets: a local toolbox, the calculator over stdio, the Python reference server and TS server-everything in one set; strict schemas of every tool of the calculator, the conformance fixture and server-everything"
tests/agent/run_interop.sh "$BIN"

step "OpenTelemetry: the OTLP receiver against the official SDK; no OpenTelemetry crate without the otel features, and no exporter (OTLP, Prometheus, tonic, reqwest) with them in any library; calculator, calculator_client and agent export over OTLP/HTTP and gRPC: one trace spans agent run, model request, client and server across processes (stdio, HTTP); the Python mcp client's traceparent continued (_meta, header); the four histograms; /metrics for Prometheus"
tests/otel/run.sh "$BIN"

step "built-in toolboxes: the hostile tables of files and fetch run against the reference filesystem and fetch servers and ours, side by side (fetch inside a network namespace of its own); the Python mcp client and the MCP Inspector CLI drive files as they drive the reference server"
tests/toolbox/run.sh "$BIN"

step "mcp install read by the real hosts: Claude Code and Gemini CLI list our calculator connected (user and project scope), a broken server failing, and nothing after mcp uninstall"
tests/install/run.sh "$BIN"
