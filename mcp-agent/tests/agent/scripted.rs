//! The agent against scripted model servers that speak OpenAI's (Chat
//! Completions and Responses) and Anthropic's wire formats (JSON and SSE)
//! and check every request against the official SDKs' request types
//! (`tests/agent/scripted_model.py`). `responses.rs` has what is
//! particular to the Responses API.

use crate::support;

use std::sync::Arc;
use std::time::Duration;

use oxmcp_agent::{
    chat::ChatModel, chat::ModelError, chat::ToolChoice, Agent, CancellationToken, ErrorPolicy,
    RunError, ToolSet,
};
use oxmcp_server::{tool, Context, Server};
use serde_json::{json, Value};
use support::{Calc, Provider, ScriptedModel, CALC_TOOLS as TOOLS, KEY};

use Provider::{Anthropic as A, OpenAi as O, Responses as R};

fn model(server: &ScriptedModel, provider: Provider, streaming: bool) -> Box<dyn ChatModel> {
    provider.model(server, streaming)
}

/// The API, as scripts name it.
fn name(provider: Provider) -> &'static str {
    provider.script_name()
}

/// The provider, as the model names it (in errors).
fn reported(provider: Provider) -> &'static str {
    provider.reported()
}

/// The provider's own form of a tool choice.
fn choice(provider: Provider, choice: &str) -> Value {
    match (provider, choice) {
        (O | R, "auto" | "required" | "none") => json!(choice),
        (O, tool) => json!({"type": "function", "function": {"name": tool}}),
        (R, tool) => json!({"type": "function", "name": tool}),
        (A, "required") => json!({"type": "any"}),
        (A, "auto" | "none") => json!({"type": choice}),
        (A, tool) => json!({"type": "tool", "name": tool}),
    }
}

async fn agent(server: &ScriptedModel, provider: Provider, streaming: bool) -> Agent {
    let tools = ToolSet::builder().toolbox(Calc).build().await.unwrap();
    Agent::builder(model(server, provider, streaming), tools).build()
}

async fn within<T>(f: impl std::future::IntoFuture<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(60), f)
        .await
        .expect("the run did not finish within 60 s")
}

#[tokio::test(flavor = "multi_thread")]
async fn parallel_calls_and_an_is_error_result_in_each_provider_and_mode() {
    for (provider, streaming) in [
        (O, false),
        (O, true),
        (R, false),
        (R, true),
        (A, false),
        (A, true),
    ] {
        let script = json!({"steps": [
            {"provider": name(provider),
             "expect": {"tools": TOOLS, "tool_choice": choice(provider, "auto"), "stream": streaming,
                        "last_user_contains": "2 + 3"},
             "respond": {"text": "Let me compute.", "tool_calls": [
                {"id": "call_a", "name": "add", "arguments": "{\"a\": 2, \"b\": 3}"},
                {"id": "call_d", "name": "divide", "arguments": "{\"a\": 1, \"b\": 0}"},
                {"id": "call_r", "name": "round", "arguments": "{\"x\": 2.567, \"places\": null}"}],
                "usage": {"input": 100, "output": 20}}},
            {"provider": name(provider),
             "expect": {"tool_results": [
                {"id": "call_a", "contains": "5", "is_error": false},
                {"id": "call_d", "contains": "division by zero", "is_error": true},
                {"id": "call_r", "contains": "3", "is_error": false}]},
             "respond": {"text": "2 + 3 = 5; 1/0 is undefined.", "usage": {"input": 150, "output": 12}}}
        ]});
        let server = ScriptedModel::start(script, KEY);
        let agent = agent(&server, provider, streaming).await;
        let outcome = within(agent.run("What is 2 + 3, and 1/0?"))
            .await
            .unwrap_or_else(|e| {
                panic!(
                    "{provider:?} streaming={streaming}: {e:?}\n{}",
                    server.log()
                )
            })
            .into_outcome();
        assert_eq!(outcome.text, "2 + 3 = 5; 1/0 is undefined.");
        assert_eq!(outcome.turns, 2);
        assert_eq!(outcome.usage.input_tokens, 250, "{provider:?} {streaming}");
        assert_eq!(outcome.usage.output_tokens, 32);
        let ids: Vec<&str> = outcome
            .tool_calls
            .iter()
            .map(|c| c.call_id.as_str())
            .collect();
        assert_eq!(ids, ["call_a", "call_d", "call_r"]);
        assert!(outcome.tool_calls[1].is_error);
        server.assert_clean();
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn unknown_tools_unparsable_and_invalid_arguments_go_back_to_the_model() {
    // Anthropic's JSON answers carry `input` as an object, so unparsable
    // arguments exist only in a stream (partial_json fragments).
    for (provider, streaming) in [(O, false), (O, true), (R, false), (R, true), (A, true)] {
        let script = json!({"steps": [
            {"respond": {"tool_calls": [
                {"id": "call_u", "name": "subtract", "arguments": "{}"},
                {"id": "call_j", "name": "add", "arguments": "{\"a\": 2, \"b\": "},
                {"id": "call_v", "name": "add", "arguments": "{\"a\": \"two\", \"b\": 3}"}]}},
            {"expect": {"tool_results": [
                {"id": "call_u", "contains": "no tool named `subtract`", "is_error": true},
                {"id": "call_j", "contains": "not valid JSON", "is_error": true},
                {"id": "call_v", "contains": "invalid arguments for `add`", "is_error": true}]},
             "respond": {"text": "I made mistakes."}}
        ]});
        let server = ScriptedModel::start(script, KEY);
        let agent = agent(&server, provider, streaming).await;
        let outcome = within(agent.run("go"))
            .await
            .unwrap_or_else(|e| panic!("{provider:?}: {e:?}\n{}", server.log()))
            .into_outcome();
        assert_eq!(outcome.text, "I made mistakes.");
        assert!(outcome
            .tool_calls
            .iter()
            .all(|c| c.is_error && c.attempts == 0));
        server.assert_clean();
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn each_error_policy() {
    for provider in [O, R, A] {
        // Retry twice, then report: three attempts, the error goes back.
        let script = json!({"steps": [
            {"respond": {"tool_calls": [{"id": "call_b", "name": "broken", "arguments": "{}"}]}},
            {"expect": {"tool_results": [{"id": "call_b", "contains": "the tool is broken", "is_error": true}]},
             "respond": {"text": "It is broken."}}
        ]});
        let server = ScriptedModel::start(script, KEY);
        let tools = ToolSet::builder().toolbox(Calc).build().await.unwrap();
        let agent = Agent::builder(model(&server, provider, true), tools.clone())
            .tool_policy("broken", ErrorPolicy::Retry(2))
            .build();
        let outcome = within(agent.run("go")).await.unwrap().into_outcome();
        assert_eq!(outcome.tool_calls[0].attempts, 3);
        server.assert_clean();

        // Fail: the run ends after the first model request.
        server.set_script(json!({"steps": [
            {"respond": {"tool_calls": [{"id": "call_b", "name": "broken", "arguments": "{}"}]}}
        ]}));
        let agent = Agent::builder(model(&server, provider, false), tools.clone())
            .error_policy(ErrorPolicy::Fail)
            .build();
        let err = within(agent.run("go")).await.unwrap_err();
        assert!(
            matches!(&err, RunError::ToolFailed { tool, .. } if tool == "broken"),
            "{err:?}"
        );
        server.assert_clean();

        // Report (the default) is covered by the is_error test above.
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn tool_choice_in_each_providers_form() {
    for provider in [O, R, A] {
        for (given, first) in [
            (ToolChoice::Required, "required"),
            (ToolChoice::Tool("divide".into()), "divide"),
        ] {
            let script = json!({"steps": [
                {"expect": {"tool_choice": choice(provider, first)},
                 "respond": {"tool_calls": [{"id": "call_1", "name": "divide", "arguments": "{\"a\": 6, \"b\": 3}"}]}},
                {"expect": {"tool_choice": choice(provider, "auto")},
                 "respond": {"text": "2"}}
            ]});
            let server = ScriptedModel::start(script, KEY);
            let agent = agent(&server, provider, true).await;
            within(agent.run("6 / 3?").tool_choice(given))
                .await
                .unwrap_or_else(|e| panic!("{provider:?}: {e:?}\n{}", server.log()));
            server.assert_clean();
        }
        let script = json!({"steps": [
            {"expect": {"tool_choice": choice(provider, "none")}, "respond": {"text": "no tools"}},
            {"expect": {"no_tools": true, "tool_choice": "absent"}, "respond": {"text": "none offered"}}
        ]});
        let server = ScriptedModel::start(script, KEY);
        let agent = agent(&server, provider, false).await;
        within(agent.run("hi").tool_choice(ToolChoice::None))
            .await
            .unwrap();
        within(agent.run("hi").without_tools()).await.unwrap();
        server.assert_clean();
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn max_turns_reached() {
    for provider in [O, R, A] {
        let call = json!({"respond": {"tool_calls": [{"name": "add", "arguments": "{\"a\": 1, \"b\": 1}"}]}});
        let server = ScriptedModel::start(json!({"steps": [call, call]}), KEY);
        let tools = ToolSet::builder().toolbox(Calc).build().await.unwrap();
        let agent = Agent::builder(model(&server, provider, true), tools)
            .max_turns(2)
            .build();
        let err = within(agent.run("loop")).await.unwrap_err();
        let RunError::MaxTurns { outcome, .. } = &err else {
            panic!("expected MaxTurns, got {err:?}");
        };
        assert_eq!(outcome.turns, 2);
        assert_eq!(outcome.tool_calls.len(), 2);
        server.assert_clean();
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn rate_limited_then_served() {
    for provider in [O, R, A] {
        let script = json!({"steps": [
            {"respond": {"status": 429, "headers": {"retry-after": "0"}, "message": "Rate limit reached"}},
            {"respond": {"text": "hello"}}
        ]});
        let server = ScriptedModel::start(script, KEY);
        let agent = agent(&server, provider, true).await;
        let outcome = within(agent.run("hi")).await.unwrap().into_outcome();
        assert_eq!(outcome.text, "hello");
        assert_eq!(server.bodies().len(), 2);
        server.assert_clean();
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn provider_errors_name_the_provider_status_and_message() {
    for provider in [O, R, A] {
        let script = json!({"steps": [
            {"respond": {"status": 200, "raw": "this is not json"}},
            {"respond": {"truncate_stream": true, "text": "partial"}},
            {"respond": {"status": 400, "message": "model `x` does not exist"}}
        ]});
        let server = ScriptedModel::start(script, KEY);
        let json_agent = agent(&server, provider, false).await;
        let streaming_agent = agent(&server, provider, true).await;
        let model_error = |err: RunError| match err {
            RunError::Model { error, .. } => error,
            other => panic!("expected a model error, got {other:?}"),
        };
        let malformed = model_error(within(json_agent.run("a")).await.unwrap_err());
        assert!(
            matches!(malformed, ModelError::Malformed { .. }),
            "{malformed:?}"
        );
        assert_eq!(malformed.provider(), reported(provider));
        let truncated = model_error(within(streaming_agent.run("b")).await.unwrap_err());
        assert!(
            matches!(truncated, ModelError::Malformed { .. }),
            "{truncated:?}"
        );
        let status = model_error(within(json_agent.run("c")).await.unwrap_err());
        let text = status.to_string();
        assert!(
            text.contains(reported(provider))
                && text.contains("400")
                && text.contains("model `x` does not exist"),
            "{text}"
        );
        server.assert_clean();
    }
}

/// A server whose `wait` tool blocks until the call is cancelled.
#[derive(Debug)]
pub struct Waiter {
    started: Arc<tokio::sync::Notify>,
    stopped: Arc<tokio::sync::Notify>,
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
        let _stopped = OnDrop(Arc::clone(&self.stopped));
        self.started.notify_one();
        ctx.cancelled().await;
        "cancelled".into()
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn cancelling_mid_tool_cancels_the_call_on_its_server() {
    for provider in [O, R, A] {
        let started = Arc::new(tokio::sync::Notify::new());
        let stopped = Arc::new(tokio::sync::Notify::new());
        let server = Server::builder("waiter", "1.0.0")
            .toolbox(Waiter {
                started: Arc::clone(&started),
                stopped: Arc::clone(&stopped),
            })
            .build();
        let (client_end, server_end) = tokio::io::duplex(64 * 1024);
        let (server_read, server_write) = tokio::io::split(server_end);
        tokio::spawn(server.serve_io(server_read, server_write));
        let (client_read, client_write) = tokio::io::split(client_end);
        let client = oxmcp_client::Client::builder()
            .connect_io(client_read, client_write)
            .await
            .unwrap();
        let tools = ToolSet::builder()
            .server(client.clone())
            .build()
            .await
            .unwrap();
        let scripted = ScriptedModel::start(
            json!({"steps": [{"respond": {"tool_calls": [{"id": "call_w", "name": "wait", "arguments": "{}"}]}}]}),
            KEY,
        );
        let agent = Agent::builder(model(&scripted, provider, true), tools).build();
        let token = CancellationToken::new();
        let run = tokio::spawn({
            let token = token.clone();
            async move { agent.run("wait").cancel_on(token).await }
        });
        within(started.notified()).await;
        token.cancel();
        let err = within(run).await.unwrap().unwrap_err();
        assert!(matches!(err, RunError::Cancelled { .. }), "{err:?}");
        within(stopped.notified()).await;
        client.close().await;
        scripted.assert_clean();
    }
}

#[derive(Debug)]
pub struct Texts;

#[tool(description = "Text tools")]
impl Texts {
    #[describe("Join texts with a separator")]
    pub fn join(
        &self,
        #[param("The texts")] parts: Vec<String>,
        #[param("The separator (default: a comma and a space)")] separator: Option<String>,
    ) -> String {
        parts.join(separator.as_deref().unwrap_or(", "))
    }

    #[describe("Count the words of each text")]
    pub fn counts(
        &self,
        #[param("Texts by key")] texts: std::collections::HashMap<String, String>,
    ) -> String {
        texts.len().to_string()
    }
}

/// Problems the SDKs' own tool parameter types find in an exported `tools` array.
fn sdk_problems(server: &ScriptedModel, format: &str, tools: &[Value]) -> Vec<Value> {
    let body = json!({"format": format, "tools": tools}).to_string();
    let answer = server.request(
        "POST",
        "/__check_tools",
        &[("content-type", "application/json")],
        body.as_bytes(),
    );
    match answer.json()["problems"].take() {
        Value::Array(problems) => problems,
        other => panic!("no problems list: {other}"),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn exported_tool_formats_are_what_the_sdks_take() {
    let server = ScriptedModel::start(json!({"steps": []}), KEY);
    let set = ToolSet::builder()
        .toolbox(Calc)
        .attach(oxmcp_agent::Source::toolbox(Texts).prefix("text.tools."))
        .build()
        .await
        .unwrap();
    // `counts` takes an open map: no strict form, and the set says so.
    let diagnostics = set.diagnostics();
    assert!(
        diagnostics
            .iter()
            .any(|d| d.tool == "text.tools.counts" && d.message.contains("without strict mode")),
        "{diagnostics:?}"
    );
    let view = set.view();
    for strict in [false, true] {
        let chat = view.openai_chat_tools(strict);
        assert_eq!(chat.len(), 6);
        assert!(
            sdk_problems(&server, "openai_chat", &chat).is_empty(),
            "{chat:#?}"
        );
        let strict_flags: Vec<bool> = chat
            .iter()
            .map(|t| t["function"]["strict"] == true)
            .collect();
        let expected: Vec<bool> = chat
            .iter()
            .map(|t| strict && !t["function"]["name"].as_str().unwrap().contains("counts"))
            .collect();
        assert_eq!(strict_flags, expected);
        let responses = view.openai_responses_tools(strict);
        assert!(
            sdk_problems(&server, "openai_responses", &responses).is_empty(),
            "{responses:#?}"
        );
    }
    let anthropic = view.anthropic_tools();
    assert!(
        sdk_problems(&server, "anthropic", &anthropic).is_empty(),
        "{anthropic:#?}"
    );
    // The check can fail: an unknown key and a dotted name are refused.
    let mut bad = anthropic[0].clone();
    bad["cache"] = json!(true);
    bad["name"] = json!("text.tools.join");
    assert_eq!(sdk_problems(&server, "anthropic", &[bad]).len(), 2);
    server.assert_clean();
}
