//! Runs that pause and resume: a run stops on calls it cannot finish
//! alone ([`Finish::Paused`](crate::Finish::Paused)), and goes on later,
//! perhaps in another process, once the caller answers them
//! ([`Agent::resume`](crate::Agent::resume)).
//!
//! A run pauses on two kinds of [`PendingCall`]: a call of a
//! [`CallerTool`] (a tool the caller executes: [`PendingKind::Execute`]),
//! and a call that needs an approval nobody gave in process
//! ([`PendingKind::Approve`], see [`crate::approval`]). The [`PausedRun`]
//! is the run's whole state: it serializes, and the agent signs it with
//! its [`StateKeys`] when the run pauses and resumes it only unchanged.

use serde::{Deserialize, Serialize};

use oxmcp_types::JsonObject;

use crate::chat::{ToolChoice, ToolResult};
use crate::outcome::Outcome;

pub(crate) mod seal;

pub use crate::toolset::{CallerTool, CallerToolError};
pub use seal::{StateKeyError, StateKeys};

/// A run that paused on [`pending`](Self::pending) calls: what resuming it
/// needs ([`Agent::resume`](crate::Agent::resume)).
///
/// It serializes (serde) as one JSON object, so the run can be resumed
/// later, in another process with the same [`StateKeys`]. The agent signed
/// it when the run paused; a state changed in any way does not resume.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(transparent)]
pub struct PausedRun(pub(crate) Outcome);

impl PausedRun {
    /// The calls the run waits for: give each its result
    /// ([`Run::result`](crate::Run::result)) or decision
    /// ([`Run::approve`](crate::Run::approve),
    /// [`Run::refuse`](crate::Run::refuse)) when resuming.
    pub fn pending(&self) -> &[PendingCall] {
        &self.0.pending
    }

    /// The run so far: its transcript ends with the turn whose calls wait.
    pub fn outcome(&self) -> &Outcome {
        &self.0
    }

    /// A name unique to this pause. The agent resumes a signed state as
    /// often as it is given one; an application that must run each approval
    /// once records this name when it resumes and refuses a state whose
    /// name it has seen.
    pub fn pause_id(&self) -> &str {
        self.0.paused.as_ref().map_or("", |p| p.id.as_str())
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
    /// The tool is one the caller executes ([`CallerTool`]): its result
    /// ([`Run::result`](crate::Run::result)).
    Execute,
    /// The call needs an approval
    /// ([`ApprovalPolicy`](crate::approval::ApprovalPolicy)):
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
    /// Names this pause, unique to it ([`PausedRun::pause_id`]).
    #[serde(default)]
    pub(crate) id: String,
    /// The key that signed the state ([`StateKeys`]).
    #[serde(default)]
    pub(crate) key: String,
    /// The state's signature (HMAC-SHA256, base64) over the whole state
    /// but itself; empty when unsigned, which never resumes.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub(crate) signature: String,
}
