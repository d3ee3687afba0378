//! An MCP client: connect to any MCP server (over stdio, Streamable HTTP,
//! the legacy HTTP+SSE transport, or in-process) in either protocol era,
//! list its tools and call them.
//!
//! ```no_run
//! use oxmcp_client::Client;
//! use serde_json::json;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), oxmcp_client::Error> {
//! let client = Client::builder()
//!     .client_info("my-agent", "1.0.0")
//!     .connect_stdio(tokio::process::Command::new("./calculator"))
//!     .await?;
//! println!("{} speaks {}", client.server_info().name, client.protocol_version());
//!
//! for tool in client.list_tools().await? {
//!     println!("{}: {}", tool.name, tool.description.unwrap_or_default());
//! }
//! let result = client.call_tool("add", json!({"a": 2, "b": 3})).await?;
//! println!("{:?}", result.content);
//! client.close().await;
//! # Ok(())
//! # }
//! ```
//!
//! # Connecting
//!
//! [`Client::builder`] configures the client (identity, timeouts, era,
//! handlers); a connector opens the session and performs the handshake, so
//! [`Client::protocol_version`], [`Client::server_info`],
//! [`Client::server_capabilities`] and [`Client::instructions`] are known
//! when it returns.
//!
//! - **stdio**: [`ClientBuilder::connect_stdio`] spawns the server. Its
//!   stderr goes to `tracing` (target `oxmcp_client::stderr`) and its last lines
//!   are kept ([`Client::stderr_tail`]). [`Client::close`] follows the spec:
//!   close stdin, wait, SIGTERM, wait, SIGKILL. A server that dies fails every
//!   pending call at once with its exit status.
//! - **Streamable HTTP**: [`ClientBuilder::connect_http`] with the MCP
//!   endpoint URL (`http://`, or `https://` with the `tls` feature: rustls
//!   trusting Mozilla's roots, or [`ClientBuilder::tls_config`]). Both eras, JSON and SSE responses,
//!   legacy sessions (`Mcp-Session-Id`, `MCP-Protocol-Version`, resumption
//!   with `Last-Event-ID` after the server's `retry`, the standalone `GET`
//!   stream, `DELETE` on close), and the fallback to HTTP+SSE.
//! - **HTTP+SSE** (2024-11-05): [`ClientBuilder::connect_sse`] with the SSE URL.
//! - **Any byte streams**: [`ClientBuilder::connect_io`] (newline-delimited
//!   JSON), for sockets, pipes and servers in the same program.
//!
//! ## In-process
//!
//! A server in the same program (a test, an embedding) is one
//! `tokio::io::duplex` away. With an `oxmcp_server::Server` (this crate does
//! not depend on the server crate; your program does):
//!
//! ```
//! use oxmcp_server::{tool, Server};
//!
//! pub struct Hello;
//!
//! #[tool(description = "Greetings")]
//! impl Hello {
//!     #[describe("Say hello")]
//!     pub fn hello(&self, #[param("Who to greet")] name: String) -> String {
//!         format!("Hello, {name}!")
//!     }
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), oxmcp_client::Error> {
//! let server = Server::builder("hello", "1.0.0").toolbox(Hello).build();
//! let (client_end, server_end) = tokio::io::duplex(64 * 1024);
//! let (server_read, server_write) = tokio::io::split(server_end);
//! tokio::spawn(server.serve_io(server_read, server_write));
//!
//! let (client_read, client_write) = tokio::io::split(client_end);
//! let client = oxmcp_client::Client::builder()
//!     .connect_io(client_read, client_write)
//!     .await?;
//! let result = client
//!     .call_tool("hello", serde_json::json!({"name": "Ada"}))
//!     .await?;
//! assert_eq!(result.content[0].as_text(), Some("Hello, Ada!"));
//! client.close().await;
//! # Ok(())
//! # }
//! ```
//!
//! Closing the client shuts down its half, and `serve_io` returns.
//!
//! # Protocol eras
//!
//! [`Era::Auto`] (the default) sends a `server/discover` probe: a server that
//! answers it is spoken to in the stateless 2026-07-28 era (every request
//! carries the `_meta` protocol fields; on HTTP the `MCP-Protocol-Version`,
//! `Mcp-Method`, `Mcp-Name` and `Mcp-Param-*` headers); any other answer, or
//! none within [`ClientBuilder::probe_timeout`], means a legacy server, and
//! the client falls back to `initialize` (offering 2025-11-25). [`Era::Legacy`]
//! and [`Era::Modern`] skip the guessing.
//!
//! # Calling tools
//!
//! - [`Client::list_tools`] follows every page and caches the listing
//!   (legacy: until `notifications/tools/list_changed`; modern: for the
//!   server's `ttlMs`, or until a subscription reports a change).
//! - [`Client::call_tool`] returns the result, or [`Error::Tool`] when the tool
//!   reports `isError`; [`Client::call_tool_raw`] returns both as `Ok`.
//!   `structuredContent` is validated against the tool's `outputSchema`
//!   (JSON Schema, compiled once per tool, never fetching network `$ref`s).
//! - [`Client::call_tool_with`] takes [`CallOptions`]: a timeout and a
//!   progress callback.
//! - Dropping a call's future cancels it: `notifications/cancelled` on stdio
//!   and legacy HTTP, closing the response stream in modern HTTP. A timeout
//!   cancels the same way and returns [`Error::Timeout`].
//! - [`Client`] implements [`types::call::ToolCaller`], which typed clients
//!   generated by [`tool`] are built on.
//!
//! # What servers ask of the client
//!
//! Sampling, elicitation and roots requests go to the handlers given to
//! [`ClientBuilder::sampling_handler`], [`ClientBuilder::elicitation_handler`]
//! and [`ClientBuilder::roots_handler`]; the client declares exactly those
//! capabilities, and answers -32601 to anything else. In the legacy era they
//! arrive as server→client requests; in the modern era as `input_required`
//! results, which the client fulfils and retries (a new id, the same params,
//! `inputResponses` and the echoed `requestState`), up to
//! [`ClientBuilder::max_input_rounds`] times.
//!
//! Server notifications (log messages, list changes) come from
//! [`Client::notifications`]; in the modern era, [`Client::listen`] opens a
//! `subscriptions/listen` stream.
//!
//! # Errors
//!
//! Every fallible method returns [`Error`] (`oxmcp_types::call::CallError`):
//!
//! | case | meaning |
//! |---|---|
//! | [`Error::Transport`] | the connection failed: I/O, an HTTP status, a server process that exited (with its status and last stderr lines) |
//! | [`Error::Protocol`] | the server answered with a JSON-RPC error (code and message kept); also a malformed result (-32603) or invalid arguments given to the client (-32602) |
//! | [`Error::Tool`] | the tool ran and returned `isError: true`; its content is kept |
//! | [`Error::Timeout`] | no answer in time (the call was cancelled) |
//! | [`Error::Cancelled`] | [`Client::close`] ended the call |
//! | [`Error::SchemaMismatch`] | `structuredContent` violates the tool's `outputSchema`, naming the tool |
//! | [`Error::Decode`] | a `tools/call` result that is not a `CallToolResult` |
//!
//! # Cargo features
//!
//! All on by default; a program that only spawns servers over stdio builds
//! none of hyper, rustls and jsonschema with
//! `default-features = false, features = ["stdio"]`.
//!
//! | feature | gives |
//! |---|---|
//! | `stdio` | [`ClientBuilder::connect_stdio`] (child processes, `tokio/process`) |
//! | `http` | [`ClientBuilder::connect_http`] (Streamable HTTP, both eras) and [`ClientBuilder::connect_sse`] (HTTP+SSE), on hyper |
//! | `tls` | `https://` endpoints (rustls with ring, Mozilla's roots; implies `http`) and the [`rustls`] re-export |
//! | `validation` | `structuredContent` checked against the tool's `outputSchema` (jsonschema); without it the result is decoded unchecked |
//!
//! [`ClientBuilder::connect_io`], in-process servers, typed clients and the
//! whole protocol core need no feature.
//!
//! # Re-exports
//!
//! - [`types`] is `oxmcp-types`, the wire model this crate speaks, so a
//!   program names results and capabilities without its own dependency.
//! - [`rustls`] (feature `tls`), so that a configuration given to
//!   [`ClientBuilder::tls_config`] is built with the very version this crate
//!   uses.
//! - [`tool`] is the macro from `oxmcp-macros`; [`Json`] and [`Error`] come
//!   from `oxmcp-types`, shared with the server crate.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]
#![doc(test(attr(deny(warnings))))]

pub mod apps;
#[cfg(feature = "auth")]
pub mod auth;
mod client;
mod connect;
mod connection;
mod error;
mod handler;
mod notifications;
mod options;
mod prompts;
#[cfg(feature = "skills")]
pub mod skills;
mod tasks;
mod tools;
mod transport;

pub use client::Client;
pub use connect::ClientBuilder;
pub use error::is_unreachable;
pub use handler::RequestHandler;
pub use notifications::{Notifications, Subscription};
pub use options::{CallOptions, Era, IntoArguments, Progress};

/// The client's one error type: transport, protocol, tool, timeout,
/// cancellation and schema-mismatch failures (see the [crate docs](crate#errors)).
pub use oxmcp_types::call::CallError as Error;

pub use oxmcp_types as types;

/// The TLS library behind `https://` endpoints, for
/// [`ClientBuilder::tls_config`]: re-exported so that the configuration a
/// program builds is of the very version this crate uses.
#[cfg(feature = "tls")]
pub use rustls;

/// `#[tool]` on a trait declares the tools of a server written elsewhere and
/// generates a typed client for it.
pub use oxmcp_macros::tool;

/// A structured result, in a declared tool's return type: `-> Json<Stats>`
/// makes the client's method return `Stats`, decoded from `structuredContent`
/// (the server's `oxmcp_server::Json`, the same type).
pub use oxmcp_types::call::Json;

#[doc(hidden)]
pub mod __private;
