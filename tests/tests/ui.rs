//! Compile-time behaviour of the macros (trybuild): `ui/fail` must fail with
//! the checked-in `.stderr`, `ui/pass` must compile.
//!
//! Regenerate with `TRYBUILD=overwrite cargo test -p mcp-tests --test ui`, then
//! read the diff. The `.stderr` files are tied to the pinned toolchain (1.95).

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("ui/fail/*.rs");
    t.pass("ui/pass/*.rs");
}
