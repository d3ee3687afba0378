//! A paused run is resumed from a state its holder may have edited: every
//! approval must come from the resume itself, for the call and arguments
//! the approver saw. Each test pauses a run whose `write` needs an
//! approval (`ApprovalPolicy::Always`), edits the saved state as whoever
//! holds it could, and resumes it: nothing the approver did not approve
//! may run.

use std::sync::{Arc, Mutex};

use oxmcp_agent::approval::ApprovalPolicy;
use oxmcp_agent::chat::{ChatMessage, ToolCall};
use oxmcp_agent::pause::{PausedRun, StateKeys};
use oxmcp_agent::{Agent, Finish, Outcome, RunError, ToolSet};
use oxmcp_server::tool;
use oxmcp_types::{CallToolResult, ContentBlock, ResourceContents};
use serde_json::{json, Value};

use crate::support::{call, calls, text, Scripted};

/// Notes whose writes are recorded, with the text each wrote.
#[derive(Debug, Default)]
pub struct Notes {
    written: Arc<Mutex<Vec<String>>>,
}

#[tool(description = "Notes")]
impl Notes {
    #[describe("Write a note")]
    pub fn write(&self, #[param("The note")] text: String) -> String {
        self.written.lock().unwrap().push(text.clone());
        format!("wrote {text}")
    }

    #[describe("Measure the notes: a result of every kind, to carry in a paused state")]
    #[tool(read_only)]
    pub fn measure(&self) -> CallToolResult {
        CallToolResult {
            content: vec![
                ContentBlock::text("measured: é ✓"),
                ContentBlock::image("iVBORw0KGgo=", "image/png"),
                ContentBlock::resource(ResourceContents::blob(
                    "file:///report.pdf",
                    "application/pdf",
                    "JVBERi0=",
                )),
            ],
            structured_content: Some(json!({
                "sum": 0.1 + 0.2,
                "tiny": 2.638_344_616_030_823e-256,
                "big": u64::MAX,
                "negative": -7,
                "z": null,
                "a": {"nested": [1.5, "two", false]}
            })),
            meta: serde_json::from_value(json!({"io.example/trace": "t-1"})).ok(),
            ..CallToolResult::default()
        }
    }
}

type Written = Arc<Mutex<Vec<String>>>;

/// An agent whose every call needs an approval, over fresh notes (their
/// writes returned), signing with `keys` (its own random key without).
async fn agent(model: &Arc<Scripted>, keys: Option<StateKeys>) -> (Agent, Written) {
    let notes = Notes::default();
    let written = Arc::clone(&notes.written);
    let tools = ToolSet::builder().toolbox(notes).build().await.unwrap();
    let mut agent = Agent::builder(Arc::clone(model), tools).approval(ApprovalPolicy::Always);
    if let Some(keys) = keys {
        agent = agent.state_keys(keys);
    }
    (agent.build(), written)
}

/// A run paused on one `write` of `note` (call `w1`), whose model then
/// answers "done": the agent, its notes' writes, and the paused run.
async fn paused_on_write(note: &str) -> (Agent, Written, PausedRun) {
    let arguments = json!({ "text": note }).to_string();
    let model = Scripted::new()
        .then(move |_| calls(vec![call("w1", "write", &arguments)]))
        .then(|_| text("done"));
    let (agent, written) = agent(&model, None).await;
    let paused = agent.run("write").await.unwrap().paused().unwrap();
    assert_eq!(paused.pending().len(), 1);
    assert_eq!(paused.pending()[0].arguments["text"], json!(note));
    (agent, written, paused)
}

/// The saved state as JSON, as whoever holds it sees it.
fn saved(paused: &PausedRun) -> Value {
    serde_json::to_value(paused).unwrap()
}

fn restored(saved: Value) -> PausedRun {
    serde_json::from_value(saved).unwrap()
}

/// The saved state with its run (the transcript) edited by `edit`, as
/// whoever holds it could.
fn edited(paused: &PausedRun, edit: impl FnOnce(&mut Outcome)) -> PausedRun {
    let mut outcome: Outcome = serde_json::from_value(saved(paused)).unwrap();
    edit(&mut outcome);
    restored(serde_json::to_value(&outcome).unwrap())
}

/// The resume was refused as a whole, naming an edited or unsigned state,
/// and no note was written.
fn assert_refused(resumed: Result<Finish, RunError>, written: &Written) {
    let ran = written.lock().unwrap().clone();
    assert!(ran.is_empty(), "calls nobody approved ran: {ran:?}");
    match resumed {
        Err(RunError::Resume { problem, .. }) => assert!(
            problem.contains("paused state"),
            "the refusal names the state: {problem}"
        ),
        other => panic!("an edited state was resumed: {other:?}"),
    }
}

/// The calls of the turn the run paused in, to edit.
fn paused_calls(outcome: &mut Outcome) -> &mut Vec<ToolCall> {
    match outcome.transcript.last_mut() {
        Some(ChatMessage::Assistant { tool_calls, .. }) => tool_calls,
        other => panic!("the paused turn's calls end the transcript: {other:?}"),
    }
}

#[tokio::test]
async fn a_state_whose_pending_call_was_removed_runs_nothing() {
    let (agent, written, paused) = paused_on_write("a").await;

    let mut state = saved(&paused);
    state.as_object_mut().unwrap().remove("pending");
    let resumed = agent.resume(restored(state)).await;

    assert_refused(resumed, &written);
}

#[tokio::test]
async fn a_tool_added_to_the_approved_list_still_asks_next_turn() {
    let model = Scripted::new()
        .then(|_| calls(vec![call("w1", "write", r#"{"text": "a"}"#)]))
        .then(|_| calls(vec![call("w2", "write", r#"{"text": "b"}"#)]))
        .then(|_| text("done"));
    let (agent, written) = agent(&model, None).await;
    let paused = agent.run("write twice").await.unwrap().paused().unwrap();

    let mut state = saved(&paused);
    state["paused"]["approved_tools"] = json!(["write"]);
    let resumed = agent.resume(restored(state)).approve("w1").await;

    assert_refused(resumed, &written);
}

#[tokio::test]
async fn a_call_added_to_the_transcript_does_not_run_beside_the_refused_one() {
    let (agent, written, paused) = paused_on_write("a").await;

    let edited = edited(&paused, |outcome| {
        paused_calls(outcome).push(call("x", "write", r#"{"text": "smuggled"}"#));
    });
    let mut state = saved(&edited);
    state["paused"]["results"]
        .as_array_mut()
        .unwrap()
        .push(Value::Null);
    let resumed = agent.resume(restored(state)).refuse("w1", "not now").await;

    assert_refused(resumed, &written);
}

#[tokio::test]
async fn arguments_changed_after_the_approver_saw_them_do_not_run() {
    let (agent, written, paused) = paused_on_write("harmless").await;

    let edited = edited(&paused, |outcome| {
        paused_calls(outcome)[0].arguments = r#"{"text": "harmful"}"#.to_owned();
    });
    let resumed = agent.resume(edited).approve("w1").await;

    assert_refused(resumed, &written);
}

#[tokio::test]
async fn a_state_paused_by_another_agent_is_refused() {
    let (_, _, paused) = paused_on_write("a").await;

    // Another agent, built with its own (random) key: nothing it did not
    // sign resumes, even unedited.
    let model = Scripted::new().then(|_| text("done"));
    let (other, written) = agent(&model, None).await;
    let resumed = other.resume(paused).approve("w1").await;

    assert_refused(resumed, &written);
}

#[tokio::test]
async fn a_state_without_its_signature_is_refused() {
    let (agent, written, paused) = paused_on_write("a").await;

    let mut state = saved(&paused);
    state["paused"].as_object_mut().unwrap().remove("signature");
    let resumed = agent.resume(restored(state)).approve("w1").await;

    assert_refused(resumed, &written);
}

#[tokio::test]
async fn agents_sharing_keys_resume_each_others_states_across_a_key_rotation() {
    let model = Scripted::new()
        .then(|_| calls(vec![call("w1", "write", r#"{"text": "a"}"#)]))
        .then(|_| text("done"));
    let old = StateKeys::new("2026-11", vec![7; 32]).unwrap();
    let (pausing, _) = agent(&model, Some(old)).await;
    let paused = pausing.run("write").await.unwrap().paused().unwrap();
    let saved = serde_json::to_string(&paused).unwrap();

    // Another process, after the rotation: a new key signs, the old one verifies.
    let rotated = StateKeys::new("2026-12", vec![8; 32])
        .and_then(|keys| keys.verifying("2026-11", vec![7; 32]))
        .unwrap();
    let (resuming, written) = agent(&model, Some(rotated)).await;
    resume_approving_w1(&resuming, &saved, &written).await;
}

/// Resumes the state `saved` approving `w1`, which writes "a" (and only
/// it), and the run ends with "done"; how it ended.
async fn resume_approving_w1(agent: &Agent, saved: &str, written: &Written) -> Finish {
    let done = agent
        .resume(serde_json::from_str(saved).unwrap())
        .approve("w1")
        .await
        .unwrap();
    assert_eq!(done.outcome().text, "done");
    assert_eq!(*written.lock().unwrap(), vec!["a"]);
    done
}

#[tokio::test]
async fn a_state_carrying_every_kind_of_result_resumes_after_a_json_round_trip() {
    let model = Scripted::new()
        .then(|_| {
            calls(vec![
                call("m1", "measure", "{}"),
                call("w1", "write", r#"{"text": "a"}"#),
            ])
        })
        .then(|_| text("done"));
    let notes = Notes::default();
    let written = Arc::clone(&notes.written);
    let tools = ToolSet::builder().toolbox(notes).build().await.unwrap();
    let measuring = Agent::builder(Arc::clone(&model), tools)
        .approval(ApprovalPolicy::UnlessReadOnly)
        .build();
    let paused = measuring
        .run("measure, then write")
        .await
        .unwrap()
        .paused()
        .unwrap();
    assert_eq!(
        paused.outcome().tool_calls.len(),
        1,
        "measure ran before the pause"
    );

    let saved = serde_json::to_string(&paused).unwrap();
    let done = resume_approving_w1(&measuring, &saved, &written).await;

    // Each pause has a name of its own, for an application to refuse a replay.
    let id = paused.pause_id();
    assert!(id.len() >= 16, "{id}");
    assert!(done.paused().is_none(), "a finished run has none");
    let again = Scripted::new().then(|_| calls(vec![call("w2", "write", r#"{"text": "b"}"#)]));
    let (other, _) = agent(&again, None).await;
    let second = other.run("write").await.unwrap().paused().unwrap();
    assert_ne!(second.pause_id(), id);
}
