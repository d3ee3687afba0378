//! The loop and the tool sets, in process: a scripted `ChatModel`, local
//! toolboxes, and MCP servers served over in-memory pipes to real clients.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use oxmcp_agent::{
    chat::ToolChoice, Agent, CancellationToken, ErrorPolicy, Event, Finish, RunError, Source,
    ToolSet, ToolSetError,
};
use oxmcp_server::{tool, Context, Server, ToolEntry, ToolError};
use serde_json::json;

use crate::support;
use support::{call, calls, connect, connect_in, last_results, text, Scripted};

#[derive(Debug, Default)]
pub struct Maths {
    flaky_failures: Arc<AtomicU32>,
}

#[tool(description = "Arithmetic")]
impl Maths {
    #[describe("Add two numbers")]
    pub fn add(&self, #[param("First")] a: f64, #[param("Second")] b: f64) -> f64 {
        a + b
    }

    #[describe("Divide a by b")]
    pub fn divide(
        &self,
        #[param("Dividend")] a: f64,
        #[param("Divisor")] b: f64,
    ) -> Result<f64, ToolError> {
        if b == 0.0 {
            return Err(ToolError::new("division by zero"));
        }
        Ok(a / b)
    }

    #[describe("Fails while its failure budget lasts")]
    pub fn flaky(&self) -> Result<String, ToolError> {
        let left = self.flaky_failures.load(Ordering::SeqCst);
        if left > 0 {
            self.flaky_failures.store(left - 1, Ordering::SeqCst);
            return Err(ToolError::new(format!("transient failure ({left} left)")));
        }
        Ok("finally".into())
    }

    #[describe("Sleep, then echo")]
    pub async fn slow_echo(
        &self,
        #[param("Text")] text: String,
        #[param("Milliseconds")] ms: u64,
    ) -> String {
        tokio::time::sleep(Duration::from_millis(ms)).await;
        text
    }
}

async fn maths_set() -> ToolSet {
    ToolSet::builder()
        .toolbox(Maths::default())
        .build()
        .await
        .unwrap()
}

async fn run_within<T>(f: impl std::future::IntoFuture<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(20), f)
        .await
        .expect("the run did not finish within 20 s")
}

#[tokio::test]
async fn a_tool_call_then_an_answer() {
    let model = Scripted::new()
        .then(|_| calls(vec![call("c1", "add", r#"{"a": 2, "b": 3}"#)]))
        .then(|r| text(&format!("It is {}.", last_results(r)[0].1)));
    let agent = Agent::builder(Arc::clone(&model), maths_set().await).build();
    let outcome = run_within(agent.run("What is 2 + 3?"))
        .await
        .unwrap()
        .into_outcome();
    assert_eq!(outcome.text, "It is 5.");
    assert_eq!(outcome.turns, 2);
    assert_eq!(outcome.tool_calls.len(), 1);
    assert_eq!(outcome.tool_calls[0].tool.as_deref(), Some("add"));
    assert!(!outcome.tool_calls[0].is_error);
    // user, assistant (call), tool results, assistant (answer)
    assert_eq!(outcome.transcript.len(), 4);
    let offered: Vec<String> = model.requests()[0]
        .tools
        .iter()
        .map(|t| t.name.clone())
        .collect();
    assert_eq!(offered, ["add", "divide", "flaky", "slow_echo"]);
}

#[tokio::test]
async fn one_turns_calls_run_concurrently_and_answer_in_call_order() {
    // The first call sleeps 400 ms, the second 10 ms: in sequence the run
    // takes > 410 ms of tool time, concurrently the results still come back
    // in call order.
    let model = Scripted::new()
        .then(|_| {
            calls(vec![
                call("c1", "slow_echo", r#"{"text": "first", "ms": 400}"#),
                call("c2", "slow_echo", r#"{"text": "second", "ms": 10}"#),
            ])
        })
        .then(|_| text("done"));
    let finished = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&finished);
    let agent = Agent::builder(Arc::clone(&model), maths_set().await).build();
    let outcome = run_within(agent.run("go").on_event(move |e| {
        if let Event::ToolCallFinished { call_id, .. } = e {
            seen.lock().unwrap().push(call_id.clone());
        }
    }))
    .await
    .unwrap()
    .into_outcome();
    // The second call finished first: they ran at the same time.
    assert_eq!(*finished.lock().unwrap(), ["c2", "c1"]);
    let results = last_results(&model.requests()[1]);
    assert_eq!(results[0], ("c1".into(), "first".into(), false));
    assert_eq!(results[1], ("c2".into(), "second".into(), false));
    assert_eq!(outcome.tool_calls[0].call_id, "c1");
}

#[tokio::test]
async fn the_models_mistakes_go_back_to_it_as_tool_errors() {
    let model = Scripted::new()
        .then(|_| {
            calls(vec![
                call("u", "no_such_tool", "{}"),
                call("j", "add", r#"{"a": 2, "b": "#),
                call("t", "add", "[1, 2]"),
                call("v", "add", r#"{"a": "two", "b": 3}"#),
                call("m", "add", r#"{"a": 2}"#),
                call("e", "divide", r#"{"a": 1, "b": 0}"#),
            ])
        })
        .then(|_| text("sorry"));
    let agent = Agent::builder(Arc::clone(&model), maths_set().await).build();
    let outcome = run_within(agent.run("go")).await.unwrap().into_outcome();
    assert_eq!(outcome.text, "sorry");
    let results = last_results(&model.requests()[1]);
    let texts: Vec<&str> = results.iter().map(|r| r.1.as_str()).collect();
    assert!(results.iter().all(|r| r.2), "all are errors: {results:?}");
    assert!(
        texts[0].contains("no tool named `no_such_tool`") && texts[0].contains("add"),
        "{}",
        texts[0]
    );
    assert!(texts[1].contains("not valid JSON"), "{}", texts[1]);
    assert!(
        texts[2].contains("must be a JSON object, not an array"),
        "{}",
        texts[2]
    );
    assert!(
        texts[3].contains("invalid arguments for `add`") && texts[3].contains("/a"),
        "{}",
        texts[3]
    );
    assert!(
        texts[4].contains("invalid arguments") && texts[4].contains("\"b\""),
        "{}",
        texts[4]
    );
    assert_eq!(texts[5], "error: division by zero");
    // Refused calls never ran; the isError one ran once.
    let attempts: Vec<u32> = outcome.tool_calls.iter().map(|c| c.attempts).collect();
    assert_eq!(attempts, [0, 0, 0, 0, 0, 1]);
}

async fn flaky_run(
    policy: ErrorPolicy,
    failures: u32,
) -> (Result<oxmcp_agent::Outcome, RunError>, Arc<Scripted>) {
    let maths = Maths::default();
    maths.flaky_failures.store(failures, Ordering::SeqCst);
    let set = ToolSet::builder().toolbox(maths).build().await.unwrap();
    let model = Scripted::new()
        .then(|_| {
            calls(vec![
                call("f", "flaky", "{}"),
                call("a", "add", r#"{"a": 1, "b": 1}"#),
            ])
        })
        .then(|_| text("ok"));
    let agent = Agent::builder(Arc::clone(&model), set)
        .tool_policy("flaky", policy)
        .build();
    (
        run_within(agent.run("go")).await.map(Finish::into_outcome),
        model,
    )
}

#[tokio::test]
async fn error_policy_report_retry_and_fail() {
    // Report (the default): the error text goes back.
    let (outcome, model) = flaky_run(ErrorPolicy::Report, 1).await;
    let outcome = outcome.unwrap();
    assert_eq!(outcome.tool_calls[0].attempts, 1);
    assert_eq!(
        last_results(&model.requests()[1])[0].1,
        "error: transient failure (1 left)"
    );

    // Retry 2: two failures, then success on the third attempt.
    let (outcome, model) = flaky_run(ErrorPolicy::Retry(2), 2).await;
    let outcome = outcome.unwrap();
    assert_eq!(outcome.tool_calls[0].attempts, 3);
    assert!(!outcome.tool_calls[0].is_error);
    assert_eq!(last_results(&model.requests()[1])[0].1, "finally");

    // Retry 1 with three failures: two attempts, then the error is reported.
    let (outcome, model) = flaky_run(ErrorPolicy::Retry(1), 3).await;
    assert_eq!(outcome.unwrap().tool_calls[0].attempts, 2);
    assert_eq!(
        last_results(&model.requests()[1])[0].1,
        "error: transient failure (2 left)"
    );

    // Fail: the run ends, naming the tool, and carries the transcript.
    let (outcome, model) = flaky_run(ErrorPolicy::Fail, 1).await;
    match outcome {
        Err(RunError::ToolFailed {
            tool,
            message,
            outcome,
        }) => {
            assert_eq!(tool, "flaky");
            assert!(message.contains("transient failure"));
            assert_eq!(outcome.turns, 1);
        }
        other => panic!("expected ToolFailed, got {other:?}"),
    }
    assert_eq!(model.requests().len(), 1);
}

#[tokio::test]
async fn tool_choice_falls_back_to_auto_after_the_first_tool_call() {
    for (keep, second) in [(false, ToolChoice::Auto), (true, ToolChoice::Required)] {
        let model = Scripted::new()
            .then(|_| calls(vec![call("c1", "add", r#"{"a": 1, "b": 2}"#)]))
            .then(|_| text("3"));
        let agent = Agent::builder(Arc::clone(&model), maths_set().await)
            .tool_choice(ToolChoice::Required)
            .keep_tool_choice(keep)
            .build();
        run_within(agent.run("go")).await.unwrap();
        let choices: Vec<ToolChoice> = model
            .requests()
            .iter()
            .map(|r| r.tool_choice.clone())
            .collect();
        assert_eq!(choices, [ToolChoice::Required, second]);
    }
    // A named tool, per run; `none` passes through.
    let model = Scripted::new().then(|_| text("no")).then(|_| text("none"));
    let agent = Agent::builder(Arc::clone(&model), maths_set().await).build();
    run_within(
        agent
            .run("go")
            .tool_choice(ToolChoice::Tool("divide".into())),
    )
    .await
    .unwrap();
    run_within(agent.run("go").tool_choice(ToolChoice::None))
        .await
        .unwrap();
    assert_eq!(
        model.requests()[0].tool_choice,
        ToolChoice::Tool("divide".into())
    );
    assert_eq!(model.requests()[1].tool_choice, ToolChoice::None);
    // Naming a tool the run does not have fails before any request.
    let err = run_within(agent.run("go").tool_choice(ToolChoice::Tool("nope".into())))
        .await
        .unwrap_err();
    assert!(
        matches!(err, RunError::ToolSet(ToolSetError::UnknownTool { .. })),
        "{err:?}"
    );
    assert_eq!(model.requests().len(), 2);
}

#[tokio::test]
async fn max_turns_ends_the_run_with_its_transcript() {
    let model = Scripted::new();
    for i in 0..5 {
        model.then(move |_| calls(vec![call(&format!("c{i}"), "add", r#"{"a": 1, "b": 1}"#)]));
    }
    let agent = Agent::builder(Arc::clone(&model), maths_set().await)
        .max_turns(3)
        .build();
    let err = run_within(agent.run("loop forever")).await.unwrap_err();
    let RunError::MaxTurns { max_turns, outcome } = &err else {
        panic!("expected MaxTurns, got {err:?}");
    };
    assert_eq!(*max_turns, 3);
    assert_eq!(outcome.turns, 3);
    assert_eq!(outcome.tool_calls.len(), 3);
    // user + 3 × (assistant, results)
    assert_eq!(outcome.transcript.len(), 7);
    assert_eq!(model.requests().len(), 3);
    assert!(err.to_string().contains("3 turns"));
}

#[tokio::test]
async fn a_model_error_ends_the_run_naming_the_provider() {
    let model = Scripted::new().then(|_| calls(vec![call("c1", "add", r#"{"a": 1, "b": 1}"#)]));
    let agent = Agent::builder(Arc::clone(&model), maths_set().await).build();
    let err = run_within(agent.run("go")).await.unwrap_err();
    let RunError::Model {
        turn,
        error,
        outcome,
    } = &err
    else {
        panic!("expected Model, got {err:?}");
    };
    assert_eq!(*turn, 2);
    assert_eq!(error.provider(), "scripted");
    assert_eq!(outcome.tool_calls.len(), 1);
}

/// A server whose `wait` tool blocks until cancelled and reports it: the
/// server stops a cancelled call by dropping it, which the guard sees.
#[derive(Debug)]
pub struct Waiter {
    started: Arc<tokio::sync::Notify>,
    cancelled: Arc<tokio::sync::Notify>,
}

struct OnDrop(Arc<tokio::sync::Notify>);

impl Drop for OnDrop {
    fn drop(&mut self) {
        self.0.notify_one();
    }
}

#[tool(description = "Waiting")]
impl Waiter {
    #[describe("Wait until cancelled")]
    pub async fn wait(&self, ctx: Context) -> String {
        let _guard = OnDrop(Arc::clone(&self.cancelled));
        self.started.notify_one();
        ctx.cancelled().await;
        "cancelled".into()
    }
}

#[tokio::test]
async fn cancelling_a_run_cancels_remote_calls_on_their_server() {
    for (drop_instead, era) in [
        (false, oxmcp_client::Era::Legacy),
        (true, oxmcp_client::Era::Legacy),
        (false, oxmcp_client::Era::Modern),
        (true, oxmcp_client::Era::Modern),
    ] {
        let started = Arc::new(tokio::sync::Notify::new());
        let cancelled = Arc::new(tokio::sync::Notify::new());
        let server = Server::builder("waiter", "1.0.0")
            .toolbox(Waiter {
                started: Arc::clone(&started),
                cancelled: Arc::clone(&cancelled),
            })
            .build();
        let client = connect_in(server, era).await;
        let set = ToolSet::builder()
            .server(client.clone())
            .build()
            .await
            .unwrap();
        let model = Scripted::new().then(|_| calls(vec![call("w", "wait", "{}")]));
        let agent = Agent::builder(Arc::clone(&model), set).build();
        let token = CancellationToken::new();
        let run = tokio::spawn({
            let agent = agent.clone();
            let token = token.clone();
            async move { agent.run("wait").cancel_on(token).await }
        });
        run_within(started.notified()).await;
        if drop_instead {
            run.abort();
        } else {
            token.cancel();
            let err = run_within(run).await.unwrap().unwrap_err();
            let RunError::Cancelled { outcome } = err else {
                panic!("expected Cancelled, got {err:?}");
            };
            assert_eq!(outcome.turns, 1);
        }
        // The server saw notifications/cancelled: its tool's context fired.
        run_within(cancelled.notified()).await;
        client.close().await;
    }
}

/// Remote tools that run as tasks (the tasks extension).
#[derive(Debug)]
pub struct Jobs {
    cancelled: Arc<tokio::sync::Notify>,
}

#[tool(description = "Long jobs")]
impl Jobs {
    #[describe("Builds a report over a moment, reporting progress; only runs as a task")]
    #[tool(task = required)]
    pub async fn report(&self, ctx: Context) -> String {
        for step in 0..3 {
            ctx.progress(f64::from(step), Some(3.0));
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
        "report ready".into()
    }

    #[describe("Runs until cancelled; may run as a task")]
    #[tool(task = optional)]
    pub async fn forever(&self, ctx: Context) -> String {
        let _guard = OnDrop(Arc::clone(&self.cancelled));
        ctx.cancelled().await;
        "cancelled".into()
    }
}

#[tokio::test]
async fn remote_tools_that_run_as_tasks_complete_or_are_cancelled_through_the_tool_set() {
    for era in [oxmcp_client::Era::Legacy, oxmcp_client::Era::Modern] {
        let cancelled = Arc::new(tokio::sync::Notify::new());
        let server = Server::builder("jobs", "1.0.0")
            .toolbox(Jobs {
                cancelled: Arc::clone(&cancelled),
            })
            .build();
        let client = connect_in(server, era).await;
        let set = ToolSet::builder()
            .server(client.clone())
            .build()
            .await
            .unwrap();
        // A task, followed by the client to its result.
        let model = Scripted::new()
            .then(|_| calls(vec![call("r", "report", "{}")]))
            .then(|r| text(&last_results(r)[0].1));
        let agent = Agent::builder(Arc::clone(&model), set.clone()).build();
        let outcome = run_within(agent.run("report"))
            .await
            .unwrap()
            .into_outcome();
        assert_eq!(outcome.text, "report ready", "{era:?}");
        assert!(!outcome.tool_calls[0].is_error, "{era:?}");
        // A task cancelled midway: the run is cancelled, the task at the
        // server too (tasks/cancel), and its tool stops.
        let model = Scripted::new().then(|_| calls(vec![call("f", "forever", "{}")]));
        let agent = Agent::builder(Arc::clone(&model), set).build();
        let token = CancellationToken::new();
        let run = tokio::spawn({
            let agent = agent.clone();
            let token = token.clone();
            async move { agent.run("forever").cancel_on(token).await }
        });
        tokio::time::sleep(std::time::Duration::from_millis(700)).await;
        token.cancel();
        let err = run_within(run).await.unwrap().unwrap_err();
        assert!(
            matches!(err, RunError::Cancelled { .. }),
            "{era:?}: {err:?}"
        );
        run_within(cancelled.notified()).await;
        client.close().await;
    }
}

#[derive(Debug)]
pub struct Other;

#[tool(description = "Another toolbox with an `add`")]
impl Other {
    #[describe("Concatenate two texts")]
    pub fn add(&self, #[param("First")] a: String, #[param("Second")] b: String) -> String {
        a + &b
    }
}

#[tokio::test]
async fn names_are_unique_collisions_are_refused_or_prefixed() {
    let err = ToolSet::builder()
        .toolbox(Maths::default())
        .toolbox(Other)
        .build()
        .await
        .unwrap_err();
    let message = err.to_string();
    assert!(
        message.contains("`add`") && message.contains("`Maths`") && message.contains("`Other`"),
        "{message}"
    );
    assert!(message.contains("prefix"), "{message}");

    let set = ToolSet::builder()
        .toolbox(Maths::default())
        .attach(Source::toolbox(Other).prefix("text."))
        .build()
        .await
        .unwrap();
    assert_eq!(
        set.names(),
        ["add", "divide", "flaky", "slow_echo", "text.add"]
    );
    // The model sees a provider-safe name and its call reaches `text.add`.
    let view = set.view();
    let def = view
        .definitions()
        .into_iter()
        .find(|d| d.description.contains("Concatenate"))
        .unwrap();
    assert!(
        def.name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'),
        "{}",
        def.name
    );
    let model = Scripted::new()
        .then(move |_| calls(vec![call("c", &def.name, r#"{"a": "x", "b": "y"}"#)]))
        .then(|r| text(&last_results(r)[0].1));
    let agent = Agent::builder(Arc::clone(&model), set).build();
    let outcome = run_within(agent.run("go")).await.unwrap().into_outcome();
    assert_eq!(outcome.text, "xy");
    assert_eq!(outcome.tool_calls[0].tool.as_deref(), Some("text.add"));

    let bad = ToolSet::builder()
        .attach(Source::toolbox(Other).prefix("no spaces "))
        .build()
        .await
        .unwrap_err();
    assert!(matches!(bad, ToolSetError::InvalidName { .. }), "{bad:?}");
}

#[tokio::test]
async fn allow_and_block_lists_per_source() {
    let server = Server::builder("maths-server", "1.0.0")
        .toolbox(Maths::default())
        .build();
    let client = connect(server).await;
    let set = ToolSet::builder()
        .attach(
            Source::server(client.clone())
                .allow(["add", "divide", "missing"])
                .block(["divide"]),
        )
        .attach(
            Source::toolbox(Maths::default())
                .prefix("local_")
                .block(["flaky", "slow_echo"]),
        )
        .build()
        .await
        .unwrap();
    assert_eq!(set.names(), ["add", "local_add", "local_divide"]);
    let diagnostics = set.diagnostics();
    assert!(
        diagnostics
            .iter()
            .any(|d| d.tool == "missing" && d.source == "maths-server"),
        "{diagnostics:?}"
    );
    assert_eq!(set.view().source_of("add"), Some("maths-server"));
    assert_eq!(set.view().source_of("local_add"), Some("Maths"));
    client.close().await;
}

#[tokio::test]
async fn per_run_tools_never_change_the_set() {
    let set = maths_set().await;
    let shout = ToolEntry::dynamic(
        "add",
        "Shout a text (replaces add for this run)",
        json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}),
        |args, _| async move { args["text"].as_str().unwrap_or_default().to_uppercase() },
    )
    .unwrap();
    let model = Scripted::new()
        .then(|_| calls(vec![call("c", "add", r#"{"text": "hi"}"#)]))
        .then(|r| text(&last_results(r)[0].1))
        .then(|_| text("no tools"))
        .then(|_| text("two tools"));
    let agent = Agent::builder(Arc::clone(&model), set.clone()).build();
    let outcome = run_within(
        agent
            .run("go")
            .with_tools([shout])
            .allowed_tools(["add", "divide"]),
    )
    .await
    .unwrap()
    .into_outcome();
    assert_eq!(outcome.text, "HI");
    run_within(agent.run("go").without_tools()).await.unwrap();
    run_within(agent.run("go").allowed_tools(["add", "divide"]))
        .await
        .unwrap();
    let requests = model.requests();
    let names = |i: usize| {
        requests[i]
            .tools
            .iter()
            .map(|t| t.name.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(names(0), ["add", "divide"]);
    assert!(requests[0].tools[0].description.contains("Shout"));
    assert!(names(2).is_empty());
    assert_eq!(names(3), ["add", "divide"]);
    assert!(requests[3].tools[0].description.contains("Add two numbers"));
    assert_eq!(set.names(), ["add", "divide", "flaky", "slow_echo"]);
    let err = run_within(agent.run("go").allowed_tools(["nope"]))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("not usable") || matches!(err, RunError::ToolSet(_)));
    assert!(std::error::Error::source(&err)
        .unwrap()
        .to_string()
        .contains("`nope`"));
}

#[derive(Debug)]
pub struct Grower;

#[tool(description = "Adds a tool to its own server")]
impl Grower {
    #[describe("Add a `late` tool to this server")]
    pub fn grow(&self, ctx: Context) -> String {
        let late = ToolEntry::dynamic(
            "late",
            "A tool added mid-run",
            json!({"type": "object"}),
            |_, _| async { "late result" },
        )
        .unwrap();
        ctx.server().unwrap().add_tool(late).unwrap();
        "grown".into()
    }
}

#[tokio::test]
async fn a_tool_added_by_a_server_mid_run_is_offered_on_the_next_turn() {
    let server = Server::builder("grower", "1.0.0").toolbox(Grower).build();
    let client = connect(server).await;
    let set = ToolSet::builder()
        .server(client.clone())
        .build()
        .await
        .unwrap();
    let model = Scripted::new()
        .then(|_| calls(vec![call("g", "grow", "{}")]))
        .then(|_| calls(vec![call("l", "late", "{}")]))
        .then(|r| text(&last_results(r)[0].1));
    let agent = Agent::builder(Arc::clone(&model), set.clone()).build();
    let changed = Arc::new(AtomicU32::new(0));
    let seen = Arc::clone(&changed);
    let outcome = run_within(agent.run("grow").on_event(move |e| {
        if matches!(e, Event::ToolsChanged { .. }) {
            seen.fetch_add(1, Ordering::SeqCst);
        }
    }))
    .await
    .unwrap()
    .into_outcome();
    assert_eq!(outcome.text, "late result");
    let requests = model.requests();
    assert_eq!(requests[0].tools.len(), 1);
    assert_eq!(requests[1].tools.len(), 2);
    assert_eq!(changed.load(Ordering::SeqCst), 1);
    assert_eq!(set.names(), ["grow", "late"]);
    client.close().await;
}

#[tokio::test]
async fn events_follow_the_run() {
    let model = Scripted::new()
        .then(|_| calls(vec![call("c1", "add", r#"{"a": 2, "b": 3}"#)]))
        .then(|_| text("5"));
    let agent = Agent::builder(Arc::clone(&model), maths_set().await).build();
    let events = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&events);
    run_within(agent.run("go").on_event(move |e| {
        let name = match e {
            Event::TurnStarted { turn, .. } => format!("turn {turn}"),
            Event::Text(t) => format!("text {t}"),
            Event::ToolCallStarted { tool, .. } => format!("start {tool}"),
            Event::ToolCallFinished { tool, is_error, .. } => format!("finish {tool} {is_error}"),
            Event::TurnEnded { turn, .. } => format!("end {turn}"),
            other => format!("{other:?}"),
        };
        sink.lock().unwrap().push(name);
    }))
    .await
    .unwrap();
    assert_eq!(
        *events.lock().unwrap(),
        [
            "turn 1",
            "end 1",
            "start add",
            "finish add false",
            "turn 2",
            "text 5",
            "end 2"
        ]
    );
}

#[tokio::test]
async fn a_server_that_went_away_fails_its_calls_not_the_run() {
    let server = Server::builder("maths-server", "1.0.0")
        .toolbox(Maths::default())
        .build();
    let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    let (server_read, server_write) = tokio::io::split(server_end);
    let serving = tokio::spawn(server.serve_io(server_read, server_write));
    let (client_read, client_write) = tokio::io::split(client_end);
    let client = oxmcp_client::Client::builder()
        .protocol(oxmcp_client::Era::Legacy)
        .connect_io(client_read, client_write)
        .await
        .unwrap();
    let set = ToolSet::builder()
        .attach(Source::server(client.clone()).prefix("remote_"))
        .toolbox(Other)
        .build()
        .await
        .unwrap();
    serving.abort();
    let _ = serving.await;
    let model = Scripted::new()
        .then(|_| {
            calls(vec![
                call("r", "remote_add", r#"{"a": 1, "b": 2}"#),
                call("l", "add", r#"{"a": "x", "b": "y"}"#),
            ])
        })
        .then(|r| text(&format!("{:?}", last_results(r))));
    let agent = Agent::builder(Arc::clone(&model), set).build();
    let outcome = run_within(agent.run("go")).await.unwrap().into_outcome();
    let results = last_results(&model.requests()[1]);
    assert!(results[0].2, "the remote call failed: {results:?}");
    assert!(results[0].1.starts_with("error: "), "{results:?}");
    assert_eq!(results[1], ("l".into(), "xy".into(), false));
    // The model still saw the server's tools on the second turn.
    assert!(model.requests()[1]
        .tools
        .iter()
        .any(|t| t.name == "remote_add"));
    assert_eq!(outcome.turns, 2);
}

#[tokio::test]
async fn continuing_a_transcript_does_not_repeat_the_instructions() {
    let model = Scripted::new()
        .then(|_| text("Hello."))
        .then(|_| text("Still here."));
    let tools = ToolSet::builder().build().await.unwrap();
    let agent = Agent::builder(Arc::clone(&model), tools)
        .system("Be brief.")
        .build();
    let first = agent.run("Hi").await.unwrap().into_outcome();
    let mut messages = first.transcript.clone();
    messages.push(oxmcp_agent::chat::ChatMessage::user("Are you there?"));
    let second = agent.run_messages(messages).await.unwrap().into_outcome();
    let systems = |m: &[oxmcp_agent::chat::ChatMessage]| {
        m.iter()
            .filter(|m| matches!(m, oxmcp_agent::chat::ChatMessage::System { .. }))
            .count()
    };
    assert_eq!(systems(&second.transcript), 1, "{:?}", second.transcript);
    assert_eq!(systems(&model.requests()[1].messages), 1);
    // A conversation of its own still gets them.
    assert_eq!(systems(&first.transcript), 1);
}
