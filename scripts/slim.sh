#!/usr/bin/env bash
# Slim builds: the stdio-only server and client (`--no-default-features
# --features stdio`) depend on none of hyper, rustls and jsonschema, build
# without warnings, and pass their stdio tests. Run by scripts/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

slim=(--no-default-features --features stdio)
for crate in oxmcp-server oxmcp-client; do
  tree=$(cargo tree -q -p "$crate" "${slim[@]}" -e normal --prefix none | sort -u)
  heavy=$(grep -E '^(hyper|hyper-util|hyper-rustls|rustls|tokio-rustls|jsonschema) v' <<<"$tree" || true)
  if [[ -n "$heavy" ]]; then
    echo "FAIL: the stdio-only $crate depends on:" >&2
    echo "$heavy" >&2
    exit 1
  fi
  echo "ok: the stdio-only $crate has $(wc -l <<<"$tree") crates in its tree, none of hyper, rustls, jsonschema"
done

# One package per command: a dev-dependency (the client's tests start our
# server) would otherwise turn the other crate's default features back on.
cargo clippy -q -p oxmcp-server "${slim[@]}" --all-targets -- -D warnings
cargo clippy -q -p oxmcp-client "${slim[@]}" --lib -- -D warnings
# The stdio tests are modules of the crates' main test binaries: run those
# modules (a filter would also apply to --lib, hence two commands each).
cargo test -q -p oxmcp-server "${slim[@]}" --lib
cargo test -q -p oxmcp-server "${slim[@]}" --test protocol -- stdio:: policy::
cargo test -q -p oxmcp-client "${slim[@]}" --lib --test stdio
cargo test -q -p oxmcp-client "${slim[@]}" --test client -- client::in_process:: client::fake::
