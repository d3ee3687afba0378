//! The calls of one turn: what becomes of each (it runs now, is refused by
//! its approver, or waits for the caller), running those that run, and the
//! records and results of all of them.

use std::time::{Duration, Instant};

use oxmcp_types::error::Chain;
use oxmcp_types::{CallToolResult, JsonObject};

use super::{send, Emit, State};
use crate::agent::{Agent, ErrorPolicy, Run};
use crate::approval::{refused_reply, Approval, ApprovalRequest};
use crate::catalog::{SetTool, Target};
use crate::chat::{ToolCall, ToolResult};
use crate::outcome::{result_media, result_text, CallRecord, Event, Stop};
use crate::pause::{PendingCall, PendingKind};
use crate::view::ToolView;

/// What becomes of one call of a turn.
pub(super) enum Slot {
    /// It runs now (or is refused by `execute` as the model's mistake).
    Run,
    /// It runs now with exactly these arguments: the ones its approver saw
    /// (a call approved when a paused run resumes).
    RunApproved(JsonObject),
    /// It is answered without running here (refused, or the caller's result).
    Done(CallRecord),
    /// Answered before a pause; its record is in the outcome already.
    Answered(ToolResult),
    /// It waits for the caller.
    Pending(PendingCall),
}

/// Decides what becomes of one call: the caller's tools wait for it; a call
/// that needs an approval asks the run's handler, or waits without one.
pub(super) async fn plan(
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
    let policy = run.agent.approval_for(&tool.def);
    if state.approved.contains(tool.name())
        || !policy.asks_trusting(&tool.def, tool.annotations_trusted)
    {
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
pub(super) async fn settle(
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
        .filter_map(|(slot, call)| match slot {
            Slot::Run => Some(execute(agent, view, turn, call, None, emit)),
            Slot::RunApproved(arguments) => {
                Some(execute(agent, view, turn, call, Some(arguments), emit))
            }
            _ => None,
        });
    let mut executed = futures_util::future::try_join_all(running)
        .await?
        .into_iter();
    let mut results = Vec::with_capacity(calls.len());
    let mut pending = Vec::new();
    for (slot, call) in slots.into_iter().zip(calls) {
        let record = match slot {
            Slot::Run | Slot::RunApproved(_) => executed.next(),
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
pub(super) fn refused(
    turn: usize,
    tool: &str,
    call: &ToolCall,
    reason: &str,
    emit: &Emit,
) -> CallRecord {
    let reply = refused_reply(tool, reason);
    send(emit, || Event::CallRefused {
        turn,
        call_id: call.id.clone(),
        tool: tool.to_owned(),
        reason: reason.to_owned(),
    });
    answered(turn, tool, call, None, reply, true)
}

/// What of `result`, a result of `tool`, the model reads: its text cut to
/// the tool's cap in the set, with the marker a server puts on a cut result.
fn model_text(tools: &crate::ToolSet, tool: &str, result: &CallToolResult) -> String {
    match oxmcp_server::tool::fit_to_cap(result, tools.result_cap(tool)) {
        Some(cut) => result_text(&cut),
        None => result_text(result),
    }
}

/// The record of a call the caller executed, with the result it gave.
pub(super) fn caller_record(
    tools: &crate::ToolSet,
    turn: usize,
    tool: &str,
    call: &ToolCall,
    result: CallToolResult,
) -> CallRecord {
    let (reply, is_error) = (model_text(tools, tool, &result), result.is_error());
    answered(turn, tool, call, Some(result), reply, is_error)
}

/// The record of a call answered without running here: it ran at the
/// caller's (`result` given, one attempt) or not at all.
pub(super) fn answered(
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

/// Runs one tool call: with the model's arguments, or with the ones its
/// approver saw (`approved`).
pub(super) async fn execute(
    agent: &Agent,
    view: &ToolView,
    turn: usize,
    call: &ToolCall,
    approved: Option<&JsonObject>,
    emit: &Emit,
) -> Result<CallRecord, Stop> {
    let execution = call_tool(agent, view, turn, call, approved, emit);
    #[cfg(feature = "otel")]
    let execution = crate::telemetry::tool(view, call, execution);
    execution.await
}

/// One tool call: resolve, parse, validate (unless the arguments are the
/// approved ones, checked before the approver saw them), call under the
/// tool's error policy.
async fn call_tool(
    agent: &Agent,
    view: &ToolView,
    turn: usize,
    call: &ToolCall,
    approved: Option<&JsonObject>,
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
        Some(tool) => match approved
            .map_or_else(|| tool.parse_arguments(&call.arguments), |a| Ok(a.clone()))
        {
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
                record.reply = model_text(&agent.tools, tool.name(), &result);
                record.result = Some(result);
                record.is_error = false;
                return Ok(());
            }
            Ok(result) => {
                let text = model_text(&agent.tools, tool.name(), &result);
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
