//! The model ↔ tool loop: turns, each a model request and the calls it
//! asks for ([`calls`]), a run that pauses and resumes ([`resume`]), and
//! typed answers.

mod calls;
mod resume;

use std::collections::BTreeSet;
use std::future::{Future, IntoFuture};
use std::pin::Pin;

use futures_util::StreamExt as _;

use crate::agent::{Agent, Run};
use crate::catalog::ToolSetError;
use crate::chat::{ChatMessage, ChatRequest, ChatResponse, Delta, ModelError, ToolChoice};
use crate::outcome::{Event, Finish, Outcome, RunError, Stop};
use crate::pause::Paused;
use crate::toolset::ToolSet;
use crate::view::ToolView;
use calls::{plan, settle};
use resume::{finish_paused, resumed_state, Resuming};

pub(super) type Emit = Option<crate::agent::EventSink>;

pub(super) struct State {
    outcome: Outcome,
    choice: ToolChoice,
    /// The first turn still to run (after a resumed one).
    next_turn: usize,
    /// Tools approved for the rest of the run ([`Approval::AllowForRun`]).
    approved: BTreeSet<String>,
    /// The paused turn to finish first, with the caller's answers.
    resuming: Option<Resuming>,
    /// Answers sent back for not matching the output schema.
    output_retries: u32,
}

async fn run(mut run: Run<'_>) -> Result<Outcome, RunError> {
    let mut state = match run.resume.take() {
        Some(paused) => resumed_state(&mut run, *paused)?,
        None => fresh_state(&run),
    };
    let cancel = run.cancel.clone().unwrap_or_default();
    let stopped = {
        let turns = async {
            if let Some(resuming) = state.resuming.take() {
                finish_paused(&run, &mut state, resuming).await?;
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
    let mut outcome = Box::new(state.outcome);
    // Signed last, once nothing in it changes (only a paused run is).
    run.agent.config.state_keys.sign(&mut outcome);
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

/// A new run's state: the agent's instructions, then the messages given
/// (a previous run's transcript starts with those instructions already:
/// they are not repeated).
fn fresh_state(run: &Run<'_>) -> State {
    let agent = run.agent;
    let mut transcript = Vec::with_capacity(run.messages.len() + 1);
    if let Some(system) = &agent.config.system {
        let given =
            matches!(run.messages.first(), Some(ChatMessage::System { text }) if text == system);
        if !given {
            transcript.push(ChatMessage::system(system.clone()));
        }
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

/// One turn: a model request, then the tool calls it asks for.
async fn step(run: &Run<'_>, state: &mut State, turn: usize, emit: &Emit) -> Result<Turn, Stop> {
    let agent = run.agent;
    let view = view_for(run, turn, emit).await?;
    let view = agent.tools.offered(view, &state.outcome.transcript);
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
    state.outcome.transcript.push(ChatMessage::Assistant {
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
            .push(ChatMessage::ToolResults { results });
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
        id: crate::pause::seal::pause_id(),
        key: String::new(),
        signature: String::new(),
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
                .push(ChatMessage::user(crate::output::retry_prompt(problem)));
            Ok(Turn::CalledTools)
        }
        Err(problem) => Err(Stop::Output(problem.clone())),
    }
}

/// The tools of this turn: the set refreshed, then the run's changes.
pub(super) async fn view_for(run: &Run<'_>, turn: usize, emit: &Emit) -> Result<ToolView, Stop> {
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

pub(super) fn send(emit: &Emit, event: impl FnOnce() -> Event) {
    if let Some(f) = emit {
        f(&event());
    }
}

/// The run, traced when telemetry is on: its record, paused or not (a
/// plain and a typed run make their [`Finish`] of it).
pub(crate) async fn outcome(run: Run<'_>) -> Result<Outcome, RunError> {
    #[cfg(feature = "otel")]
    let future = crate::telemetry::run(run.agent, self::run(run));
    #[cfg(not(feature = "otel"))]
    let future = self::run(run);
    future.await
}

impl<'a> IntoFuture for Run<'a> {
    type Output = Result<Finish, RunError>;
    type IntoFuture = Pin<Box<dyn Future<Output = Result<Finish, RunError>> + Send + 'a>>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(async move { outcome(self).await.map(Finish::of) })
    }
}
