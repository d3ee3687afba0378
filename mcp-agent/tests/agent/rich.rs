//! Results that are not text, and typed output, against the scripted model
//! servers (`tests/agent/scripted_model.py`), which check each request
//! against the providers' own SDK types: images and PDF documents reach each
//! provider in its native form; a typed run's schema goes out as the
//! provider's structured-output format, its answer is validated, corrected
//! once, and refused the second time.

use crate::support;

use std::time::Duration;

use oxmcp_agent::{chat::ChatModel, Agent, Finish, RunError, ToolSet};
use oxmcp_server::tool;
use oxmcp_types::{CallToolResult, ContentBlock, ResourceContents};
use serde_json::json;
use support::{Provider, ScriptedModel, KEY};

/// A 1×1 PNG.
const PIXEL: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
/// A tiny PDF.
const PDF: &str = "JVBERi0xLjQKMSAwIG9iajw8Pj5lbmRvYmoKdHJhaWxlcjw8Pj4KJSVFT0YK";

fn model(server: &ScriptedModel, provider: Provider, streaming: bool) -> Box<dyn ChatModel> {
    provider.model(server, streaming)
}

fn provider_name(provider: Provider) -> &'static str {
    provider.script_name()
}

#[derive(Debug, Default)]
pub struct Camera;

#[tool(description = "A camera")]
impl Camera {
    #[describe("Take a picture")]
    pub fn snapshot(&self) -> CallToolResult {
        CallToolResult {
            content: vec![
                ContentBlock::text("a red pixel"),
                ContentBlock::image(PIXEL, "image/png"),
            ],
            ..CallToolResult::default()
        }
    }

    #[describe("Print the report")]
    pub fn report(&self) -> CallToolResult {
        CallToolResult {
            content: vec![
                ContentBlock::text("the report"),
                ContentBlock::resource(ResourceContents::blob(
                    "file:///report.pdf",
                    "application/pdf",
                    PDF,
                )),
            ],
            ..CallToolResult::default()
        }
    }
}

async fn within<T>(f: impl std::future::IntoFuture<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(60), f)
        .await
        .expect("the run did not finish within 60 s")
}

#[tokio::test(flavor = "multi_thread")]
async fn an_image_result_reaches_each_provider_in_its_own_form() {
    for (provider, streaming) in [
        (Provider::Anthropic, false),
        (Provider::Anthropic, true),
        (Provider::OpenAi, false),
        (Provider::OpenAi, true),
        (Provider::Responses, false),
        (Provider::Responses, true),
    ] {
        let name = provider_name(provider);
        // Anthropic: an image block inside tool_result; Chat Completions: a
        // user message with the image after the tool message; Responses: an
        // input_image part of the function_call_output.
        let script = json!({"steps": [
            {"provider": name, "respond": {"tool_calls": [{"id": "call_s", "name": "snapshot", "arguments": "{}"}]}},
            {"provider": name,
             "expect": {"tool_results": [{"id": "call_s", "contains": "a red pixel", "image": "image/png"}]},
             "respond": {"text": "It is red."}}
        ]});
        let server = ScriptedModel::start(script, KEY);
        let tools = ToolSet::builder().toolbox(Camera).build().await.unwrap();
        let agent = Agent::builder(model(&server, provider, streaming), tools).build();
        let outcome = within(agent.run("What colour is it?"))
            .await
            .unwrap_or_else(|e| panic!("{provider:?} {streaming}: {e:?}\n{}", server.log()))
            .into_outcome();
        assert_eq!(outcome.text, "It is red.");
        server.assert_clean();
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_pdf_result_reaches_anthropic_as_a_document_block() {
    let script = json!({"steps": [
        {"provider": "anthropic", "respond": {"tool_calls": [{"id": "toolu_r", "name": "report", "arguments": "{}"}]}},
        {"provider": "anthropic",
         "expect": {"tool_results": [{"id": "toolu_r", "contains": "the report", "document": "application/pdf"}]},
         "respond": {"text": "Read it."}}
    ]});
    let server = ScriptedModel::start(script, KEY);
    let tools = ToolSet::builder().toolbox(Camera).build().await.unwrap();
    let agent = Agent::builder(model(&server, Provider::Anthropic, false), tools).build();
    let outcome = within(agent.run("Summarise the report"))
        .await
        .unwrap_or_else(|e| panic!("{e:?}\n{}", server.log()))
        .into_outcome();
    assert_eq!(outcome.text, "Read it.");
    server.assert_clean();
}

/// The typed answer.
#[derive(Debug, PartialEq, serde::Deserialize, schemars::JsonSchema)]
struct Forecast {
    city: String,
    celsius: f64,
    note: Option<String>,
}

fn schema_expectation(provider: Provider) -> serde_json::Value {
    match provider {
        Provider::OpenAi | Provider::Responses => {
            json!({"name": "Forecast", "properties": ["city", "celsius", "note"], "strict": true})
        }
        Provider::Anthropic => json!({"properties": ["city", "celsius", "note"]}),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn typed_output_valid_corrected_once_and_refused_twice() {
    for provider in [Provider::OpenAi, Provider::Responses, Provider::Anthropic] {
        let name = provider_name(provider);
        let schema = schema_expectation(provider);
        let good = r#"{"city": "Lyon", "celsius": 21.5, "note": null}"#;
        let bad = r#"{"city": "Lyon"}"#;
        let script = json!({"steps": [
            // Valid at once.
            {"provider": name, "expect": {"output_schema": schema}, "respond": {"text": good}},
            // Invalid, then corrected after the retry.
            {"provider": name, "expect": {"output_schema": schema}, "respond": {"text": bad}},
            {"provider": name,
             "expect": {"output_schema": schema, "last_user_contains": "does not match the required JSON schema"},
             "respond": {"text": good}},
            // Invalid twice.
            {"provider": name, "respond": {"text": "sunny"}},
            {"provider": name, "respond": {"text": bad}},
        ]});
        let server = ScriptedModel::start(script, KEY);
        let tools = ToolSet::builder().build().await.unwrap();
        let agent = Agent::builder(model(&server, provider, false), tools).build();
        let expected = Forecast {
            city: "Lyon".into(),
            celsius: 21.5,
            note: None,
        };

        let first = within(agent.run("Tomorrow in Lyon?").output::<Forecast>())
            .await
            .unwrap_or_else(|e| panic!("{provider:?}: {e:?}\n{}", server.log()));
        let Finish::Done { output, outcome } = first else {
            panic!("{provider:?}: paused")
        };
        assert_eq!(output, expected);
        assert_eq!(outcome.turns, 1);

        let second = within(agent.run("Tomorrow in Lyon?").output::<Forecast>())
            .await
            .unwrap_or_else(|e| panic!("{provider:?}: {e:?}\n{}", server.log()));
        let Finish::Done { output, outcome } = second else {
            panic!("{provider:?}: paused")
        };
        assert_eq!(output, expected);
        assert_eq!(outcome.turns, 2, "one retry");

        let error = within(agent.run("Tomorrow in Lyon?").output::<Forecast>())
            .await
            .unwrap_err();
        let RunError::Output { problem, outcome } = &error else {
            panic!("{provider:?}: not an output error: {error:?}")
        };
        assert!(problem.contains("celsius"), "{problem}");
        assert_eq!(outcome.turns, 2, "one retry, then the run ends");
        assert!(error.to_string().contains("after a retry"), "{error}");
        server.assert_clean();
    }
}
