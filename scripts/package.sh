#!/usr/bin/env bash
# Packages that build from their published form. Run by scripts/test.sh
# last, after `cargo test --workspace` and the steps using its binaries:
# 1. every publishable crate carries the metadata crates.io and docs.rs show;
# 2. `cargo package` packs each one and builds it from its .crate (the
#    verification build; the crates of ours it depends on come from their
#    .crates too, through cargo's temporary local registry). Cargo builds
#    it in the workspace's target/debug, beside the tests' build: what was
#    built with the same features is not compiled again (214 units instead
#    of 398 from cold here). The rest is built once per feature set: each
#    crate is verified alone, with its own default features, which is the
#    point (a feature a crate needs but does not ask for shows here, not in
#    the workspace's unified build). Each .crate's size is printed, and each
#    must hold both licence files;
# 3. each dependency line on our crates that the README, docs/ and the
#    crates' READMEs show resolves to our package, as a user's project
#    beside a clone named mcp-rs would resolve it.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
py=.tools/pyenv/bin/python

metadata=$(cargo metadata --no-deps --format-version 1)

# 1. Metadata. `publish = false` crates (tests, examples, bench, test
# support) are left out here and in `cargo package` below.
publishable=$("$py" -c '
import json, sys
meta = json.load(sys.stdin)
bad = []
for p in meta["packages"]:
    if p["publish"] == []:
        continue
    name = p["name"]
    want = {
        "license": "MIT OR Apache-2.0",
        "repository": "https://github.com/oxmcp/oxmcp",
        "documentation": "https://docs.rs/" + name,
    }
    for key, value in want.items():
        if p.get(key) != value:
            bad.append(f"{name}: {key} is {p.get(key)!r}, want {value!r}")
    for key in ("description", "readme", "rust_version"):
        if not p.get(key):
            bad.append(f"{name}: no {key}")
    for key in ("keywords", "categories"):
        if not 1 <= len(p[key]) <= 5:
            bad.append(f"{name}: {len(p[key])} {key}, crates.io takes 1 to 5")
    if "rs" not in ((p.get("metadata") or {}).get("docs") or {}):
        bad.append(f"{name}: no [package.metadata.docs.rs]")
    print(name, p["version"])
if bad:
    sys.exit("incomplete package metadata (Cargo.toml [package]):\n  " + "\n  ".join(bad))
' <<<"$metadata")
excluded=$("$py" -c '
import json, sys
print(" ".join("--exclude " + p["name"] for p in json.load(sys.stdin)["packages"] if p["publish"] == []))
' <<<"$metadata")
target=$("$py" -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])' <<<"$metadata")
echo "ok: metadata complete for $(wc -l <<<"$publishable") publishable crates"

# 2. Pack and build from the .crates. --allow-dirty: the test command runs
# on uncommitted changes too (a clean clone has none). --offline: each
# package's lock is made from Cargo.lock, whose every crate `cargo test
# --workspace` has just fetched; online, cargo asks the index again for each
# package (52 s of 60 for the packing alone here, with nothing more checked).
#
# Cargo takes a crate of its temporary registry as unchanged when its name
# and version are (as for crates.io's): a second run would unpack and build
# our crates' last versions again, not these. So what an earlier run left
# goes first: their unpacked copies (in unnamed registries, `-HASH`) and
# every build of our crates in target/ (the step runs last: the tests'
# builds of them are no longer needed).
rm -rf "${CARGO_HOME:-$HOME/.cargo}"/registry/src/-*/oxmcp-* \
  "$target"/debug/.fingerprint/oxmcp-* "$target"/debug/deps/liboxmcp_* "$target"/debug/deps/oxmcp_*
# shellcheck disable=SC2086 # $excluded is a list of arguments
cargo package --workspace --allow-dirty --offline $excluded
while read -r name version; do
  crate=$target/package/$name-$version.crate
  files=$(tar -tzf "$crate")
  for licence in LICENSE-MIT LICENSE-APACHE; do
    grep -qx "$name-$version/$licence" <<<"$files" \
      || { echo "FAIL: $crate holds no $licence" >&2; exit 1; }
  done
  printf '%-22s %6s KiB  %3s files\n' "$name" "$(( $(stat -c %s "$crate") / 1024 ))" "$(wc -l <<<"$files")"
done <<<"$publishable"

# 3. The docs' dependency lines: each in a project of its own, beside a
# symlink named mcp-rs to this checkout (the lines' `path` is
# ../mcp-rs/<folder>), resolved offline from the lock this checkout uses.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
ln -s "$repo" "$scratch/mcp-rs"
lines=$("$py" -c '
import glob, re
found = set()
for path in ["README.md", *glob.glob("docs/*.md"), *glob.glob("*/README.md")]:
    in_toml = False
    for line in open(path, encoding="utf-8"):
        if line.startswith("```"):
            in_toml = line.strip() == "```toml"
        elif in_toml and re.match(r"oxmcp-[a-z-]+ = ", line):
            found.add(line.split("#")[0].strip())
print("\n".join(sorted(found)))
')
[[ -n "$lines" ]] || { echo "FAIL: no dependency line on our crates found in the docs" >&2; exit 1; }
count=0
while IFS= read -r line; do
  count=$((count + 1))
  dir=$scratch/user$count
  mkdir -p "$dir/src"
  : >"$dir/src/lib.rs"
  cp Cargo.lock "$dir/"
  printf '[package]\nname = "doc-line"\nversion = "0.0.0"\nedition = "2021"\n\n[workspace]\n\n[dependencies]\n%s\n' "$line" >"$dir/Cargo.toml"
  if ! cargo metadata -q --offline --format-version 1 --manifest-path "$dir/Cargo.toml" >/dev/null; then
    echo "FAIL: this dependency line in the docs does not resolve to our package: $line" >&2
    exit 1
  fi
done <<<"$lines"
echo "ok: the docs' $count dependency lines on our crates resolve to our packages"
