//! The wire pieces `oxmcp-server` and `oxmcp-client` share, written once (and
//! the validation and locking `oxmcp-agent` uses too).
//!
//! This crate is an implementation detail of those crates: it has no API
//! promise and may change in any release. It holds what both sides must agree
//! on byte for byte and that is not the message model itself (that is
//! `oxmcp-types`):
//!
//! - `http_client` (feature `http-client`, https with `tls`): the hyper client
//!   both sides build, and JSON and form fetches with limits;
//! - `dpop` (feature `dpop`): what a DPoP proof's maker and its checker
//!   compute alike (RFC 9449): the JWK thumbprint, `ath`, the `htu` form;
//! - `keyring` (feature `keyring`): the HMAC-SHA256 keys, with rotation,
//!   that sign the states the server and the agent take back from others
//!   (`requestState`, paused runs), each tag bound to its purpose;
//! - [`deprecated`]: the spec's deprecated features, warned about once per
//!   process when used;
//! - [`json`]: a JSON value's kind in words, for error messages;
//! - [`lines`]: newline-delimited JSON framing for stdio, with its size limit;
//! - [`sse`]: writing and incrementally parsing Server-Sent Events;
//! - [`header`]: the MCP HTTP header names and the `=?base64?…?=` value encoding;
//! - [`oauth`]: Protected Resource Metadata, authorization server metadata,
//!   the `WWW-Authenticate` challenge and the well-known URLs;
//! - [`param_headers`]: the 2026-07-28 `Mcp-Param-*` headers that `x-mcp-header`
//!   schema annotations ask for;
//! - [`route`]: what the HTTP layer reads of a request before dispatch
//!   (the `Mcp-Name` rule, the `_meta` protocol version that marks the
//!   2026-07-28 era) and which error codes only that era sends;
//! - `schema` (feature `validation`): JSON Schema validation with one way of
//!   reporting problems;
//! - [`sync`]: the poison-tolerant locks every crate uses.
#![warn(missing_docs)]

pub mod deprecated;
#[cfg(feature = "dpop")]
pub mod dpop;
pub mod header;
#[cfg(feature = "http-client")]
pub mod http_client;
pub mod json;
#[cfg(feature = "keyring")]
pub mod keyring;
pub mod lines;
pub mod oauth;
pub mod param_headers;
pub mod route;
#[cfg(feature = "validation")]
pub mod schema;
#[cfg(feature = "skills")]
pub mod skills;
pub mod sse;
pub mod sync;
pub mod time;
