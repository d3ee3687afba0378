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

# Steps in the background run in a session of their own (setsid), so that
# a failure elsewhere ends them and every process they started.
background=()
trap 'for pid in "${background[@]}"; do kill -TERM -- "-$pid" 2>/dev/null || true; done' EXIT
mkdir -p target/test-output
# join_background <pid> <log> <what>: waits for a background step, prints its log.
join_background() {
    local status=0
    wait "$1" || status=$?
    cat "$2"
    if [ "$status" -ne 0 ]; then
        echo "FAILED: $3 (exit status $status; its log: $2)" >&2
        exit 1
    fi
}

step "install test tools (Node 22, MCP Inspector, conformance suites, Claude Code, Gemini CLI, Python mcp, Redis, HAProxy, Chromium): in the background, beside fmt, clippy and doc (it waits on the registries more than it computes)"
setsid scripts/install-tools.sh >target/test-output/install-tools.log 2>&1 &
install_pid=$!
background+=("$install_pid")

step "cargo fmt --check"
cargo fmt --all -- --check

# Lint and docs build in target/ itself, so that the proc macros and build
# scripts they compile (syn, serde_derive, ring's C code, ...) are the
# test build's too. The metadata they build for every library (about 1 GB)
# is of no use to later steps: deleted once they pass.
step "cargo clippy -D warnings"
cargo clippy --workspace --all-targets -- -D warnings

step "cargo doc as docs.rs builds it (every feature, --cfg docsrs; warnings are errors); feature-gated items carry their feature"
# docs.rs documents with a nightly rustdoc; RUSTC_BOOTSTRAP lets this
# toolchain's rustdoc take the same `doc_cfg` feature. Given to rustdoc
# alone (a wrapper): in cargo's environment it would reach rustc too, and
# every proc macro and build script would differ from the test build's.
printf '#!/bin/sh\nRUSTC_BOOTSTRAP=1 exec rustdoc "$@"\n' >target/rustdoc-bootstrap
chmod +x target/rustdoc-bootstrap
RUSTDOC="$PWD/target/rustdoc-bootstrap" RUSTDOCFLAGS="-D warnings --cfg docsrs" \
    cargo doc --workspace --no-deps --all-features --quiet
for page in oxmcp_server/struct.Server.html oxmcp_client/struct.ClientBuilder.html oxmcp_toolbox/index.html; do
    grep -Eq "Available on (<strong>)?crate feature" "target/doc/$page" \
        || { echo "target/doc/$page names no feature: doc(cfg) is not applied" >&2; exit 1; }
done
# Their metadata-only builds of libraries: an .rmeta without its .rlib (a
# library built for real, such as a proc macro's dependency, has both).
rm -rf target/doc target/rustdoc-bootstrap
for rmeta in target/debug/deps/*.rmeta; do
    [ -e "${rmeta%.rmeta}.rlib" ] || rm -f "$rmeta"
done

step "install test tools: joined"
join_background "$install_pid" target/test-output/install-tools.log "scripts/install-tools.sh"

step "the scripted model server against the official openai and anthropic SDK clients (tests/agent/selftest.py)"
.tools/pyenv/bin/python tests/agent/selftest.py

step "cargo test --workspace: built as cargo builds it, its test executables and doc tests run three at a time (scripts/test_binaries.py)"
scripts/test_binaries.py --jobs 3
# That built every example binary the interop steps below run (mcp-examples'
# integration tests start them); a separate `cargo build` would compile the
# whole dependency tree again without the dev-dependencies' features.
# The test executables have run; the steps below run the example binaries
# (target/debug/NAME, hard links to deps/NAME-HASH, so not deleted here)
# and the `mcp` binary. Deleting the rest (about 2.3 GB) keeps the run
# within CI's disk budget; `--test load` below relinks the one it needs.
find target/debug/deps -maxdepth 1 -type f -perm -u+x -links 1 ! -name '*.so' -delete

step "interop, conformance and hosts (scripts/interop.sh): in the background, beside the builds below, from hard links to the binaries (which the package step's build of oxmcp-cli would replace); its log is printed when it ends"
rm -rf target/interop-bin && mkdir target/interop-bin
find target/debug -maxdepth 1 -type f -perm -u+x -exec ln {} target/interop-bin/ \;
TEST_START=$start setsid scripts/interop.sh target/interop-bin >target/test-output/interop.log 2>&1 &
interop_pid=$!
background+=("$interop_pid")

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

step "cargo package --workspace: each publishable crate packed and built from its .crate, with both licence files; its size; metadata complete; the docs' dependency lines resolve to our packages"
# Last of the builds: the verification builds in target/debug beside the
# tests' build (reusing what has the same features), and its build of
# oxmcp-cli replaces target/debug/mcp, which `mcp new` above ran (the
# interop steps run their own links to the tests' build).
scripts/package.sh

step "interop, conformance and hosts: joined; their log follows"
join_background "$interop_pid" target/test-output/interop.log "scripts/interop.sh"

step "disk: target/ holds $(du -sh target | cut -f1); $(df -h . | awk 'NR==2 {print $4}') left on the device"

step "all tests passed in $(( $(date +%s) - start )) s"
