//! Resuming a paused run: the state checked as the agent signed it, the
//! caller's answers checked against what waits, then the paused turn
//! finished (results given, approved calls run with the arguments their
//! approver saw, every other call answered as refused) before the loop
//! goes on.

use std::collections::HashMap;

use oxmcp_types::{CallToolResult, JsonObject};

use super::calls::{caller_record, refused, settle, Slot};
use super::{view_for, State};
use crate::agent::{Answer, Run};
use crate::approval::Approval;
use crate::chat::{ChatMessage, ToolCall, ToolResult};
use crate::outcome::{RunError, Stop};
use crate::pause::seal::NOT_PAUSED;
use crate::pause::{Paused, PausedRun, PendingCall, PendingKind};

/// A paused run's state, once every pending call has its answer (else the
/// outcome comes back unchanged, with what is missing).
pub(super) fn resumed_state(
    run: &mut Run<'_>,
    PausedRun(mut outcome): PausedRun,
) -> Result<State, RunError> {
    // What runs rests on the state: only a paused one this agent signed, unchanged.
    if let Err(problem) = run.agent.config.state_keys.verify(&outcome) {
        return Err(RunError::Resume {
            problem,
            paused: Box::new(PausedRun(outcome)),
        });
    }
    let Some(paused) = outcome.paused.take() else {
        return Err(RunError::Resume {
            problem: NOT_PAUSED.to_owned(),
            paused: Box::new(PausedRun(outcome)),
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
            paused: Box::new(PausedRun(outcome)),
        });
    }
    let pending = std::mem::take(&mut outcome.pending);
    Ok(State {
        choice: paused.choice.clone(),
        next_turn: paused.turn + 1,
        approved: paused.approved_tools.clone(),
        outcome,
        resuming: Some(Resuming {
            paused,
            pending,
            answers,
        }),
        output_retries: 0,
    })
}

/// Finishes the turn a run paused in: the caller's results, the approved
/// calls run now, every other call answered as refused; then the turn's
/// results go to the model with the next request.
pub(super) async fn finish_paused(
    run: &Run<'_>,
    state: &mut State,
    resuming: Resuming,
) -> Result<(), Stop> {
    let Resuming {
        paused,
        pending,
        answers,
    } = resuming;
    let emit = run.on_event.clone();
    let turn = paused.turn;
    let calls = state
        .outcome
        .transcript
        .iter()
        .rev()
        .find_map(|m| match m {
            ChatMessage::Assistant { tool_calls, .. } => Some(tool_calls.clone()),
            _ => None,
        })
        .unwrap_or_default();
    let view = view_for(run, turn, &emit).await?;
    let fates = fates(&calls, &paused.results, &pending, answers);
    let mut slots = Vec::with_capacity(calls.len());
    for (call, fate) in calls.iter().zip(fates) {
        let resolved = view.resolve(&call.name).map(|t| t.name().to_owned());
        let tool = resolved.clone().unwrap_or_else(|| call.name.clone());
        slots.push(match fate {
            Fate::Answered(result) => Slot::Answered(result),
            Fate::Result(result) => {
                Slot::Done(caller_record(&run.agent.tools, turn, &tool, call, result))
            }
            Fate::Refused(reason) => Slot::Done(refused(turn, &tool, call, &reason, &emit)),
            // The model's name must still lead to the tool that was approved
            // (a tool gone since is the unknown tool `execute` reports).
            Fate::Run { tool: approved, .. }
                if resolved.as_deref().is_some_and(|name| name != approved) =>
            {
                Slot::Done(refused(turn, &tool, call, CHANGED, &emit))
            }
            Fate::Run {
                tool,
                arguments,
                for_run,
            } => {
                if for_run {
                    state.approved.insert(tool);
                }
                Slot::RunApproved(arguments)
            }
        });
    }
    // A call answered before the pause has its record already.
    let (results, _) = settle(run.agent, &view, turn, &calls, slots, state, &emit).await?;
    let results = results.into_iter().flatten().collect();
    state
        .outcome
        .transcript
        .push(ChatMessage::ToolResults { results });
    Ok(())
}

/// The paused turn a resumed run finishes first.
pub(super) struct Resuming {
    paused: Paused,
    /// The calls it waited for, as the approver saw them.
    pending: Vec<PendingCall>,
    /// The caller's answers, by call id.
    answers: HashMap<String, Answer>,
}

/// Why a call of the paused turn that nobody decided on does not run.
const UNDECIDED: &str = "nobody approved it when the run resumed";
/// Why an approved call whose tool is no longer the one approved does not run.
const CHANGED: &str = "the tool it names is not the one that was approved";

/// What becomes of one call of the paused turn.
#[derive(Debug, PartialEq)]
enum Fate {
    /// Answered before the pause.
    Answered(ToolResult),
    /// The caller ran it: its result.
    Result(CallToolResult),
    /// It does not run: refused by its approver, or never approved.
    Refused(String),
    /// It runs: the tool and the arguments its approver saw.
    Run {
        tool: String,
        arguments: JsonObject,
        for_run: bool,
    },
}

/// The fate of each call of the paused turn, in order. Only a pending call
/// can be approved or given a result, and an approved one runs with the
/// arguments recorded when it paused (what the approver saw), whatever the
/// transcript says; any other call without a result from before the pause
/// is refused.
fn fates(
    calls: &[ToolCall],
    results: &[Option<ToolResult>],
    pending: &[PendingCall],
    mut answers: HashMap<String, Answer>,
) -> Vec<Fate> {
    calls
        .iter()
        .enumerate()
        .map(|(i, call)| {
            if let Some(Some(result)) = results.get(i) {
                return Fate::Answered(result.clone());
            }
            let waiting = pending.iter().find(|p| p.call_id == call.id);
            let answer = waiting.and(answers.remove(&call.id));
            match (waiting, answer) {
                (Some(p), Some(Answer::Result(result))) if p.kind == PendingKind::Execute => {
                    Fate::Result(result)
                }
                (Some(p), Some(Answer::Decision(decision))) if p.kind == PendingKind::Approve => {
                    match decision {
                        Approval::Refuse(reason) => Fate::Refused(reason),
                        Approval::Allow | Approval::AllowForRun => Fate::Run {
                            tool: p.tool.clone(),
                            arguments: p.arguments.clone(),
                            for_run: decision == Approval::AllowForRun,
                        },
                    }
                }
                _ => Fate::Refused(UNDECIDED.to_owned()),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call(id: &str, text: &str) -> ToolCall {
        ToolCall {
            id: id.to_owned(),
            name: "write".to_owned(),
            arguments: json!({ "text": text }).to_string(),
        }
    }

    fn pending(id: &str, text: &str) -> PendingCall {
        PendingCall {
            call_id: id.to_owned(),
            tool: "write".to_owned(),
            arguments: json!({ "text": text })
                .as_object()
                .cloned()
                .unwrap_or_default(),
            kind: PendingKind::Approve,
        }
    }

    fn allow(id: &str) -> HashMap<String, Answer> {
        HashMap::from([(id.to_owned(), Answer::Decision(Approval::Allow))])
    }

    // The signature keeps these states from reaching here; if one did, the
    // approver's decision still governs.

    #[test]
    fn a_call_without_a_decision_is_refused_not_run() {
        let fates = fates(&[call("w1", "a")], &[None], &[], HashMap::new());
        assert_eq!(fates, vec![Fate::Refused(UNDECIDED.to_owned())]);
        // An answer for it is not a decision either: it was not pending.
        let fates = fates_of(&[call("x", "a")], &[], allow("x"));
        assert_eq!(fates, vec![Fate::Refused(UNDECIDED.to_owned())]);
    }

    fn fates_of(
        calls: &[ToolCall],
        pending: &[PendingCall],
        answers: HashMap<String, Answer>,
    ) -> Vec<Fate> {
        fates(calls, &vec![None; calls.len()], pending, answers)
    }

    #[test]
    fn an_approved_call_runs_with_the_arguments_the_approver_saw() {
        let fates = fates_of(
            &[call("w1", "harmful")],
            &[pending("w1", "harmless")],
            allow("w1"),
        );
        assert_eq!(
            fates,
            vec![Fate::Run {
                tool: "write".to_owned(),
                arguments: pending("w1", "harmless").arguments,
                for_run: false,
            }]
        );
    }

    #[test]
    fn a_call_added_beside_a_refused_one_and_a_repeated_id_do_not_run() {
        let answers = HashMap::from([(
            "w1".to_owned(),
            Answer::Decision(Approval::Refuse("no".to_owned())),
        )]);
        let fates = fates_of(
            &[call("w1", "a"), call("x", "smuggled")],
            &[pending("w1", "a")],
            answers,
        );
        assert_eq!(
            fates,
            vec![
                Fate::Refused("no".to_owned()),
                Fate::Refused(UNDECIDED.to_owned())
            ]
        );
        let fates = fates_of(
            &[call("w1", "a"), call("w1", "b")],
            &[pending("w1", "a")],
            allow("w1"),
        );
        assert!(matches!(fates[0], Fate::Run { .. }));
        assert_eq!(
            fates[1],
            Fate::Refused(UNDECIDED.to_owned()),
            "one approval runs one call"
        );
    }
}
