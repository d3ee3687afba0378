//! The agent side of MCP: tool sets that merge local toolboxes and MCP
//! servers, the providers' tool formats, and the model ↔ tool loop.
#![warn(missing_docs)]

mod agent;
pub mod chat;
pub mod model;
pub mod names;
mod outcome;
mod run;
pub mod strict;
mod toolset;
mod view;

pub use agent::{Agent, AgentBuilder, ErrorPolicy, Run, DEFAULT_MAX_TURNS};
pub use chat::{
    ChatModel, ChatRequest, ChatResponse, Delta, DeltaStream, Message, ModelError, ToolCall,
    ToolChoice, ToolDef, ToolResult, Usage,
};
pub use outcome::{CallRecord, Event, Outcome, RunError};
pub use toolset::{Diagnostic, Source, ToolSet, ToolSetBuilder, ToolSetError};
pub use view::ToolView;

/// Cancels a run from outside (see [`Run::cancel_on`]).
pub use tokio_util::sync::CancellationToken;
