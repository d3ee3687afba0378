//! Compile-time behaviour of the macros (trybuild), one folder per category
//! of case (what it is about: `tool`, `describe`, `param`, `prompt`,
//! `resource`, `complete`, `app`, `client`, `requires`, `scopes`, `task`;
//! `deprecated`: the compiler warnings of the spec's deprecated features):
//! `ui/<category>/fail` must fail with the checked-in `.stderr`. What the
//! macros must accept is `tests/pass`, one program: trybuild builds and
//! runs each case it passes as a crate of its own, against a dependency
//! build of its own (60 of the 120 s this test took on 2 cores).
//!
//! Regenerate with `TRYBUILD=overwrite cargo test -p mcp-tests --test ui`, then
//! read the diff. The `.stderr` files hold rustc 1.95's wording (the
//! version CI runs; nothing pins it): another compiler may word the same
//! errors differently, which shows here as a mismatch to regenerate and read.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("ui/*/fail/*.rs");
}
