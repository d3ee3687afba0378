//! OpenAI-compatible Chat Completions (api.openai.com, llama.cpp's server, vLLM,
//! Ollama's `/v1`), and the tool formats of Chat Completions and Responses.

use std::fmt;

use futures_util::future::BoxFuture;
use http::header::{self, HeaderMap};
use serde_json::{json, Map, Value};

use super::exchange::{self, string_at, Wire};
use super::http::{http_builder_methods, malformed, Endpoint, HttpOptions};
use super::openai_stream::ChunkDecoder;
use crate::chat::{
    ChatMessage, ChatModel, ChatRequest, ChatResponse, DeltaStream, ModelError, ToolCall,
    ToolChoice, ToolDef, Usage,
};

const PROVIDER: &str = "openai";
pub(crate) const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";
/// OpenAI's endpoint (`OPENAI_*` variables).
pub(crate) const ENDPOINT: Endpoint = Endpoint {
    provider: PROVIDER,
    env: "OPENAI",
    default_base_url: DEFAULT_BASE_URL,
    official_host: "api.openai.com",
};

/// The Chat Completions `tools` array:
/// `{"type":"function","function":{name, description, parameters, strict}}`.
/// With `strict`, tools that have a strict form use it with `strict: true`.
pub fn chat_tools(tools: &[ToolDef], strict: bool) -> Vec<Value> {
    tools
        .iter()
        .map(|tool| json!({"type": "function", "function": function(tool, strict)}))
        .collect()
}

/// The Responses API `tools` array:
/// `{"type":"function", name, description, parameters, strict}`.
/// With `strict`, tools that have a strict form use it with `strict: true`.
pub fn responses_tools(tools: &[ToolDef], strict: bool) -> Vec<Value> {
    tools
        .iter()
        .map(|tool| {
            let mut object = function(tool, strict);
            object.insert("type".into(), "function".into());
            Value::Object(object)
        })
        .collect()
}

/// `{name, description, parameters, strict}` of one tool.
fn function(tool: &ToolDef, strict: bool) -> Map<String, Value> {
    let (parameters, strict) = match &tool.strict_parameters {
        Some(parameters) if strict => (parameters.clone(), true),
        _ => (tool.parameters.clone(), false),
    };
    let mut object = Map::new();
    object.insert("name".into(), tool.name.clone().into());
    object.insert("description".into(), tool.description.clone().into());
    object.insert("parameters".into(), parameters);
    object.insert("strict".into(), strict.into());
    object
}

/// Chat Completions `tool_choice`: `"auto"`, `"required"`, `"none"` or
/// `{"type":"function","function":{"name":...}}`.
pub fn chat_tool_choice(choice: &ToolChoice) -> Value {
    match choice {
        ToolChoice::Tool(name) => json!({"type": "function", "function": {"name": name}}),
        other => simple_choice(other),
    }
}

/// Responses API `tool_choice`: `"auto"`, `"required"`, `"none"` or
/// `{"type":"function","name":...}`.
pub fn responses_tool_choice(choice: &ToolChoice) -> Value {
    match choice {
        ToolChoice::Tool(name) => json!({"type": "function", "name": name}),
        other => simple_choice(other),
    }
}

fn simple_choice(choice: &ToolChoice) -> Value {
    match choice {
        ToolChoice::Auto | ToolChoice::Tool(_) => "auto".into(),
        ToolChoice::Required => "required".into(),
        ToolChoice::None => "none".into(),
    }
}

/// The request field that caps the generated tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MaxTokensField {
    /// `max_completion_tokens`: the current name, the only one the reasoning
    /// models of api.openai.com accept (the default).
    #[default]
    MaxCompletionTokens,
    /// `max_tokens`: the older name, for compatible servers that know only it.
    MaxTokens,
}

/// `Authorization: Bearer {api_key}`; none without a key, which only
/// `api.openai.com` requires.
pub(crate) fn bearer(api_key: Option<&str>, base_url: &str) -> Result<HeaderMap, ModelError> {
    let credential = api_key.map(|key| (header::AUTHORIZATION, format!("Bearer {key}")));
    ENDPOINT.key_headers(base_url, credential)
}

/// The methods both OpenAI models share: those of every provider, for
/// OpenAI's endpoint.
macro_rules! openai_methods {
    () => {
        crate::model::http::endpoint_methods! {
            endpoint: crate::model::openai::ENDPOINT,
            env: "OPENAI",
            host: "api.openai.com",
            key_header: "Authorization",
            base_url: "The API's base URL, with or without a trailing slash (default\n\
`https://api.openai.com/v1`; llama.cpp: `http://localhost:8080/v1`,\n\
Ollama: `http://localhost:11434/v1`).",
        }
    };
}

pub(crate) use openai_methods;

/// An OpenAI-compatible Chat Completions model.
///
/// Requests go to `{base_url}/chat/completions` with `Authorization: Bearer`
/// (no such header without a key: local servers need none). With
/// [`streaming`](Self::streaming) (the default) both
/// [`complete`](ChatModel::complete) and [`stream`](ChatModel::stream) read
/// an event stream; without, both read one JSON answer.
#[derive(Clone)]
pub struct OpenAiChat {
    api_key: Option<String>,
    model: String,
    http: HttpOptions,
    streaming: bool,
    strict: bool,
    max_tokens_field: MaxTokensField,
}

impl fmt::Debug for OpenAiChat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpenAiChat")
            .field("model", &self.model)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("http", &self.http)
            .field("streaming", &self.streaming)
            .field("strict", &self.strict)
            .field("max_tokens_field", &self.max_tokens_field)
            .finish()
    }
}

impl OpenAiChat {
    /// A model at `https://api.openai.com/v1`; an empty `api_key` sends no
    /// `Authorization` header.
    pub fn new(api_key: impl Into<String>, model: impl Into<String>) -> Self {
        let api_key = api_key.into();
        OpenAiChat {
            api_key: (!api_key.is_empty()).then_some(api_key),
            model: model.into(),
            http: HttpOptions::new(DEFAULT_BASE_URL.to_owned()),
            streaming: true,
            strict: false,
            max_tokens_field: MaxTokensField::default(),
        }
    }

    openai_methods!();

    /// Whether tools that have a strict form are sent strict (default
    /// `false`). See [`chat_tools`].
    pub fn strict(mut self, strict: bool) -> Self {
        self.strict = strict;
        self
    }

    /// Which field carries [`ChatRequest::max_tokens`] (default
    /// `max_completion_tokens`).
    pub fn max_tokens_field(mut self, field: MaxTokensField) -> Self {
        self.max_tokens_field = field;
        self
    }

    http_builder_methods!();

    /// The request body for `request`.
    fn request_body(&self, request: &ChatRequest, stream: bool) -> Value {
        let mut body = Map::new();
        body.insert("model".into(), self.model.clone().into());
        body.insert("messages".into(), messages(&request.messages).into());
        if !request.tools.is_empty() {
            body.insert(
                "tools".into(),
                chat_tools(&request.tools, self.strict).into(),
            );
            body.insert("tool_choice".into(), chat_tool_choice(&request.tool_choice));
            body.insert("parallel_tool_calls".into(), true.into());
        }
        if let Some(output) = &request.output {
            let (schema, strict) = output_schema(output);
            body.insert(
                "response_format".into(),
                json!({"type": "json_schema", "json_schema": {"name": output.name, "schema": schema, "strict": strict}}),
            );
        }
        if let Some(max) = request.max_tokens {
            let field = match self.max_tokens_field {
                MaxTokensField::MaxCompletionTokens => "max_completion_tokens",
                MaxTokensField::MaxTokens => "max_tokens",
            };
            body.insert(field.into(), max.into());
        }
        if stream {
            body.insert("stream".into(), true.into());
            body.insert("stream_options".into(), json!({"include_usage": true}));
        }
        Value::Object(body)
    }
}

/// The schema OpenAI is sent for a structured answer: the strict form when
/// there is one (with `strict: true`), else the schema as it is.
pub(crate) fn output_schema(output: &crate::chat::OutputFormat) -> (&Value, bool) {
    match &output.strict_schema {
        Some(strict) => (strict, true),
        None => (&output.schema, false),
    }
}

/// The `messages` array.
fn messages(messages: &[ChatMessage]) -> Vec<Value> {
    let mut out = Vec::with_capacity(messages.len());
    for message in messages {
        match message {
            ChatMessage::System { text } => out.push(json!({"role": "system", "content": text})),
            ChatMessage::User { text } => out.push(json!({"role": "user", "content": text})),
            ChatMessage::Assistant { text, tool_calls } => {
                let mut object = Map::new();
                object.insert("role".into(), "assistant".into());
                let content = if text.is_empty() && !tool_calls.is_empty() {
                    Value::Null
                } else {
                    text.clone().into()
                };
                object.insert("content".into(), content);
                if !tool_calls.is_empty() {
                    let calls = tool_calls.iter().map(|call| {
                        json!({
                            "id": call.id,
                            "type": "function",
                            "function": {"name": call.name, "arguments": call.arguments},
                        })
                    });
                    object.insert("tool_calls".into(), calls.collect::<Vec<_>>().into());
                }
                out.push(Value::Object(object));
            }
            ChatMessage::ToolResults { results } => {
                out.extend(results.iter().map(|result| {
                    json!({"role": "tool", "tool_call_id": result.call_id, "content": result.content})
                }));
                // Tool messages take text only: the images follow in a user message.
                let mut parts = Vec::new();
                for result in results {
                    let images: Vec<_> = result.media.iter().filter(|m| m.is_image()).collect();
                    if images.is_empty() {
                        continue;
                    }
                    parts.push(json!({"type": "text", "text": format!("The images the call {} returned:", result.call_id)}));
                    parts.extend(
                        images.iter().map(
                            |m| json!({"type": "image_url", "image_url": {"url": m.data_url()}}),
                        ),
                    );
                }
                if !parts.is_empty() {
                    out.push(json!({"role": "user", "content": parts}));
                }
            }
        }
    }
    out
}

/// Reads a Chat Completions JSON answer.
fn parse(value: &Value) -> Result<ChatResponse, ModelError> {
    let choice = value
        .get("choices")
        .and_then(|c| c.get(0))
        .ok_or_else(|| malformed(PROVIDER, "choices[0] is missing"))?;
    let message = choice
        .get("message")
        .filter(|m| m.is_object())
        .ok_or_else(|| malformed(PROVIDER, "choices[0].message is missing"))?;
    let text = optional_string(message, "content", "choices[0].message")?;
    let refusal = optional_string(message, "refusal", "choices[0].message")?;
    let tool_calls = match message.get("tool_calls") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(calls)) => calls
            .iter()
            .enumerate()
            .map(|(i, call)| tool_call(i, call))
            .collect::<Result<_, _>>()?,
        Some(_) => {
            return Err(malformed(
                PROVIDER,
                "choices[0].message.tool_calls is not an array",
            ))
        }
    };
    Ok(ChatResponse {
        text: text_or_refusal(text.unwrap_or_default(), refusal),
        tool_calls,
        stop_reason: optional_string(choice, "finish_reason", "choices[0]")?,
        usage: value.get("usage").map(usage).unwrap_or_default(),
        model: string_at(value, "model"),
        id: string_at(value, "id"),
    })
}

/// The answer's text; when empty, the model's refusal (what it said instead).
pub(crate) fn text_or_refusal(text: String, refusal: Option<String>) -> String {
    match refusal {
        Some(refusal) if text.is_empty() => refusal,
        _ => text,
    }
}

/// `object[key]` as a string; `None` when absent or null.
fn optional_string(object: &Value, key: &str, at: &str) -> Result<Option<String>, ModelError> {
    match object.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(malformed(PROVIDER, format!("{at}.{key} is not a string"))),
    }
}

fn tool_call(i: usize, call: &Value) -> Result<ToolCall, ModelError> {
    let at = format!("choices[0].message.tool_calls[{i}]");
    let field = |object: &Value, key: &str, at: &str| {
        object
            .get(key)
            .and_then(Value::as_str)
            .map(str::to_owned)
            .ok_or_else(|| malformed(PROVIDER, format!("{at}.{key} is missing")))
    };
    let function = call
        .get("function")
        .ok_or_else(|| malformed(PROVIDER, format!("{at}.function is missing")))?;
    let function_at = format!("{at}.function");
    Ok(ToolCall {
        id: field(call, "id", &at)?,
        name: field(function, "name", &function_at)?,
        arguments: field(function, "arguments", &function_at)?,
    })
}

/// Chat Completions `usage`: `prompt_tokens`, `completion_tokens`,
/// `prompt_tokens_details.cached_tokens`.
pub(crate) fn usage(usage: &Value) -> Usage {
    usage_at(
        usage,
        [
            "/prompt_tokens",
            "/completion_tokens",
            "/prompt_tokens_details/cached_tokens",
        ],
    )
}

/// The input, output and cached input token counts at these JSON pointers
/// of a `usage` object (0 where there is none).
pub(crate) fn usage_at(usage: &Value, [input, output, cached]: [&str; 3]) -> Usage {
    let count = |at: &str| usage.pointer(at).and_then(Value::as_u64).unwrap_or(0);
    Usage {
        input_tokens: count(input),
        output_tokens: count(output),
        cached_input_tokens: count(cached),
    }
}

impl Wire for OpenAiChat {
    const PROVIDER: &'static str = PROVIDER;
    type Decoder = ChunkDecoder;

    fn http(&self) -> &HttpOptions {
        &self.http
    }

    fn streaming(&self) -> bool {
        self.streaming
    }

    fn url(&self) -> String {
        self.http.url("chat/completions")
    }

    fn headers(&self) -> Result<HeaderMap, ModelError> {
        bearer(self.api_key.as_deref(), &self.http.base_url)
    }

    fn body(&self, request: &ChatRequest, stream: bool) -> Value {
        self.request_body(request, stream)
    }

    fn parse(value: &Value) -> Result<ChatResponse, ModelError> {
        parse(value)
    }
}

impl ChatModel for OpenAiChat {
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
