//! What the tests of several crates (and the examples' tests) share: a
//! `publish = false` crate, as tokio has `tokio-test`, instead of files
//! included with `#[path]`.
//!
//! Each module that needs a heavy dependency is behind a feature, so that a
//! test binary builds only what it uses:
//!
//! | module | feature | what |
//! |---|---|---|
//! | [`http_response`] | | one HTTP/1.1 response read off a raw socket |
//! | [`netns`] | | a test run again in a network namespace of its own |
//! | [`redis_server`] | | a `redis-server` of a test's own |
//! | [`scripted_model`] | | the scripted model server (`tests/agent/scripted_model.py`) |
//! | `http_site` | `site` | a loopback HTTP server that records every request |
//! | `calculator` | `tools` | [`Calculator`](calculator::Calculator), the one arithmetic toolbox of the tests |
//! | `tool_catalog` | `tools` | a domain's hundred realistic tools, for the tool-search tests |
//! | `tool_entries` | `tools` | the tools every test toolbox of oxmcp-server and oxmcp-client serves |
//! | `server` | `server` | what oxmcp-server's tests drive a server with (clients, toolboxes, an issuer) |
//! | `otel_capture` | `otel` | spans caught by OpenTelemetry's in-memory exporter |
//! | `deprecations` | `deprecations` | the deprecated features' once-per-process warnings, caught |
//! | `strict_check` | `strict` | a strict schema checked against OpenAI's strict-mode rules |
#![allow(
    missing_debug_implementations,
    reason = "test helpers (servers, clients, toolboxes) that no test prints; the types a failing assertion shows derive Debug"
)]

pub mod http_response;
pub mod netns;
pub mod redis_server;
pub mod scripted_model;

#[cfg(feature = "deprecations")]
pub mod deprecations;
#[cfg(feature = "site")]
pub mod http_site;

#[cfg(feature = "tools")]
pub mod calculator;
#[cfg(feature = "tools")]
pub mod tool_catalog;
#[cfg(feature = "tools")]
pub mod tool_entries;

#[cfg(feature = "server")]
pub mod server;

#[cfg(feature = "otel")]
pub mod otel_capture;

#[cfg(feature = "strict")]
pub mod strict_check;
