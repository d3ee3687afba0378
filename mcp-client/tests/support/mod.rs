//! The helpers of oxmcp-client's integration tests, one file a job. Every
//! test binary declares `mod support;` at its root (`tests/client.rs`,
//! `tests/http.rs`, ...), and its modules `use crate::support;`.
//!
//! - `tools`: the toolboxes served by the real `oxmcp_server` ([`TestTools`],
//!   [`server`]) and [`ManyTools`].
//! - `in_process`: a client connected to a server in the same process
//!   ([`in_process`]), with a [`Tap`] on what it writes.
//! - `http_server`: [`HttpServer`], a server on a real 127.0.0.1 socket.
//! - `fake`: [`Fake`], a scripted server for what our server never does
//!   (server→client requests, MRTR, silence).
//! - [`oauth_server`]: a scratch OAuth authorization server, the notes
//!   server it protects, and the helpers of the sign-in tests (by its
//!   module's name).
//!
//! The tools that oxmcp-server's `TestTools` serves too ([`SharedTools`],
//! [`with_shared_tools`]) are `mcp_test_support::tool_entries`.
#![allow(
    dead_code,
    unreachable_pub,
    clippy::missing_panics_doc,
    clippy::similar_names,
    clippy::too_many_lines
)]

mod fake;
mod http_server;
mod in_process;
mod tools;

#[cfg(feature = "auth")]
pub mod oauth_server;

// Each test file uses part of what is re-exported here.
#[allow(unused_imports)]
pub use fake::*;
#[allow(unused_imports)]
pub use http_server::*;
#[allow(unused_imports)]
pub use in_process::*;
#[allow(unused_imports)]
pub use mcp_test_support::tool_entries::*;
#[allow(unused_imports)]
pub use tools::*;
