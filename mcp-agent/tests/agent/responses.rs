//! The OpenAI Responses API model against the scripted model server, which
//! checks every request against the official SDK's `ResponseCreateParams`
//! (unknown keys refused) and the API's rules for function calls and
//! `previous_response_id`, and answers with the SDK's own `Response` objects
//! and stream events (`tests/agent/scripted_model.py`): what is particular
//! to the Responses API. The agent's behaviours common to every provider
//! (parallel calls, mistaken calls, error policies, tool choices, limits,
//! errors, cancellation) run with this model too, in `scripted.rs`.

use crate::support;

use std::time::Duration;

use oxmcp_agent::chat::{
    ChatMessage, ChatModel, ChatRequest, ChatResponse, Delta, Media, ModelError, OutputFormat,
    ToolCall, ToolChoice, ToolDef, ToolResult,
};
use oxmcp_agent::model::OpenAiResponses;
use oxmcp_agent::{Agent, RunError, ToolSet};
use serde_json::{json, Value};
use support::{Calc, ScriptedModel, CALC_TOOLS};

const KEY: &str = "sk-test-key";
/// A 1×1 PNG.
const PIXEL: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

/// `Calc`'s tools as a request offers them.
async fn calc_tools() -> Vec<ToolDef> {
    let tools = ToolSet::builder().toolbox(Calc).build().await.unwrap();
    tools.view().definitions()
}

fn model(server: &ScriptedModel, streaming: bool) -> OpenAiResponses {
    OpenAiResponses::new(KEY, "gpt-test")
        .base_url(server.openai_base_url())
        .streaming(streaming)
        .strict(true)
        .max_retry_wait(Duration::from_secs(5))
}

async fn agent(model: OpenAiResponses) -> Agent {
    let tools = ToolSet::builder().toolbox(Calc).build().await.unwrap();
    Agent::builder(model, tools)
        .system("You are a calculator.")
        .max_tokens(300)
        .build()
}

async fn within<T>(f: impl std::future::IntoFuture<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(60), f)
        .await
        .expect("the run did not finish within 60 s")
}

/// A step: a Responses request answered with `respond`.
fn step(expect: &Value, respond: &Value) -> Value {
    json!({"provider": "openai_responses", "expect": expect, "respond": respond})
}

fn model_error(error: RunError) -> ModelError {
    match error {
        RunError::Model { error, .. } => error,
        other => panic!("expected a model error, got {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn an_agent_calls_a_local_tool_then_answers_json_and_streaming() {
    for streaming in [false, true] {
        let script = json!({"steps": [
            step(
                &json!({"tools": CALC_TOOLS, "tool_choice": "auto", "stream": streaming,
                        "last_user_contains": "2 + 3", "previous_response_id": "absent"}),
                &json!({"text": "Adding.", "tool_calls": [
                    {"id": "call_a", "name": "add", "arguments": "{\"a\": 2, \"b\": 3}"},
                    {"id": "call_d", "name": "divide", "arguments": "{\"a\": 8, \"b\": 2}"}],
                    "usage": {"input": 100, "output": 20, "cached": 60}}),
            ),
            step(
                &json!({"tool_results": [{"id": "call_a", "contains": "5"},
                                         {"id": "call_d", "contains": "4"}],
                        "previous_response_id": "absent"}),
                &json!({"text": "2 + 3 = 5 and 8 / 2 = 4.", "usage": {"input": 150, "output": 12}}),
            ),
        ]});
        let server = ScriptedModel::start(script, KEY);
        let agent = agent(model(&server, streaming)).await;
        let outcome = within(agent.run("What is 2 + 3, and 8 / 2?"))
            .await
            .unwrap_or_else(|e| panic!("streaming={streaming}: {e:?}\n{}", server.log()))
            .into_outcome();
        server.assert_clean();
        assert_eq!(outcome.text, "2 + 3 = 5 and 8 / 2 = 4.");
        assert_eq!(outcome.turns, 2);
        assert_eq!(outcome.usage.input_tokens, 250);
        assert_eq!(outcome.usage.output_tokens, 32);
        assert_eq!(outcome.usage.cached_input_tokens, 60);
        let results: Vec<_> = outcome
            .tool_calls
            .iter()
            .map(|c| (c.call_id.as_str(), c.is_error))
            .collect();
        assert_eq!(results, [("call_a", false), ("call_d", false)]);

        let bodies = server.bodies();
        assert_eq!(bodies.len(), 2);
        for body in &bodies {
            assert_eq!(body["instructions"], "You are a calculator.");
            assert_eq!(body["store"], false);
            assert_eq!(body["max_output_tokens"], 300);
            assert_eq!(body["parallel_tool_calls"], true);
            assert_eq!(body["tools"][0]["strict"], true);
        }
        assert_eq!(
            bodies[1]["input"],
            json!([
                {"type": "message", "role": "user",
                 "content": [{"type": "input_text", "text": "What is 2 + 3, and 8 / 2?"}]},
                {"type": "message", "role": "assistant", "content": "Adding."},
                {"type": "function_call", "call_id": "call_a", "name": "add",
                 "arguments": "{\"a\": 2, \"b\": 3}"},
                {"type": "function_call", "call_id": "call_d", "name": "divide",
                 "arguments": "{\"a\": 8, \"b\": 2}"},
                {"type": "function_call_output", "call_id": "call_a", "output": "5"},
                {"type": "function_call_output", "call_id": "call_d", "output": "4"},
            ])
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn answers_stream_and_carry_the_response() {
    let script = json!({"steps": [
        step(&json!({"stream": true}), &json!({"text": "Hello there, how are you?",
            "tool_calls": [{"id": "call_1", "name": "add", "arguments": "{\"a\": 1, \"b\": 2}"}],
            "usage": {"input": 7, "output": 9, "cached": 3}})),
    ]});
    let server = ScriptedModel::start(script, KEY);
    let model = model(&server, true);
    let request = ChatRequest {
        messages: vec![ChatMessage::user("hi")],
        tools: calc_tools().await,
        ..ChatRequest::default()
    };
    let mut stream = model.stream(request).await.unwrap();
    let mut pieces = Vec::new();
    let mut done = None;
    while let Some(delta) = futures_util::StreamExt::next(&mut stream).await {
        match delta.unwrap() {
            Delta::Text(text) => pieces.push(text),
            Delta::Done(response) => done = Some(response),
        }
    }
    server.assert_clean();
    assert!(pieces.len() > 1, "the text came in pieces: {pieces:?}");
    assert_eq!(pieces.concat(), "Hello there, how are you?");
    let response = done.unwrap();
    assert_eq!(
        response,
        ChatResponse {
            text: "Hello there, how are you?".into(),
            tool_calls: vec![ToolCall {
                id: "call_1".into(),
                name: "add".into(),
                arguments: "{\"a\": 1, \"b\": 2}".into(),
            }],
            stop_reason: Some("completed".into()),
            usage: oxmcp_agent::chat::Usage {
                input_tokens: 7,
                output_tokens: 9,
                cached_input_tokens: 3,
            },
            model: Some("gpt-test".into()),
            id: Some("resp_1".into()),
        }
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_rate_limit_is_retried_with_the_same_request_then_given_up() {
    for streaming in [false, true] {
        let script = json!({"steps": [
            step(&json!({}), &json!({"status": 429, "headers": {"retry-after": "0"},
                                     "message": "Rate limit reached", "code": "rate_limit_exceeded"})),
            step(&json!({}), &json!({"text": "hello"})),
        ]});
        let server = ScriptedModel::start(script, KEY);
        let agent = agent(model(&server, streaming)).await;
        let outcome = within(agent.run("hi")).await.unwrap().into_outcome();
        assert_eq!(outcome.text, "hello");
        let bodies = server.bodies();
        assert_eq!(bodies.len(), 2);
        assert_eq!(bodies[0], bodies[1], "the retry sends the same request");
        server.assert_clean();

        // Retries exhausted: the status and the provider's message.
        let limited =
            json!({"status": 429, "headers": {"retry-after": "0"}, "message": "Slow down"});
        server
            .set_script(json!({"steps": [step(&json!({}), &limited), step(&json!({}), &limited)]}));
        let agent =
            Agent::builder(model(&server, streaming).max_retries(1), ToolSet::empty()).build();
        let error = model_error(within(agent.run("hi")).await.unwrap_err());
        assert!(
            matches!(error, ModelError::Status { status: 429, ref message, .. } if message == "Slow down"),
            "{error:?}"
        );
        assert_eq!(error.provider(), "openai");
        server.assert_clean();
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_cut_stream_and_other_failures() {
    let script = json!({"steps": [
        step(&json!({"stream": true}), &json!({"truncate_stream": true, "text": "partial answer"})),
        step(&json!({"stream": true}), &json!({"truncate_stream": true,
            "tool_calls": [{"id": "call_1", "name": "add", "arguments": "{\"a\": 1, \"b\": 2}"}]})),
        step(&json!({"stream": false}), &json!({"status": 200, "raw": "this is not json"})),
        step(&json!({}), &json!({"status": 400, "message": "model `gpt-test` does not exist"})),
    ]});
    let server = ScriptedModel::start(script, KEY);
    let streaming = agent(model(&server, true)).await;
    let json = agent(model(&server, false)).await;
    for _ in 0..2 {
        let error = model_error(within(streaming.run("hi")).await.unwrap_err());
        assert!(
            matches!(error, ModelError::Malformed { ref message, .. } if message.contains("truncated")),
            "{error:?}"
        );
    }
    let error = model_error(within(json.run("hi")).await.unwrap_err());
    assert!(matches!(error, ModelError::Malformed { .. }), "{error:?}");
    let error = model_error(within(json.run("hi")).await.unwrap_err());
    let text = error.to_string();
    assert!(
        text.contains("openai") && text.contains("400") && text.contains("does not exist"),
        "{text}"
    );
    server.assert_clean();
}

#[tokio::test(flavor = "multi_thread")]
async fn previous_response_id_sends_only_what_follows_the_last_answer() {
    for streaming in [false, true] {
        let script = json!({"steps": [
            // A run: the whole transcript, then only the results.
            step(&json!({"previous_response_id": "absent", "stream": streaming}),
                 &json!({"tool_calls": [{"id": "call_a", "name": "add", "arguments": "{\"a\": 2, \"b\": 3}"}]})),
            step(&json!({"previous_response_id": "previous",
                         "tool_results": [{"id": "call_a", "contains": "5"}]}),
                 &json!({"text": "Adding first.", "tool_calls": [
                     {"id": "call_d", "name": "divide", "arguments": "{\"a\": 5, \"b\": 2}"}]})),
            step(&json!({"previous_response_id": "previous",
                         "tool_results": [{"id": "call_d", "contains": "2.5"}]}),
                 &json!({"text": "2.5"})),
            // The conversation continued in another run: only the new message.
            step(&json!({"previous_response_id": "previous", "last_user_contains": "again"}),
                 &json!({"text": "2.5 again"})),
            // Another conversation: everything.
            step(&json!({"previous_response_id": "absent", "last_user_contains": "other"}),
                 &json!({"text": "other"})),
        ]});
        let server = ScriptedModel::start(script, KEY);
        let agent = agent(model(&server, streaming).previous_response_id(true)).await;
        let first = within(agent.run("(2 + 3) / 2?"))
            .await
            .unwrap_or_else(|e| panic!("streaming={streaming}: {e:?}\n{}", server.log()))
            .into_outcome();
        assert_eq!(first.text, "2.5");
        // The agent adds its instructions in front: continue without them.
        let mut messages = first.transcript[1..].to_vec();
        messages.push(ChatMessage::user("Say it again"));
        let again = within(agent.run_messages(messages))
            .await
            .unwrap_or_else(|e| panic!("{e:?}\n{}", server.log()))
            .into_outcome();
        assert_eq!(again.text, "2.5 again");
        within(agent.run("other")).await.unwrap();
        server.assert_clean();

        let bodies = server.bodies();
        let user = |text: &str| json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]});
        let output = |id: &str, text: &str| json!({"type": "function_call_output", "call_id": id, "output": text});
        let inputs: Vec<&Value> = bodies.iter().map(|b| &b["input"]).collect();
        assert_eq!(
            inputs,
            [
                &json!([user("(2 + 3) / 2?")]),
                &json!([output("call_a", "5")]),
                &json!([output("call_d", "2.5")]),
                &json!([user("Say it again")]),
                &json!([user("other")]),
            ]
        );
        let previous: Vec<&Value> = bodies.iter().map(|b| &b["previous_response_id"]).collect();
        assert_eq!(
            previous,
            [
                &Value::Null,
                &json!("resp_1"),
                &json!("resp_2"),
                &json!("resp_3"),
                &Value::Null,
            ]
        );
        for body in &bodies {
            assert_eq!(body["store"], true);
            assert_eq!(body["instructions"], "You are a calculator.");
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn previous_response_id_falls_back_to_the_whole_transcript() {
    let script = json!({"steps": [
        step(&json!({"previous_response_id": "absent"}), &json!({"text": "Paris."})),
        // The provider lost the response: asked again, whole.
        step(&json!({"previous_response_id": "previous"}),
             &json!({"status": 400, "message": "Previous response with id 'resp_1' not found.",
                     "code": "previous_response_not_found"})),
        step(&json!({"previous_response_id": "absent"}), &json!({"text": "Lyon."})),
        // A failed request asked again continues the same response.
        step(&json!({"previous_response_id": "resp_3"}),
             &json!({"status": 500, "message": "The server had an error"})),
        step(&json!({"previous_response_id": "resp_3"}), &json!({"text": "Marseille."})),
        // An edited transcript does not extend any answer: whole.
        step(&json!({"previous_response_id": "absent"}), &json!({"text": "Nice."})),
    ]});
    let server = ScriptedModel::start(script, KEY);
    let model = model(&server, false).previous_response_id(true);
    let mut messages = vec![
        ChatMessage::system("Answer with a city."),
        ChatMessage::user("Capital of France?"),
    ];
    let ask = |messages: &[ChatMessage]| ChatRequest {
        messages: messages.to_vec(),
        ..ChatRequest::default()
    };
    let paris = model.complete(ask(&messages)).await.unwrap();
    messages.extend([
        ChatMessage::assistant(paris.text),
        ChatMessage::user("Another?"),
    ]);
    let lyon = model.complete(ask(&messages)).await.unwrap();
    assert_eq!(lyon.text, "Lyon.");
    messages.extend([
        ChatMessage::assistant(lyon.text),
        ChatMessage::user("And another?"),
    ]);
    let error = model.complete(ask(&messages)).await.unwrap_err();
    assert!(
        matches!(error, ModelError::Status { status: 500, .. }),
        "{error:?}"
    );
    let marseille = model.complete(ask(&messages)).await.unwrap();
    assert_eq!(marseille.text, "Marseille.");
    messages.extend([
        ChatMessage::assistant("Toulouse."),
        ChatMessage::user("One more?"),
    ]);
    let nice = model.complete(ask(&messages)).await.unwrap();
    assert_eq!(nice.text, "Nice.");
    server.assert_clean();

    let inputs: Vec<usize> = server
        .bodies()
        .iter()
        .map(|b| b["input"].as_array().unwrap().len())
        .collect();
    assert_eq!(inputs, [1, 1, 3, 1, 1, 7]);
}

#[tokio::test(flavor = "multi_thread")]
async fn every_kind_of_message_is_what_the_sdk_takes() {
    let script = json!({"steps": [
        step(&json!({"tool_results": [{"id": "call_1", "contains": "division by zero"},
                                      {"id": "call_2", "contains": "a red pixel", "image": "image/png"}],
                     "tool_choice": "required",
                     "output_schema": {"name": "Answer", "properties": ["answer"], "strict": true}}),
             &json!({"text": "{\"answer\": \"undefined\"}"})),
    ]});
    let server = ScriptedModel::start(script, KEY);
    let model = model(&server, false);
    let request = ChatRequest {
        messages: vec![
            ChatMessage::system("Be brief."),
            ChatMessage::user("Hello"),
            ChatMessage::assistant("Hi! What can I compute?"),
            ChatMessage::system("Prefer tools."),
            ChatMessage::user("1 / 0?"),
            ChatMessage::Assistant {
                text: String::new(),
                tool_calls: vec![
                    ToolCall {
                        id: "call_1".into(),
                        name: "divide".into(),
                        arguments: "{\"a\": 1, \"b\": 0}".into(),
                    },
                    ToolCall {
                        id: "call_2".into(),
                        name: "snapshot".into(),
                        arguments: "{}".into(),
                    },
                ],
            },
            ChatMessage::ToolResults {
                results: vec![
                    ToolResult {
                        call_id: "call_1".into(),
                        name: "divide".into(),
                        content: "division by zero".into(),
                        is_error: true,
                        ..ToolResult::default()
                    },
                    ToolResult {
                        call_id: "call_2".into(),
                        name: "snapshot".into(),
                        content: "a red pixel".into(),
                        media: vec![Media {
                            mime_type: "image/png".into(),
                            data: PIXEL.into(),
                        }],
                        ..ToolResult::default()
                    },
                ],
            },
        ],
        tools: calc_tools().await,
        tool_choice: ToolChoice::Required,
        max_tokens: Some(50),
        output: Some(OutputFormat {
            name: "Answer".into(),
            schema: json!({"type": "object", "properties": {"answer": {"type": "string"}}}),
            strict_schema: Some(
                json!({"type": "object", "properties": {"answer": {"type": "string"}},
                                       "required": ["answer"], "additionalProperties": false}),
            ),
        }),
    };
    let response = model.complete(request).await.unwrap();
    assert_eq!(response.text, "{\"answer\": \"undefined\"}");
    assert_eq!(response.stop_reason.as_deref(), Some("completed"));
    server.assert_clean();
    let body = &server.bodies()[0];
    assert_eq!(body["instructions"], "Be brief.");
    assert_eq!(
        body["input"][2],
        json!({"type": "message", "role": "system",
               "content": [{"type": "input_text", "text": "Prefer tools."}]})
    );
    assert_eq!(body["text"]["format"]["strict"], true);
}
