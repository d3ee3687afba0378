//! Runs that pause: tools the caller executes, and calls that need an
//! approval. The paused outcome is serialized, resumed by a new agent with
//! the caller's answers, and finishes; refused calls never run, on an MCP
//! server neither.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use oxmcp_agent::approval::{Approval, ApprovalPolicy};
use oxmcp_agent::chat::ChatMessage;
use oxmcp_agent::pause::{CallerTool, PausedRun, PendingKind, StateKeys};
use oxmcp_agent::{Agent, Event, Finish, RunError, Source, ToolSet};
use oxmcp_server::{tool, Server};
use serde_json::json;

// A resumed state edited by whoever held it runs nothing unapproved.
pub mod resume_security;
use crate::support;
use support::{call, calls, connect, last_results, text, Scripted};

/// A toolbox with one read-only tool and one that changes things.
#[derive(Debug, Default)]
pub struct Notes {
    writes: Arc<AtomicU32>,
}

#[tool(description = "Notes")]
impl Notes {
    #[describe("Count the notes")]
    #[tool(read_only)]
    pub fn count(&self) -> u32 {
        self.writes.load(Ordering::SeqCst)
    }

    #[describe("Write a note")]
    pub fn write(&self, #[param("The note")] text: String) -> String {
        self.writes.fetch_add(1, Ordering::SeqCst);
        format!("wrote {text}")
    }
}

fn location() -> CallerTool {
    CallerTool::new(
        "get_location",
        "The user's city, from their browser",
        json!({"type": "object", "properties": {"precise": {"type": "boolean"}}, "required": ["precise"]}),
    )
    .unwrap()
}

async fn set(notes: Notes) -> ToolSet {
    ToolSet::builder()
        .toolbox(notes)
        .caller_tool(location())
        .build()
        .await
        .unwrap()
}

#[tokio::test]
async fn a_caller_tool_pauses_the_run_which_resumes_in_a_new_agent_from_its_serialized_state() {
    let model = Scripted::new()
        .then(|_| calls(vec![call("c1", "get_location", r#"{"precise": true}"#)]))
        .then(|_| text("You are in Lyon."));
    // Both agents hold the same key: a state one signs, the other resumes.
    let keys = || StateKeys::new("shared", *b"0123456789abcdef0123456789abcdef").unwrap();
    let agent = Agent::builder(Arc::clone(&model), set(Notes::default()).await)
        .state_keys(keys())
        .build();
    let events = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&events);
    let paused = agent
        .run("Where am I?")
        .on_event(move |e| seen.lock().unwrap().push(e.clone()))
        .await
        .unwrap();
    assert!(paused.is_paused());
    let paused = paused.paused().unwrap();
    assert_eq!(paused.pending().len(), 1);
    let pending = &paused.pending()[0];
    assert_eq!(pending.call_id, "c1");
    assert_eq!(pending.tool, "get_location");
    assert_eq!(pending.kind, PendingKind::Execute);
    assert_eq!(pending.arguments["precise"], json!(true));
    assert!(events
        .lock()
        .unwrap()
        .iter()
        .any(|e| matches!(e, Event::Paused { pending, .. } if pending.len() == 1)));
    assert_eq!(model.requests().len(), 1, "no request while paused");

    // Saved as JSON, resumed by another agent over the same tools.
    let saved = serde_json::to_string(&paused).unwrap();
    let restored: PausedRun = serde_json::from_str(&saved).unwrap();
    let agent = Agent::builder(Arc::clone(&model), set(Notes::default()).await)
        .state_keys(keys())
        .build();
    let done = agent
        .resume(restored)
        .result("c1", "Lyon, France")
        .await
        .unwrap();
    assert!(!done.is_paused());
    let done = done.into_outcome();
    assert_eq!(done.text, "You are in Lyon.");
    assert_eq!(done.turns, 2);
    let requests = model.requests();
    assert_eq!(
        last_results(&requests[1]),
        vec![("c1".to_owned(), "Lyon, France".to_owned(), false)]
    );
    assert_eq!(done.tool_calls.len(), 1);
    assert_eq!(done.tool_calls[0].tool.as_deref(), Some("get_location"));
}

#[tokio::test]
async fn in_a_mixed_turn_the_local_call_runs_and_the_callers_waits() {
    let notes = Notes::default();
    let writes = Arc::clone(&notes.writes);
    let model = Scripted::new()
        .then(|_| {
            calls(vec![
                call("w", "write", r#"{"text": "hello"}"#),
                call("loc", "get_location", r#"{"precise": false}"#),
                call("n", "count", "{}"),
            ])
        })
        .then(|_| text("done"));
    let agent = Agent::builder(Arc::clone(&model), set(notes).await).build();
    let paused = agent.run("go").await.unwrap().paused().unwrap();
    assert_eq!(writes.load(Ordering::SeqCst), 1, "the local call ran");
    assert_eq!(paused.pending().len(), 1);
    assert_eq!(
        paused.outcome().tool_calls.len(),
        2,
        "the two local calls are recorded"
    );
    let done = agent
        .resume(paused)
        .error_result("loc", "the user declined to share it")
        .await
        .unwrap()
        .into_outcome();
    assert_eq!(done.text, "done");
    let results = last_results(&model.requests()[1]);
    assert_eq!(
        results,
        vec![
            ("w".to_owned(), "wrote hello".to_owned(), false),
            (
                "loc".to_owned(),
                "error: the user declined to share it".to_owned(),
                true
            ),
            ("n".to_owned(), "1".to_owned(), false),
        ],
        "results in call order, the caller's among them"
    );
}

#[tokio::test]
async fn bad_arguments_for_a_caller_tool_go_back_to_the_model_without_pausing() {
    let model = Scripted::new()
        .then(|_| calls(vec![call("c1", "get_location", r#"{"precise": "very"}"#)]))
        .then(|_| text("sorry"));
    let agent = Agent::builder(Arc::clone(&model), set(Notes::default()).await).build();
    let done = agent.run("Where am I?").await.unwrap();
    assert!(!done.is_paused());
    let results = last_results(&model.requests()[1]);
    assert!(
        results[0].2 && results[0].1.contains("precise"),
        "{results:?}"
    );
}

#[tokio::test]
async fn resuming_without_every_answer_fails_and_gives_the_paused_run_back() {
    let model = Scripted::new()
        .then(|_| calls(vec![call("c1", "get_location", r#"{"precise": true}"#)]))
        .then(|_| text("ok"));
    let agent = Agent::builder(Arc::clone(&model), set(Notes::default()).await).build();
    let paused = agent.run("Where am I?").await.unwrap().paused().unwrap();

    let error = agent.resume(paused.clone()).await.unwrap_err();
    let RunError::Resume {
        problem,
        paused: given_back,
    } = error
    else {
        panic!("not a resume error")
    };
    assert!(
        problem.contains("`c1`") && problem.contains("Run::result"),
        "{problem}"
    );
    let error = agent
        .resume(*given_back)
        .result("c1", "Paris")
        .result("c9", "?")
        .await
        .unwrap_err();
    assert!(
        error.to_string().contains("`c9` is not a pending call"),
        "{error}"
    );
    let error = agent
        .resume(paused.clone())
        .approve("c1")
        .await
        .unwrap_err();
    assert!(
        error.to_string().contains("executed by the caller"),
        "{error}"
    );
    let finished = agent.resume(paused).result("c1", "Paris").await.unwrap();
    let Finish::Done { output, outcome } = finished else {
        panic!("the run paused again")
    };
    assert_eq!(output, "ok");
    // A finished run's record, given as a state to resume.
    let finished: PausedRun =
        serde_json::from_value(serde_json::to_value(outcome).unwrap()).unwrap();
    let error = agent.resume(finished).await.unwrap_err();
    assert!(error.to_string().contains("not a paused run"), "{error}");
}

#[tokio::test]
async fn approval_allows_refuses_and_remembers() {
    let notes = Notes::default();
    let writes = Arc::clone(&notes.writes);
    let model = Scripted::new()
        // Read-only: runs without asking.
        .then(|_| calls(vec![call("n", "count", "{}")]))
        // Refused: never runs; the model reads why.
        .then(|_| calls(vec![call("w1", "write", r#"{"text": "secret"}"#)]))
        // Allowed for the rest of the run...
        .then(|_| calls(vec![call("w2", "write", r#"{"text": "a"}"#)]))
        // ...so this one does not ask.
        .then(|_| calls(vec![call("w3", "write", r#"{"text": "b"}"#)]))
        .then(|_| text("done"));
    let agent = Agent::builder(Arc::clone(&model), set(notes).await)
        .approval(ApprovalPolicy::UnlessReadOnly)
        .build();
    let asked = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&asked);
    let refusals = Arc::new(AtomicU32::new(0));
    let refused = Arc::clone(&refusals);
    let done = agent
        .run("write things")
        .on_event(move |e| {
            if matches!(e, Event::CallRefused { .. }) {
                refused.fetch_add(1, Ordering::SeqCst);
            }
        })
        .on_approval(move |request| {
            log.lock().unwrap().push(request.call_id.clone());
            let answer = if request.arguments["text"] == "secret" {
                Approval::Refuse("secrets stay out of notes".into())
            } else {
                Approval::AllowForRun
            };
            async move { answer }
        })
        .await
        .unwrap()
        .into_outcome();
    assert_eq!(done.text, "done");
    assert_eq!(
        *asked.lock().unwrap(),
        vec!["w1", "w2"],
        "count never asks; w3 is remembered"
    );
    assert_eq!(
        writes.load(Ordering::SeqCst),
        2,
        "w2 and w3 ran, w1 did not"
    );
    assert_eq!(refusals.load(Ordering::SeqCst), 1);
    let requests = model.requests();
    let (id, reply, is_error) = last_results(&requests[2]).remove(0);
    assert_eq!(id, "w1");
    assert!(
        is_error && reply.contains("refused (secrets stay out of notes)"),
        "{reply}"
    );
    let record = done.tool_calls.iter().find(|r| r.call_id == "w1").unwrap();
    assert_eq!(record.attempts, 0, "a refused call never runs");
}

#[tokio::test]
async fn without_a_handler_the_run_pauses_for_approval_and_resumes_with_the_decision() {
    let notes = Notes::default();
    let writes = Arc::clone(&notes.writes);
    let model = Scripted::new()
        .then(|_| {
            calls(vec![
                call("w1", "write", r#"{"text": "a"}"#),
                call("w2", "write", r#"{"text": "b"}"#),
            ])
        })
        .then(|_| text("done"));
    let agent = Agent::builder(Arc::clone(&model), set(notes).await)
        .approval(ApprovalPolicy::Always)
        .build();
    let paused = agent.run("write").await.unwrap().paused().unwrap();
    assert_eq!(
        writes.load(Ordering::SeqCst),
        0,
        "nothing ran before approval"
    );
    assert_eq!(paused.pending().len(), 2);
    assert!(paused
        .pending()
        .iter()
        .all(|p| p.kind == PendingKind::Approve));
    let restored: PausedRun =
        serde_json::from_str(&serde_json::to_string(&paused).unwrap()).unwrap();
    let done = agent
        .resume(restored)
        .approve("w1")
        .refuse("w2", "not now")
        .await
        .unwrap()
        .into_outcome();
    assert_eq!(done.text, "done");
    assert_eq!(
        writes.load(Ordering::SeqCst),
        1,
        "only the approved call ran"
    );
    let results = last_results(&model.requests()[1]);
    assert_eq!(results[0], ("w1".to_owned(), "wrote a".to_owned(), false));
    assert!(results[1].2 && results[1].1.contains("refused (not now)"));
}

/// An MCP server counting the calls it receives.
#[derive(Debug, Default)]
pub struct Counter {
    seen: Arc<AtomicU32>,
}

#[tool(description = "A counter: one tool deletes, one says it only reads")]
impl Counter {
    #[describe("Delete everything")]
    #[tool(destructive)]
    pub fn wipe(&self) -> String {
        self.seen.fetch_add(1, Ordering::SeqCst);
        "wiped".into()
    }

    #[describe("Look something up (so it says)")]
    #[tool(read_only)]
    pub fn lookup(&self) -> String {
        self.seen.fetch_add(1, Ordering::SeqCst);
        "looked up".into()
    }
}

#[tokio::test]
async fn a_refused_call_never_reaches_the_mcp_server() {
    let (client, seen) = counter_server().await;
    let tools = ToolSet::builder()
        .attach(Source::server(client))
        .build()
        .await
        .unwrap();
    let model = Scripted::new()
        .then(|_| calls(vec![call("x", "wipe", "{}")]))
        .then(|_| text("I did not wipe anything."));
    let agent = Agent::builder(Arc::clone(&model), tools)
        .tool_approval("wipe", ApprovalPolicy::Always)
        .build();
    let done = agent
        .run("wipe it")
        .on_approval(|_| async { Approval::Refuse("no".into()) })
        .await
        .unwrap()
        .into_outcome();
    assert_eq!(done.text, "I did not wipe anything.");
    assert_eq!(
        seen.load(Ordering::SeqCst),
        0,
        "the server never saw the call"
    );
    let last = model.requests()[1].messages.last().cloned();
    assert!(matches!(last, Some(ChatMessage::ToolResults { .. })));
}

/// A toolbox whose index is built by its start hook.
#[derive(Debug, Default)]
pub struct Indexed {
    index: Arc<Mutex<Option<Vec<String>>>>,
}

#[tool(description = "An indexed search")]
impl Indexed {
    #[describe("Find a word")]
    pub fn find(
        &self,
        #[param("The word")] word: String,
    ) -> Result<String, oxmcp_server::ToolError> {
        let index = self.index.lock().unwrap();
        let index = index
            .as_ref()
            .ok_or_else(|| oxmcp_server::ToolError::new("called before the index was built"))?;
        Ok(index
            .iter()
            .filter(|w| w.contains(&word))
            .cloned()
            .collect::<Vec<_>>()
            .join(","))
    }
}

#[tokio::test]
async fn a_toolbox_starts_before_its_first_call_once_and_shuts_down_when_the_set_closes() {
    let toolbox = Indexed::default();
    let index = Arc::clone(&toolbox.index);
    let starts = Arc::new(AtomicU32::new(0));
    let failures_left = Arc::new(AtomicU32::new(1));
    let shutdowns = Arc::new(AtomicU32::new(0));
    let (s, f, d) = (
        Arc::clone(&starts),
        Arc::clone(&failures_left),
        Arc::clone(&shutdowns),
    );
    let set = ToolSet::builder()
        .attach(
            Source::toolbox(toolbox)
                .on_start(move || {
                    let (index, s, f) = (Arc::clone(&index), Arc::clone(&s), Arc::clone(&f));
                    async move {
                        s.fetch_add(1, Ordering::SeqCst);
                        if f.fetch_sub(1, Ordering::SeqCst) > 0 {
                            return Err("the disk is not mounted yet");
                        }
                        *index.lock().unwrap() = Some(vec!["rust".into(), "rustic".into()]);
                        Ok(())
                    }
                })
                .on_shutdown(move || async move {
                    d.fetch_add(1, Ordering::SeqCst);
                }),
        )
        .build()
        .await
        .unwrap();
    assert_eq!(
        starts.load(Ordering::SeqCst),
        0,
        "nothing starts before a call"
    );

    // The first start fails: the call fails naming the toolbox; the next call starts it.
    let failed = set.call("find", json!({"word": "rust"})).await.unwrap();
    assert!(failed.is_error());
    let text = failed.content[0].as_text().unwrap().to_owned();
    assert!(
        text.contains("local toolbox `Indexed` could not start: the disk is not mounted yet"),
        "{text}"
    );
    let found = set.call("find", json!({"word": "rust"})).await.unwrap();
    assert_eq!(found.content[0].as_text(), Some("rust,rustic"));
    set.call("find", json!({"word": "ic"})).await.unwrap();
    assert_eq!(
        starts.load(Ordering::SeqCst),
        2,
        "started once it succeeded"
    );

    set.close().await;
    set.close().await;
    assert_eq!(shutdowns.load(Ordering::SeqCst), 1, "shut down once");
}

#[tokio::test]
async fn a_set_dropped_in_a_runtime_shuts_its_started_sources_down_and_start_reports_failures() {
    let shutdowns = Arc::new(AtomicU32::new(0));
    let d = Arc::clone(&shutdowns);
    let (tx, rx) = tokio::sync::oneshot::channel();
    let set = ToolSet::builder()
        .attach(
            Source::toolbox(Notes::default())
                .on_start(|| async { Ok::<_, String>(()) })
                .on_shutdown(move || async move {
                    d.fetch_add(1, Ordering::SeqCst);
                    let _ = tx.send(());
                }),
        )
        .build()
        .await
        .unwrap();
    set.start().await.unwrap();
    drop(set);
    tokio::time::timeout(std::time::Duration::from_secs(5), rx)
        .await
        .expect("the shutdown hook ran")
        .unwrap();
    assert_eq!(shutdowns.load(Ordering::SeqCst), 1);

    let never = ToolSet::builder()
        .attach(Source::toolbox(Notes::default()).on_start(|| async { Err("no licence") }))
        .build()
        .await
        .unwrap();
    let error = never.start().await.unwrap_err();
    assert_eq!(
        error.to_string(),
        "local toolbox `Notes` could not start: no licence"
    );
}

#[tokio::test]
async fn caller_tools_take_a_prefix_and_allow_lists_like_any_source() {
    let other = CallerTool::new("get_time", "The user's clock", json!({"type": "object"})).unwrap();
    let tools = ToolSet::builder()
        .attach(
            Source::caller([location(), other])
                .prefix("ui_")
                .allow(["get_location"]),
        )
        .build()
        .await
        .unwrap();
    assert_eq!(tools.names(), vec!["ui_get_location"]);
    let model = Scripted::new()
        .then(|_| calls(vec![call("c1", "ui_get_location", r#"{"precise": false}"#)]))
        .then(|_| text("ok"));
    let agent = Agent::builder(Arc::clone(&model), tools).build();
    let paused = agent.run("where?").await.unwrap().paused().unwrap();
    assert_eq!(paused.pending()[0].tool, "ui_get_location");
    let error = agent
        .tools()
        .call("ui_get_location", json!({"precise": true}))
        .await
        .unwrap_err();
    assert!(
        error.to_string().contains("executed by the caller"),
        "{error}"
    );
    let offered = &model.requests()[0].tools;
    assert_eq!(offered.len(), 1);
    assert!(
        offered[0].strict_parameters.is_some(),
        "a strict form like any tool"
    );
}

/// A client of a [`Counter`] served in process, with the count of calls it receives.
async fn counter_server() -> (oxmcp_client::Client, Arc<AtomicU32>) {
    let counter = Counter::default();
    let seen = Arc::clone(&counter.seen);
    let client = connect(Server::builder("counter", "1").toolbox(counter).build()).await;
    (client, seen)
}

/// An agent asking unless a tool is read-only, over `source`, whose model
/// calls `lookup` then answers.
async fn looking_up(source: Source) -> Agent {
    let tools = ToolSet::builder().attach(source).build().await.unwrap();
    let model = Scripted::new()
        .then(|_| calls(vec![call("l1", "lookup", "{}")]))
        .then(|_| text("done"));
    Agent::builder(model, tools)
        .approval(ApprovalPolicy::UnlessReadOnly)
        .build()
}

#[tokio::test]
async fn a_remote_servers_read_only_claim_is_not_trusted_unless_the_source_says_so() {
    let (client, seen) = counter_server().await;
    let paused = looking_up(Source::server(client))
        .await
        .run("look it up")
        .await
        .unwrap()
        .paused()
        .unwrap();
    assert_eq!(
        seen.load(Ordering::SeqCst),
        0,
        "the server's read-only claim let the call run unasked"
    );
    assert_eq!(paused.pending().len(), 1);
    assert_eq!(paused.pending()[0].kind, PendingKind::Approve);

    // Trusted when added: its claim counts, as a local toolbox's does.
    let (client, seen) = counter_server().await;
    let trusted = looking_up(Source::server(client).trust_annotations(true)).await;
    let done = trusted.run("look it up").await.unwrap().into_outcome();
    assert_eq!(done.text, "done");
    assert_eq!(seen.load(Ordering::SeqCst), 1);
}
