//! The code the macros generate, seen through the public API: one test
//! binary, a module per topic (`macros`: toolboxes from `#[tool]` impls;
//! `typed_client`: the typed clients from `#[tool]` traits). Neither
//! changes the process, so they share a binary; `ui` (trybuild, which
//! runs cargo) and `public_api` (each crate's root names, parsed from the
//! sources) are binaries of their own, run by name.
//!
//! The modules are `pub`, as each file's items were at the root of a binary
//! of its own: the lints see the same reachable items as before.

pub mod macros;
pub mod typed_client;
