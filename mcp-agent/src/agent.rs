//! The agent: a model, a tool set, and how a run goes.

use std::collections::{BTreeSet, HashMap};
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use oxmcp_server::ToolEntry;
use oxmcp_types::CallToolResult;
use tokio_util::sync::CancellationToken;

use crate::approval::{Approval, ApprovalHandler, ApprovalPolicy, ApprovalRequest};
use crate::chat::{ChatMessage, ChatModel, ToolChoice};
use crate::outcome::Event;
use crate::pause::{PausedRun, StateKeys};
use crate::toolset::ToolSet;

/// What happens when a tool fails (returns `isError`, or its server or
/// transport fails). Mistakes of the model (an unknown tool, arguments that
/// are not JSON or do not match the schema) are always reported to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ErrorPolicy {
    /// The error text goes back to the model as an error result (the default).
    #[default]
    Report,
    /// Run the tool again, up to this many more times, then report.
    Retry(u32),
    /// End the run with [`RunError::ToolFailed`](crate::RunError::ToolFailed).
    Fail,
}

/// A model with a tool set: runs conversations in which the model calls tools.
///
/// ```
/// use oxmcp_agent::{Agent, chat::ChatModel, chat::ChatRequest, chat::ChatResponse, chat::ModelError, chat::ToolCall, Finish, ToolSet};
/// use oxmcp_server::tool;
///
/// pub struct Maths;
///
/// #[tool(description = "Maths")]
/// impl Maths {
///     #[describe("Add two numbers")]
///     pub fn add(&self, #[param("First")] a: f64, #[param("Second")] b: f64) -> f64 {
///         a + b
///     }
/// }
///
/// /// A stand-in model: calls `add` once, then answers with its result.
/// struct Scripted;
///
/// impl ChatModel for Scripted {
///     fn provider(&self) -> &str {
///         "scripted"
///     }
///     fn complete(
///         &self,
///         request: ChatRequest,
///     ) -> futures_util::future::BoxFuture<'_, Result<ChatResponse, ModelError>> {
///         Box::pin(async move {
///             Ok(match request.messages.last() {
///                 Some(oxmcp_agent::chat::ChatMessage::ToolResults { results }) => ChatResponse {
///                     text: format!("The sum is {}.", results[0].content),
///                     ..ChatResponse::default()
///                 },
///                 _ => ChatResponse {
///                     tool_calls: vec![ToolCall {
///                         id: "call_1".into(),
///                         name: "add".into(),
///                         arguments: r#"{"a": 2, "b": 3}"#.into(),
///                     }],
///                     ..ChatResponse::default()
///                 },
///             })
///         })
///     }
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let tools = ToolSet::builder().toolbox(Maths).build().await?;
/// let agent = Agent::builder(Scripted, tools).max_turns(4).build();
/// let Finish::Done { output, outcome } = agent.run("What is 2 + 3?").await? else {
///     panic!("nothing here pauses a run");
/// };
/// assert_eq!(output, "The sum is 5.");
/// assert_eq!(outcome.turns, 2);
/// assert_eq!(outcome.tool_calls[0].reply, "5");
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct Agent {
    pub(crate) model: Arc<dyn ChatModel>,
    pub(crate) tools: ToolSet,
    pub(crate) config: Arc<Config>,
}

impl fmt::Debug for Agent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Agent")
            .field("name", &self.config.name)
            .field("provider", &self.model.provider())
            .field("tools", &self.tools)
            .field("max_turns", &self.config.max_turns)
            .finish_non_exhaustive()
    }
}

#[derive(Debug, Clone)]
pub(crate) struct Config {
    pub(crate) name: Option<String>,
    pub(crate) system: Option<String>,
    pub(crate) max_turns: usize,
    pub(crate) tool_choice: ToolChoice,
    pub(crate) keep_tool_choice: bool,
    pub(crate) default_policy: ErrorPolicy,
    pub(crate) policies: HashMap<String, ErrorPolicy>,
    pub(crate) streaming: bool,
    pub(crate) max_tokens: Option<u32>,
    pub(crate) tool_timeout: Option<Duration>,
    pub(crate) approval: ApprovalPolicy,
    pub(crate) approvals: HashMap<String, ApprovalPolicy>,
    /// Sign paused states and check resumed ones.
    pub(crate) state_keys: StateKeys,
}

/// Where a run's events go.
pub(crate) type EventSink = Arc<dyn Fn(&Event) + Send + Sync>;

/// Builds an [`Agent`].
pub struct AgentBuilder {
    model: Arc<dyn ChatModel>,
    tools: ToolSet,
    config: Config,
}

impl fmt::Debug for AgentBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AgentBuilder")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl Agent {
    /// The default limit on model requests per run.
    pub const DEFAULT_MAX_TURNS: usize = 10;

    /// Starts an agent over `model` and `tools`.
    pub fn builder(model: impl ChatModel + 'static, tools: ToolSet) -> AgentBuilder {
        AgentBuilder {
            model: Arc::new(model),
            tools,
            config: Config {
                name: None,
                system: None,
                max_turns: Agent::DEFAULT_MAX_TURNS,
                tool_choice: ToolChoice::Auto,
                keep_tool_choice: false,
                default_policy: ErrorPolicy::Report,
                policies: HashMap::new(),
                streaming: true,
                max_tokens: None,
                tool_timeout: None,
                approval: ApprovalPolicy::Never,
                approvals: HashMap::new(),
                state_keys: StateKeys::random(),
            },
        }
    }

    /// The agent's name, if it was given one ([`AgentBuilder::name`]).
    pub fn name(&self) -> Option<&str> {
        self.config.name.as_deref()
    }

    /// The agent's tool set.
    pub fn tools(&self) -> &ToolSet {
        &self.tools
    }

    /// Starts a run with one user message; configure it, then `.await` it.
    pub fn run(&self, prompt: impl Into<String>) -> Run<'_> {
        Run::new(self, vec![ChatMessage::user(prompt)])
    }

    /// Starts a run that continues a conversation (e.g. a previous run's
    /// transcript followed by a new user message). The agent's
    /// [`system`](AgentBuilder::system) instructions go first, unless the
    /// messages already start with them (as a previous run's transcript does).
    pub fn run_messages(&self, messages: Vec<ChatMessage>) -> Run<'_> {
        Run::new(self, messages)
    }

    /// Resumes a run that paused on [pending calls](PausedRun::pending): give
    /// each its result ([`Run::result`]) or decision ([`Run::approve`],
    /// [`Run::refuse`]), then `.await` it. The outcome may come from a
    /// previous process (it serializes); this agent needs the same tools,
    /// and the keys that signed it ([`AgentBuilder::state_keys`]): a state
    /// altered, unsigned or signed with another key is
    /// [`RunError::Resume`](crate::RunError::Resume) and nothing runs. Only
    /// the pending calls given a decision run, with the arguments recorded
    /// when the run paused; any other call of the paused turn is refused.
    ///
    /// The state is signed, not encrypted (it holds the transcript): keep
    /// it where only those who may read it can. A state resumes as often as
    /// it is given; record [`PausedRun::pause_id`] to resume each once.
    ///
    /// ```no_run
    /// # async fn example(agent: &oxmcp_agent::Agent) -> Result<(), Box<dyn std::error::Error>> {
    /// use oxmcp_agent::pause::{PausedRun, PendingKind};
    /// use oxmcp_agent::Finish;
    ///
    /// let Finish::Paused(paused) = agent.run("Where am I, and what is the weather there?").await?
    /// else {
    ///     return Ok(()); // done without waiting for anyone
    /// };
    /// let saved = serde_json::to_string(&paused)?; // keep it server side
    ///
    /// // Later, perhaps in another process with the same state keys:
    /// let paused: PausedRun = serde_json::from_str(&saved)?;
    /// let mut run = agent.resume(paused.clone());
    /// for call in paused.pending() {
    ///     run = match call.kind {
    ///         PendingKind::Execute => run.result(&call.call_id, "Lyon, France"),
    ///         PendingKind::Approve => run.approve(&call.call_id),
    ///     };
    /// }
    /// if let Finish::Done { output, .. } = run.await? {
    ///     println!("{output}");
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub fn resume(&self, paused: PausedRun) -> Run<'_> {
        let mut run = Run::new(self, Vec::new());
        run.resume = Some(Box::new(paused));
        run
    }

    /// Whether a call of `tool` (its name in the set) needs an approval.
    pub(crate) fn approval_for(&self, tool: &oxmcp_types::Tool) -> ApprovalPolicy {
        self.config
            .approvals
            .get(&tool.name)
            .copied()
            .unwrap_or(self.config.approval)
    }

    pub(crate) fn policy_for(&self, tool: &str) -> ErrorPolicy {
        self.config
            .policies
            .get(tool)
            .copied()
            .unwrap_or(self.config.default_policy)
    }
}

impl AgentBuilder {
    /// A name for the agent (`"Math Tutor"`), for telemetry: with the `otel`
    /// feature a run is the span `invoke_agent {name}`.
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.config.name = Some(name.into());
        self
    }

    /// Instructions sent first in every run (a system message).
    pub fn system(mut self, text: impl Into<String>) -> Self {
        self.config.system = Some(text.into());
        self
    }

    /// The most model requests a run may make (default [`Agent::DEFAULT_MAX_TURNS`]).
    /// A run whose model still calls tools at the last turn ends with
    /// [`RunError::MaxTurns`](crate::RunError::MaxTurns).
    pub fn max_turns(mut self, turns: usize) -> Self {
        self.config.max_turns = turns.max(1);
        self
    }

    /// The tool choice of a run's first turn (default auto). After the first
    /// turn in which the model calls tools it becomes auto, unless
    /// [`keep_tool_choice`](Self::keep_tool_choice).
    pub fn tool_choice(mut self, choice: ToolChoice) -> Self {
        self.config.tool_choice = choice;
        self
    }

    /// Keeps the tool choice for every turn (with `Required`, the run can
    /// only end at `max_turns`).
    pub fn keep_tool_choice(mut self, keep: bool) -> Self {
        self.config.keep_tool_choice = keep;
        self
    }

    /// The error policy of every tool without its own.
    pub fn error_policy(mut self, policy: ErrorPolicy) -> Self {
        self.config.default_policy = policy;
        self
    }

    /// The error policy of one tool (its name in the set).
    pub fn tool_policy(mut self, tool: impl Into<String>, policy: ErrorPolicy) -> Self {
        self.config.policies.insert(tool.into(), policy);
        self
    }

    /// Streams model answers (default true): text arrives as [`Event::Text`]
    /// as the model writes it.
    pub fn streaming(mut self, streaming: bool) -> Self {
        self.config.streaming = streaming;
        self
    }

    /// A cap on the tokens of each model answer.
    pub fn max_tokens(mut self, tokens: u32) -> Self {
        self.config.max_tokens = Some(tokens);
        self
    }

    /// How long one tool attempt may run; past it the attempt fails (and the
    /// error policy applies). Remote calls are cancelled on their server.
    pub fn tool_timeout(mut self, timeout: Duration) -> Self {
        self.config.tool_timeout = Some(timeout);
        self
    }

    /// Which calls need an approval before they run (default
    /// [`ApprovalPolicy::Never`]); see [`Run::on_approval`] for who approves.
    pub fn approval(mut self, policy: ApprovalPolicy) -> Self {
        self.config.approval = policy;
        self
    }

    /// The approval policy of one tool (its name in the set), over the default.
    pub fn tool_approval(mut self, tool: impl Into<String>, policy: ApprovalPolicy) -> Self {
        self.config.approvals.insert(tool.into(), policy);
        self
    }

    /// The keys that sign a paused run's state and check it when it
    /// resumes (see [`StateKeys`]). Without them the agent signs with a
    /// random key of its own: a state then resumes on this agent (and its
    /// clones) only. Give every process that resumes the runs the same keys.
    pub fn state_keys(mut self, keys: StateKeys) -> Self {
        self.config.state_keys = keys;
        self
    }

    /// The agent.
    pub fn build(self) -> Agent {
        Agent {
            model: self.model,
            tools: self.tools,
            config: Arc::new(self.config),
        }
    }
}

/// A run being configured; `.await` it to run it.
///
/// Dropping the future, or cancelling the token given to
/// [`cancel_on`](Self::cancel_on), cancels the model request and the tool
/// calls in flight (remote ones with `notifications/cancelled`, or by closing
/// their HTTP stream in the 2026-07-28 era).
#[must_use = "a run does nothing until it is awaited"]
pub struct Run<'a> {
    pub(crate) agent: &'a Agent,
    pub(crate) messages: Vec<ChatMessage>,
    pub(crate) extra_tools: Vec<ToolEntry>,
    pub(crate) no_tools: bool,
    pub(crate) allowed: Option<BTreeSet<String>>,
    pub(crate) tool_choice: Option<ToolChoice>,
    pub(crate) max_turns: Option<usize>,
    pub(crate) on_event: Option<EventSink>,
    pub(crate) cancel: Option<CancellationToken>,
    pub(crate) on_approval: Option<ApprovalHandler>,
    /// The paused run this one resumes ([`Agent::resume`]).
    pub(crate) resume: Option<Box<PausedRun>>,
    /// What the caller gave for the paused calls, by call id.
    pub(crate) answers: Vec<(String, Answer)>,
    /// The answer's type, for a typed run ([`Run::output`]).
    pub(crate) output: Option<crate::output::OutputSpec>,
}

/// What the caller gives for a pending call.
#[derive(Debug, Clone)]
pub(crate) enum Answer {
    /// The result of a call the caller executed.
    Result(CallToolResult),
    /// An approval decision.
    Decision(Approval),
}

impl fmt::Debug for Run<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Run")
            .field("messages", &self.messages.len())
            .field("no_tools", &self.no_tools)
            .field("allowed", &self.allowed)
            .finish_non_exhaustive()
    }
}

impl<'a> Run<'a> {
    fn new(agent: &'a Agent, messages: Vec<ChatMessage>) -> Self {
        Run {
            agent,
            messages,
            extra_tools: Vec::new(),
            no_tools: false,
            allowed: None,
            tool_choice: None,
            max_turns: None,
            on_event: None,
            cancel: None,
            on_approval: None,
            resume: None,
            answers: Vec::new(),
            output: None,
        }
    }

    /// Adds local tools for this run only; they replace set tools of the
    /// same name (of several with one name, the last wins).
    pub fn with_tools(mut self, tools: impl IntoIterator<Item = ToolEntry>) -> Self {
        self.extra_tools.extend(tools);
        self
    }

    /// Runs with no tools at all.
    pub fn without_tools(mut self) -> Self {
        self.no_tools = true;
        self
    }

    /// Offers only these tools (names in the set, or of
    /// [`with_tools`](Self::with_tools)). A name the run does not have ends
    /// it with [`RunError::ToolSet`](crate::RunError::ToolSet) before the first model request.
    pub fn allowed_tools<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.allowed = Some(names.into_iter().map(Into::into).collect());
        self
    }

    /// The tool choice of this run's first turn.
    pub fn tool_choice(mut self, choice: ToolChoice) -> Self {
        self.tool_choice = Some(choice);
        self
    }

    /// This run's turn limit.
    pub fn max_turns(mut self, turns: usize) -> Self {
        self.max_turns = Some(turns.max(1));
        self
    }

    /// Calls `f` with each [`Event`] as the run goes.
    pub fn on_event(mut self, f: impl Fn(&Event) + Send + Sync + 'static) -> Self {
        self.on_event = Some(Arc::new(f));
        self
    }

    /// Cancels the run when `token` is cancelled: the run ends with
    /// [`RunError::Cancelled`](crate::RunError::Cancelled).
    pub fn cancel_on(mut self, token: CancellationToken) -> Self {
        self.cancel = Some(token);
        self
    }

    /// Who approves the calls that need it ([`AgentBuilder::approval`]):
    /// `f` gets each, one at a time, and answers. Without a handler the run
    /// pauses on them instead ([`PendingKind::Approve`](crate::pause::PendingKind::Approve)).
    pub fn on_approval<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(ApprovalRequest) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = Approval> + Send + 'static,
    {
        self.on_approval = Some(crate::approval::handler(f));
        self
    }

    /// Resuming: the result of a pending call the caller executed, as text.
    pub fn result(self, call_id: impl Into<String>, text: impl Into<String>) -> Self {
        self.tool_result(call_id, CallToolResult::text(text))
    }

    /// Resuming: a pending call the caller executed failed; the model reads `message`.
    pub fn error_result(self, call_id: impl Into<String>, message: impl Into<String>) -> Self {
        self.tool_result(call_id, CallToolResult::error(message))
    }

    /// Resuming: the result of a pending call the caller executed, whole
    /// (images and other content go to the model as its provider takes them).
    pub fn tool_result(mut self, call_id: impl Into<String>, result: CallToolResult) -> Self {
        self.answers.push((call_id.into(), Answer::Result(result)));
        self
    }

    /// Resuming: approves a pending call; it runs when the run resumes.
    pub fn approve(self, call_id: impl Into<String>) -> Self {
        self.decide(call_id, Approval::Allow)
    }

    /// Resuming: approves a pending call and every later call of its tool in this run.
    pub fn approve_for_run(self, call_id: impl Into<String>) -> Self {
        self.decide(call_id, Approval::AllowForRun)
    }

    /// Resuming: refuses a pending call; the model reads that it was refused, and why.
    pub fn refuse(self, call_id: impl Into<String>, reason: impl Into<String>) -> Self {
        self.decide(call_id, Approval::Refuse(reason.into()))
    }

    fn decide(mut self, call_id: impl Into<String>, decision: Approval) -> Self {
        self.answers
            .push((call_id.into(), Answer::Decision(decision)));
        self
    }
}
