//! The official MCP conformance suite's server fixture, built only on the
//! public API, like any user's server.
//!
//! Run with: `cargo run -p mcp-examples --bin conformance_server -- --port 3000`
//! then point the suite at `http://localhost:3000/mcp`
//! (`tests/conformance/run.sh` does both).

use std::time::Duration;

use clap::Parser;
use oxmcp_server::http::HttpConfig;
use oxmcp_server::policy::MiddlewareLayer;
use oxmcp_server::types::elicitation::ElicitParams;
use oxmcp_server::types::sampling::{CreateMessageParams, SamplingMessage};
use oxmcp_server::types::{ContentBlock, ResourceContents};
use oxmcp_server::{
    ask::Elicited, prompt::PromptEntry, tool, types::LoggingLevel, types::PromptMessage, Context,
    RequestError, Server, ServerHandle, ToolBox, ToolEntry, ToolError,
};

/// A 1×1 PNG.
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
/// A tiny WAV file.
const WAV: &str = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";

/// The fixture's prompts, resources, resource template and completion.
#[derive(Debug)]
pub struct Library;

#[tool(description = "The prompts and resources the MCP conformance suite reads")]
impl Library {
    #[prompt]
    #[describe("A simple prompt without arguments")]
    pub fn test_simple_prompt(&self) -> &'static str {
        "This is a simple prompt for testing."
    }

    #[prompt]
    #[describe("A prompt with two required arguments")]
    #[param(arg1, "First argument")]
    #[param(arg2, "Second argument")]
    pub fn test_prompt_with_arguments(&self, arg1: String, arg2: String) -> String {
        format!("Prompt with arguments: arg1='{arg1}', arg2='{arg2}'")
    }

    /// Suggestions for `arg1`: the known values starting with what was typed.
    #[complete(test_prompt_with_arguments, arg1)]
    pub fn complete_arg1(&self, typed: &str) -> Vec<&'static str> {
        ["testValue1", "testValue2", "testing"]
            .into_iter()
            .filter(|v| v.starts_with(typed))
            .collect()
    }

    #[prompt]
    #[describe("A prompt that embeds a resource")]
    #[param(resourceUri, "The URI of the resource to embed")]
    #[allow(non_snake_case)]
    pub fn test_prompt_with_embedded_resource(&self, resourceUri: String) -> Vec<PromptMessage> {
        vec![
            PromptMessage::user(ContentBlock::resource(ResourceContents::text(
                resourceUri,
                "text/plain",
                "Embedded resource content for testing.",
            ))),
            PromptMessage::user("Please process the embedded resource above."),
        ]
    }

    #[prompt]
    #[describe("A prompt with an image")]
    pub fn test_prompt_with_image(&self) -> Vec<PromptMessage> {
        vec![
            PromptMessage::user(ContentBlock::image(PNG, "image/png")),
            PromptMessage::user("Please analyze the image above."),
        ]
    }

    #[resource(
        uri = "test://static-text",
        mime_type = "text/plain",
        title = "Static text"
    )]
    #[describe("A static text resource")]
    pub fn static_text(&self) -> &'static str {
        "This is the content of the static text resource."
    }

    #[resource(
        uri = "test://static-binary",
        mime_type = "image/png",
        title = "Static binary"
    )]
    #[describe("A static binary resource (a PNG image)")]
    pub fn static_binary(&self) -> ResourceContents {
        ResourceContents::blob("test://static-binary", "image/png", PNG)
    }

    #[resource(
        uri = "test://watched-resource",
        mime_type = "text/plain",
        title = "Watched resource"
    )]
    #[describe("A resource clients can subscribe to")]
    pub fn watched_resource(&self) -> &'static str {
        "Watched resource content."
    }

    #[resource(
        template = "test://template/{id}/data",
        mime_type = "application/json",
        title = "Template data"
    )]
    #[describe("Data for one id")]
    pub fn template_data(&self, id: String) -> String {
        serde_json::json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")})
            .to_string()
    }
}

/// A form (`elicitation/create`) written as JSON, as the suite spells it.
fn form(message: &str, schema: serde_json::Value) -> ElicitParams {
    let serde_json::Value::Object(schema) = schema else {
        unreachable!("the fixture's schemas are objects")
    };
    ElicitParams::form(message, schema)
}

/// A one-message sampling request.
fn question(text: &str, max_tokens: u64) -> CreateMessageParams {
    CreateMessageParams::new(vec![SamplingMessage::user_text(text)], max_tokens)
}

/// What the client answered, for the tools to report.
fn answered<T: serde::Serialize>(answer: &T) -> String {
    serde_json::to_string(answer).unwrap_or_default()
}

/// The fixture's tools that ask the client: sampling, elicitation and roots,
/// as server→client requests (legacy sessions) or input rounds (2026-07-28).
#[derive(Debug)]
pub struct Asking;

#[tool(description = "Tools that ask the client for sampling, elicitation or roots")]
impl Asking {
    #[describe("Asks the client's model to answer a prompt (sampling)")]
    pub async fn test_sampling(
        &self,
        #[param("The prompt to send to the LLM")] prompt: String,
        ctx: Context,
    ) -> Result<String, ToolError> {
        #[allow(deprecated)] // the conformance scenario tests it
        let answer = ctx.sample(question(&prompt, 100)).await?;
        Ok(format!(
            "LLM response: {}",
            answer.content.text().unwrap_or_default()
        ))
    }

    #[describe("Asks the user for a username and an email (elicitation)")]
    pub async fn test_elicitation(
        &self,
        #[param("The message to show the user")] message: String,
        ctx: Context,
    ) -> Result<String, ToolError> {
        let schema = serde_json::json!({
            "type": "object",
            "properties": {
                "username": {"type": "string", "description": "User's response"},
                "email": {"type": "string", "description": "User's email address"}
            },
            "required": ["username", "email"]
        });
        let answer = ctx.elicit_with(form(&message, schema)).await?;
        Ok(format!(
            "User response: action={}, content={}",
            answered(&answer.action),
            answered(&answer.content)
        ))
    }

    #[describe("Asks for a form whose fields all have defaults (SEP-1034)")]
    pub async fn test_elicitation_sep1034_defaults(
        &self,
        ctx: Context,
    ) -> Result<String, ToolError> {
        let schema = serde_json::json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "description": "User name", "default": "John Doe"},
                "age": {"type": "integer", "description": "User age", "default": 30},
                "score": {"type": "number", "description": "User score", "default": 95.5},
                "status": {"type": "string", "description": "User status", "enum": ["active", "inactive", "pending"], "default": "active"},
                "verified": {"type": "boolean", "description": "Verification status", "default": true}
            },
            "required": []
        });
        let answer = ctx
            .elicit_with(form(
                "Please review and update the form fields with defaults",
                schema,
            ))
            .await?;
        Ok(format!(
            "Elicitation completed: action={}, content={}",
            answered(&answer.action),
            answered(&answer.content)
        ))
    }

    #[describe("Asks for a form with every kind of enum (SEP-1330)")]
    pub async fn test_elicitation_sep1330_enums(&self, ctx: Context) -> Result<String, ToolError> {
        let schema = serde_json::json!({
            "type": "object",
            "properties": {
                "untitledSingle": {"type": "string", "description": "Choose an option", "enum": ["option1", "option2", "option3"]},
                "titledSingle": {"type": "string", "description": "Choose a titled option", "oneOf": [
                    {"const": "value1", "title": "First Option"},
                    {"const": "value2", "title": "Second Option"},
                    {"const": "value3", "title": "Third Option"}
                ]},
                "legacyEnum": {"type": "string", "description": "Choose a legacy option", "enum": ["opt1", "opt2", "opt3"], "enumNames": ["Option One", "Option Two", "Option Three"]},
                "untitledMulti": {"type": "array", "description": "Choose multiple options", "minItems": 1, "maxItems": 3, "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
                "titledMulti": {"type": "array", "description": "Choose multiple titled options", "minItems": 1, "maxItems": 3, "items": {"anyOf": [
                    {"const": "value1", "title": "First Choice"},
                    {"const": "value2", "title": "Second Choice"},
                    {"const": "value3", "title": "Third Choice"}
                ]}}
            },
            "required": []
        });
        let answer = ctx
            .elicit_with(form("Please select options from the enum fields", schema))
            .await?;
        Ok(format!(
            "Elicitation completed: action={}, content={}",
            answered(&answer.action),
            answered(&answer.content)
        ))
    }

    #[describe("Asks for the user's name in an input round (2026-07-28)")]
    pub async fn test_input_required_result_elicitation(
        &self,
        ctx: Context,
    ) -> Result<String, ToolError> {
        let answer = ctx
            .ask("user_name")
            .elicit::<Name>("What is your name?")
            .await?;
        Ok(match answer {
            Elicited::Accepted(n) => format!("Hello, {}!", n.name),
            Elicited::Declined | Elicited::Cancelled => "Hello, stranger!".into(),
        })
    }

    #[describe("Asks the client's model a question in an input round (2026-07-28)")]
    pub async fn test_input_required_result_sampling(
        &self,
        ctx: Context,
    ) -> Result<String, ToolError> {
        #[allow(deprecated)] // the conformance scenario tests it
        let answer = ctx
            .ask("capital_question")
            .sample(question("What is the capital of France?", 100))
            .await?;
        Ok(format!(
            "The model said: {}",
            answer.content.text().unwrap_or_default()
        ))
    }

    #[describe("Asks the client for its roots in an input round (2026-07-28)")]
    pub async fn test_input_required_result_list_roots(
        &self,
        ctx: Context,
    ) -> Result<String, ToolError> {
        #[allow(deprecated)] // the conformance scenario tests it
        let roots = ctx.ask("client_roots").roots().await?;
        let uris: Vec<&str> = roots.iter().map(|r| r.uri.as_str()).collect();
        Ok(format!("Client roots: {}", uris.join(", ")))
    }

    #[describe("Asks for a confirmation, resumed with the signed requestState (2026-07-28)")]
    pub async fn test_input_required_result_request_state(
        &self,
        ctx: Context,
    ) -> Result<String, ToolError> {
        let answer = ctx
            .ask("confirm")
            .elicit::<Confirm>("Please confirm")
            .await?;
        let state = if ctx.resumed() {
            "state-ok"
        } else {
            "no state"
        };
        Ok(format!(
            "{state}: confirmed={}",
            matches!(answer, Elicited::Accepted(Confirm { ok: true }))
        ))
    }

    #[describe("Asks for three inputs at once: a name, a greeting, the roots (2026-07-28)")]
    pub async fn test_input_required_result_multiple_inputs(
        &self,
        ctx: Context,
    ) -> Result<String, ToolError> {
        #[allow(deprecated)] // the conformance scenario tests it
        let (name, greeting, roots) = tokio::join!(
            ctx.ask("user_name").elicit::<Name>("What is your name?"),
            ctx.ask("greeting")
                .sample(question("Generate a greeting", 50)),
            ctx.ask("client_roots").roots(),
        );
        let name = match name? {
            Elicited::Accepted(n) => n.name,
            Elicited::Declined | Elicited::Cancelled => "stranger".into(),
        };
        Ok(format!(
            "{} {name} ({} roots)",
            greeting?.content.text().unwrap_or("Hello"),
            roots?.len()
        ))
    }

    #[describe("Asks two questions, one round each (2026-07-28)")]
    pub async fn test_input_required_result_multi_round(
        &self,
        ctx: Context,
    ) -> Result<String, ToolError> {
        let name = ctx
            .ask("step1")
            .elicit::<Name>("Step 1: What is your name?")
            .await?;
        let color = ctx
            .ask("step2")
            .elicit::<Color>("Step 2: What is your favorite color?")
            .await?;
        match (name, color) {
            (Elicited::Accepted(n), Elicited::Accepted(c)) => {
                Ok(format!("{} likes {}", n.name, c.color))
            }
            _ => Ok("the user stopped".into()),
        }
    }

    #[describe("Asks for a confirmation; a tampered requestState is refused (2026-07-28)")]
    pub async fn test_input_required_result_tampered_state(
        &self,
        ctx: Context,
    ) -> Result<String, ToolError> {
        let answer = ctx
            .ask("confirm")
            .elicit::<Confirm>("Please confirm")
            .await?;
        Ok(format!(
            "confirmed={}",
            matches!(answer, Elicited::Accepted(Confirm { ok: true }))
        ))
    }

    #[describe("Asks only for what the client declared it can answer (2026-07-28)")]
    pub async fn test_input_required_result_capabilities(&self, ctx: Context) -> String {
        #[allow(deprecated)] // the conformance scenario tests it
        let (sampled, elicited) = tokio::join!(
            ctx.ask("sampling").sample(question("Say something", 20)),
            ctx.ask("elicitation").elicit::<Name>("What is your name?"),
        );
        format!(
            "sampling answered: {}, elicitation answered: {}",
            sampled.is_ok(),
            elicited.is_ok()
        )
    }

    #[describe("Asks for the user's name while streaming (2026-07-28: an input round, never a request on the stream)")]
    pub async fn test_streaming_elicitation(&self, ctx: Context) -> Result<String, ToolError> {
        #[allow(deprecated)] // the conformance scenario tests it
        ctx.info("asking for the user's name");
        let answer = ctx
            .ask("user_name")
            .elicit::<Name>("What is your name?")
            .await?;
        Ok(format!(
            "streamed: {}",
            matches!(answer, Elicited::Accepted(_))
        ))
    }

    #[prompt]
    #[describe("A prompt that needs context from the user first (2026-07-28 input round)")]
    pub async fn test_input_required_result_prompt(
        &self,
        ctx: Context,
    ) -> Result<String, RequestError> {
        let answer = ctx
            .ask("user_context")
            .elicit::<UserContext>("What context should the prompt use?")
            .await
            .map_err(|e| RequestError::internal(e.to_string()))?;
        Ok(match answer {
            Elicited::Accepted(c) => format!("Use this context: {}", c.context),
            Elicited::Declined | Elicited::Cancelled => "Use no particular context.".into(),
        })
    }
}

/// `{name}`.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Name {
    name: String,
}

/// `{color}`.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Color {
    color: String,
}

/// `{ok}`.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Confirm {
    ok: bool,
}

/// `{context}`.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct UserContext {
    context: String,
}

/// The fixture's tools that the macros express.
#[derive(Debug)]
pub struct Fixture;

#[tool(description = "The tools the MCP conformance suite calls")]
impl Fixture {
    #[describe("Tests simple text content response")]
    pub fn test_simple_text(&self) -> String {
        "This is a simple text response for testing.".into()
    }

    #[describe("Tests image content response")]
    pub fn test_image_content(&self) -> ContentBlock {
        ContentBlock::image(PNG, "image/png")
    }

    #[describe("Tests audio content response")]
    pub fn test_audio_content(&self) -> ContentBlock {
        ContentBlock::audio(WAV, "audio/wav")
    }

    #[describe("Tests embedded resource content response")]
    pub fn test_embedded_resource(&self) -> ContentBlock {
        ContentBlock::resource(ResourceContents::text(
            "test://embedded-resource",
            "text/plain",
            "This is an embedded resource content.",
        ))
    }

    #[describe("Tests response with multiple content types (text, image, resource)")]
    pub fn test_multiple_content_types(&self) -> Vec<ContentBlock> {
        vec![
            ContentBlock::text("Multiple content types test:"),
            ContentBlock::image(PNG, "image/png"),
            ContentBlock::resource(ResourceContents::text(
                "test://mixed-content-resource",
                "application/json",
                r#"{"test":"data","value":123}"#,
            )),
        ]
    }

    #[describe("Tests tool that emits log messages during execution")]
    #[allow(deprecated)] // the conformance scenario tests it
    pub async fn test_tool_with_logging(&self, ctx: Context) -> String {
        ctx.log(LoggingLevel::Info, "Tool execution started");
        tokio::time::sleep(Duration::from_millis(50)).await;
        ctx.log(LoggingLevel::Info, "Tool processing data");
        tokio::time::sleep(Duration::from_millis(50)).await;
        ctx.log(LoggingLevel::Info, "Tool execution completed");
        "Tool with logging executed successfully".into()
    }

    #[describe("Tests tool that emits log messages only when the request asks for them")]
    #[allow(deprecated)] // the conformance scenario tests it
    pub async fn test_logging_tool(&self, ctx: Context) -> String {
        ctx.log(LoggingLevel::Info, "Tool execution started");
        tokio::time::sleep(Duration::from_millis(50)).await;
        ctx.log(LoggingLevel::Info, "Tool processing data");
        tokio::time::sleep(Duration::from_millis(50)).await;
        ctx.log(LoggingLevel::Info, "Tool execution completed");
        "Logging tool executed successfully".into()
    }

    #[describe("Tests error response handling")]
    pub fn test_error_handling(&self) -> Result<String, ToolError> {
        Err(ToolError::new(
            "This tool intentionally returns an error for testing",
        ))
    }

    #[describe("Tests tool that reports progress notifications")]
    pub async fn test_tool_with_progress(&self, ctx: Context) -> String {
        for step in [0.0, 50.0, 100.0] {
            ctx.progress(step, Some(100.0));
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        "Progress test completed".into()
    }

    #[describe("Adds a tool, or removes it if present, so that clients hear of a tool-list change")]
    pub async fn test_trigger_tool_change(&self, ctx: Context) -> Result<String, ToolError> {
        let server = ctx
            .server()
            .ok_or_else(|| ToolError::new("not running inside a server"))?;
        let added = toggle_dynamic_tool(&server, None)?;
        peers::tell(if added { "tool+" } else { "tool-" }).await;
        Ok(format!(
            "{} test_dynamic_tool",
            if added { "added" } else { "removed" }
        ))
    }

    #[describe("Adds test_dynamic_prompt, or removes it if present (prompts/list_changed)")]
    pub async fn test_trigger_prompt_change(&self, ctx: Context) -> Result<String, ToolError> {
        let server = ctx
            .server()
            .ok_or_else(|| ToolError::new("not running inside a server"))?;
        let added = toggle_dynamic_prompt(&server, None)?;
        peers::tell(if added { "prompt+" } else { "prompt-" }).await;
        Ok(format!(
            "{} test_dynamic_prompt",
            if added { "added" } else { "removed" }
        ))
    }

    #[describe("Tests SSE stream disconnection and client reconnection: closes the stream mid-call and delivers the result after the client resumes")]
    pub async fn test_reconnection(&self, ctx: Context) -> String {
        tokio::time::sleep(Duration::from_millis(100)).await;
        ctx.close_sse_stream();
        tokio::time::sleep(Duration::from_millis(200)).await;
        "Reconnection test completed successfully".into()
    }

    #[describe("Needs the client's sampling capability: refused with -32021 without it")]
    #[tool(requires_client(sampling))]
    pub fn test_missing_capability(&self) -> String {
        "the client declared the sampling capability".into()
    }
}

/// Adds `test_dynamic_tool`, or removes it if present (`want` says which,
/// when another instance did it); whether it is there now.
fn toggle_dynamic_tool(server: &ServerHandle, want: Option<bool>) -> Result<bool, ToolError> {
    let present = server.remove_tool("test_dynamic_tool");
    if want == Some(false) || (want.is_none() && present) {
        return Ok(false);
    }
    let tool = ToolEntry::dynamic(
        "test_dynamic_tool",
        "A tool added at run time by test_trigger_tool_change",
        serde_json::json!({"type": "object"}),
        |_args, _ctx| async { "dynamic" },
    )
    .map_err(|e| ToolError::new(e.to_string()))?;
    server.add_tool(tool)?;
    Ok(true)
}

/// The same for `test_dynamic_prompt`.
fn toggle_dynamic_prompt(server: &ServerHandle, want: Option<bool>) -> Result<bool, ToolError> {
    let present = server.remove_prompt("test_dynamic_prompt");
    if want == Some(false) || (want.is_none() && present) {
        return Ok(false);
    }
    server.add_prompt(PromptEntry::dynamic(
        "test_dynamic_prompt",
        "A prompt added at run time by test_trigger_prompt_change",
        Vec::new(),
        |_args, _ctx| async { "dynamic" },
    )?)?;
    Ok(true)
}

/// With `--redis`, the fixture's own state (its dynamic tool and prompt)
/// is the same on every instance: a change made on one is told to the
/// others on a Redis channel of the fixture's, and each applies it. (The
/// framework shares sessions and notifications; what a toolbox adds or
/// keeps is the application's to share.)
mod peers {
    use std::sync::OnceLock;

    use futures_util::StreamExt as _;
    use oxmcp_server::ServerHandle;

    const CHANNEL: &str = "conformance-fixture:changes";

    struct Peers {
        me: String,
        connection: redis::aio::ConnectionManager,
    }

    static PEERS: OnceLock<Peers> = OnceLock::new();

    /// Tells the other instances what this one changed (nothing without `--redis`).
    pub(super) async fn tell(change: &str) {
        let Some(peers) = PEERS.get() else { return };
        let mut connection = peers.connection.clone();
        let message = format!("{} {change}", peers.me);
        let sent: Result<(), _> = redis::cmd("PUBLISH")
            .arg(CHANNEL)
            .arg(message)
            .query_async(&mut connection)
            .await;
        if let Err(e) = sent {
            tracing::warn!(error = %e, "could not tell the other instances of a change");
        }
    }

    /// Applies what the other instances tell, for as long as the server runs.
    pub(super) async fn listen(url: &str, store: &oxmcp_redis::RedisStore, server: ServerHandle) {
        let started = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default()
            .as_nanos();
        let me = format!("{}-{started}", std::process::id());
        let client = match redis::Client::open(url) {
            Ok(c) => c,
            Err(e) => {
                eprintln!("conformance_server: {e}");
                std::process::exit(1);
            }
        };
        let mut pubsub = match client.get_async_pubsub().await {
            Ok(p) => p,
            Err(e) => {
                eprintln!("conformance_server: cannot subscribe to Redis: {e}");
                std::process::exit(1);
            }
        };
        if let Err(e) = pubsub.subscribe(CHANNEL).await {
            eprintln!("conformance_server: cannot subscribe to Redis: {e}");
            std::process::exit(1);
        }
        let _ = PEERS.set(Peers {
            me: me.clone(),
            connection: store.connection(),
        });
        tokio::spawn(async move {
            let mut messages = pubsub.into_on_message();
            while let Some(msg) = messages.next().await {
                let Ok(text) = msg.get_payload::<String>() else {
                    continue;
                };
                let Some((from, change)) = text.split_once(' ') else {
                    continue;
                };
                if from == me {
                    continue;
                }
                let applied = match change {
                    "tool+" => super::toggle_dynamic_tool(&server, Some(true)),
                    "tool-" => super::toggle_dynamic_tool(&server, Some(false)),
                    "prompt+" => super::toggle_dynamic_prompt(&server, Some(true)),
                    "prompt-" => super::toggle_dynamic_prompt(&server, Some(false)),
                    _ => continue,
                };
                if let Err(e) = applied {
                    tracing::warn!(error = %e, "could not apply another instance's change");
                }
            }
        });
    }
}

/// A tool declared by hand: its input schema uses JSON Schema 2020-12
/// features the macros do not generate (`$schema`, `$anchor`, `allOf`,
/// `if`/`then`/`else`).
#[derive(Debug)]
pub struct SchemaTools;

impl ToolBox for SchemaTools {
    const NAME: &'static str = "SchemaTools";
    const DESCRIPTION: &'static str = "Tools with hand-written schemas";

    fn into_tools(self) -> Vec<ToolEntry> {
        let schema = serde_json::json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "$defs": {
                "address": {
                    "$anchor": "addressDef",
                    "type": "object",
                    "properties": {
                        "street": {"type": "string"},
                        "city": {"type": "string"}
                    }
                }
            },
            "properties": {
                "name": {"type": "string"},
                "address": {"$ref": "#/$defs/address"},
                "contactMethod": {"type": "string", "enum": ["phone", "email"]},
                "phone": {"type": "string"},
                "email": {"type": "string"}
            },
            "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
            "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
            "then": {"required": ["phone"]},
            "else": {"required": ["email"]},
            "additionalProperties": false
        });
        let tool = ToolEntry::dynamic(
            "json_schema_2020_12_tool",
            "Tool with JSON Schema 2020-12 features",
            schema,
            |args, _ctx| async move {
                let received = serde_json::Value::Object(args);
                format!("JSON Schema 2020-12 tool called with: {received}")
            },
        );
        match tool {
            Ok(tool) => vec![tool],
            Err(e) => {
                tracing::error!(error = %e, "json_schema_2020_12_tool is not served");
                Vec::new()
            }
        }
    }
}

use mcp_examples::command_line;
use mcp_examples::stderr_logs;

use mcp_examples::several;

use mcp_examples::conformance_tasks;

/// The conformance suite's server fixture, over Streamable HTTP.
#[derive(Debug, Parser)]
#[command(
    name = "conformance_server",
    version,
    after_help = "Examples:\n  \
        conformance_server --port 3000              # then http://localhost:3000/mcp\n  \
        conformance_server --port 3000 --redis redis://127.0.0.1:6379/0"
)]
struct Args {
    /// Serve Streamable HTTP at `http://127.0.0.1:PORT/mcp`.
    #[arg(long, value_name = "PORT")]
    port: u16,
    /// Run as one of several instances of one service, sharing sessions,
    /// replay and notifications through this Redis.
    #[arg(long, value_name = "URL")]
    redis: Option<String>,
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let args = command_line::parse::<Args>();
    let result = run(args.port, args.redis.as_deref()).await;
    stderr_logs::report("conformance_server", result)
}

async fn run(port: u16, redis: Option<&str>) -> Result<(), oxmcp_server::Error> {
    stderr_logs::init("warn");
    let mut builder = Server::builder("mcp-rs-conformance-fixture", env!("CARGO_PKG_VERSION"))
        .toolbox(Fixture)
        .toolbox(SchemaTools)
        .toolbox(Library)
        .toolbox(Asking)
        .toolbox(conformance_tasks::TaskFixture)
        .layer(MiddlewareLayer::new(conformance_tasks::ProtocolErrors))
        // The skills extension: examples/skills, served as skill:// resources.
        .skills(concat!(env!("CARGO_MANIFEST_DIR"), "/skills"));
    let mut config = HttpConfig::default().sse_retry(Duration::from_millis(500));
    let mut shared = None;
    if let Some(url) = redis {
        let (store, keys) = several::connect("conformance_server", url).await;
        builder = builder.request_state_keys(keys);
        shared = Some((url, store.clone()));
        config = config.store(store);
    }
    let server = builder.build();
    if let Some((url, store)) = shared {
        peers::listen(url, &store, server.handle()).await;
    }
    server.serve_http(("127.0.0.1", port), config).await
}
