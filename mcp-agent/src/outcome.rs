//! What a run produces: its outcome, its events as it goes, and its errors.

use std::fmt;
use std::time::Duration;

use oxmcp_types::CallToolResult;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::catalog::ToolSetError;
use crate::chat::{ChatMessage, Media, ModelError, Usage};
use crate::pause::{Paused, PausedRun, PendingCall};

/// What a run did: the final answer and everything that led to it (of a
/// finished run, in [`Finish::Done`]), or the run so far (of a paused one,
/// [`PausedRun::outcome`], and of a run that failed, [`RunError::outcome`]).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Outcome {
    /// The model's last text (the answer, on success).
    pub text: String,
    /// The whole conversation: the messages given, then each turn's
    /// assistant message and tool results.
    pub transcript: Vec<ChatMessage>,
    /// Model requests made.
    pub turns: usize,
    /// Every tool call, in the order the model made them.
    pub tool_calls: Vec<CallRecord>,
    /// Tokens used, summed over the turns, as the provider reported them.
    pub usage: Usage,
    /// The calls a paused run waits for ([`PausedRun::pending`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) pending: Vec<PendingCall>,
    /// A typed run's answer, as JSON valid under its schema (the run gives
    /// it deserialized, in [`Finish::Done`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) output: Option<Value>,
    /// Where a paused run goes on from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) paused: Option<Paused>,
}

/// How a run ended: done, with its answer, or paused on calls the caller
/// must answer. Plain runs and typed runs ([`Run::output`](crate::Run::output))
/// end the same way; only the answer's type differs (`String`, the model's
/// final text, for a plain run; the `T` asked for, for a typed one), so one
/// `match` serves both:
///
/// ```no_run
/// # async fn example(agent: &oxmcp_agent::Agent) -> Result<(), Box<dyn std::error::Error>> {
/// use oxmcp_agent::Finish;
///
/// match agent.run("Where am I?").await? {
///     Finish::Done { output, outcome } => {
///         println!("{output} ({} turns)", outcome.turns);
///     }
///     Finish::Paused(paused) => {
///         // Keep it (it serializes), answer its calls, then `agent.resume(paused)`.
///         println!("waiting for {} calls", paused.pending().len());
///     }
/// }
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone)]
pub enum Finish<T = String> {
    /// The run finished.
    Done {
        /// The answer: the model's final text, or a typed run's value
        /// (validated against its schema and deserialized).
        output: T,
        /// Everything that led to it.
        outcome: Outcome,
    },
    /// The run paused: resume it with [`Agent::resume`](crate::Agent::resume)
    /// (as a typed run again, with `.output::<T>()`, for a typed one).
    Paused(PausedRun),
}

impl<T> Finish<T> {
    /// The run's record: of the whole run when it is done, of the run so
    /// far when it paused.
    pub fn outcome(&self) -> &Outcome {
        match self {
            Finish::Done { outcome, .. } => outcome,
            Finish::Paused(paused) => paused.outcome(),
        }
    }

    /// The run's record, owned (of a paused run, the run so far; resuming
    /// needs the [`PausedRun`] itself).
    pub fn into_outcome(self) -> Outcome {
        match self {
            Finish::Done { outcome, .. } => outcome,
            Finish::Paused(paused) => paused.0,
        }
    }

    /// Whether the run paused rather than finishing.
    pub fn is_paused(&self) -> bool {
        matches!(self, Finish::Paused(_))
    }

    /// The answer, when the run is done.
    pub fn output(self) -> Option<T> {
        match self {
            Finish::Done { output, .. } => Some(output),
            Finish::Paused(_) => None,
        }
    }

    /// The paused run, when it paused.
    pub fn paused(self) -> Option<PausedRun> {
        match self {
            Finish::Done { .. } => None,
            Finish::Paused(paused) => Some(paused),
        }
    }
}

impl Finish<String> {
    /// How a plain run ended: paused when its state says so, else done
    /// with its last text.
    pub(crate) fn of(outcome: Outcome) -> Finish<String> {
        if outcome.paused.is_some() {
            return Finish::Paused(PausedRun(outcome));
        }
        Finish::Done {
            output: outcome.text.clone(),
            outcome,
        }
    }
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
    /// The run pauses: these calls wait for the caller (see [`PausedRun::pending`]).
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
/// its causes) in its message. Print the chain with [`oxmcp_client::types::error::Chain`].
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
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
    /// A resumed run was not given what its pending calls need, or was given
    /// an answer for a call that is not pending.
    #[error("cannot resume the run: {problem}")]
    Resume {
        /// What is missing or wrong, naming the calls.
        problem: String,
        /// The paused run, unchanged: resume it again.
        paused: Box<PausedRun>,
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
            | RunError::Output { outcome, .. } => Some(outcome),
            RunError::Resume { paused, .. } => Some(paused.outcome()),
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
