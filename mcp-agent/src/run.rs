//! The model ↔ tool loop.

use std::future::{Future, IntoFuture};
use std::pin::Pin;
use std::time::Instant;

use futures_util::StreamExt as _;
use mcp_types::error::Chain;
use mcp_types::JsonObject;

use crate::agent::{Agent, ErrorPolicy, Run};
use crate::catalog::{SetTool, ToolSetError};
use crate::chat::{
    ChatRequest, ChatResponse, Delta, Message, ModelError, ToolCall, ToolChoice, ToolResult,
};
use crate::outcome::{result_text, CallRecord, Event, Outcome, RunError};
use crate::toolset::ToolSet;
use crate::view::ToolView;

/// Why the turns stopped early; the run adds what it had done.
pub(crate) enum Stop {
    MaxTurns(usize),
    Model { turn: usize, error: ModelError },
    ToolFailed { tool: String, message: String },
    ToolSet(ToolSetError),
}

type Emit = Option<crate::agent::EventSink>;

struct State {
    outcome: Outcome,
    choice: ToolChoice,
}

pub(crate) async fn run(run: Run<'_>) -> Result<Outcome, RunError> {
    let agent = run.agent;
    let mut transcript = Vec::with_capacity(run.messages.len() + 1);
    if let Some(system) = &agent.config.system {
        transcript.push(Message::system(system.clone()));
    }
    transcript.extend(run.messages.iter().cloned());
    let mut state = State {
        outcome: Outcome {
            transcript,
            ..Outcome::default()
        },
        choice: run
            .tool_choice
            .clone()
            .unwrap_or_else(|| agent.config.tool_choice.clone()),
    };
    let cancel = run.cancel.clone().unwrap_or_default();
    let stopped = {
        let turns = turns(&run, &mut state);
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
    }
}

async fn turns(run: &Run<'_>, state: &mut State) -> Result<(), Stop> {
    let max_turns = run.max_turns.unwrap_or(run.agent.config.max_turns);
    let emit = run.on_event.clone();
    for turn in 1..=max_turns {
        let step = step(run, state, turn, &emit);
        #[cfg(feature = "otel")]
        let step = crate::telemetry::turn(turn, step);
        if step.await? == Turn::Answered {
            return Ok(());
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
        return Ok(Turn::Answered);
    }
    let calls = response
        .tool_calls
        .iter()
        .map(|call| execute(agent, &view, turn, call, emit));
    let records = futures_util::future::try_join_all(calls).await?;
    let results = records
        .iter()
        .zip(&response.tool_calls)
        .map(|(record, call)| ToolResult {
            call_id: call.id.clone(),
            name: call.name.clone(),
            content: reply_text(record),
            is_error: record.is_error,
        })
        .collect();
    state.outcome.tool_calls.extend(records);
    state
        .outcome
        .transcript
        .push(Message::ToolResults { results });
    if !agent.config.keep_tool_choice {
        state.choice = ToolChoice::Auto;
    }
    Ok(Turn::CalledTools)
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
