//! Approval before a call: which calls need one ([`ApprovalPolicy`]), what
//! the approver sees ([`ApprovalRequest`]) and answers ([`Approval`]).
//!
//! A call that needs approval goes to the run's handler
//! ([`Run::on_approval`](crate::Run::on_approval)): a prompt on a terminal,
//! a policy engine. Without a handler the run pauses on it
//! ([`PendingKind::Approve`](crate::pause::PendingKind::Approve)) and is resumed
//! with the decision ([`Run::approve`](crate::Run::approve),
//! [`Run::refuse`](crate::Run::refuse)) — later, in another process if need
//! be. A refused call never runs (an MCP server never sees it); the model is
//! told it was refused, and why.

use std::future::Future;
use std::sync::Arc;

use futures_util::future::BoxFuture;
use oxmcp_types::{JsonObject, Tool, ToolAnnotations};

/// Which calls need an approval before they run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ApprovalPolicy {
    /// None (the default): calls run as soon as the model asks.
    #[default]
    Never,
    /// Calls of tools that do not say they are read-only
    /// (`annotations.readOnlyHint` is not `true`): what changes things asks
    /// first. Only a trusted source's word counts
    /// ([`Source::trust_annotations`](crate::Source::trust_annotations)):
    /// the tools of an MCP server not marked trusted always ask.
    UnlessReadOnly,
    /// Every call.
    Always,
}

impl ApprovalPolicy {
    /// Whether a call of `tool` needs an approval under this policy, its
    /// annotations taken at their word.
    pub fn asks(self, tool: &Tool) -> bool {
        match self {
            ApprovalPolicy::Never => false,
            ApprovalPolicy::Always => true,
            ApprovalPolicy::UnlessReadOnly => {
                tool.annotations.as_ref().and_then(|a| a.read_only_hint) != Some(true)
            }
        }
    }

    /// Whether a call of `tool` needs an approval, its annotations believed
    /// only when its source is `trusted`.
    pub(crate) fn asks_trusting(self, tool: &Tool, trusted: bool) -> bool {
        match self {
            ApprovalPolicy::UnlessReadOnly if !trusted => true,
            policy => policy.asks(tool),
        }
    }
}

/// A call waiting for approval, as the handler sees it.
#[derive(Debug, Clone)]
pub struct ApprovalRequest {
    /// The turn (1-based).
    pub turn: usize,
    /// The provider's call id.
    pub call_id: String,
    /// The tool's name in the set.
    pub tool: String,
    /// The arguments, parsed and valid under the tool's input schema.
    pub arguments: JsonObject,
    /// The tool's behaviour hints (read-only, destructive, ...), when it has
    /// any, as its source states them: an MCP server's are its own claims,
    /// unchecked (see [`Source::trust_annotations`](crate::Source::trust_annotations)).
    pub annotations: Option<ToolAnnotations>,
}

/// The answer to an [`ApprovalRequest`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Approval {
    /// Run this call.
    Allow,
    /// Run this call, and every later call of the same tool in this run
    /// without asking.
    AllowForRun,
    /// Do not run it; the model reads that the call was refused, and why.
    Refuse(String),
}

/// What [`Run::on_approval`](crate::Run::on_approval) keeps.
pub(crate) type ApprovalHandler =
    Arc<dyn Fn(ApprovalRequest) -> BoxFuture<'static, Approval> + Send + Sync>;

pub(crate) fn handler<F, Fut>(f: F) -> ApprovalHandler
where
    F: Fn(ApprovalRequest) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Approval> + Send + 'static,
{
    Arc::new(move |request| Box::pin(f(request)))
}

/// The text the model reads for a refused call.
pub(crate) fn refused_reply(tool: &str, reason: &str) -> String {
    if reason.trim().is_empty() {
        format!("the call to `{tool}` was refused; it did not run")
    } else {
        format!("the call to `{tool}` was refused ({reason}); it did not run")
    }
}
