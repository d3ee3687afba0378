//! oxmcp-agent's integration tests, one binary (each file under `tests/` is a
//! binary of its own to build and link): the agent loop, its errors, the
//! model providers' wire formats, pausing and resuming, strict output,
//! rich results, scripted runs. None of them changes the process (no
//! environment variable, no global subscriber or propagator), so they share
//! a binary; the spans and metrics (`tests/otel.rs`, which sets the
//! process's propagator) stay a binary of their own.
//!
//! The modules are `pub`, as each file's items were at the root of a binary
//! of its own: the lints see the same reachable items as before.

mod support;

pub mod agent_loop;
pub mod errors;
pub mod models;
pub mod pause;
pub mod responses;
pub mod result_caps;
pub mod rich;
pub mod scripted;
pub mod strict;
pub mod support_smoke;
pub mod tool_search;
