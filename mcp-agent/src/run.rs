//! The model ↔ tool loop.

use std::collections::{BTreeSet, HashMap};
use std::future::{Future, IntoFuture};
use std::pin::Pin;
use std::time::{Duration, Instant};

use futures_util::StreamExt as _;
use mcp_types::error::Chain;
use mcp_types::{CallToolResult, JsonObject};

use crate::agent::{Agent, Answer, ErrorPolicy, Run};
use crate::approval::{refused_reply, Approval, ApprovalRequest};
use crate::catalog::{SetTool, Target, ToolSetError};
use crate::chat::{
    ChatRequest, ChatResponse, Delta, Message, ModelError, ToolCall, ToolChoice, ToolResult,
};
use crate::outcome::{
    result_media, result_text, CallRecord, Event, Outcome, Paused, PendingCall, PendingKind,
    RunError,
};
use crate::toolset::ToolSet;
use crate::view::ToolView;

/// Why the turns stopped early; the run adds what it had done.
pub(crate) enum Stop {
    MaxTurns(usize),
    Model { turn: usize, error: ModelError },
    ToolFailed { tool: String, message: String },
    ToolSet(ToolSetError),
    Output(String),
}

type Emit = Option<crate::agent::EventSink>;

struct State {
    outcome: Outcome,
    choice: ToolChoice,
    /// The first turn still to run (after a resumed one).
    next_turn: usize,
    /// Tools approved for the rest of the run ([`Approval::AllowForRun`]).
    approved: BTreeSet<String>,
    /// The paused turn to finish first, with the caller's answers.
    resuming: Option<(Paused, HashMap<String, Answer>)>,
    /// Answers sent back for not matching the output schema.
    output_retries: u32,
}

pub(crate) async fn run(mut run: Run<'_>) -> Result<Outcome, RunError> {
    let mut state = match run.resume.take() {
        Some(paused) => resumed_state(&mut run, *paused)?,
        None => fresh_state(&run),
    };
    let cancel = run.cancel.clone().unwrap_or_default();
    let stopped = {
        let turns = async {
            if let Some((paused, answers)) = state.resuming.take() {
                finish_paused(&run, &mut state, paused, answers).await?;
            }
            turns(&run, &mut state).await
        };
        tokio::pin!(turns);
        tokio::select! {
            biased;
            () = cancel.cancelled() => None,
            stopped = &mut turns => Some(stopped),
        }
    };
    let outcome = Box::new(state.outcome);
    match stopped {
        None => Err(RunError::Cancelled { outcome }),
        Some(Ok(())) => Ok(*outcome),
        Some(Err(Stop::MaxTurns(max_turns))) => Err(RunError::MaxTurns { max_turns, outcome }),
        Some(Err(Stop::Model { turn, error })) => Err(RunError::Model {
            turn,
            error,
            outcome,
        }),
        Some(Err(Stop::ToolFailed { tool, message })) => Err(RunError::ToolFailed {
            tool,
            message,
            outcome,
        }),
        Some(Err(Stop::ToolSet(e))) => Err(RunError::ToolSet(e)),
        Some(Err(Stop::Output(problem))) => Err(RunError::Output { problem, outcome }),
    }
}

/// A new run's state: the agent's instructions, then the messages given.
fn fresh_state(run: &Run<'_>) -> State {
    let agent = run.agent;
    let mut transcript = Vec::with_capacity(run.messages.len() + 1);
    if let Some(system) = &agent.config.system {
        transcript.push(Message::system(system.clone()));
    }
    transcript.extend(run.messages.iter().cloned());
    State {
        outcome: Outcome {
            transcript,
            ..Outcome::default()
        },
        choice: run
            .tool_choice
            .clone()
            .unwrap_or_else(|| agent.config.tool_choice.clone()),
        next_turn: 1,
        approved: BTreeSet::new(),
        resuming: None,
        output_retries: 0,
    }
}

/// A paused run's state, once every pending call has its answer (else the
/// outcome comes back unchanged, with what is missing).
fn resumed_state(run: &mut Run<'_>, mut outcome: Outcome) -> Result<State, RunError> {
    let Some(paused) = outcome.paused.take() else {
        return Err(RunError::Resume {
            problem: "the outcome is not a paused run: it has no pending calls".to_owned(),
            outcome: Box::new(outcome),
        });
    };
    let mut answers = HashMap::new();
    let mut problems = Vec::new();
    for (call_id, answer) in std::mem::take(&mut run.answers) {
        match outcome.pending.iter().find(|p| p.call_id == call_id) {
            None => problems.push(format!("`{call_id}` is not a pending call")),
            Some(_) if answers.contains_key(&call_id) => {
                problems.push(format!("call `{call_id}` is answered twice"));
            }
            Some(_) => {
                answers.insert(call_id, answer);
            }
        }
    }
    for pending in &outcome.pending {
        let PendingCall {
            call_id,
            tool,
            kind,
            ..
        } = pending;
        match (kind, answers.get(call_id)) {
            (PendingKind::Execute, Some(Answer::Result(_)))
            | (PendingKind::Approve, Some(Answer::Decision(_))) => {}
            (PendingKind::Execute, Some(Answer::Decision(_))) => problems.push(format!(
                "call `{call_id}` of `{tool}` is executed by the caller: give its result (Run::result), not a decision"
            )),
            (PendingKind::Approve, Some(Answer::Result(_))) => problems.push(format!(
                "call `{call_id}` of `{tool}` waits for an approval (Run::approve or Run::refuse), not a result"
            )),
            (PendingKind::Execute, None) => problems.push(format!(
                "call `{call_id}` of `{tool}` has no result (Run::result)"
            )),
            (PendingKind::Approve, None) => problems.push(format!(
                "call `{call_id}` of `{tool}` has no decision (Run::approve or Run::refuse)"
            )),
        }
    }
    if !problems.is_empty() {
        outcome.paused = Some(paused);
        return Err(RunError::Resume {
            problem: problems.join("; "),
            outcome: Box::new(outcome),
        });
    }
    outcome.pending.clear();
    Ok(State {
        choice: paused.choice.clone(),
        next_turn: paused.turn + 1,
        approved: paused.approved_tools.clone(),
        outcome,
        resuming: Some((paused, answers)),
        output_retries: 0,
    })
}

/// Finishes the turn a run paused in: the caller's results, the approved
/// calls run now, the refused ones answered so; then the turn's results go
/// to the model with the next request.
async fn finish_paused(
    run: &Run<'_>,
    state: &mut State,
    paused: Paused,
    mut answers: HashMap<String, Answer>,
) -> Result<(), Stop> {
    let emit = run.on_event.clone();
    let turn = paused.turn;
    let calls = state
        .outcome
        .transcript
        .iter()
        .rev()
        .find_map(|m| match m {
            Message::Assistant { tool_calls, .. } => Some(tool_calls.clone()),
            _ => None,
        })
        .unwrap_or_default();
    let view = view_for(run, turn, &emit).await?;
    let mut slots = Vec::with_capacity(calls.len());
    for (call, done) in calls.iter().zip(&paused.results) {
        if let Some(result) = done {
            slots.push(Slot::Answered(result.clone()));
            continue;
        }
        let tool = view.resolve(&call.name).map(|t| t.name().to_owned());
        let tool = tool.unwrap_or_else(|| call.name.clone());
        slots.push(match answers.remove(&call.id) {
            Some(Answer::Result(result)) => Slot::Done(caller_record(turn, &tool, call, result)),
            Some(Answer::Decision(Approval::Refuse(reason))) => {
                Slot::Done(refused(turn, &tool, call, &reason, &emit))
            }
            Some(Answer::Decision(Approval::AllowForRun)) => {
                state.approved.insert(tool);
                Slot::Run
            }
            Some(Answer::Decision(Approval::Allow)) | None => Slot::Run,
        });
    }
    // A call answered before the pause has its record already.
    let (results, _) = settle(run.agent, &view, turn, &calls, slots, state, &emit).await?;
    let results = results.into_iter().flatten().collect();
    state
        .outcome
        .transcript
        .push(Message::ToolResults { results });
    Ok(())
}

async fn turns(run: &Run<'_>, state: &mut State) -> Result<(), Stop> {
    let max_turns = run.max_turns.unwrap_or(run.agent.config.max_turns);
    let emit = run.on_event.clone();
    for turn in state.next_turn..=max_turns {
        let step = step(run, state, turn, &emit);
        #[cfg(feature = "otel")]
        let step = crate::telemetry::turn(turn, step);
        match step.await? {
            Turn::Answered | Turn::Paused => return Ok(()),
            Turn::CalledTools => {}
        }
    }
    Err(Stop::MaxTurns(max_turns))
}

/// How a turn ended.
#[derive(PartialEq, Eq)]
enum Turn {
    /// The model answered without calling tools: the run is done.
    Answered,
    /// The model called tools; their results go to the next turn.
    CalledTools,
    /// Some calls wait for the caller: the run pauses.
    Paused,
}

/// What becomes of one call of a turn.
enum Slot {
    /// It runs now (or is refused by `execute` as the model's mistake).
    Run,
    /// It is answered without running here (refused, or the caller's result).
    Done(CallRecord),
    /// Answered before a pause; its record is in the outcome already.
    Answered(ToolResult),
    /// It waits for the caller.
    Pending(PendingCall),
}

/// One turn: a model request, then the tool calls it asks for.
async fn step(run: &Run<'_>, state: &mut State, turn: usize, emit: &Emit) -> Result<Turn, Stop> {
    let agent = run.agent;
    let view = view_for(run, turn, emit).await?;
    let request = ChatRequest {
        messages: state.outcome.transcript.clone(),
        tools: view.definitions(),
        tool_choice: provider_choice(&state.choice, &view)?,
        max_tokens: agent.config.max_tokens,
        output: run.output.as_ref().map(|o| o.format.clone()),
    };
    send(emit, || Event::TurnStarted {
        turn,
        tools: view.names(),
    });
    let answer = ask(agent, request, emit);
    #[cfg(feature = "otel")]
    let answer = crate::telemetry::chat(agent, answer);
    let response = answer.await.map_err(|error| Stop::Model { turn, error })?;
    state.outcome.turns = turn;
    state.outcome.usage.add(response.usage);
    state.outcome.text.clone_from(&response.text);
    state.outcome.transcript.push(Message::Assistant {
        text: response.text.clone(),
        tool_calls: response.tool_calls.clone(),
    });
    send(emit, || Event::TurnEnded {
        turn,
        usage: response.usage,
        stop_reason: response.stop_reason.clone(),
    });
    if response.tool_calls.is_empty() {
        return match &run.output {
            None => Ok(Turn::Answered),
            Some(spec) => typed_answer(state, &(spec.check)(&response.text)),
        };
    }
    let mut slots = Vec::with_capacity(response.tool_calls.len());
    for call in &response.tool_calls {
        slots.push(plan(run, state, &view, turn, call, emit).await);
    }
    if !agent.config.keep_tool_choice {
        state.choice = ToolChoice::Auto;
    }
    let calls = &response.tool_calls;
    let (results, pending) = settle(agent, &view, turn, calls, slots, state, emit).await?;
    if pending.is_empty() {
        let results = results.into_iter().flatten().collect();
        state
            .outcome
            .transcript
            .push(Message::ToolResults { results });
        return Ok(Turn::CalledTools);
    }
    send(emit, || Event::Paused {
        turn,
        pending: pending.clone(),
    });
    state.outcome.paused = Some(Paused {
        turn,
        choice: state.choice.clone(),
        results,
        approved_tools: state.approved.clone(),
    });
    state.outcome.pending = pending;
    Ok(Turn::Paused)
}

/// A typed run's answer: kept when it fits the schema, sent back once with
/// the problem when it does not, and the end of the run the second time.
fn typed_answer(
    state: &mut State,
    checked: &Result<serde_json::Value, String>,
) -> Result<Turn, Stop> {
    match checked {
        Ok(value) => {
            state.outcome.output = Some(value.clone());
            Ok(Turn::Answered)
        }
        Err(problem) if state.output_retries == 0 => {
            state.output_retries += 1;
            state
                .outcome
                .transcript
                .push(Message::user(crate::output::retry_prompt(problem)));
            Ok(Turn::CalledTools)
        }
        Err(problem) => Err(Stop::Output(problem.clone())),
    }
}

/// Decides what becomes of one call: the caller's tools wait for it; a call
/// that needs an approval asks the run's handler, or waits without one.
async fn plan(
    run: &Run<'_>,
    state: &mut State,
    view: &ToolView,
    turn: usize,
    call: &ToolCall,
    emit: &Emit,
) -> Slot {
    // The model's mistakes (unknown tool, bad arguments) are `execute`'s to report.
    let Some(tool) = view.resolve(&call.name) else {
        return Slot::Run;
    };
    let Ok(arguments) = tool.parse_arguments(&call.arguments) else {
        return Slot::Run;
    };
    let pending = |kind| PendingCall {
        call_id: call.id.clone(),
        tool: tool.name().to_owned(),
        arguments: arguments.clone(),
        kind,
    };
    if matches!(tool.target, Target::Caller) {
        return Slot::Pending(pending(PendingKind::Execute));
    }
    if state.approved.contains(tool.name()) || !run.agent.approval_for(&tool.def).asks(&tool.def) {
        return Slot::Run;
    }
    send(emit, || Event::ApprovalRequested {
        turn,
        call_id: call.id.clone(),
        tool: tool.name().to_owned(),
        arguments: call.arguments.clone(),
    });
    let Some(approve) = &run.on_approval else {
        return Slot::Pending(pending(PendingKind::Approve));
    };
    let request = ApprovalRequest {
        turn,
        call_id: call.id.clone(),
        tool: tool.name().to_owned(),
        arguments: arguments.clone(),
        annotations: tool.def.annotations.clone(),
    };
    match approve(request).await {
        Approval::Allow => Slot::Run,
        Approval::AllowForRun => {
            state.approved.insert(tool.name().to_owned());
            Slot::Run
        }
        Approval::Refuse(reason) => Slot::Done(refused(turn, tool.name(), call, &reason, emit)),
    }
}

/// Runs the calls a turn runs now (concurrently), records every answered
/// call, and gives the turn's results in call order (`None` for a call that
/// waits) with the calls that wait.
async fn settle(
    agent: &Agent,
    view: &ToolView,
    turn: usize,
    calls: &[ToolCall],
    slots: Vec<Slot>,
    state: &mut State,
    emit: &Emit,
) -> Result<(Vec<Option<ToolResult>>, Vec<PendingCall>), Stop> {
    let running = slots
        .iter()
        .zip(calls)
        .filter(|(slot, _)| matches!(slot, Slot::Run))
        .map(|(_, call)| execute(agent, view, turn, call, emit));
    let mut executed = futures_util::future::try_join_all(running)
        .await?
        .into_iter();
    let mut results = Vec::with_capacity(calls.len());
    let mut pending = Vec::new();
    for (slot, call) in slots.into_iter().zip(calls) {
        let record = match slot {
            Slot::Run => executed.next(),
            Slot::Done(record) => Some(record),
            Slot::Answered(result) => {
                results.push(Some(result));
                continue;
            }
            Slot::Pending(call) => {
                pending.push(call);
                results.push(None);
                continue;
            }
        };
        if let Some(record) = record {
            results.push(Some(ToolResult {
                call_id: call.id.clone(),
                name: call.name.clone(),
                content: reply_text(&record),
                is_error: record.is_error,
                media: record.result.as_ref().map(result_media).unwrap_or_default(),
            }));
            state.outcome.tool_calls.push(record);
        }
    }
    Ok((results, pending))
}

/// The record of a call refused by its approver: it never ran.
fn refused(turn: usize, tool: &str, call: &ToolCall, reason: &str, emit: &Emit) -> CallRecord {
    let reply = refused_reply(tool, reason);
    send(emit, || Event::CallRefused {
        turn,
        call_id: call.id.clone(),
        tool: tool.to_owned(),
        reason: reason.to_owned(),
    });
    answered(turn, tool, call, None, reply, true)
}

/// The record of a call the caller executed, with the result it gave.
fn caller_record(turn: usize, tool: &str, call: &ToolCall, result: CallToolResult) -> CallRecord {
    let (reply, is_error) = (result_text(&result), result.is_error());
    answered(turn, tool, call, Some(result), reply, is_error)
}

/// The record of a call answered without running here: it ran at the
/// caller's (`result` given, one attempt) or not at all.
fn answered(
    turn: usize,
    tool: &str,
    call: &ToolCall,
    result: Option<CallToolResult>,
    reply: String,
    is_error: bool,
) -> CallRecord {
    CallRecord {
        turn,
        call_id: call.id.clone(),
        tool: Some(tool.to_owned()),
        model_name: call.name.clone(),
        arguments: call.arguments.clone(),
        attempts: u32::from(result.is_some()),
        result,
        reply,
        is_error,
        duration: Duration::ZERO,
    }
}

/// The tools of this turn: the set refreshed, then the run's changes.
async fn view_for(run: &Run<'_>, turn: usize, emit: &Emit) -> Result<ToolView, Stop> {
    let set = &run.agent.tools;
    let mut view = if run.no_tools {
        ToolSet::empty().view()
    } else {
        if set.refresh().await.map_err(Stop::ToolSet)? {
            send(emit, || Event::ToolsChanged { tools: set.names() });
        }
        set.view()
    };
    if !run.extra_tools.is_empty() {
        view = view.with_tools(run.extra_tools.iter().cloned());
    }
    if let Some(allowed) = &run.allowed {
        // Checked against the first turn's tools; later a server may drop one.
        view = if turn == 1 {
            view.allowed_tools(allowed).map_err(Stop::ToolSet)?
        } else {
            view.restrict(allowed)
        };
    }
    Ok(view)
}

/// The run's tool choice, naming the tool as the model sees it.
fn provider_choice(choice: &ToolChoice, view: &ToolView) -> Result<ToolChoice, Stop> {
    match choice {
        ToolChoice::Tool(name) => {
            if view.get(name).is_none() {
                return Err(Stop::ToolSet(ToolSetError::UnknownTool {
                    name: name.clone(),
                    known: view.names().join(", "),
                }));
            }
            Ok(ToolChoice::Tool(view.provider_name(name).to_owned()))
        }
        other => Ok(other.clone()),
    }
}

/// One model request, streamed or not.
async fn ask(agent: &Agent, request: ChatRequest, emit: &Emit) -> Result<ChatResponse, ModelError> {
    if !agent.config.streaming {
        let response = agent.model.complete(request).await?;
        if !response.text.is_empty() {
            send(emit, || Event::Text(response.text.clone()));
        }
        return Ok(response);
    }
    let mut stream = agent.model.stream(request).await?;
    while let Some(delta) = stream.next().await {
        match delta? {
            Delta::Text(text) => send(emit, || Event::Text(text)),
            Delta::Done(response) => return Ok(response),
        }
    }
    Err(ModelError::Malformed {
        provider: agent.model.provider().to_owned(),
        message: "the response stream ended without a final message".to_owned(),
    })
}

/// Runs one tool call.
async fn execute(
    agent: &Agent,
    view: &ToolView,
    turn: usize,
    call: &ToolCall,
    emit: &Emit,
) -> Result<CallRecord, Stop> {
    let execution = call_tool(agent, view, turn, call, emit);
    #[cfg(feature = "otel")]
    let execution = crate::telemetry::tool(view, call, execution);
    execution.await
}

/// One tool call: resolve, parse, validate, call under the tool's error policy.
async fn call_tool(
    agent: &Agent,
    view: &ToolView,
    turn: usize,
    call: &ToolCall,
    emit: &Emit,
) -> Result<CallRecord, Stop> {
    let tool = view.resolve(&call.name);
    let shown = tool.map_or_else(|| call.name.clone(), |t| t.name().to_owned());
    send(emit, || Event::ToolCallStarted {
        turn,
        call_id: call.id.clone(),
        tool: shown.clone(),
        arguments: call.arguments.clone(),
    });
    let started = Instant::now();
    let mut record = CallRecord {
        turn,
        call_id: call.id.clone(),
        tool: tool.map(|t| t.name().to_owned()),
        model_name: call.name.clone(),
        arguments: call.arguments.clone(),
        result: None,
        reply: String::new(),
        is_error: true,
        attempts: 0,
        duration: std::time::Duration::ZERO,
    };
    match tool {
        None => {
            record.reply = format!(
                "there is no tool named `{}`; the tools are: {}",
                call.name,
                view.definitions()
                    .iter()
                    .map(|d| d.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        Some(tool) => match tool.parse_arguments(&call.arguments) {
            Err(problem) => record.reply = problem,
            Ok(arguments) => attempt(agent, tool, arguments, &mut record, emit).await?,
        },
    }
    record.duration = started.elapsed();
    send(emit, || Event::ToolCallFinished {
        turn,
        call_id: call.id.clone(),
        tool: shown.clone(),
        is_error: record.is_error,
        reply: record.reply.clone(),
        duration: record.duration,
    });
    Ok(record)
}

/// Runs the tool, retrying as its policy says; fills `record`.
async fn attempt(
    agent: &Agent,
    tool: &SetTool,
    arguments: JsonObject,
    record: &mut CallRecord,
    emit: &Emit,
) -> Result<(), Stop> {
    let policy = agent.policy_for(tool.name());
    loop {
        record.attempts += 1;
        let failure = match tool
            .call(arguments.clone(), agent.config.tool_timeout)
            .await
        {
            Ok(result) if !result.is_error() => {
                record.reply = result_text(&result);
                record.result = Some(result);
                record.is_error = false;
                return Ok(());
            }
            Ok(result) => {
                let text = result_text(&result);
                record.result = Some(result);
                text
            }
            // The model reads every level of the failure.
            Err(e) => Chain(&e).to_string(),
        };
        match policy {
            ErrorPolicy::Retry(more) if record.attempts <= more => {
                send(emit, || Event::ToolCallRetry {
                    call_id: record.call_id.clone(),
                    tool: tool.name().to_owned(),
                    attempt: record.attempts + 1,
                    error: failure.clone(),
                });
            }
            ErrorPolicy::Fail => {
                return Err(Stop::ToolFailed {
                    tool: tool.name().to_owned(),
                    message: failure,
                })
            }
            ErrorPolicy::Report | ErrorPolicy::Retry(_) => {
                record.reply = failure;
                return Ok(());
            }
        }
    }
}

/// What the model reads for a call: errors say so, since OpenAI has no flag.
fn reply_text(record: &CallRecord) -> String {
    if record.is_error {
        format!("error: {}", record.reply)
    } else {
        record.reply.clone()
    }
}

fn send(emit: &Emit, event: impl FnOnce() -> Event) {
    if let Some(f) = emit {
        f(&event());
    }
}

impl<'a> IntoFuture for Run<'a> {
    type Output = Result<Outcome, RunError>;
    type IntoFuture = Pin<Box<dyn Future<Output = Result<Outcome, RunError>> + Send + 'a>>;

    fn into_future(self) -> Self::IntoFuture {
        #[cfg(feature = "otel")]
        let future = crate::telemetry::run(self.agent, run(self));
        #[cfg(not(feature = "otel"))]
        let future = run(self);
        Box::pin(future)
    }
}
