//! What a run produces: its outcome, its events as it goes, and its errors.

use std::fmt;
use std::time::Duration;

use mcp_types::{CallToolResult, JsonObject};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::catalog::ToolSetError;
use crate::chat::{Media, Message, ModelError, ToolChoice, ToolResult, Usage};

/// What a run did: the final answer and everything that led to it, or,
/// when [`pending`](Self::pending) is not empty, a run paused on calls the
/// caller must run or approve.
///
/// A paused outcome is the run's whole state: it serializes (serde), so the
/// run can be resumed later, in another process, with
/// [`Agent::resume`](crate::Agent::resume). The agent signs it when the run
/// pauses and resumes it only unchanged, checked with its keys
/// ([`StateKeys`](crate::StateKeys)).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
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
    /// The calls the run is waiting for (empty when it finished): tools the
    /// caller executes, and calls that need an approval nobody gave in
    /// process. Resume with [`Agent::resume`](crate::Agent::resume).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pending: Vec<PendingCall>,
    /// A typed run's answer ([`Run::output`](crate::Run::output)), as JSON
    /// valid under its schema.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<Value>,
    /// Where a paused run goes on from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) paused: Option<Paused>,
}

impl Outcome {
    /// Whether the run paused on [`pending`](Self::pending) calls rather than finishing.
    pub fn is_paused(&self) -> bool {
        self.paused.is_some()
    }

    /// A name unique to this pause, when the run paused. The agent resumes a
    /// signed state as often as it is given one; an application that must
    /// run each approval once records this name when it resumes and refuses
    /// a state whose name it has seen.
    pub fn pause_id(&self) -> Option<&str> {
        self.paused.as_ref().map(|p| p.id.as_str())
    }
}

/// A call a paused run waits for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PendingCall {
    /// The provider's call id: name it when resuming.
    pub call_id: String,
    /// The tool's name in the set.
    pub tool: String,
    /// The arguments, parsed and valid under the tool's input schema.
    pub arguments: JsonObject,
    /// What the run needs.
    pub kind: PendingKind,
}

/// What a paused run needs for a [`PendingCall`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PendingKind {
    /// The tool is one the caller executes ([`CallerTool`](crate::CallerTool)):
    /// its result ([`Run::result`](crate::Run::result)).
    Execute,
    /// The call needs an approval ([`ApprovalPolicy`](crate::ApprovalPolicy)):
    /// [`Run::approve`](crate::Run::approve) or [`Run::refuse`](crate::Run::refuse).
    Approve,
}

/// The state of a paused turn: which of its calls are answered.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct Paused {
    /// The turn whose calls wait.
    pub(crate) turn: usize,
    /// The tool choice for the next turn.
    pub(crate) choice: ToolChoice,
    /// The turn's calls in the model's order: answered, or waiting (`None`).
    pub(crate) results: Vec<Option<ToolResult>>,
    /// Tools approved for the rest of the run.
    #[serde(default)]
    pub(crate) approved_tools: std::collections::BTreeSet<String>,
    /// Names this pause, unique to it ([`Outcome::pause_id`]).
    #[serde(default)]
    pub(crate) id: String,
    /// The key that signed the state ([`crate::StateKeys`]).
    #[serde(default)]
    pub(crate) key: String,
    /// The state's signature (HMAC-SHA256, base64) over the whole outcome
    /// but itself; empty when unsigned, which never resumes.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub(crate) signature: String,
}

/// One tool call of a run.
#[derive(Debug, Clone, Serialize, Deserialize)]
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
    /// A call needs an approval: the run's approval handler is asked
    /// ([`Run::on_approval`](crate::Run::on_approval)), or, without one, the
    /// run pauses on it.
    ApprovalRequested {
        /// The turn.
        turn: usize,
        /// The provider's call id.
        call_id: String,
        /// The tool's name in the set.
        tool: String,
        /// The arguments as the model wrote them.
        arguments: String,
    },
    /// A call needing approval was refused: the model is told why, the tool
    /// does not run.
    CallRefused {
        /// The turn.
        turn: usize,
        /// The provider's call id.
        call_id: String,
        /// The tool's name in the set.
        tool: String,
        /// Why, as the model reads it.
        reason: String,
    },
    /// The run pauses: these calls wait for the caller (see [`Outcome::pending`]).
    Paused {
        /// The turn whose calls wait.
        turn: usize,
        /// The calls.
        pending: Vec<PendingCall>,
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
    /// A typed run's answer did not match its schema, twice.
    #[error("the model's answer does not match the output schema, after a retry: {problem}")]
    Output {
        /// What was wrong with the last answer.
        problem: String,
        /// The run (the answers are in its transcript).
        outcome: Box<Outcome>,
    },
    /// A typed run paused on pending calls: resume it ([`Agent::resume`](crate::Agent::resume))
    /// with `.output::<T>()` again.
    #[error("the run paused on {} pending calls", outcome.pending.len())]
    Paused {
        /// The paused run.
        outcome: Box<Outcome>,
    },
    /// A resumed run was not given what its pending calls need, or was given
    /// an answer for a call that is not pending.
    #[error("cannot resume the run: {problem}")]
    Resume {
        /// What is missing or wrong, naming the calls.
        problem: String,
        /// The paused run, unchanged: resume it again.
        outcome: Box<Outcome>,
    },
}

/// Why a run's turns stopped early (the loop's; the run adds what it had
/// done and makes it a [`RunError`]).
pub(crate) enum Stop {
    MaxTurns(usize),
    Model { turn: usize, error: ModelError },
    ToolFailed { tool: String, message: String },
    ToolSet(ToolSetError),
    Output(String),
}

impl RunError {
    /// What the run had done when it stopped.
    pub fn outcome(&self) -> Option<&Outcome> {
        match self {
            RunError::MaxTurns { outcome, .. }
            | RunError::Model { outcome, .. }
            | RunError::ToolFailed { outcome, .. }
            | RunError::Cancelled { outcome }
            | RunError::Output { outcome, .. }
            | RunError::Paused { outcome }
            | RunError::Resume { outcome, .. } => Some(outcome),
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

/// The images and documents of a tool result: image blocks, and embedded
/// resources whose blob is an image or a PDF.
pub(crate) fn result_media(result: &CallToolResult) -> Vec<Media> {
    let mut media = Vec::new();
    for block in &result.content {
        let value = serde_json::to_value(block).unwrap_or(Value::Null);
        let (data, mime) = match value.get("type").and_then(Value::as_str) {
            Some("image") => (&value["data"], &value["mimeType"]),
            Some("resource") => (&value["resource"]["blob"], &value["resource"]["mimeType"]),
            _ => continue,
        };
        if let (Some(data), Some(mime)) = (data.as_str(), mime.as_str()) {
            let found = Media {
                mime_type: mime.to_owned(),
                data: data.to_owned(),
            };
            if found.is_image() || found.is_pdf() {
                media.push(found);
            }
        }
    }
    media
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
