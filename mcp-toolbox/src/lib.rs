//! Built-in MCP toolboxes that are safe by construction: [`files`] (the
//! reference filesystem server's tools, confined to allowed roots),
//! [`http`] (`get`, `post` and `fetch`, public addresses only, checked
//! after resolution and on every redirect) and [`commands`] (`exec`, off
//! unless programs are allowed; an argument vector, never a shell).
//!
//! Each is an ordinary `#[tool]` toolbox configured by a builder whose
//! defaults are the safe ones: serve it with `oxmcp-server`, attach it to an
//! agent's tool set, or call it through its typed client.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]

#[cfg(feature = "commands")]
pub mod commands;
#[cfg(feature = "files")]
pub mod files;
#[cfg(feature = "http")]
pub mod http;
#[cfg(feature = "openapi")]
pub mod openapi;
