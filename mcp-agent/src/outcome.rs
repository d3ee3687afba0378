//! What a run produces: its outcome, its events as it goes, and its errors.

use std::fmt;
use std::time::Duration;

use mcp_types::CallToolResult;
use serde_json::Value;

use crate::catalog::ToolSetError;
use crate::chat::{Message, ModelError, Usage};

/// What a run did: the final answer and everything that led to it.
#[derive(Debug, Clone, Default)]
pub struct Outcome {
    /// The model's last text (the answer, on success).
    pub text: String,
    /// The whole conversation: the messages given, then each turn's
    /// assistant message and tool results.
    pub transcript: Vec<Message>,
    /// Model requests made.
    pub turns: usize,
    /// Every tool call, in the order the model made them.
    pub tool_calls: Vec<CallRecord>,
    /// Tokens used, summed over the turns, as the provider reported them.
    pub usage: Usage,
}

/// One tool call of a run.
#[derive(Debug, Clone)]
pub struct CallRecord {
    /// The turn (1-based) whose model response made the call.
    pub turn: usize,
    /// The provider's call id.
    pub call_id: String,
    /// The tool's name in the set (`None` for a call to an unknown tool).
    pub tool: Option<String>,
    /// The name the model used.
    pub model_name: String,
    /// The arguments as the model wrote them.
    pub arguments: String,
    /// The tool's result, when it ran (the last attempt's).
    pub result: Option<CallToolResult>,
    /// The text sent back to the model.
    pub reply: String,
    /// Whether the model was told the call failed.
    pub is_error: bool,
    /// How many times the tool ran (0 when the call was refused before it
    /// ran: unknown tool, bad arguments).
    pub attempts: u32,
    /// From the first attempt's start to the last one's end.
    pub duration: Duration,
}

/// Something that happened during a run, for a front end to show progress.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Event {
    /// A model request is about to be sent.
    TurnStarted {
        /// The turn (1-based).
        turn: usize,
        /// The tools offered (names in the set).
        tools: Vec<String>,
    },
    /// More of the model's text, as it streams.
    Text(String),
    /// A tool call is starting.
    ToolCallStarted {
        /// The turn.
        turn: usize,
        /// The provider's call id.
        call_id: String,
        /// The tool's name in the set (the model's name if unknown).
        tool: String,
        /// The arguments as the model wrote them.
        arguments: String,
    },
    /// A tool call finished (after any retries).
    ToolCallFinished {
        /// The turn.
        turn: usize,
        /// The provider's call id.
        call_id: String,
        /// The tool's name in the set (the model's name if unknown).
        tool: String,
        /// Whether it failed.
        is_error: bool,
        /// What goes back to the model.
        reply: String,
        /// How long it took.
        duration: Duration,
    },
    /// A failed tool call is being tried again (error policy `Retry`).
    ToolCallRetry {
        /// The provider's call id.
        call_id: String,
        /// The tool's name in the set.
        tool: String,
        /// The attempt about to start (2 for the first retry).
        attempt: u32,
        /// Why the previous attempt failed.
        error: String,
    },
    /// A server's tools changed; the new set is offered from this turn on.
    ToolsChanged {
        /// The set's tools now.
        tools: Vec<String>,
    },
    /// A turn ended.
    TurnEnded {
        /// The turn.
        turn: usize,
        /// The tokens this turn used.
        usage: Usage,
        /// The provider's stop reason.
        stop_reason: Option<String>,
    },
}

/// Why a run stopped without a final answer. Each variant but
/// [`RunError::ToolSet`] at the start carries what the run had done.
///
/// `Display` says what failed at this level only: [`RunError::Model`] and
/// [`RunError::ToolSet`] return their cause from `source()`, and
/// [`RunError::ToolFailed`] shows the tool's failure (already rendered with
/// its causes) in its message. Print the chain with [`mcp_client::types::error::Chain`].
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The model still wanted tools after `max_turns` model requests.
    #[error("the run reached its limit of {max_turns} turns without a final answer")]
    MaxTurns {
        /// The limit.
        max_turns: usize,
        /// The run so far.
        outcome: Box<Outcome>,
    },
    /// The model request failed.
    #[error("the model request of turn {turn} failed")]
    Model {
        /// The turn.
        turn: usize,
        /// Why.
        #[source]
        error: ModelError,
        /// The run so far.
        outcome: Box<Outcome>,
    },
    /// A tool whose error policy is [`ErrorPolicy::Fail`](crate::ErrorPolicy::Fail) failed.
    #[error("tool `{tool}` failed and its error policy ends the run: {message}")]
    ToolFailed {
        /// The tool.
        tool: String,
        /// The error.
        message: String,
        /// The run so far (without the failed turn's results).
        outcome: Box<Outcome>,
    },
    /// The tool set could not be refreshed, or the run named a tool it does not have.
    #[error("the tool set is not usable")]
    ToolSet(#[source] ToolSetError),
    /// The run's cancellation handle fired.
    #[error("the run was cancelled")]
    Cancelled {
        /// The run so far.
        outcome: Box<Outcome>,
    },
}

impl RunError {
    /// What the run had done when it stopped.
    pub fn outcome(&self) -> Option<&Outcome> {
        match self {
            RunError::MaxTurns { outcome, .. }
            | RunError::Model { outcome, .. }
            | RunError::ToolFailed { outcome, .. }
            | RunError::Cancelled { outcome } => Some(outcome),
            RunError::ToolSet(_) => None,
        }
    }
}

/// A tool result as text for the model: the text blocks, else the
/// structured content as JSON, with other blocks named.
pub(crate) fn result_text(result: &CallToolResult) -> String {
    let mut parts: Vec<String> = Vec::new();
    for block in &result.content {
        if let Some(text) = block.as_text() {
            parts.push(text.to_owned());
        } else {
            let value = serde_json::to_value(block).unwrap_or(Value::Null);
            parts.push(describe_block(&value));
        }
    }
    if parts.iter().all(|p| p.trim().is_empty()) {
        if let Some(structured) = &result.structured_content {
            return structured.to_string();
        }
    }
    parts.join("\n")
}

fn describe_block(block: &Value) -> String {
    let kind = block
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("content");
    match kind {
        "resource" => {
            let resource = &block["resource"];
            match resource.get("text").and_then(Value::as_str) {
                Some(text) => text.to_owned(),
                None => format!(
                    "[binary resource {}]",
                    resource.get("uri").and_then(Value::as_str).unwrap_or("")
                ),
            }
        }
        "resource_link" => format!(
            "[resource link {}]",
            block.get("uri").and_then(Value::as_str).unwrap_or("")
        ),
        other => format!(
            "[{other}{}]",
            block
                .get("mimeType")
                .and_then(Value::as_str)
                .map(|m| format!(" {m}"))
                .unwrap_or_default()
        ),
    }
}

impl fmt::Display for CallRecord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}({}) -> {}{}",
            self.tool.as_deref().unwrap_or(&self.model_name),
            self.arguments,
            if self.is_error { "error: " } else { "" },
            self.reply
        )
    }
}
