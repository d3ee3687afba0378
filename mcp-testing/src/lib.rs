//! Test your MCP server as a client sees it, in one process, in a
//! `#[tokio::test]`: no child process, no socket, no authorization server.
//!
//! ```
//! use oxmcp_server::{tool, Server};
//! use oxmcp_testing::TestClient;
//! use serde_json::json;
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
//! # async fn main() -> Result<(), oxmcp_testing::Error> {
//! let server = Server::builder("hello", "1.0.0").toolbox(Hello).build();
//! let client = TestClient::connect(server).await?;
//! assert_eq!(client.call_text("hello", json!({"name": "Ada"})).await, "Hello, Ada!");
//! assert!(client.call_error("hello", json!({})).await.contains("name"));
//! client.close().await;
//! # Ok(())
//! # }
//! ```
//!
//! - [`TestClient::connect`]: the server served over an in-memory pipe
//!   (`tokio::io::duplex`), a real [`oxmcp_client::Client`] connected to it
//!   (the handshake, both protocol eras, notifications: all as over stdio).
//! - [`TestClient::connect_as`] (feature `auth`): a caller with a given
//!   [`Identity`](oxmcp_server::auth::Identity) and scopes, checked by the
//!   server's real OAuth gate.
//! - [`TestClient::call_text`], [`call_structured`](TestClient::call_structured),
//!   [`read_text`](TestClient::read_text), [`tool_names`](TestClient::tool_names),
//!   [`call_error`](TestClient::call_error): a call's text, its
//!   `structuredContent` or its error, in one line.
//! - [`TestClient::assert_tools_snapshot`]: the tool listing compared with
//!   a JSON file beside the test; `MCP_SNAPSHOTS=overwrite` updates it.
//!
//! The guide's chapter "Testing your server" (`docs/testing.md`) has more.

#![cfg_attr(docsrs, feature(doc_cfg))]

mod client;
mod error;
mod results;
mod snapshot;

pub use client::TestClient;
pub use error::Error;
pub use snapshot::SNAPSHOTS_ENV;
