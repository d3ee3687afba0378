//! Write MCP servers as plain Rust methods.
//!
//! `#[tool]` on an impl block turns its `pub fn`s into MCP tools: the
//! compiler refuses a tool or a parameter without a description, the JSON
//! Schemas are generated once, and [`Server`] serves them over stdio to any
//! MCP host, in both protocol eras (the legacy handshake revisions up to
//! 2025-11-25, and the stateless 2026-07-28).
//!
//! ```no_run
//! use mcp_server::{tool, Server, ToolError};
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
//! async fn main() -> Result<(), mcp_server::Error> {
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
//! - [`tool`], `describe`, `param`: the macros (see [`tool`] for every attribute).
//! - [`Server`], [`ServerBuilder`]: configuration and transports.
//! - [`Context`]: progress, log messages and cancellation inside a tool, and
//!   asking the client ([`Context::sample`], [`Context::elicit`],
//!   [`Context::roots`]) in both eras.
//! - `prompt`, `resource`, `complete` (in a [`tool`] block), [`PromptEntry`],
//!   [`ResourceEntry`], [`TemplateEntry`]: prompts, resources, resource
//!   templates and argument completion.
//! - [`Json`], [`ToolError`], [`IntoToolResult`]: what tools return.
//! - [`types`]: the wire types (`mcp-types`).
//! - [`ServerHandle`]: tools, prompts and resources added, removed, enabled
//!   and disabled at run time; resource updates to subscribers.
//! - [`policy`]: visibility per caller, middleware, audit log, rate limits.
//! - [`auth`] (feature `auth`): the HTTP server as an OAuth protected
//!   resource, and the scopes a token needs per tool, prompt, resource and
//!   template (`#[tool(scopes("..."))]`, `with_scopes` on an entry).
//! - `http` (feature `http`): [`HttpConfig`](http::HttpConfig) and the
//!   `tower::Service` that mounts the server in an existing router.
//!
//! # Cargo features
//!
//! All on by default. A stdio-only server builds none of hyper and
//! jsonschema with `default-features = false, features = ["stdio"]`.
//!
//! | feature | gives |
//! |---|---|
//! | `stdio` | [`Server::serve_stdio`] and [`Server::serve_io`] (newline-delimited JSON over any byte streams) |
//! | `http` | [`Server::serve_http`], [`Server::http_service`] and the `http` module: Streamable HTTP (both eras) and HTTP+SSE, on hyper |
//! | `validation` | dynamic tools' schemas checked against the JSON Schema meta-schema and each call's arguments validated before the handler runs (jsonschema); without it a dynamic tool's schema is only checked to have an object root, and its handler checks its own arguments |
//!
//! # Re-exports
//!
//! [`types`] is `mcp-types`, the wire model, so a tool names
//! [`CallToolResult`] or a capability without its own dependency; the
//! macros come from `mcp-macros`. No third-party crate is re-exported: the
//! `tower` and `hyper` types in the `http` module's signatures are those of
//! the versions in your own `Cargo.toml` (tower-service 0.3, hyper 1).
#![warn(missing_docs)]
// Without a transport feature the server is only used in process (tool
// entries invoked directly); dispatch and its session state sit unused.
#![cfg_attr(
    not(any(feature = "stdio", feature = "http")),
    allow(dead_code, unused_imports)
)]

pub mod apps;
mod args;
mod ask;
pub mod auth;
mod complete;
mod context;
mod dispatch;
mod dynamic;
mod elicit;
mod error;
mod handle;
mod panic;
mod param_rules;
pub mod policy;
mod prompt;
mod registry;
mod request_state;
mod resource;
mod schema;
mod server;
#[cfg(feature = "skills")]
mod skills;
mod text_args;
mod tool;
mod transport;

pub mod state;

#[doc(hidden)]
#[path = "__private.rs"]
pub mod __private;

pub use args::Args;
pub use ask::AskError;
pub use complete::{completion, CompleteHandler, Completing, FromCompleting, IntoCompletion};
pub use context::Context;
pub use dispatch::TaskSupport;
pub use elicit::{form_schema, Ask, Elicited};
pub use error::{Error, RequestError, ToolError};
pub use handle::ServerHandle;
/// Prints an error with its causes (`{}`: `": "`-joined, `{:#}`: one per line).
pub use mcp_types::error::Chain;
pub use schema::InputSchemaBuilder;
pub use server::{Server, ServerBuilder, DEFAULT_MAX_RUNNING_CALLS, DEFAULT_MAX_WAITING_CALLS};

/// The HTTP transports: Streamable HTTP (both eras) and the legacy HTTP+SSE.
#[cfg(feature = "http")]
pub mod http {
    pub use crate::transport::http::{HttpConfig, HttpService, McpBody};
}
pub use prompt::{IntoPromptResult, PromptEntry, PromptSpec};
pub use resource::{IntoReadResult, Reading, ResourceEntry, ResourceSpec, TemplateEntry};
pub use text_args::{FromArgument, StringArgs};
pub use tool::{BoxFuture, IntoToolResult, Items, Json, ToolBox, ToolEntry, ToolSpec};

pub use mcp_macros::{complete, describe, param, prompt, resource, tool};

/// The wire types (`mcp-types`), re-exported.
pub use mcp_types as types;
pub use mcp_types::{
    CallToolResult, ContentBlock as Content, GetPromptResult, LoggingLevel, PromptMessage,
    ReadResourceResult, ResourceContents,
};
