//! MCP client for the framework (in progress).
#![warn(missing_docs)]

pub use mcp_types as types;

/// `#[tool]` on a trait declares the tools of a server written elsewhere and
/// generates a typed client for it.
pub use mcp_macros::tool;

#[doc(hidden)]
#[path = "private.rs"]
pub mod __private;
