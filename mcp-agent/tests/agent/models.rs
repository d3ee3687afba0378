//! The OpenAI-compatible and Anthropic models against a local server that
//! answers with canned JSON and event streams and keeps every request.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::fmt::Write as _;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use futures_util::StreamExt;
use http::{HeaderMap, Request, Response};
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, StreamBody};
use hyper::body::{Frame, Incoming};
use oxmcp_agent::model::{Anthropic, MaxTokensField, OpenAiChat};
use oxmcp_agent::{
    chat::ChatMessage, chat::ChatModel, chat::ChatRequest, chat::ChatResponse, chat::Delta,
    chat::ModelError, chat::ToolCall, chat::ToolChoice, chat::ToolDef, chat::ToolResult,
    chat::Usage,
};
use serde_json::{json, Value};

/// One canned answer.
struct Canned {
    status: u16,
    headers: Vec<(&'static str, String)>,
    chunks: Vec<Bytes>,
    /// After the chunks, send nothing more and never end.
    stall: bool,
}

impl Canned {
    fn json(status: u16, body: &Value) -> Canned {
        Canned {
            status,
            headers: vec![("content-type", "application/json".into())],
            chunks: vec![Bytes::from(body.to_string())],
            stall: false,
        }
    }

    /// An event stream of `events` (`(event name, data)`), cut into
    /// seven-byte chunks so that lines and events span chunks.
    fn sse(events: &[(&str, Value)]) -> Canned {
        let mut text = String::new();
        for (name, data) in events {
            if !name.is_empty() {
                writeln!(text, "event: {name}").unwrap();
            }
            let data = match data {
                Value::String(raw) => raw.clone(),
                other => other.to_string(),
            };
            writeln!(text, "data: {data}\n").unwrap();
        }
        Canned {
            status: 200,
            headers: vec![("content-type", "text/event-stream".into())],
            chunks: text
                .as_bytes()
                .chunks(7)
                .map(Bytes::copy_from_slice)
                .collect(),
            stall: false,
        }
    }

    fn header(mut self, name: &'static str, value: &str) -> Canned {
        self.headers.push((name, value.to_owned()));
        self
    }

    fn stall(mut self) -> Canned {
        self.stall = true;
        self
    }
}

/// A request the server got.
struct Seen {
    path: String,
    headers: HeaderMap,
    body: Value,
}

struct Server {
    url: String,
    seen: Arc<Mutex<Vec<Seen>>>,
}

impl Server {
    fn requests(&self) -> usize {
        self.seen.lock().unwrap().len()
    }

    fn request(&self, i: usize) -> (String, HeaderMap, Value) {
        let seen = self.seen.lock().unwrap();
        let seen = &seen[i];
        (seen.path.clone(), seen.headers.clone(), seen.body.clone())
    }
}

type Body = BoxBody<Bytes, Infallible>;

async fn answer(
    request: Request<Incoming>,
    answers: Arc<Mutex<VecDeque<Canned>>>,
    seen: Arc<Mutex<Vec<Seen>>>,
) -> Result<Response<Body>, Infallible> {
    let (parts, body) = request.into_parts();
    let body = body.collect().await.unwrap().to_bytes();
    seen.lock().unwrap().push(Seen {
        path: parts.uri.path().to_owned(),
        headers: parts.headers,
        body: serde_json::from_slice(&body).unwrap_or(Value::Null),
    });
    let canned =
        answers.lock().unwrap().pop_front().unwrap_or_else(|| {
            Canned::json(500, &json!({"error": {"message": "no canned answer"}}))
        });
    let frames = futures_util::stream::iter(canned.chunks).map(|c| Ok(Frame::data(c)));
    let body = if canned.stall {
        BodyExt::boxed(StreamBody::new(
            frames.chain(futures_util::stream::pending()),
        ))
    } else {
        BodyExt::boxed(StreamBody::new(frames))
    };
    let mut response = Response::builder().status(canned.status);
    for (name, value) in canned.headers {
        response = response.header(name, value);
    }
    Ok(response.body(body).unwrap())
}

/// A server answering with `answers` in order.
async fn serve(answers: Vec<Canned>) -> Server {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let answers = Arc::new(Mutex::new(VecDeque::from(answers)));
    let seen = Arc::new(Mutex::new(Vec::new()));
    let kept = Arc::clone(&seen);
    tokio::spawn(async move {
        loop {
            let (stream, _) = listener.accept().await.unwrap();
            let (answers, seen) = (Arc::clone(&answers), Arc::clone(&kept));
            let service = hyper::service::service_fn(move |request| {
                answer(request, Arc::clone(&answers), Arc::clone(&seen))
            });
            tokio::spawn(
                hyper::server::conn::http1::Builder::new()
                    .serve_connection(hyper_util::rt::TokioIo::new(stream), service),
            );
        }
    });
    Server { url, seen }
}

fn call(id: &str, name: &str, arguments: &str) -> ToolCall {
    ToolCall {
        id: id.into(),
        name: name.into(),
        arguments: arguments.into(),
    }
}

/// A conversation with every kind of message, and two tools.
fn request() -> ChatRequest {
    ChatRequest {
        messages: vec![
            ChatMessage::system("Be brief."),
            ChatMessage::user("Weather in Paris and Oslo?"),
            ChatMessage::Assistant {
                text: String::new(),
                tool_calls: vec![
                    call("c1", "weather", r#"{"city":"Paris"}"#),
                    call("c2", "weather", "{not json"),
                ],
            },
            ChatMessage::ToolResults {
                results: vec![
                    ToolResult {
                        call_id: "c1".into(),
                        name: "weather".into(),
                        content: "sunny".into(),
                        is_error: false,
                        media: Vec::new(),
                    },
                    ToolResult {
                        call_id: "c2".into(),
                        name: "weather".into(),
                        content: "error: bad arguments".into(),
                        is_error: true,
                        media: Vec::new(),
                    },
                ],
            },
            ChatMessage::user("And tomorrow?"),
            ChatMessage::system("Use Celsius."),
        ],
        tools: vec![
            ToolDef {
                name: "weather".into(),
                description: "The weather in a city".into(),
                parameters: json!({"type": "object", "properties": {"city": {"type": "string"}}}),
                strict_parameters: Some(json!({
                    "type": "object",
                    "properties": {"city": {"type": "string"}},
                    "required": ["city"],
                    "additionalProperties": false,
                })),
            },
            ToolDef {
                name: "time".into(),
                description: "The time".into(),
                parameters: json!({"type": "object"}),
                strict_parameters: None,
            },
        ],
        tool_choice: ToolChoice::Required,
        max_tokens: Some(300),
        output: None,
    }
}

fn simple() -> ChatRequest {
    ChatRequest {
        messages: vec![ChatMessage::user("Hi")],
        ..ChatRequest::default()
    }
}

/// Every delta of a stream: the texts, then the answer.
async fn collect(model: &impl ChatModel, request: ChatRequest) -> (Vec<String>, ChatResponse) {
    let mut stream = model.stream(request).await.unwrap();
    let mut texts = Vec::new();
    while let Some(delta) = stream.next().await {
        match delta.unwrap() {
            Delta::Text(text) => texts.push(text),
            Delta::Done(response) => {
                assert!(stream.next().await.is_none(), "Done is the last item");
                return (texts, response);
            }
        }
    }
    panic!("the stream ended without Done");
}

fn openai(server: &Server) -> OpenAiChat {
    OpenAiChat::new("sk-test", "gpt-test").base_url(format!("{}/v1/", server.url))
}

fn anthropic(server: &Server) -> Anthropic {
    Anthropic::new("ak-test", "claude-test").base_url(&server.url)
}

fn chunk(delta: &Value) -> Value {
    json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-test",
           "choices": [{"index": 0, "delta": delta, "finish_reason": null}]})
}

fn openai_stream() -> Canned {
    let tool = |index: u64, id: Option<&str>, name: Option<&str>, arguments: &str| {
        let mut fragment = json!({"index": index, "function": {"arguments": arguments}});
        if let (Some(id), Some(name)) = (id, name) {
            fragment["id"] = id.into();
            fragment["type"] = "function".into();
            fragment["function"]["name"] = name.into();
        }
        chunk(&json!({"tool_calls": [fragment]}))
    };
    let mut finish = chunk(&json!({}));
    finish["choices"][0]["finish_reason"] = "tool_calls".into();
    Canned::sse(&[
        ("", chunk(&json!({"role": "assistant", "content": ""}))),
        ("", chunk(&json!({"content": "Let me "}))),
        ("", chunk(&json!({"content": "check."}))),
        ("", tool(0, Some("call_a"), Some("weather"), "")),
        ("", tool(0, None, None, r#"{"ci"#)),
        ("", tool(1, Some("call_b"), Some("time"), r"{")),
        ("", tool(0, None, None, r#"ty":"Oslo"}"#)),
        ("", tool(1, None, None, "}")),
        ("", finish),
        (
            "",
            json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1,
                   "model": "gpt-test", "choices": [],
                   "usage": {"prompt_tokens": 50, "completion_tokens": 20, "total_tokens": 70,
                             "prompt_tokens_details": {"cached_tokens": 30}}}),
        ),
        ("", Value::String("[DONE]".into())),
    ])
}

#[tokio::test]
async fn openai_streams_text_and_parallel_tool_calls() {
    let server = serve(vec![openai_stream()]).await;
    let model = openai(&server)
        .strict(true)
        .header("OpenAI-Organization", "org-1");
    let (texts, response) = collect(&model, request()).await;
    assert_eq!(texts, ["Let me ", "check."]);
    assert_eq!(response.text, "Let me check.");
    assert_eq!(
        response.tool_calls,
        [
            call("call_a", "weather", r#"{"city":"Oslo"}"#),
            call("call_b", "time", "{}")
        ]
    );
    assert_eq!(response.stop_reason.as_deref(), Some("tool_calls"));
    let usage = Usage {
        input_tokens: 50,
        output_tokens: 20,
        cached_input_tokens: 30,
    };
    assert_eq!(response.usage, usage);
    assert_eq!(response.model.as_deref(), Some("gpt-test"));

    let (path, headers, body) = server.request(0);
    assert_eq!(path, "/v1/chat/completions");
    assert_eq!(headers["authorization"], "Bearer sk-test");
    assert_eq!(headers["openai-organization"], "org-1");
    assert_eq!(headers["content-type"], "application/json");
    let expected = json!({
        "model": "gpt-test",
        "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Weather in Paris and Oslo?"},
            {"role": "assistant", "content": null, "tool_calls": [
                {"id": "c1", "type": "function",
                 "function": {"name": "weather", "arguments": "{\"city\":\"Paris\"}"}},
                {"id": "c2", "type": "function",
                 "function": {"name": "weather", "arguments": "{not json"}},
            ]},
            {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
            {"role": "tool", "tool_call_id": "c2", "content": "error: bad arguments"},
            {"role": "user", "content": "And tomorrow?"},
            {"role": "system", "content": "Use Celsius."},
        ],
        "tools": [
            {"type": "function", "function": {"name": "weather", "description": "The weather in a city",
             "parameters": request().tools[0].strict_parameters, "strict": true}},
            {"type": "function", "function": {"name": "time", "description": "The time",
             "parameters": {"type": "object"}, "strict": false}},
        ],
        "tool_choice": "required",
        "parallel_tool_calls": true,
        "max_completion_tokens": 300,
        "stream": true,
        "stream_options": {"include_usage": true},
    });
    assert_eq!(body, expected);

    // complete() reads the same stream into the same answer.
    let server = serve(vec![openai_stream()]).await;
    let response = openai(&server).complete(request()).await.unwrap();
    assert_eq!(response.tool_calls.len(), 2);
    assert_eq!(response.usage, usage);
}

#[tokio::test]
async fn openai_reads_json_answers() {
    let answer = json!({
        "id": "chatcmpl-2", "object": "chat.completion", "created": 1, "model": "gpt-test",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
            "role": "assistant", "content": "Checking.", "refusal": null,
            "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "weather", "arguments": "{\"city\":\"Oslo\"}"}},
                {"id": "call_2", "type": "function", "function": {"name": "time", "arguments": "{}"}},
            ]}}],
        "usage": {"prompt_tokens": 9, "completion_tokens": 4, "total_tokens": 13},
    });
    let server = serve(vec![Canned::json(200, &answer), Canned::json(200, &answer)]).await;
    let model = OpenAiChat::new("", "local")
        .base_url(&server.url)
        .streaming(false)
        .max_tokens_field(MaxTokensField::MaxTokens);
    let response = model.complete(request()).await.unwrap();
    assert_eq!(response.text, "Checking.");
    assert_eq!(
        response.tool_calls,
        [
            call("call_1", "weather", r#"{"city":"Oslo"}"#),
            call("call_2", "time", "{}")
        ]
    );
    assert_eq!(response.usage.input_tokens, 9);
    assert_eq!(response.usage.cached_input_tokens, 0);
    assert_eq!(response.model.as_deref(), Some("gpt-test"));
    assert_eq!(model.model(), "local");
    assert_eq!(ChatModel::model(&model), Some("local"));
    let (path, headers, body) = server.request(0);
    assert_eq!(path, "/chat/completions");
    assert!(headers.get("authorization").is_none(), "no key, no header");
    assert_eq!(body["max_tokens"], 300);
    assert!(body.get("max_completion_tokens").is_none());
    assert!(body.get("stream").is_none());
    assert_eq!(
        body["tools"][0]["function"]["strict"], false,
        "not strict by default"
    );

    // Without tools: no tools, tool_choice or parallel_tool_calls.
    let (texts, response) = collect(&model, simple()).await;
    assert_eq!(texts, ["Checking."]);
    assert_eq!(response.text, "Checking.");
    let (_, _, body) = server.request(1);
    assert_eq!(
        body,
        json!({"model": "local", "messages": [{"role": "user", "content": "Hi"}]})
    );
}

fn anthropic_stream() -> Canned {
    let delta = |index: u64, delta: Value| json!({"type": "content_block_delta", "index": index, "delta": delta});
    let tool_start = |index: u64, id: &str, name: &str| {
        json!({"type": "content_block_start", "index": index,
               "content_block": {"type": "tool_use", "id": id, "name": name, "input": {}}})
    };
    let stop = |index: u64| json!({"type": "content_block_stop", "index": index});
    let events = [
        json!({"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant",
               "content": [], "model": "claude-test", "stop_reason": null, "stop_sequence": null,
               "usage": {"input_tokens": 40, "output_tokens": 1, "cache_read_input_tokens": 25,
                         "cache_creation_input_tokens": 0}}}),
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        json!({"type": "ping"}),
        delta(0, json!({"type": "text_delta", "text": "Let me "})),
        delta(0, json!({"type": "text_delta", "text": "check."})),
        stop(0),
        tool_start(1, "toolu_a", "weather"),
        delta(1, json!({"type": "input_json_delta", "partial_json": ""})),
        delta(
            1,
            json!({"type": "input_json_delta", "partial_json": "{\"city\": "}),
        ),
        delta(
            1,
            json!({"type": "input_json_delta", "partial_json": "\"Oslo\"}"}),
        ),
        stop(1),
        tool_start(2, "toolu_b", "time"),
        stop(2),
        json!({"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": null},
               "usage": {"output_tokens": 33}}),
        json!({"type": "message_stop"}),
    ];
    let named: Vec<(&str, Value)> = events
        .iter()
        .map(|e| (e["type"].as_str().unwrap(), e.clone()))
        .collect();
    Canned::sse(&named)
}

#[tokio::test]
async fn anthropic_streams_text_and_parallel_tool_uses() {
    let server = serve(vec![anthropic_stream()]).await;
    let model = anthropic(&server).header("anthropic-beta", "x");
    let (texts, response) = collect(&model, request()).await;
    assert_eq!(texts, ["Let me ", "check."]);
    assert_eq!(response.text, "Let me check.");
    assert_eq!(
        response.tool_calls,
        [
            call("toolu_a", "weather", r#"{"city": "Oslo"}"#),
            call("toolu_b", "time", "{}")
        ]
    );
    assert_eq!(response.stop_reason.as_deref(), Some("tool_use"));
    assert_eq!(
        response.usage,
        Usage {
            input_tokens: 40,
            output_tokens: 33,
            cached_input_tokens: 25
        }
    );
    assert_eq!(response.model.as_deref(), Some("claude-test"));

    let (path, headers, body) = server.request(0);
    assert_eq!(path, "/v1/messages");
    assert_eq!(headers["x-api-key"], "ak-test");
    assert_eq!(headers["anthropic-version"], "2023-06-01");
    assert_eq!(headers["anthropic-beta"], "x");
    assert_eq!(headers["content-type"], "application/json");
    let expected = json!({
        "model": "claude-test",
        "max_tokens": 300,
        "system": "Be brief.\n\nUse Celsius.",
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "Weather in Paris and Oslo?"}]},
            {"role": "assistant", "content": [
                {"type": "tool_use", "id": "c1", "name": "weather", "input": {"city": "Paris"}},
                {"type": "tool_use", "id": "c2", "name": "weather", "input": {}},
            ]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "c1", "content": "sunny"},
                {"type": "tool_result", "tool_use_id": "c2", "content": "error: bad arguments",
                 "is_error": true},
                {"type": "text", "text": "And tomorrow?"},
            ]},
        ],
        "tools": [
            {"name": "weather", "description": "The weather in a city",
             "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}}},
            {"name": "time", "description": "The time", "input_schema": {"type": "object"}},
        ],
        "tool_choice": {"type": "any"},
        "stream": true,
    });
    assert_eq!(body, expected);
}

#[tokio::test]
async fn anthropic_reads_json_answers() {
    let answer = json!({
        "id": "msg_2", "type": "message", "role": "assistant", "model": "claude-test",
        "content": [
            {"type": "text", "text": "Checking."},
            {"type": "tool_use", "id": "toolu_1", "name": "weather", "input": {"city": "Oslo"}},
            {"type": "tool_use", "id": "toolu_2", "name": "time", "input": {}},
        ],
        "stop_reason": "tool_use", "stop_sequence": null,
        "usage": {"input_tokens": 12, "output_tokens": 7, "cache_read_input_tokens": 3},
    });
    let server = serve(vec![Canned::json(200, &answer)]).await;
    let model = Anthropic::new("ak-test", "claude-test")
        .base_url(format!("{}/v1/", server.url))
        .streaming(false)
        .max_tokens(1000);
    let mut request = request();
    request.max_tokens = None;
    request.tool_choice = ToolChoice::Tool("time".into());
    let response = model.complete(request).await.unwrap();
    assert_eq!(response.text, "Checking.");
    assert_eq!(
        response.tool_calls,
        [
            call("toolu_1", "weather", r#"{"city":"Oslo"}"#),
            call("toolu_2", "time", "{}")
        ]
    );
    assert_eq!(response.usage.cached_input_tokens, 3);
    assert_eq!(response.model.as_deref(), Some("claude-test"));
    let (path, _, body) = server.request(0);
    assert_eq!(path, "/v1/messages", "a base ending in /v1 is not doubled");
    assert_eq!(body["max_tokens"], 1000);
    assert_eq!(body["tool_choice"], json!({"type": "tool", "name": "time"}));
    assert!(body.get("stream").is_none());
}

#[tokio::test]
async fn rate_limits_are_retried() {
    let limited = |body: &Value| Canned::json(429, body).header("retry-after", "0");
    let openai_error = json!({"error": {"message": "Rate limit reached", "type": "requests",
                                        "code": "rate_limit_exceeded"}});
    let server = serve(vec![limited(&openai_error), openai_stream()]).await;
    let response = openai(&server).complete(simple()).await.unwrap();
    assert_eq!(response.text, "Let me check.");
    assert_eq!(server.requests(), 2);

    let overloaded =
        json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}});
    let server = serve(vec![
        Canned::json(529, &overloaded).header("retry-after-ms", "10"),
        anthropic_stream(),
    ])
    .await;
    let response = anthropic(&server).complete(simple()).await.unwrap();
    assert_eq!(response.text, "Let me check.");
    assert_eq!(server.requests(), 2);

    // Beyond max_retries: the status, the provider's message, the wait asked for.
    let server = serve(vec![limited(&openai_error), limited(&openai_error)]).await;
    let error = openai(&server)
        .max_retries(1)
        .complete(simple())
        .await
        .unwrap_err();
    assert_eq!(
        error,
        ModelError::Status {
            provider: "openai".into(),
            status: 429,
            message: "Rate limit reached".into(),
            retry_after: Some(Duration::ZERO),
        }
    );
    assert_eq!(error.to_string(), "openai: HTTP 429: Rate limit reached");
    assert_eq!(server.requests(), 2);

    // A wait beyond the cap gives up at once.
    let server = serve(vec![
        Canned::json(429, &openai_error).header("retry-after", "120")
    ])
    .await;
    let error = openai(&server).complete(simple()).await.unwrap_err();
    assert!(
        matches!(error, ModelError::Status { status: 429, retry_after: Some(wait), .. } if wait == Duration::from_secs(120))
    );
    assert_eq!(server.requests(), 1);
}

#[tokio::test]
async fn errors_carry_the_providers_message() {
    let error = json!({"type": "error", "error": {"type": "api_error", "message": "Internal server error"}});
    let server = serve(vec![Canned::json(500, &error)]).await;
    let got = anthropic(&server).complete(simple()).await.unwrap_err();
    assert_eq!(
        got,
        ModelError::Status {
            provider: "anthropic".into(),
            status: 500,
            message: "Internal server error".into(),
            retry_after: None,
        }
    );
    assert_eq!(server.requests(), 1, "a 500 is not retried");

    let server = serve(vec![Canned {
        status: 502,
        headers: vec![("content-type", "text/html".into())],
        chunks: vec![Bytes::from("<html>Bad gateway</html>")],
        stall: false,
    }])
    .await;
    let got = openai(&server).complete(simple()).await.unwrap_err();
    assert!(
        matches!(&got, ModelError::Status { status: 502, message, .. } if message == "<html>Bad gateway</html>"),
        "{got:?}"
    );

    // Overloaded in the middle of a stream, after some text.
    let server = serve(vec![Canned::sse(&[
        (
            "content_block_start",
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hi"}}),
        ),
        (
            "error",
            json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
        ),
    ])])
    .await;
    let model = anthropic(&server);
    let mut stream = model.stream(simple()).await.unwrap();
    assert_eq!(
        stream.next().await.unwrap().unwrap(),
        Delta::Text("Hi".into())
    );
    let got = stream.next().await.unwrap().unwrap_err();
    assert!(
        matches!(&got, ModelError::Status { status: 529, message, .. } if message == "Overloaded")
    );
    assert!(stream.next().await.is_none());
}

#[tokio::test]
async fn malformed_answers_are_named() {
    let server = serve(vec![
        Canned::json(
            200,
            &json!({"choices": [{"index": 0, "finish_reason": "stop"}]}),
        ),
        Canned::json(200, &json!({"id": "msg", "type": "message"})),
        Canned {
            status: 200,
            headers: vec![("content-type", "application/json".into())],
            chunks: vec![Bytes::from("{\"choices\": [")],
            stall: false,
        },
    ])
    .await;
    let got = openai(&server)
        .streaming(false)
        .complete(simple())
        .await
        .unwrap_err();
    assert_eq!(
        got,
        ModelError::Malformed {
            provider: "openai".into(),
            message: "choices[0].message is missing".into()
        }
    );
    let got = anthropic(&server)
        .streaming(false)
        .complete(simple())
        .await
        .unwrap_err();
    assert!(
        matches!(&got, ModelError::Malformed { provider, message } if provider == "anthropic" && message.contains("content")),
        "{got:?}"
    );
    let got = openai(&server)
        .streaming(false)
        .complete(simple())
        .await
        .unwrap_err();
    assert!(
        matches!(&got, ModelError::Malformed { message, .. } if message.contains("not JSON")),
        "{got:?}"
    );
}

#[tokio::test]
async fn truncated_streams_are_malformed() {
    let mut openai_events = openai_stream();
    openai_events.chunks.truncate(40);
    let mut anthropic_events = anthropic_stream();
    anthropic_events.chunks.truncate(200);
    let server = serve(vec![openai_events, anthropic_events]).await;
    let got = openai(&server).complete(simple()).await.unwrap_err();
    assert!(
        matches!(&got, ModelError::Malformed { message, .. } if message.contains("truncated")),
        "{got:?}"
    );
    let model = anthropic(&server);
    let mut stream = model.stream(simple()).await.unwrap();
    let mut text = String::new();
    let got = loop {
        match stream.next().await.unwrap() {
            Ok(Delta::Text(piece)) => text.push_str(&piece),
            Ok(Delta::Done(_)) => panic!("a truncated stream gave an answer"),
            Err(e) => break e,
        }
    };
    assert_eq!(text, "Let me check.", "the text before the cut arrives");
    assert!(
        matches!(&got, ModelError::Malformed { message, .. } if message.contains("message_stop")),
        "{got:?}"
    );
}

#[tokio::test]
async fn connection_failures_and_stalls() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    let got = OpenAiChat::new("k", "m")
        .base_url(&url)
        .complete(simple())
        .await
        .unwrap_err();
    assert!(
        matches!(&got, ModelError::Transport { message, .. } if message.contains(&url)),
        "{got:?}"
    );

    let mut stalled = openai_stream().stall();
    stalled.chunks.truncate(40);
    let server = serve(vec![stalled]).await;
    let got = openai(&server)
        .idle_timeout(Duration::from_millis(200))
        .complete(simple())
        .await
        .unwrap_err();
    assert!(
        matches!(&got, ModelError::Transport { message, .. } if message.contains("no data")),
        "{got:?}"
    );

    // A missing key for the provider's own host fails before sending.
    let got = OpenAiChat::new("", "m")
        .complete(simple())
        .await
        .unwrap_err();
    assert!(
        matches!(&got, ModelError::Config { message, .. } if message.contains("OPENAI_API_KEY"))
    );
    let got = OpenAiChat::new("k", "m")
        .header("bad name", "v")
        .complete(simple())
        .await
        .unwrap_err();
    assert!(matches!(got, ModelError::Config { .. }));
}

#[test]
fn from_env_names_what_is_missing() {
    let vars = |pairs: &'static [(&str, &str)]| {
        move |name: &str| {
            pairs
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| (*v).to_owned())
        }
    };
    let message = |error: ModelError| match error {
        ModelError::Config { message, .. } => message,
        other => panic!("{other:?}"),
    };
    let got = OpenAiChat::from_env_with(vars(&[("OPENAI_MODEL", "m")])).unwrap_err();
    assert!(message(got).contains("OPENAI_API_KEY"));
    let got = OpenAiChat::from_env_with(vars(&[("OPENAI_API_KEY", "k")])).unwrap_err();
    assert!(message(got).contains("OPENAI_MODEL"));
    let got = OpenAiChat::from_env_with(vars(&[("OPENAI_API_KEY", ""), ("OPENAI_MODEL", "m")]))
        .unwrap_err();
    assert!(message(got).contains("OPENAI_API_KEY"), "empty is unset");
    // A local server needs no key.
    let model = OpenAiChat::from_env_with(vars(&[
        ("OPENAI_BASE_URL", "http://localhost:8080/v1"),
        ("OPENAI_MODEL", "qwen"),
    ]))
    .unwrap();
    assert_eq!(model.model(), "qwen");

    let got = Anthropic::from_env_with(vars(&[("ANTHROPIC_MODEL", "m")])).unwrap_err();
    assert!(message(got).contains("ANTHROPIC_API_KEY"));
    let got = Anthropic::from_env_with(vars(&[("ANTHROPIC_API_KEY", "k")])).unwrap_err();
    assert!(message(got).contains("ANTHROPIC_MODEL"));
    let model = Anthropic::from_env_with(vars(&[
        ("ANTHROPIC_API_KEY", "secret-key"),
        ("ANTHROPIC_MODEL", "claude"),
    ]))
    .unwrap();
    let debug = format!("{model:?}");
    assert!(
        !debug.contains("secret-key") && debug.contains("claude"),
        "{debug}"
    );
}
