//! Write MCP servers as plain Rust methods.
//!
//! `#[tool]` on an impl block turns its `pub fn`s into MCP tools: the
//! compiler refuses a tool or a parameter without a description, the JSON
//! Schemas are generated once, and [`Server`] serves them over stdio to any
//! MCP host, in both protocol eras (the legacy handshake revisions up to
//! 2025-11-25, and the stateless 2026-07-28).
//!
//! ```no_run
//! use oxmcp_server::{tool, Server, ToolError};
//!
//! #[derive(Default)]
//! pub struct Calculator {
//!     memory: f64,
//! }
//!
//! #[tool(description = "Arithmetic on two numbers, with one memory register")]
//! impl Calculator {
//!     #[describe("Add two numbers")]
//!     #[param(a, "The first number")]
//!     #[param(b, "The second number")]
//!     pub fn add(&self, a: f64, b: f64) -> f64 {
//!         a + b
//!     }
//!
//!     #[describe("Divide a by b")]
//!     pub fn divide(
//!         &self,
//!         #[param("The dividend")] a: f64,
//!         #[param("The divisor")] b: f64,
//!     ) -> Result<f64, ToolError> {
//!         if b == 0.0 {
//!             return Err(ToolError::new("division by zero"));
//!         }
//!         Ok(a / b)
//!     }
//!
//!     #[describe("Store a value and return the previous one")]
//!     pub fn store(&mut self, #[param("Value to store")] value: f64) -> f64 {
//!         std::mem::replace(&mut self.memory, value)
//!     }
//! }
//!
//! #[tokio::main]
//! async fn main() -> Result<(), oxmcp_server::Error> {
//!     Server::builder("calculator", "1.0.0")
//!         .toolbox(Calculator::default())
//!         .build()
//!         .serve_stdio()
//!         .await
//! }
//! ```
//!
//! # Modules and items
//!
//! At the root, what ordinary code names:
//!
//! - [`tool`](macro@tool), `describe`, `param`, `prompt`, `resource`,
//!   `complete`: the macros (see [`tool`](macro@tool) for every attribute).
//! - [`Server`], [`ServerBuilder`]: configuration and transports;
//!   [`ServerHandle`]: tools, prompts and resources added, removed, enabled
//!   and disabled at run time, and resource updates to subscribers.
//! - [`Context`]: progress, log messages and cancellation inside a tool, and
//!   asking the client ([`Context::sample`], [`Context::elicit`],
//!   [`Context::roots`]) in both eras.
//! - [`Json`], [`ToolError`], [`IntoToolResult`]: what tools return;
//!   [`ToolBox`], [`ToolEntry`]: what the macro makes of a block, and tools
//!   made at run time ([`ToolEntry::dynamic`]).
//! - [`RequestError`]: what prompts, resources and completions fail with;
//!   [`Error`]: what building and serving fail with.
//! - [`types`]: the wire types (`oxmcp-types`).
//!
//! Each family in its module:
//!
//! - [`mod@tool`]: what a toolbox hands the server, and task support.
//! - [`mod@prompt`], [`mod@resource`], [`mod@complete`]: prompts, resources,
//!   resource templates and argument completion, built by the macros or at
//!   run time.
//! - [`ask`]: the typed elicitation forms and what asking can fail with.
//! - [`apps`]: MCP Apps, tools that show a page.
//! - [`policy`]: visibility per caller, middleware, audit log, rate limits.
//! - [`auth`] (feature `auth`): the HTTP server as an OAuth protected
//!   resource, and the scopes a token needs per tool, prompt, resource and
//!   template (`#[tool(scopes("..."))]`, `with_scopes` on an entry).
//! - `http` (feature `http`): [`HttpConfig`](http::HttpConfig) and the
//!   `tower::Service` that mounts the server in an existing router.
//! - [`state`]: state shared by several instances of one service.
//!
//! # Cargo features
//!
//! `stdio` and `http` are on by default; `auth`, `validation` and `skills`
//! are turned on by name. A stdio-only server builds no hyper with
//! `default-features = false, features = ["stdio"]`.
//!
//! | feature | gives |
//! |---|---|
//! | `stdio` | [`Server::serve_stdio`] and [`Server::serve_io`] (newline-delimited JSON over any byte streams) |
//! | `http` | [`Server::serve_http`], [`Server::http_service`] and the `http` module: Streamable HTTP (both eras) and HTTP+SSE, on hyper |
//! | `validation` | dynamic tools' schemas checked against the JSON Schema meta-schema and each call's arguments validated before the handler runs (jsonschema); without it a dynamic tool's schema is only checked to have an object root, and its handler checks its own arguments. Also `#[param(pattern = "...")]` (regex), a compile error without it |
//! | `auth` | the [`auth`] module's verifiers and layer: the HTTP server as an OAuth protected resource, DPoP, scopes per entry |
//! | `skills` | [`ServerBuilder::skills`]: a directory of skills served as `skill://` resources |
//!
//! # Re-exports
//!
//! [`types`] is `oxmcp-types`, the wire model, so a tool names
//! [`CallToolResult`](types::CallToolResult) or a capability without its own dependency; the
//! macros come from `oxmcp-macros`. No third-party crate is re-exported: the
//! `tower` and `hyper` types in the `http` module's signatures are those of
//! the versions in your own `Cargo.toml` (tower-service 0.3, hyper 1).
#![warn(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]

// A server without a transport would be the dispatch core with nothing to
// serve it: a transport is required rather than half the crate compiled
// for nothing.
#[cfg(not(any(feature = "stdio", feature = "http")))]
compile_error!(
    "oxmcp-server serves over a transport: enable its feature \"stdio\" or \"http\" (both are default features)"
);

pub mod apps;
pub mod ask;
pub mod auth;
mod common;
pub mod complete;
mod context;
mod dispatch;
mod error;
mod handle;
mod kept;
mod panic;
pub mod policy;
pub mod prompt;
mod registry;
pub mod resource;
mod server;
#[cfg(feature = "skills")]
mod skills;
pub mod state;
pub mod tool;
mod transport;

#[doc(hidden)]
pub mod __private;

pub use context::Context;
pub use error::{Error, RequestError, ToolError};
pub use handle::ServerHandle;
pub use server::{Server, ServerBuilder};
pub use tool::entry::{IntoToolResult, Json, ToolBox, ToolEntry};

/// The HTTP transports: Streamable HTTP (both eras) and the legacy HTTP+SSE.
#[cfg(feature = "http")]
pub mod http {
    pub use crate::transport::http::{HttpConfig, HttpService, McpBody};

    /// Completes at the first Ctrl-C (SIGINT) or, on unix, SIGTERM: the
    /// `shutdown` to give [`Server::serve_http_on`](crate::Server::serve_http_on)
    /// so that it stops as [`Server::serve_http`](crate::Server::serve_http)
    /// does, letting the requests in flight finish. SIGTERM is how
    /// orchestrators and hosts stop a process; without a handler it ends the
    /// process at once, cutting every answer in flight.
    ///
    /// On unix the handlers are installed by this call (a signal that comes
    /// before the future is first polled is not lost) and stay installed.
    ///
    /// ```no_run
    /// # use oxmcp_server::{http::HttpConfig, Server};
    /// # async fn run(server: Server) -> Result<(), oxmcp_server::Error> {
    /// let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
    /// let stop = oxmcp_server::http::shutdown_signal();
    /// server.serve_http_on(listener, HttpConfig::default(), stop).await
    /// # }
    /// ```
    ///
    /// # Panics
    ///
    /// Outside a tokio runtime.
    pub fn shutdown_signal() -> impl std::future::Future<Output = ()> + Send + 'static {
        crate::transport::stop_signal()
    }
}

pub use oxmcp_macros::{complete, describe, param, prompt, resource, tool};

/// The wire types (`oxmcp-types`), re-exported.
pub use oxmcp_types as types;
