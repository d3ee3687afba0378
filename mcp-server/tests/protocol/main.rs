//! oxmcp-server seen from outside, in memory and on real 127.0.0.1 sockets:
//! one test binary, a module per topic. Every module here leaves the
//! process as it found it (no global subscriber or telemetry provider, no
//! environment variable, no measurement of the whole process), so they
//! share a binary; the tests that do not (`faults`, `load`, `hostile` and
//! the four `otel*`) are binaries of their own, and the tests on a real
//! Redis are oxmcp-redis's. A module gated on a feature names it as its
//! binary's `required-features` did before.
//!
//! The modules are `pub`, as each file's items were at the root of a binary
//! of its own: the lints see the same reachable items as before.

pub mod apps;
pub mod auth_scopes;
pub mod limits;
pub mod offers_http;
pub mod policy;
pub mod requires_client;
pub mod tool_search;

#[cfg(feature = "stdio")]
pub mod asking;
#[cfg(feature = "stdio")]
pub mod extensions;
#[cfg(all(feature = "stdio", feature = "validation"))]
pub mod params;
#[cfg(feature = "stdio")]
pub mod prompts_resources;
#[cfg(all(feature = "http", feature = "stdio"))]
pub mod props;
#[cfg(feature = "stdio")]
pub mod stdio;
#[cfg(feature = "stdio")]
pub mod tasks;

#[cfg(feature = "http")]
pub mod http;
#[cfg(feature = "http")]
pub mod shared_state;

#[cfg(feature = "auth")]
pub mod auth;
#[cfg(feature = "auth")]
pub mod auth_audiences;
#[cfg(feature = "auth")]
pub mod auth_review;
#[cfg(feature = "auth")]
pub mod dpop;

#[cfg(feature = "validation")]
pub mod dynamic;
