//! The agent side of MCP: tool sets that merge local toolboxes and MCP
//! servers, the providers' tool formats, and the model ↔ tool loop.
#![warn(missing_docs)]

pub mod chat;
pub mod model;
pub mod names;
pub mod strict;

pub use chat::{
    ChatModel, ChatRequest, ChatResponse, Delta, DeltaStream, Message, ModelError, ToolCall,
    ToolChoice, ToolDef, ToolResult, Usage,
};
