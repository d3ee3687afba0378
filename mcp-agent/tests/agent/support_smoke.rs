//! The scripted model server works from Rust: start it, talk OpenAI Chat
//! Completions to it over a raw TCP connection, and end clean.

use crate::support;

use serde_json::json;
use support::ScriptedModel;

#[test]
fn scripted_model_answers_a_minimal_chat_completion() {
    let model = ScriptedModel::start(
        json!({"steps": [{
            "provider": "openai",
            "expect": {"no_tools": true, "stream": false, "last_user_contains": "hello"},
            "respond": {"text": "Hi there!", "usage": {"input": 3, "output": 2}},
        }]}),
        "sk-smoke",
    );
    assert!(model.openai_base_url().ends_with("/v1"));

    let body = json!({"model": "gpt-smoke", "messages": [{"role": "user", "content": "hello"}]});
    let resp = model.request(
        "POST",
        "/v1/chat/completions",
        &[
            ("content-type", "application/json"),
            ("authorization", "Bearer sk-smoke"),
        ],
        body.to_string().as_bytes(),
    );
    assert_eq!(resp.status, 200, "answer: {}", resp.text());
    let answer = resp.json();
    assert_eq!(answer["object"], "chat.completion");
    assert_eq!(answer["model"], "gpt-smoke");
    assert_eq!(answer["choices"][0]["message"]["role"], "assistant");
    assert_eq!(answer["choices"][0]["message"]["content"], "Hi there!");
    assert_eq!(answer["choices"][0]["finish_reason"], "stop");
    assert_eq!(answer["usage"]["total_tokens"], 5);

    let requests = model.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0]["headers"]["authorization"], "Bearer ***");
    assert_eq!(requests[0]["body"], body);
    model.assert_clean();
}

#[test]
fn scripted_model_records_a_refused_request() {
    let model = ScriptedModel::start(json!({"steps": [{"respond": {"text": "unused"}}]}), "");
    let resp = model.request(
        "POST",
        "/v1/chat/completions",
        &[("content-type", "application/json")],
        json!({"model": "m", "messages": [{"role": "user", "content": "hi", "bogus": 1}]})
            .to_string()
            .as_bytes(),
    );
    assert_eq!(resp.status, 400);
    let error = resp.json();
    assert_eq!(error["error"]["type"], "invalid_request_error");
    assert!(
        error["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("messages[0]") && m.contains("bogus")),
        "{error}"
    );
    let failures = model.failures();
    assert_eq!(failures.len(), 1, "{failures:?}");
    let unclean = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| model.assert_clean()));
    assert!(
        unclean.is_err(),
        "assert_clean must panic on a refused request"
    );
}

/// `POST /__reset` (how a server is reused for the next test): its requests,
/// failures and script are gone, and the key given is the one checked.
#[test]
fn scripted_model_reset_is_a_server_just_started() {
    let model = ScriptedModel::start(json!({"steps": [{"respond": {"text": "unused"}}]}), "");
    let chat = |key: &str| {
        let auth = format!("Bearer {key}");
        model.request(
            "POST",
            "/v1/chat/completions",
            &[
                ("content-type", "application/json"),
                ("authorization", &auth),
            ],
            json!({"model": "m", "messages": [{"role": "user", "content": "hi", "bogus": 1}]})
                .to_string()
                .as_bytes(),
        )
    };
    assert_eq!(chat("any").status, 400);
    assert_eq!(model.failures().len(), 1);

    let reset = |body: &str| {
        model.request(
            "POST",
            "/__reset",
            &[("content-type", "application/json")],
            body.as_bytes(),
        )
    };
    assert_eq!(reset(r#"{"api_key": "sk-after"}"#).status, 200);
    let status = model.status();
    assert_eq!(
        (&status["consumed"], &status["remaining"], &status["script"]),
        (&json!(0), &json!(0), &json!(0)),
        "{status}"
    );
    assert_eq!(status["requests"], json!([]));
    assert_eq!(status["failures"], json!([]));
    let wrong_key =
        |failure: &serde_json::Value| failure["problems"].to_string().contains("wrong key");
    assert_eq!(chat("any").status, 400);
    assert_eq!(chat("sk-after").status, 400);
    let failures = model.failures();
    assert_eq!(
        failures.iter().map(wrong_key).collect::<Vec<_>>(),
        [true, false],
        "the new key is checked: {failures:?}"
    );
    assert_eq!(
        reset(r#"{"key": 1}"#).status,
        400,
        "a reset without api_key"
    );
}
