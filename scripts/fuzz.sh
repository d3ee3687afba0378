#!/usr/bin/env bash
# Runs every cargo-fuzz target (fuzz/fuzz_targets/*.rs) for a bounded time.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]
#
# SECONDS per target (default 30); TARGETs default to all of them. Installs
# cargo-fuzz from crates.io if it is missing. libFuzzer with AddressSanitizer
# needs a nightly compiler: the nightly toolchain when rustup has one,
# otherwise the stable one with RUSTC_BOOTSTRAP=1 (and no sanitizer if stable
# ships no sanitizer runtime). Set FUZZ_TOOLCHAIN=stable to force the latter.
#
# Seeds are in fuzz/seeds/<target>/ (and fuzz/json.dict); what libFuzzer
# learns goes to fuzz/corpus/<target>/ and crashes to fuzz/artifacts/<target>/
# (both ignored by git). Exits non-zero when a target finds a crash; the
# reproducer is the artifact it names: `cargo fuzz run --fuzz-dir fuzz TARGET ARTIFACT`.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${1:-30}"
shift || true

if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "==== installing cargo-fuzz"
    cargo install cargo-fuzz --locked
fi

toolchain=()
sanitizer=(--sanitizer address)
if [[ "${FUZZ_TOOLCHAIN:-}" != stable ]] && rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
    toolchain=(+nightly)
else
    # cargo-fuzz passes -Z flags; the stable compiler accepts them with this.
    export RUSTC_BOOTSTRAP=1
    sysroot="$(rustc --print sysroot)"
    if ! compgen -G "$sysroot/lib/rustlib/*/lib/librustc-*_rt.asan.a" >/dev/null; then
        echo "==== no AddressSanitizer runtime in $sysroot: fuzzing without a sanitizer"
        sanitizer=(--sanitizer none)
    fi
fi

if [[ $# -gt 0 ]]; then
    targets=("$@")
else
    mapfile -t targets < <(cargo "${toolchain[@]}" fuzz list --fuzz-dir fuzz)
fi

status=0
for target in "${targets[@]}"; do
    echo "==== fuzzing $target for ${seconds}s (${toolchain[*]:-stable, RUSTC_BOOTSTRAP=1}, ${sanitizer[*]})"
    mkdir -p "fuzz/corpus/$target" "fuzz/seeds/$target"
    if ! cargo "${toolchain[@]}" fuzz run --fuzz-dir fuzz "${sanitizer[@]}" "$target" \
        "fuzz/corpus/$target" "fuzz/seeds/$target" -- \
        -max_total_time="$seconds" -dict=fuzz/json.dict -max_len=65536 \
        -timeout=20 -rss_limit_mb=2048 -print_final_stats=1; then
        echo "==== $target FOUND A PROBLEM: see fuzz/artifacts/$target/"
        status=1
    fi
done
exit "$status"
