//! Wire types of the Model Context Protocol.
//!
//! This crate is the wire model only: the JSON-RPC 2.0 envelope ([`jsonrpc`]),
//! the method names ([`method`]), protocol revisions and their negotiation
//! ([`version`]), and every message a server and a client exchange
//! in the legacy handshake era (2024-11-05 … 2025-11-25) and the stateless
//! modern era (2026-07-28). It depends on `serde` and `serde_json` only and
//! does no I/O.
//!
//! Unknown fields are ignored on input (the spec lets every object grow), and
//! the open `_meta` objects are kept as [`Meta`] maps so nothing a peer put
//! there is lost.
//!
//! ```
//! use oxmcp_types::{jsonrpc::Message, method};
//!
//! let msg: Message = serde_json::from_str(
//!     r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}"#,
//! ).unwrap();
//! match msg {
//!     Message::Request(req) => assert_eq!(req.method, method::TOOLS_LIST),
//!     _ => unreachable!(),
//! }
//! ```
#![warn(missing_docs)]

pub mod apps;
mod base;
pub mod call;
pub mod completion;
pub mod content;

pub mod elicitation;
pub mod error;
pub mod extension;
pub mod jsonrpc;
pub mod lifecycle;
pub mod method;
pub mod modern;
pub mod notification;
pub mod prompt;
pub mod resource;
pub mod roots;
pub mod sampling;

pub mod structured;
pub mod tool;
pub mod version;
mod wire;

pub use base::PaginatedParams;
pub use completion::{CompleteParams, CompleteResult, Completion, CompletionRef};
pub use content::{
    Annotations, AudioContent, BlobResourceContents, ContentBlock, EmbeddedResource, ImageContent,
    ResourceContents, ResourceLink, Role, TextContent, TextResourceContents,
};
pub use jsonrpc::{ErrorObject, Message, RequestId};
pub use lifecycle::{
    ClientCapabilities, DiscoverResult, Implementation, InitializeParams, InitializeResult,
    ServerCapabilities,
};
pub use modern::{CacheScope, ResultType};
pub use notification::LoggingLevel;
pub use prompt::{
    GetPromptParams, GetPromptResult, ListPromptsResult, Prompt, PromptArgument, PromptMessage,
};
pub use resource::{
    ListResourceTemplatesResult, ListResourcesResult, ReadResourceResult, Resource, ResourceParams,
    ResourceTemplate,
};
pub use tool::{
    CallToolParams, CallToolResult, Icon, ListToolsParams, ListToolsResult, Tool, ToolAnnotations,
};
pub use version::ProtocolVersion;

/// An open `_meta` object: reserved keys are documented in [`modern::meta`], the
/// rest belongs to whoever put it there and is carried through untouched.
pub type Meta = serde_json::Map<String, serde_json::Value>;

/// A JSON object, as used for tool arguments and structured content.
pub type JsonObject = serde_json::Map<String, serde_json::Value>;
