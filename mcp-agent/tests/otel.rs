//! The spans of a run (the `otel` feature), caught by OpenTelemetry's
//! in-memory exporter: their names, kinds, parents and attributes, by the
//! semantic conventions for generative AI, and the trace context on a
//! model's HTTP request.
#![cfg(feature = "otel")]

use mcp_test_support::otel_capture;

use std::collections::VecDeque;
use std::convert::Infallible;
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use futures_util::future::BoxFuture;
use http::{HeaderMap, Request, Response};
use http_body_util::Full;
use hyper::body::Incoming;
use mcp_test_support::calculator::Calculator;
use opentelemetry::trace::{SpanId, SpanKind, Status};
use opentelemetry::{Array, StringValue, Value};
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::SpanData;
use otel_capture::*;
use oxmcp_agent::chat::{ChatModel, ChatRequest, ChatResponse, ModelError, ToolCall, Usage};
use oxmcp_agent::model::OpenAiChat;
use oxmcp_agent::{Agent, RunError, ToolSet};

/// A model that answers with the next answer of its script, named `model`.
struct Scripted {
    model: Option<&'static str>,
    answers: Mutex<VecDeque<Result<ChatResponse, ModelError>>>,
}

impl Scripted {
    fn new(
        model: Option<&'static str>,
        answers: impl IntoIterator<Item = Result<ChatResponse, ModelError>>,
    ) -> Scripted {
        Scripted {
            model,
            answers: Mutex::new(answers.into_iter().collect()),
        }
    }
}

impl ChatModel for Scripted {
    fn provider(&self) -> &'static str {
        "scripted"
    }

    fn model(&self) -> Option<&str> {
        self.model
    }

    fn complete(&self, _: ChatRequest) -> BoxFuture<'_, Result<ChatResponse, ModelError>> {
        let answer = self.answers.lock().unwrap().pop_front();
        Box::pin(async move {
            answer.unwrap_or_else(|| {
                Err(ModelError::Malformed {
                    provider: "scripted".into(),
                    message: "the script has no answer left".into(),
                })
            })
        })
    }
}

fn call(id: &str, name: &str, arguments: &str) -> ToolCall {
    ToolCall {
        id: id.into(),
        name: name.into(),
        arguments: arguments.into(),
    }
}

fn answer(tool_calls: Vec<ToolCall>, text: &str, usage: (u64, u64, u64)) -> ChatResponse {
    ChatResponse {
        text: text.into(),
        stop_reason: Some(
            if tool_calls.is_empty() {
                "stop"
            } else {
                "tool_calls"
            }
            .into(),
        ),
        tool_calls,
        usage: Usage {
            input_tokens: usage.0,
            output_tokens: usage.1,
            cached_input_tokens: usage.2,
        },
        model: Some("scripted-1-0613".into()),
        id: None,
    }
}

async fn maths() -> ToolSet {
    ToolSet::builder()
        .toolbox(Calculator)
        .build()
        .await
        .unwrap()
}

#[tokio::test]
async fn a_run_is_invoke_agent_over_turns_over_chat_and_execute_tool() {
    let traced = Traced::start();
    let model = Scripted::new(
        Some("scripted-1"),
        [
            Ok(answer(
                vec![
                    call("call_1", "add", r#"{"a": 2, "b": 3}"#),
                    call("call_2", "divide", r#"{"a": 1, "b": 0}"#),
                ],
                "",
                (10, 5, 0),
            )),
            Ok(answer(Vec::new(), "5, and 1/0 has no answer", (20, 7, 4))),
        ],
    );
    let agent = Agent::builder(model, maths().await)
        .name("Math Tutor")
        .max_tokens(256)
        .build();
    assert_eq!(agent.name(), Some("Math Tutor"));
    let _ = agent.run("2 + 3, and 1 / 0?").await.unwrap();
    let spans = traced.spans();

    let run = spans.one("invoke_agent Math Tutor");
    assert_eq!(run.span_kind, SpanKind::Internal);
    assert_eq!(run.parent_span_id, SpanId::INVALID, "the run is the root");
    assert_eq!(
        run.status,
        Status::Unset,
        "a tool error does not fail the run"
    );
    assert_strings(
        run,
        &[
            ("gen_ai.operation.name", "invoke_agent"),
            ("gen_ai.provider.name", "scripted"),
            ("gen_ai.agent.name", "Math Tutor"),
            ("gen_ai.request.model", "scripted-1"),
        ],
    );
    assert_eq!(int(run, "gen_ai.request.max_tokens"), Some(256));
    assert_eq!(int(run, "gen_ai.usage.input_tokens"), Some(30));
    assert_eq!(int(run, "gen_ai.usage.output_tokens"), Some(12));
    assert_eq!(int(run, "gen_ai.usage.cache_read.input_tokens"), Some(4));
    assert!(attribute(run, "error.type").is_none());

    let turns = spans.named("turn");
    assert_eq!(turns.len(), 2);
    for (n, turn) in (1..).zip(&turns) {
        assert_eq!(turn.span_kind, SpanKind::Internal);
        assert!(is_child(turn, run), "turn {n} is the run's child");
        assert_eq!(int(turn, "oxmcp_agent.turn"), Some(n));
    }
    assert_chats(&spans, &turns);
    assert_tool_calls(&spans, turns[0]);
}

/// The two model requests of the run above, each its turn's child.
fn assert_chats(spans: &Spans, turns: &[&SpanData]) {
    let chats = spans.named("chat scripted-1");
    assert_eq!(chats.len(), 2);
    let expected = [("tool_calls", 10, 5), ("stop", 20, 7)];
    for ((chat, turn), (reason, input, output)) in chats.iter().zip(turns).zip(expected) {
        assert_eq!(chat.span_kind, SpanKind::Client);
        assert!(is_child(chat, turn), "each chat is its turn's child");
        assert_eq!(chat.status, Status::Unset);
        assert_strings(
            chat,
            &[
                ("gen_ai.operation.name", "chat"),
                ("gen_ai.provider.name", "scripted"),
                ("gen_ai.request.model", "scripted-1"),
                ("gen_ai.response.model", "scripted-1-0613"),
            ],
        );
        assert_eq!(int(chat, "gen_ai.request.max_tokens"), Some(256));
        assert_eq!(int(chat, "gen_ai.usage.input_tokens"), Some(input));
        assert_eq!(int(chat, "gen_ai.usage.output_tokens"), Some(output));
        let reasons = Array::String(vec![StringValue::from(reason)]);
        assert_eq!(
            attribute(chat, "gen_ai.response.finish_reasons"),
            Some(&Value::Array(reasons))
        );
    }
    assert_eq!(
        int(chats[0], "gen_ai.usage.cache_read.input_tokens"),
        None,
        "no cached tokens, no attribute"
    );
    assert_eq!(
        int(chats[1], "gen_ai.usage.cache_read.input_tokens"),
        Some(4)
    );
}

/// The two tool calls of the run above: `add` (which makes a span of its
/// own) and `divide`, which fails.
fn assert_tool_calls(spans: &Spans, turn: &SpanData) {
    let add = spans.one("execute_tool add");
    assert_eq!(add.span_kind, SpanKind::Internal);
    assert!(is_child(add, turn), "tool calls are their turn's children");
    assert_eq!(add.status, Status::Unset);
    assert_strings(
        add,
        &[
            ("gen_ai.operation.name", "execute_tool"),
            ("gen_ai.tool.name", "add"),
            ("gen_ai.tool.call.id", "call_1"),
        ],
    );
    assert!(attribute(add, "error.type").is_none());
    assert!(
        is_child(spans.one("adding"), add),
        "the tool runs inside its execute_tool span"
    );

    let divide = spans.one("execute_tool divide");
    assert!(is_child(divide, turn));
    assert_strings(
        divide,
        &[
            ("gen_ai.tool.call.id", "call_2"),
            ("error.type", "tool_error"),
        ],
    );
    assert_eq!(error_description(divide), "division by zero");
}

#[tokio::test]
async fn a_model_error_fails_the_chat_span_and_the_run() {
    let traced = Traced::start();
    let model = Scripted::new(
        Some("scripted-1"),
        [Err(ModelError::Status {
            provider: "scripted".into(),
            status: 429,
            message: "slow down".into(),
            retry_after: None,
        })],
    );
    let agent = Agent::builder(model, maths().await).build();
    let error = agent.run("hi").await.unwrap_err();
    assert!(matches!(error, RunError::Model { .. }), "{error:?}");
    let spans = traced.spans();

    let run = spans.one("invoke_agent");
    let turn = spans.one("turn");
    let chat = spans.one("chat scripted-1");
    assert!(is_child(turn, run) && is_child(chat, turn));
    assert!(
        attribute(run, "gen_ai.agent.name").is_none(),
        "an agent without a name has no name attribute"
    );
    assert_eq!(string(chat, "error.type").as_deref(), Some("429"));
    assert_eq!(error_description(chat), "scripted: HTTP 429: slow down");
    assert!(attribute(chat, "gen_ai.response.model").is_none());
    assert_eq!(string(run, "error.type").as_deref(), Some("429"));
    let description = error_description(run);
    assert!(
        description.contains("turn 1") && description.contains("slow down"),
        "the run's error with its cause: {description}"
    );
}

#[tokio::test]
async fn the_models_mistakes_and_the_turn_limit_are_recorded() {
    let traced = Traced::start();
    let model = Scripted::new(
        None,
        [Ok(answer(
            vec![
                call("u", "no_such_tool", "{}"),
                call("v", "add", r#"{"a": "two"}"#),
            ],
            "",
            (1, 1, 0),
        ))],
    );
    let agent = Agent::builder(model, maths().await).max_turns(1).build();
    let error = agent.run("go").await.unwrap_err();
    assert!(matches!(error, RunError::MaxTurns { .. }), "{error:?}");
    let spans = traced.spans();

    let chat = spans.one("chat");
    assert!(
        attribute(chat, "gen_ai.request.model").is_none(),
        "a model without a name"
    );
    let unknown = spans.one("execute_tool no_such_tool");
    assert_eq!(
        string(unknown, "error.type").as_deref(),
        Some("unknown_tool")
    );
    assert!(error_description(unknown).contains("no tool named"));
    let invalid = spans.one("execute_tool add");
    assert_eq!(
        string(invalid, "error.type").as_deref(),
        Some("invalid_arguments")
    );
    let run = spans.one("invoke_agent");
    assert_eq!(string(run, "error.type").as_deref(), Some("max_turns"));
    assert!(error_description(run).contains("limit of 1 turns"));
}

/// What the model writes is recorded at most 256 bytes long: a made-up
/// tool's name (in the span name too), the call's id, the model's name and
/// the answer's id, the error.
#[tokio::test]
async fn what_the_model_writes_is_capped_in_the_spans() {
    let traced = Traced::start();
    let huge = "é".repeat(100_000);
    let mut long_answer = answer(vec![call(&huge, &huge, "{}")], "", (1, 1, 0));
    long_answer.model = Some(huge.clone());
    long_answer.id = Some(huge.clone());
    let model = Scripted::new(None, [Ok(long_answer)]);
    let agent = Agent::builder(model, maths().await).max_turns(1).build();
    let error = agent.run("go").await.unwrap_err();
    assert!(matches!(error, RunError::MaxTurns { .. }), "{error:?}");
    let spans = traced.spans();

    assert_all_capped(&spans, 256);
    let unknown = spans
        .0
        .iter()
        .find(|s| s.name.starts_with("execute_tool é"))
        .expect("the made-up tool's span");
    assert_eq!(
        string(unknown, "gen_ai.tool.name").unwrap(),
        "é".repeat(128),
        "cut on a char boundary"
    );
    let chat = spans.one("chat");
    assert_eq!(string(chat, "gen_ai.response.id").unwrap().len(), 256);
}

/// A Chat Completions server on 127.0.0.1 that streams one short answer to
/// every request and keeps the requests' headers.
async fn openai_server() -> (String, Arc<Mutex<Vec<HeaderMap>>>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let kept = Arc::clone(&seen);
    tokio::spawn(async move {
        loop {
            let (stream, _) = listener.accept().await.unwrap();
            let kept = Arc::clone(&kept);
            let service = hyper::service::service_fn(move |request: Request<Incoming>| {
                kept.lock().unwrap().push(request.headers().clone());
                async move { Ok::<_, Infallible>(streamed_answer()) }
            });
            tokio::spawn(
                hyper::server::conn::http1::Builder::new()
                    .serve_connection(hyper_util::rt::TokioIo::new(stream), service),
            );
        }
    });
    (url, seen)
}

fn streamed_answer() -> Response<Full<Bytes>> {
    let chunk = |rest: &str| {
        format!(
            r#"data: {{"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-test-0613",{rest}}}"#
        ) + "\n\n"
    };
    let body = [
        chunk(r#""choices":[{"index":0,"delta":{"role":"assistant","content":"Hi"},"finish_reason":null}]"#),
        chunk(r#""choices":[{"index":0,"delta":{},"finish_reason":"stop"}]"#),
        chunk(r#""choices":[],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}"#),
        "data: [DONE]\n\n".to_owned(),
    ]
    .concat();
    Response::builder()
        .header("content-type", "text/event-stream")
        .body(Full::new(Bytes::from(body)))
        .unwrap()
}

#[tokio::test]
async fn the_model_request_carries_the_chat_spans_traceparent() {
    opentelemetry::global::set_text_map_propagator(TraceContextPropagator::new());
    let traced = Traced::start();
    let (url, seen) = openai_server().await;
    let model = OpenAiChat::new("", "gpt-test").base_url(url);
    let agent = Agent::builder(model, ToolSet::empty()).build();
    let outcome = agent.run("Say hi").await.unwrap().into_outcome();
    assert_eq!(outcome.text, "Hi");
    let spans = traced.spans();

    let chat = spans.one("chat gpt-test");
    assert_eq!(chat.span_kind, SpanKind::Client);
    assert_eq!(
        string(chat, "gen_ai.provider.name").as_deref(),
        Some("openai")
    );
    // Read from the stream's chunks: the span lasts until the stream's end.
    assert_eq!(
        string(chat, "gen_ai.response.model").as_deref(),
        Some("gpt-test-0613")
    );
    assert_eq!(string(chat, "gen_ai.response.id").as_deref(), Some("c1"));
    assert_eq!(int(chat, "gen_ai.usage.input_tokens"), Some(3));
    assert_eq!(int(chat, "gen_ai.usage.output_tokens"), Some(1));

    let headers = seen.lock().unwrap();
    assert_eq!(headers.len(), 1);
    let expected = format!(
        "00-{}-{}-01",
        chat.span_context.trace_id(),
        chat.span_context.span_id()
    );
    assert_eq!(headers[0]["traceparent"], expected.as_str());
}
