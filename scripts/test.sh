#!/usr/bin/env bash
# The whole test suite, as CI runs it: installs the external test tools it
# needs, then runs fmt, clippy, docs, every cargo test (trybuild ui cases and
# golden wire tests included), the reliability suite (hostile input, property
# tests, faults, load at full size) and the interop tests with
# real MCP clients, and the agent side against scripted model servers
# (tests/agent/) that check requests with the official openai and anthropic SDKs.
# Any failure stops the run with a non-zero exit; nothing is skipped silently.
set -euo pipefail
cd "$(dirname "$0")/.."

start=$(date +%s)
step() { printf '\n==== [%ss] %s\n' "$(( $(date +%s) - start ))" "$*"; }
# A one-off build gains nothing from incremental state, and it costs gigabytes.
export CARGO_INCREMENTAL=0
echo "disk at start: $(df -h . | awk 'NR==2 {print $4}') free"

step "install test tools (Node 22, MCP Inspector, conformance suites, Claude Code, Gemini CLI, Python mcp, Redis, HAProxy, Chromium)"
scripts/install-tools.sh

step "the scripted model server against the official openai and anthropic SDK clients (tests/agent/selftest.py)"
.tools/pyenv/bin/python tests/agent/selftest.py

step "cargo fmt --check"
cargo fmt --all -- --check

# Lint and docs build metadata only, nothing later steps use: they get a
# target directory of their own, removed once they pass (about 1 GB).
step "cargo clippy -D warnings"
CARGO_TARGET_DIR=target/check cargo clippy --workspace --all-targets -- -D warnings

step "cargo doc as docs.rs builds it (every feature, --cfg docsrs; warnings are errors); feature-gated items carry their feature"
# docs.rs documents with a nightly rustdoc; RUSTC_BOOTSTRAP lets this
# toolchain's rustdoc take the same `doc_cfg` feature.
RUSTC_BOOTSTRAP=1 RUSTDOCFLAGS="-D warnings --cfg docsrs" CARGO_TARGET_DIR=target/check \
    cargo doc --workspace --no-deps --all-features --quiet
for page in oxmcp_server/struct.Server.html oxmcp_client/struct.ClientBuilder.html oxmcp_toolbox/index.html; do
    grep -Eq "Available on (<strong>)?crate feature" "target/check/doc/$page" \
        || { echo "target/check/doc/$page names no feature: doc(cfg) is not applied" >&2; exit 1; }
done
rm -rf target/check

step "cargo test --workspace"
cargo test --workspace
# That built every example binary the interop steps below run (mcp-examples'
# integration tests start them); a separate `cargo build` would compile the
# whole dependency tree again without the dev-dependencies' features.
# The test executables have run; the steps below run the example binaries
# (target/debug/NAME, hard links to deps/NAME-HASH, so not deleted here)
# and the `mcp` binary. Deleting the rest (about 2.3 GB) keeps the run
# within CI's disk budget; `--test load` below relinks the one it needs.
find target/debug/deps -maxdepth 1 -type f -perm -u+x -links 1 ! -name '*.so' -delete

step "mcp new: each template (stdio, --http, --prompts, --agent) made into a temporary directory, then cargo test in it (the harness, the tool snapshot, the agent with a scripted model), built into target/"
tests/new/run.sh target

step "slim builds: the stdio-only server and client (--no-default-features --features stdio) have no hyper, rustls or jsonschema in their tree, pass clippy and their stdio tests"
# In target/ itself: the crates whose features match the full build's are
# reused (the build's own hashes keep the two feature sets apart).
scripts/slim.sh

step "load at full size: 32 HTTP clients x 10,000 calls, 1,000,000 stdio calls 64 in flight, tools changing"
# The test binary `cargo test --workspace` built and ran at a scaled-down
# size, run again at full size: no compiling (the same packages and
# features; the executable deleted above is only linked again), where an
# optimized build of its own took 134 s on a clean clone for 6 s of load. The debug build is the stricter one (overflow checks, debug
# assertions). The Nagle test ran in that run; it measures time, and does
# not share two cores with a million calls.
MCP_LOAD_FULL=1 cargo test --workspace --test load -- --nocapture \
  --skip streamed_responses_are_not_delayed_by_nagle

step "interop over stdio: Python mcp client (legacy, auto, 2026-07-28) and MCP Inspector CLI (legacy, modern)"
tests/interop/run_stdio.sh target/debug/calculator

step "interop over HTTP: Python mcp client (Streamable HTTP legacy/auto/2026-07-28, HTTP+SSE) and MCP Inspector CLI (http legacy/modern, sse)"
tests/interop/run_http.sh target/debug/calculator

step "interop, prompts and resources: Python mcp client (legacy, 2026-07-28; stdio, HTTP: prompts, text/binary/template resources, completion, elicitation, sampling) and MCP Inspector CLI (legacy, modern; stdio, HTTP)"
tests/interop/run_notes.sh target/debug/notes

step "one server from many: the gateway example mounts the calculator (stdio), notes (Streamable HTTP), the Python reference server and plugins; Python mcp (legacy, 2026-07-28; stdio, HTTP) and the MCP Inspector CLI drive it: prefixed items, calls, progress, prompts, resources, completion, sampling, elicitation, a subscription, a tool added upstream, a mount killed and back; bad configurations refused at start"
tests/compose/run.sh target/debug

step "OpenAPI as tools: the openapi example serves a FastAPI application's document; Python mcp (legacy, 2026-07-28) calls every operation and checks what the API holds; the GitHub REST API's document (about 1,100 operations) loads whole and filtered, with its time and peak memory; bad documents refused at start"
tests/openapi/run.sh target/debug

step "limits hosts meet: the reports example with Python mcp (legacy, 2026-07-28): results cut at the default, a per-tool and a raised cap with their markers, the whole of a cut result read by its caller and refused to another, a long structured list, a picture, a cached quote per caller; the rate limit per caller; a zero rate refused at build"
tests/limits/run.sh target/debug

step "tool search: the tool_search example (300 tools, two pinned) driven by Python mcp (legacy, 2026-07-28): the list offers the pinned tools and search_tools, a search finds a deep tool with its definition, calling it works, bad arguments get isError; a pin that does not exist refused at start"
tests/tool_search/run.sh target/debug

step "MCP Apps in a browser: headless Chromium hosts the notes board page with the official AppBridge (@modelcontextprotocol/ext-apps); its button calls add_note through the host; screenshot in target/test-output/apps/"
tests/apps/run.sh target/debug/notes

step "official conformance suites: 0.1.16 --suite all, 0.2.0-alpha.12 --requirements 2025-11-25 and 2026-07-28"
tests/conformance/run.sh target/debug/conformance_server

step "several instances, one service: two conformance_server --redis behind HAProxy round-robin (no stickiness) pass the three conformance runs; Python mcp and the Inspector CLI drive two notes --redis through it; a session outlives its instance (SIGKILL); without --redis the same setup fails"
tests/several/run.sh target/debug

step "our client: conformance 0.1.16 client scenarios (core and authorization), 0.2.0-alpha.12 client requirements of 2025-11-25 and 2026-07-28; calculator_client (stdio, HTTP); foreign_client against the Python reference and TS server-everything (stdio, HTTP)"
tests/conformance/run_client.sh target/debug/conformance_client
tests/interop/run_client.sh target/debug

step "the mcp command line: list, call, read, prompt, check against our calculator and notes, the Python reference server and TypeScript server-everything (stdio, Streamable HTTP, both eras; --json parsed; bad input refused in one line; OAuth sign-in with oidc-provider, tokens kept 0600; check clean on ours, findings on a bad Python server)"
tests/cli/run.sh target/debug

step "authorization with a real authorization server (oidc-provider) configured as the identity providers behave (audience the resource; audience the client id, Entra's no-resource .default shape; no registration endpoint; metadata documents only): calculator --issuer [--audience] as a protected resource; calculator_client and the Python mcp client sign in (code flow, PKCE, registration, step-up) and call it"
tests/interop/oauth/run.sh target/debug

step "agent tool sets: a local toolbox, the calculator over stdio, the Python reference server and TS server-everything in one set; strict schemas of every tool of the calculator, the conformance fixture and server-everything"
tests/agent/run_interop.sh target/debug

step "OpenTelemetry: the OTLP receiver against the official SDK; no OpenTelemetry crate without the otel features, and no exporter (OTLP, Prometheus, tonic, reqwest) with them in any library; calculator, calculator_client and agent export over OTLP/HTTP and gRPC: one trace spans agent run, model request, client and server across processes (stdio, HTTP); the Python mcp client's traceparent continued (_meta, header); the four histograms; /metrics for Prometheus"
tests/otel/run.sh target/debug

step "built-in toolboxes: the hostile tables of files and fetch run against the reference filesystem and fetch servers and ours, side by side (fetch inside a network namespace of its own); the Python mcp client and the MCP Inspector CLI drive files as they drive the reference server"
tests/toolbox/run.sh target/debug

step "mcp install read by the real hosts: Claude Code and Gemini CLI list our calculator connected (user and project scope), a broken server failing, and nothing after mcp uninstall"
tests/install/run.sh target/debug

step "cargo package --workspace: each publishable crate packed and built from its .crate, with both licence files; its size; metadata complete; the docs' dependency lines resolve to our packages"
# Last: the verification builds in target/debug beside the tests' build
# (reusing what has the same features), and its build of oxmcp-cli replaces
# target/debug/mcp, which the steps above run.
scripts/package.sh

step "disk: target/ holds $(du -sh target | cut -f1); $(df -h . | awk 'NR==2 {print $4}') left on the device"

step "all tests passed in $(( $(date +%s) - start )) s"
