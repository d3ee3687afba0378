//! Anthropic Messages, and its tool format.

use std::fmt;

use futures_util::future::BoxFuture;
use http::header::{HeaderMap, HeaderName, HeaderValue};
use serde_json::{json, Map, Value};

use super::anthropic_stream::EventDecoder;
use super::exchange::{self, Wire};
use super::http::{endpoint_methods, http_builder_methods, malformed, Endpoint, HttpOptions};
use crate::chat::{
    ChatMessage, ChatModel, ChatRequest, ChatResponse, DeltaStream, ModelError, ToolCall,
    ToolChoice, ToolDef, Usage,
};

const PROVIDER: &str = "anthropic";
const DEFAULT_BASE_URL: &str = "https://api.anthropic.com";
/// Anthropic's endpoint (`ANTHROPIC_*` variables).
const ENDPOINT: Endpoint = Endpoint {
    provider: PROVIDER,
    env: "ANTHROPIC",
    default_base_url: DEFAULT_BASE_URL,
    official_host: "api.anthropic.com",
};
const VERSION: &str = "2023-06-01";
/// The tool search tool's type, as the Messages API names it
/// (`ToolSearchToolBm25_20251119Param` in the official SDKs).
pub const TOOL_SEARCH_TYPE: &str = "tool_search_tool_bm25_20251119";
/// The tool search tool's name (its type's fixed name).
pub const TOOL_SEARCH_NAME: &str = "tool_search_tool_bm25";
/// How many answers with tool search blocks are kept to send back (a run's
/// turns; the oldest go first).
const KEPT_ANSWERS: usize = 256;

/// Anthropic's own tool search: which tools stay loaded, and the answers
/// whose search blocks go back with their turn.
#[derive(Debug, Default)]
struct NativeSearch {
    pinned: Vec<String>,
    /// An answer's whole `content`, by the id of its first `tool_use`.
    kept: std::sync::Mutex<std::collections::VecDeque<(String, Vec<Value>)>>,
}

impl NativeSearch {
    /// The content of the answer whose first call is `calls[0]`, when it
    /// held search blocks.
    fn content_of(&self, calls: &[ToolCall]) -> Option<Vec<Value>> {
        let first = &calls.first()?.id;
        let kept = self
            .kept
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        kept.iter()
            .find(|(id, _)| id == first)
            .map(|(_, c)| c.clone())
    }

    /// Keeps `answer`'s content when it holds server tool blocks and calls.
    fn keep(&self, answer: &Value) {
        let Some(content) = answer.get("content").and_then(Value::as_array) else {
            return;
        };
        let server_side = content.iter().any(|b| b["type"] == "server_tool_use");
        let first_call = content
            .iter()
            .find(|b| b["type"] == "tool_use")
            .and_then(|b| b["id"].as_str());
        if let (true, Some(id)) = (server_side, first_call) {
            let mut kept = self
                .kept
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            if kept.len() == KEPT_ANSWERS {
                kept.pop_front();
            }
            kept.push_back((id.to_owned(), content.clone()));
        }
    }
}

/// The Messages `tools` array: `{name, description, input_schema}`.
pub fn tools(tools: &[ToolDef]) -> Vec<Value> {
    tools
        .iter()
        .map(|tool| {
            json!({
                "name": tool.name,
                "description": tool.description,
                "input_schema": tool.parameters,
            })
        })
        .collect()
}

/// Messages `tool_choice` (`auto`, `any`, `none`, `{"type":"tool","name":...}`).
pub fn tool_choice(choice: &ToolChoice) -> Value {
    match choice {
        ToolChoice::Auto => json!({"type": "auto"}),
        ToolChoice::Required => json!({"type": "any"}),
        ToolChoice::None => json!({"type": "none"}),
        ToolChoice::Tool(name) => json!({"type": "tool", "name": name}),
    }
}

/// An Anthropic Messages model.
///
/// Requests go to `{base_url}/v1/messages` with `x-api-key` and
/// `anthropic-version: 2023-06-01`. With [`streaming`](Self::streaming) (the
/// default) both [`complete`](ChatModel::complete) and
/// [`stream`](ChatModel::stream) read an event stream; without, both read one
/// JSON answer.
#[derive(Clone)]
pub struct Anthropic {
    api_key: Option<String>,
    model: String,
    http: HttpOptions,
    streaming: bool,
    max_tokens: u32,
    native_search: Option<std::sync::Arc<NativeSearch>>,
}

impl fmt::Debug for Anthropic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Anthropic")
            .field("model", &self.model)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("http", &self.http)
            .field("streaming", &self.streaming)
            .field("max_tokens", &self.max_tokens)
            .field(
                "native_search",
                &self.native_search.as_ref().map(|n| &n.pinned),
            )
            .finish()
    }
}

impl Anthropic {
    /// A model at `https://api.anthropic.com`; an empty `api_key` sends no
    /// `x-api-key` header.
    pub fn new(api_key: impl Into<String>, model: impl Into<String>) -> Self {
        let api_key = api_key.into();
        Anthropic {
            api_key: (!api_key.is_empty()).then_some(api_key),
            model: model.into(),
            http: HttpOptions::new(DEFAULT_BASE_URL.to_owned()),
            streaming: true,
            max_tokens: 4096,
            native_search: None,
        }
    }

    endpoint_methods! {
        endpoint: ENDPOINT,
        env: "ANTHROPIC",
        host: "api.anthropic.com",
        key_header: "x-api-key",
        base_url: "The API's base URL, with or without a trailing slash or `/v1`\n\
            (default `https://api.anthropic.com`).",
    }

    /// The `max_tokens` of requests that set none (default 4096; the
    /// Messages API requires one).
    pub fn max_tokens(mut self, max_tokens: u32) -> Self {
        self.max_tokens = max_tokens;
        self
    }

    http_builder_methods!();

    /// Uses Anthropic's own tool search: requests offer the tool search
    /// tool ([`TOOL_SEARCH_TYPE`], BM25 over the tools' names, descriptions
    /// and parameters) and mark every tool but the `pinned` ones
    /// `defer_loading: true`, so the model reads a deferred tool's
    /// definition only once a search returned it. The search runs on
    /// Anthropic's side; its blocks (`server_tool_use`,
    /// `tool_search_tool_result`) are sent back with their turn, as the API
    /// loads a deferred tool only when the conversation references it.
    ///
    /// Requests then read JSON answers, even with
    /// [`streaming`](Self::streaming): the search blocks are taken from the
    /// whole answer. For the models that support it (see Anthropic's tool
    /// search documentation); for the others, use the tool set's own search
    /// (`ToolSetBuilder::tool_search`), which works with every provider.
    pub fn native_tool_search<I, S>(mut self, pinned: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.native_search = Some(std::sync::Arc::new(NativeSearch {
            pinned: pinned.into_iter().map(Into::into).collect(),
            kept: std::sync::Mutex::default(),
        }));
        self
    }

    /// The `tools` array: as [`tools`] makes it, or under native tool
    /// search with the deferred tools marked and the search tool added.
    fn tools_of(&self, defs: &[ToolDef]) -> Vec<Value> {
        let mut tools = tools(defs);
        if let Some(native) = &self.native_search {
            for tool in &mut tools {
                if !native.pinned.iter().any(|p| tool["name"] == p.as_str()) {
                    tool["defer_loading"] = true.into();
                }
            }
            tools.push(json!({"type": TOOL_SEARCH_TYPE, "name": TOOL_SEARCH_NAME}));
        }
        tools
    }

    /// The request body for `request`.
    fn request_body(&self, request: &ChatRequest, stream: bool) -> Value {
        let mut body = Map::new();
        body.insert("model".into(), self.model.clone().into());
        let max_tokens = request.max_tokens.unwrap_or(self.max_tokens);
        body.insert("max_tokens".into(), max_tokens.into());
        let system: Vec<&str> = request
            .messages
            .iter()
            .filter_map(|m| match m {
                ChatMessage::System { text } => Some(text.as_str()),
                _ => None,
            })
            .collect();
        if !system.is_empty() {
            body.insert("system".into(), system.join("\n\n").into());
        }
        let kept = |calls: &[ToolCall]| self.native_search.as_ref()?.content_of(calls);
        body.insert("messages".into(), messages(&request.messages, kept).into());
        if !request.tools.is_empty() {
            body.insert("tools".into(), self.tools_of(&request.tools).into());
            body.insert("tool_choice".into(), tool_choice(&request.tool_choice));
        }
        if let Some(output) = &request.output {
            body.insert(
                "output_config".into(),
                json!({"format": {"type": "json_schema", "schema": crate::model::openai::output_schema(output).0}}),
            );
        }
        if stream {
            body.insert("stream".into(), true.into());
        }
        Value::Object(body)
    }
}

/// A `tool_result`'s content: its text, with its images and PDF documents
/// as blocks of their own when it has any.
fn tool_result_content(result: &crate::chat::ToolResult) -> Value {
    let media: Vec<Value> = result
        .media
        .iter()
        .filter_map(|m| {
            let kind = if m.is_image() {
                "image"
            } else if m.is_pdf() {
                "document"
            } else {
                return None;
            };
            Some(json!({"type": kind, "source": {"type": "base64", "media_type": m.mime_type, "data": m.data}}))
        })
        .collect();
    if media.is_empty() {
        return result.content.clone().into();
    }
    let mut blocks = text_block(&result.content);
    blocks.extend(media);
    blocks.into()
}

/// The `messages` array: one message per turn, consecutive messages of the
/// same role merged (the API wants the roles to alternate), `tool_result`
/// blocks first in their user message. An answer `kept` has (its server
/// tool blocks) is sent back whole.
fn messages(
    messages: &[ChatMessage],
    kept: impl Fn(&[ToolCall]) -> Option<Vec<Value>>,
) -> Vec<Value> {
    let mut turns: Vec<(&str, Vec<Value>)> = Vec::new();
    for message in messages {
        let (role, blocks) = match message {
            ChatMessage::System { .. } => continue,
            ChatMessage::User { text } => ("user", text_block(text)),
            ChatMessage::Assistant { text, tool_calls } => {
                if let Some(content) = kept(tool_calls) {
                    turns.push(("assistant", content));
                    continue;
                }
                let mut blocks = text_block(text);
                blocks.extend(tool_calls.iter().map(|call| {
                    let input = serde_json::from_str::<Value>(&call.arguments)
                        .ok()
                        .filter(Value::is_object)
                        .unwrap_or_else(|| json!({}));
                    json!({"type": "tool_use", "id": call.id, "name": call.name, "input": input})
                }));
                ("assistant", blocks)
            }
            ChatMessage::ToolResults { results } => {
                let blocks = results.iter().map(|result| {
                    let mut block = json!({
                        "type": "tool_result",
                        "tool_use_id": result.call_id,
                        "content": tool_result_content(result),
                    });
                    if result.is_error {
                        block["is_error"] = true.into();
                    }
                    block
                });
                ("user", blocks.collect())
            }
        };
        if blocks.is_empty() {
            continue;
        }
        match turns.last_mut() {
            Some((last, content)) if *last == role => {
                for block in blocks {
                    if block["type"] == "tool_result" {
                        let at = content
                            .iter()
                            .position(|b| b["type"] != "tool_result")
                            .unwrap_or(content.len());
                        content.insert(at, block);
                    } else {
                        content.push(block);
                    }
                }
            }
            _ => turns.push((role, blocks)),
        }
    }
    turns
        .into_iter()
        .map(|(role, content)| json!({"role": role, "content": content}))
        .collect()
}

/// A text block, none for empty text (the API refuses empty text blocks).
fn text_block(text: &str) -> Vec<Value> {
    if text.is_empty() {
        Vec::new()
    } else {
        vec![json!({"type": "text", "text": text})]
    }
}

/// Reads a Messages JSON answer.
fn parse(value: &Value) -> Result<ChatResponse, ModelError> {
    let content = value
        .get("content")
        .and_then(Value::as_array)
        .ok_or_else(|| malformed(PROVIDER, "content is missing or not an array"))?;
    let mut response = ChatResponse::default();
    for (i, block) in content.iter().enumerate() {
        match block.get("type").and_then(Value::as_str) {
            Some("text") => {
                let text = block
                    .get("text")
                    .and_then(Value::as_str)
                    .ok_or_else(|| malformed(PROVIDER, format!("content[{i}].text is missing")))?;
                response.text.push_str(text);
            }
            Some("tool_use") => {
                let field = |key: &str| {
                    block
                        .get(key)
                        .and_then(Value::as_str)
                        .map(str::to_owned)
                        .ok_or_else(|| {
                            malformed(PROVIDER, format!("content[{i}].{key} is missing"))
                        })
                };
                let arguments = match block.get("input") {
                    None | Some(Value::Null) => "{}".to_owned(),
                    Some(input) => input.to_string(),
                };
                response.tool_calls.push(ToolCall {
                    id: field("id")?,
                    name: field("name")?,
                    arguments,
                });
            }
            Some(_) => {} // thinking, server tools, ...: not part of the answer here
            None => return Err(malformed(PROVIDER, format!("content[{i}].type is missing"))),
        }
    }
    let string = |key: &str| value.get(key).and_then(Value::as_str).map(str::to_owned);
    response.stop_reason = string("stop_reason");
    response.model = string("model");
    response.id = string("id");
    if let Some(counts) = value.get("usage") {
        add_usage(&mut response.usage, counts);
    }
    Ok(response)
}

/// Takes the counts a `usage` object has (`input_tokens`, `output_tokens`,
/// `cache_read_input_tokens`), keeping the others.
pub(crate) fn add_usage(usage: &mut Usage, counts: &Value) {
    let set = |field: &mut u64, key: &str| {
        if let Some(n) = counts.get(key).and_then(Value::as_u64) {
            *field = n;
        }
    };
    set(&mut usage.input_tokens, "input_tokens");
    set(&mut usage.output_tokens, "output_tokens");
    set(&mut usage.cached_input_tokens, "cache_read_input_tokens");
}

impl Wire for Anthropic {
    const PROVIDER: &'static str = PROVIDER;
    type Decoder = EventDecoder;

    fn http(&self) -> &HttpOptions {
        &self.http
    }

    fn streaming(&self) -> bool {
        self.streaming && self.native_search.is_none()
    }

    fn url(&self) -> String {
        if self.http.base_url.trim_end_matches('/').ends_with("/v1") {
            self.http.url("messages")
        } else {
            self.http.url("v1/messages")
        }
    }

    fn headers(&self) -> Result<HeaderMap, ModelError> {
        let credential = self
            .api_key
            .clone()
            .map(|key| (HeaderName::from_static("x-api-key"), key));
        let mut headers = ENDPOINT.key_headers(&self.http.base_url, credential)?;
        headers.insert(
            HeaderName::from_static("anthropic-version"),
            HeaderValue::from_static(VERSION),
        );
        Ok(headers)
    }

    fn body(&self, request: &ChatRequest, stream: bool) -> Value {
        self.request_body(request, stream)
    }

    fn parse(value: &Value) -> Result<ChatResponse, ModelError> {
        parse(value)
    }

    fn keep(&self, answer: &Value) {
        if let Some(native) = &self.native_search {
            native.keep(answer);
        }
    }
}

impl ChatModel for Anthropic {
    fn provider(&self) -> &str {
        PROVIDER
    }

    fn model(&self) -> Option<&str> {
        Some(&self.model)
    }

    fn complete(&self, request: ChatRequest) -> BoxFuture<'_, Result<ChatResponse, ModelError>> {
        Box::pin(async move { exchange::complete(self, &request).await })
    }

    fn stream(&self, request: ChatRequest) -> BoxFuture<'_, Result<DeltaStream<'_>, ModelError>> {
        Box::pin(async move { exchange::stream(self, &request).await })
    }
}
