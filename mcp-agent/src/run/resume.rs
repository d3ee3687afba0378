//! Resuming a paused run: the caller's answers checked against what waits,
//! then the paused turn finished (results given, approved calls run,
//! refused ones answered) before the loop goes on.

use std::collections::HashMap;

use super::calls::{caller_record, refused, settle, Slot};
use super::{view_for, State};
use crate::agent::{Answer, Run};
use crate::approval::Approval;
use crate::chat::Message;
use crate::outcome::{Outcome, Paused, PendingCall, PendingKind, RunError, Stop};

/// A paused run's state, once every pending call has its answer (else the
/// outcome comes back unchanged, with what is missing).
pub(super) fn resumed_state(run: &mut Run<'_>, mut outcome: Outcome) -> Result<State, RunError> {
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
pub(super) async fn finish_paused(
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
