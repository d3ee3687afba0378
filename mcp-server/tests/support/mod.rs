//! The helpers of mcp-server's integration tests, one file a job. Every test
//! file declares `mod support;` and uses what it needs.
//!
//! - `tools`: the test toolboxes: [`TestTools`] and its [`server`] for
//!   dispatch tests, [`Probed`] whose tools record what happened to their
//!   calls.
//! - `jsonrpc`: the messages tests send ([`initialize_request`],
//!   [`modern_meta`], ...) and checks of what comes back ([`check_response`]).
//! - `stdio`: [`Client`], a line client over in-memory pipes or to the
//!   calculator example as a child process.
//! - `http`: [`HttpConn`], a raw HTTP/1.1 client that reads responses off
//!   the socket, [`Stream`], a response read as it arrives, and
//!   [`HttpServer`], a server on a real 127.0.0.1 socket.
//! - `measure`: memory, live tasks, polling, tests run one at a time.
//! - [`issuer`]: a scratch authorization server (by its module's name).
//! - [`netns`]: a test run again in a network namespace of its own (by its
//!   module's name).
//!
//! Three helpers are shared with other crates' tests and live in the
//! workspace's `tests/support/`: the parsing of a raw HTTP response
//! ([`Response`]), the tools every `TestTools` serves ([`SharedTools`],
//! [`with_shared_tools`]) and the network namespace.
#![allow(
    dead_code,
    unreachable_pub,
    clippy::missing_panics_doc,
    clippy::must_use_candidate,
    clippy::too_many_lines
)]

mod jsonrpc;
mod measure;
mod tools;

#[cfg(feature = "stdio")]
mod stdio;

#[path = "../../../tests/support/http_response.rs"]
mod http_response;

#[path = "../../../tests/support/tool_entries.rs"]
mod tool_entries;

#[cfg(feature = "http")]
mod http;

#[cfg(feature = "auth")]
pub mod issuer;

#[path = "../../../tests/support/netns.rs"]
pub mod netns;

// Each test file uses part of what is re-exported here.
#[cfg(feature = "http")]
#[allow(unused_imports)]
pub use self::http::*;
#[allow(unused_imports)]
pub use http_response::*;
#[allow(unused_imports)]
pub use jsonrpc::*;
#[allow(unused_imports)]
pub use measure::*;
#[cfg(feature = "stdio")]
#[allow(unused_imports)]
pub use stdio::*;
#[allow(unused_imports)]
pub use tool_entries::*;
#[allow(unused_imports)]
pub use tools::*;
