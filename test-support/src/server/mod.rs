//! The helpers of oxmcp-server's integration tests (and of the tests on
//! other crates that drive a server as they do: the Redis ones), one file a
//! job. A test module imports it as `support`
//! (`use mcp_test_support::server as support;`) and uses what it needs.
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
//! - [`dpop`]: a server behind DPoP-bound tokens and a client's proofs (by
//!   its module's name).
//! - [`netns`]: a test run again in a network namespace of its own (by its
//!   module's name).
//!
//! The parsing of a raw HTTP response ([`Response`]), the tools every
//! `TestTools` serves ([`SharedTools`], [`with_shared_tools`]) and the
//! network namespace are this crate's own modules, re-exported here.

mod http;
mod jsonrpc;
mod measure;
mod stdio;
mod tools;

pub mod dpop;
pub mod issuer;

pub use crate::netns;

pub use self::http::*;
pub use crate::http_response::*;
pub use crate::tool_entries::*;
pub use jsonrpc::*;
pub use measure::*;
pub use stdio::*;
pub use tools::*;
