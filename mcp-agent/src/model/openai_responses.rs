//! The OpenAI Responses API (`POST {base}/responses`): the transcript as
//! input items, the answer's output items read back, and, when asked, the
//! conversation continued from the previous response
//! (`previous_response_id`).

use std::collections::VecDeque;
use std::fmt;
use std::future::Future;
use std::sync::{Mutex, PoisonError};

use futures_util::future::BoxFuture;
use futures_util::StreamExt;
use http::header::HeaderMap;
use serde_json::{json, Map, Value};

use super::exchange::{self, string_at, Wire};
use super::http::{error_object, http_builder_methods, malformed, HttpOptions};
use super::openai::{
    bearer, openai_methods, output_schema, responses_tool_choice, responses_tools, text_or_refusal,
    usage_at, DEFAULT_BASE_URL,
};
use super::openai_responses_stream::EventDecoder;
use crate::chat::{
    ChatMessage, ChatModel, ChatRequest, ChatResponse, Delta, DeltaStream, ModelError, ToolCall,
    ToolResult, Usage,
};

const PROVIDER: &str = "openai";
/// How many conversations [`OpenAiResponses::previous_response_id`]
/// remembers (the least recently answered is forgotten first).
const MAX_CONVERSATIONS: usize = 64;

/// An OpenAI Responses API model.
///
/// Requests go to `{base_url}/responses` with `Authorization: Bearer` (no
/// such header without a key: local servers need none). With
/// [`streaming`](Self::streaming) (the default) both
/// [`complete`](ChatModel::complete) and [`stream`](ChatModel::stream) read
/// an event stream; without, both read one JSON answer.
///
/// The leading system messages of the transcript become `instructions`, a
/// later one a `system` message where it stands; user text is an
/// `input_text` message, the model's text an `assistant` message, its tool
/// calls `function_call` items and their results `function_call_output`
/// items. [`ChatRequest::max_tokens`] is `max_output_tokens`.
///
/// By default every request carries the whole transcript with `store:
/// false`. With [`previous_response_id`](Self::previous_response_id) the
/// model sends only what follows its last answer in the conversation.
pub struct OpenAiResponses {
    api_key: Option<String>,
    model: String,
    http: HttpOptions,
    streaming: bool,
    strict: bool,
    /// The conversations answered, with `previous_response_id`.
    conversations: Option<Conversations>,
}

impl fmt::Debug for OpenAiResponses {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpenAiResponses")
            .field("model", &self.model)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("http", &self.http)
            .field("streaming", &self.streaming)
            .field("strict", &self.strict)
            .field("previous_response_id", &self.conversations.is_some())
            .finish()
    }
}

/// A clone has the same settings and remembers no conversation yet.
impl Clone for OpenAiResponses {
    fn clone(&self) -> Self {
        OpenAiResponses {
            api_key: self.api_key.clone(),
            model: self.model.clone(),
            http: self.http.clone(),
            streaming: self.streaming,
            strict: self.strict,
            conversations: self
                .conversations
                .as_ref()
                .map(|_| Conversations::default()),
        }
    }
}

impl OpenAiResponses {
    /// A model at `https://api.openai.com/v1`; an empty `api_key` sends no
    /// `Authorization` header.
    pub fn new(api_key: impl Into<String>, model: impl Into<String>) -> Self {
        let api_key = api_key.into();
        OpenAiResponses {
            api_key: (!api_key.is_empty()).then_some(api_key),
            model: model.into(),
            http: HttpOptions::new(DEFAULT_BASE_URL.to_owned()),
            streaming: true,
            strict: false,
            conversations: None,
        }
    }

    openai_methods!();

    /// Whether tools that have a strict form are sent strict (default
    /// `false`). See [`responses_tools`](super::openai::responses_tools).
    pub fn strict(mut self, strict: bool) -> Self {
        self.strict = strict;
        self
    }

    /// Whether to continue conversations on the provider's side (default
    /// `false`).
    ///
    /// With `true`, requests are stored (`store: true`) and the model
    /// remembers, for each of the last 64 conversations it answered, the
    /// transcript of its last answer followed by that answer as the loop
    /// appends it (a [`ChatMessage::Assistant`] with the answer's text and tool
    /// calls); a clone starts with none. A
    /// request whose transcript extends one of them sends only the messages
    /// that follow, with `previous_response_id` naming that answer (the
    /// longest such transcript when several match; the leading system
    /// messages still go as `instructions`, which the API does not carry
    /// over). Any other request (a new conversation, an edited or shortened
    /// transcript, an answer that had no `id`) sends the whole transcript. A
    /// previous response the provider no longer has (a 400 or 404 naming
    /// it) is forgotten and the request sent again, whole. Repeating a
    /// failed request repeats the same continuation; answers are remembered
    /// only once complete. Besides sending less, a continued response keeps
    /// what the transcript cannot carry, such as a reasoning model's
    /// reasoning items.
    pub fn previous_response_id(mut self, enabled: bool) -> Self {
        self.conversations = enabled.then(Conversations::default);
        self
    }

    http_builder_methods!();

    /// The request body for `request`, continuing `previous` when given.
    fn request_body(
        &self,
        request: &ChatRequest,
        stream: bool,
        previous: Option<&Previous>,
    ) -> Value {
        let mut body = Map::new();
        body.insert("model".into(), self.model.clone().into());
        let leading = request
            .messages
            .iter()
            .take_while(|m| matches!(m, ChatMessage::System { .. }))
            .count();
        let instructions: Vec<&str> = request.messages[..leading]
            .iter()
            .filter_map(|m| match m {
                ChatMessage::System { text } => Some(text.as_str()),
                _ => None,
            })
            .collect();
        if !instructions.is_empty() {
            body.insert("instructions".into(), instructions.join("\n\n").into());
        }
        let skip = previous.map_or(leading, |p| p.covers.max(leading));
        body.insert("input".into(), input(&request.messages[skip..]).into());
        if let Some(previous) = previous {
            body.insert("previous_response_id".into(), previous.id.clone().into());
        }
        body.insert("store".into(), self.conversations.is_some().into());
        if !request.tools.is_empty() {
            body.insert(
                "tools".into(),
                responses_tools(&request.tools, self.strict).into(),
            );
            body.insert(
                "tool_choice".into(),
                responses_tool_choice(&request.tool_choice),
            );
            body.insert("parallel_tool_calls".into(), true.into());
        }
        if let Some(output) = &request.output {
            let (schema, strict) = output_schema(output);
            let format = json!({"type": "json_schema", "name": output.name, "schema": schema, "strict": strict});
            body.insert("text".into(), json!({ "format": format }));
        }
        if let Some(max) = request.max_tokens {
            body.insert("max_output_tokens".into(), max.into());
        }
        if stream {
            body.insert("stream".into(), true.into());
        }
        Value::Object(body)
    }

    /// Sends `request` through `send`, continuing the conversation when
    /// asked; returns the answer and the id of the response it continued.
    /// A continued response the provider no longer has is forgotten and the
    /// request sent again, whole.
    async fn exchange<'a, T, F>(
        &'a self,
        request: &ChatRequest,
        send: impl Fn(Turn<'a>) -> F,
    ) -> Result<(T, Option<String>), ModelError>
    where
        F: Future<Output = Result<T, ModelError>>,
    {
        let previous = self
            .conversations
            .as_ref()
            .and_then(|c| c.find(&request.messages));
        let continued = previous.as_ref().map(|p| p.id.clone());
        let turn = Turn {
            model: self,
            previous,
        };
        match (send(turn).await, continued, &self.conversations) {
            (Err(e), Some(id), Some(conversations)) if names_previous_response(&e) => {
                tracing::debug!(id, "the previous response is gone, sending it all: {e}");
                conversations.forget(&id);
                let turn = Turn {
                    model: self,
                    previous: None,
                };
                Ok((send(turn).await?, None))
            }
            (result, continued, _) => Ok((result?, continued)),
        }
    }
}

/// Whether an error says that the `previous_response_id` sent is unknown.
fn names_previous_response(error: &ModelError) -> bool {
    match error {
        ModelError::Status {
            status: 400 | 404,
            message,
            ..
        } => {
            let message = message.to_ascii_lowercase();
            message.contains("previous response") || message.contains("previous_response")
        }
        _ => false,
    }
}

/// The `input` items of `messages` (after the leading system messages).
fn input(messages: &[ChatMessage]) -> Vec<Value> {
    let mut items = Vec::with_capacity(messages.len());
    let text_message = |role: &str, text: &str| json!({"type": "message", "role": role, "content": [{"type": "input_text", "text": text}]});
    for message in messages {
        match message {
            ChatMessage::System { text } => items.push(text_message("system", text)),
            ChatMessage::User { text } => items.push(text_message("user", text)),
            ChatMessage::Assistant { text, tool_calls } => {
                // The easy form: `output_text` content would need the id of
                // the output message, which the transcript does not keep.
                if !text.is_empty() {
                    items.push(json!({"type": "message", "role": "assistant", "content": text}));
                }
                items.extend(tool_calls.iter().map(|call| {
                    json!({
                        "type": "function_call",
                        "call_id": call.id,
                        "name": call.name,
                        "arguments": call.arguments,
                    })
                }));
            }
            ChatMessage::ToolResults { results } => {
                items.extend(results.iter().map(|result| {
                    json!({
                        "type": "function_call_output",
                        "call_id": result.call_id,
                        "output": tool_output(result),
                    })
                }));
            }
        }
    }
    items
}

/// A `function_call_output`'s `output`: the result's text, or with its
/// images, `input_text` and `input_image` parts (documents are named in the
/// text only).
fn tool_output(result: &ToolResult) -> Value {
    let images = result.media.iter().filter(|m| m.is_image());
    let mut parts: Vec<Value> = images
        .map(|m| json!({"type": "input_image", "image_url": m.data_url()}))
        .collect();
    if parts.is_empty() {
        return result.content.clone().into();
    }
    if !result.content.is_empty() {
        parts.insert(0, json!({"type": "input_text", "text": result.content}));
    }
    parts.into()
}

/// Reads a `Response` object.
pub(crate) fn parse(value: &Value) -> Result<ChatResponse, ModelError> {
    let mut response = outcome(value)?;
    let output = value
        .get("output")
        .and_then(Value::as_array)
        .ok_or_else(|| malformed(PROVIDER, "output is missing or not an array"))?;
    let mut refusal = None;
    for (i, item) in output.iter().enumerate() {
        match item.get("type").and_then(Value::as_str) {
            Some("message") => {
                let content = item.get("content").and_then(Value::as_array);
                for part in content.into_iter().flatten() {
                    let text = part.get("text").and_then(Value::as_str);
                    match part.get("type").and_then(Value::as_str) {
                        Some("output_text") => response.text.push_str(text.unwrap_or_default()),
                        Some("refusal") => refusal
                            .get_or_insert_with(String::new)
                            .push_str(part["refusal"].as_str().unwrap_or_default()),
                        _ => {}
                    }
                }
            }
            Some("function_call") => response
                .tool_calls
                .push(function_call(item, &format!("output[{i}]"))?),
            Some(_) => {} // reasoning, built-in tools' calls, ...: not part of the answer here
            None => return Err(malformed(PROVIDER, format!("output[{i}].type is missing"))),
        }
    }
    response.text = text_or_refusal(std::mem::take(&mut response.text), refusal);
    Ok(response)
}

/// A `function_call` item (found at `at`) as a tool call: its `call_id`,
/// `name` (neither may be empty) and `arguments`.
pub(crate) fn function_call(item: &Value, at: &str) -> Result<ToolCall, ModelError> {
    let field = |key: &str| {
        string_at(item, key)
            .filter(|value| key == "arguments" || !value.is_empty())
            .ok_or_else(|| malformed(PROVIDER, format!("{at}.{key} is missing or empty")))
    };
    Ok(ToolCall {
        id: field("call_id")?,
        name: field("name")?,
        arguments: field("arguments")?,
    })
}

/// What a finished `Response` says besides its output: the stop reason
/// (`completed`, or for an `incomplete` one its `incomplete_details.reason`),
/// the usage, the model and the id. A `failed` response is its error; one
/// still `queued` or `in_progress`, or `cancelled`, is malformed here.
pub(crate) fn outcome(value: &Value) -> Result<ChatResponse, ModelError> {
    let status = value.get("status").and_then(Value::as_str);
    let stop_reason = match status {
        Some("completed") | None => status.map(str::to_owned),
        Some("incomplete") => Some(
            value
                .pointer("/incomplete_details/reason")
                .and_then(Value::as_str)
                .unwrap_or("incomplete")
                .to_owned(),
        ),
        Some("failed") => return Err(failed(value)),
        Some(other) => {
            return Err(malformed(
                PROVIDER,
                format!("the response is `{other}`, not finished"),
            ))
        }
    };
    Ok(ChatResponse {
        stop_reason,
        usage: value.get("usage").map(usage).unwrap_or_default(),
        model: string_at(value, "model"),
        id: string_at(value, "id"),
        ..ChatResponse::default()
    })
}

/// The error of a `failed` response.
pub(crate) fn failed(value: &Value) -> ModelError {
    match value.get("error").filter(|e| e.is_object()) {
        Some(error) => error_object(PROVIDER, error),
        None => error_object(PROVIDER, &json!("the response failed without an error")),
    }
}

/// `usage`: `input_tokens`, `output_tokens`,
/// `input_tokens_details.cached_tokens`.
fn usage(usage: &Value) -> Usage {
    usage_at(
        usage,
        [
            "/input_tokens",
            "/output_tokens",
            "/input_tokens_details/cached_tokens",
        ],
    )
}

/// The response a request continues: its id, and how many messages of the
/// transcript it covers (the transcript it answered, then its answer).
#[derive(Debug, Clone)]
struct Previous {
    id: String,
    covers: usize,
}

/// The transcripts answered, each followed by its answer, with the
/// answer's id; the most recent last.
#[derive(Debug, Default)]
struct Conversations(Mutex<VecDeque<Conversation>>);

#[derive(Debug)]
struct Conversation {
    id: String,
    transcript: Vec<ChatMessage>,
}

impl Conversations {
    /// The answer that `messages` continues: the longest remembered
    /// transcript that `messages` extends by at least one message.
    fn find(&self, messages: &[ChatMessage]) -> Option<Previous> {
        let conversations = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        conversations
            .iter()
            .filter(|c| c.transcript.len() < messages.len() && messages.starts_with(&c.transcript))
            .max_by_key(|c| c.transcript.len())
            .map(|c| Previous {
                id: c.id.clone(),
                covers: c.transcript.len(),
            })
    }

    /// Remembers `response` (when it has an id) as the answer to
    /// `messages`, in place of the answer it continued.
    fn remember(
        &self,
        mut messages: Vec<ChatMessage>,
        response: &ChatResponse,
        continued: Option<&str>,
    ) {
        let Some(id) = &response.id else {
            return;
        };
        messages.push(ChatMessage::Assistant {
            text: response.text.clone(),
            tool_calls: response.tool_calls.clone(),
        });
        let mut conversations = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(continued) = continued {
            conversations.retain(|c| c.id != continued);
        }
        conversations.push_back(Conversation {
            id: id.clone(),
            transcript: messages,
        });
        while conversations.len() > MAX_CONVERSATIONS {
            conversations.pop_front();
        }
    }

    fn forget(&self, id: &str) {
        let mut conversations = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        conversations.retain(|c| c.id != id);
    }
}

/// One request: the model, and the response it continues.
struct Turn<'a> {
    model: &'a OpenAiResponses,
    previous: Option<Previous>,
}

impl Wire for Turn<'_> {
    const PROVIDER: &'static str = PROVIDER;
    type Decoder = EventDecoder;

    fn http(&self) -> &HttpOptions {
        &self.model.http
    }

    fn streaming(&self) -> bool {
        self.model.streaming
    }

    fn url(&self) -> String {
        self.model.http.url("responses")
    }

    fn headers(&self) -> Result<HeaderMap, ModelError> {
        bearer(self.model.api_key.as_deref(), &self.model.http.base_url)
    }

    fn body(&self, request: &ChatRequest, stream: bool) -> Value {
        self.model
            .request_body(request, stream, self.previous.as_ref())
    }

    fn parse(value: &Value) -> Result<ChatResponse, ModelError> {
        parse(value)
    }
}

impl ChatModel for OpenAiResponses {
    fn provider(&self) -> &str {
        PROVIDER
    }

    fn model(&self) -> Option<&str> {
        Some(&self.model)
    }

    fn complete(&self, request: ChatRequest) -> BoxFuture<'_, Result<ChatResponse, ModelError>> {
        Box::pin(async move {
            let sent = &request;
            let (response, continued) = self
                .exchange(&request, |turn| async move {
                    exchange::complete(&turn, sent).await
                })
                .await?;
            if let Some(conversations) = &self.conversations {
                conversations.remember(request.messages, &response, continued.as_deref());
            }
            Ok(response)
        })
    }

    fn stream(&self, request: ChatRequest) -> BoxFuture<'_, Result<DeltaStream<'_>, ModelError>> {
        Box::pin(async move {
            let sent = &request;
            let (stream, continued) = self
                .exchange(&request, |turn| async move {
                    exchange::stream(&turn, sent).await
                })
                .await?;
            let Some(conversations) = &self.conversations else {
                return Ok(stream);
            };
            let mut messages = Some(request.messages);
            Ok(stream
                .inspect(move |item| {
                    if let Ok(Delta::Done(response)) = item {
                        if let Some(messages) = messages.take() {
                            conversations.remember(messages, response, continued.as_deref());
                        }
                    }
                })
                .boxed())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chat::{Media, OutputFormat, ToolChoice, ToolDef};

    fn call(id: &str) -> ToolCall {
        ToolCall {
            id: id.into(),
            name: "add".into(),
            arguments: r#"{"a":1}"#.into(),
        }
    }

    fn transcript() -> Vec<ChatMessage> {
        vec![
            ChatMessage::system("Be brief."),
            ChatMessage::system("Use tools."),
            ChatMessage::user("1 + 1?"),
            ChatMessage::Assistant {
                text: "Adding.".into(),
                tool_calls: vec![call("call_1")],
            },
            ChatMessage::ToolResults {
                results: vec![ToolResult {
                    call_id: "call_1".into(),
                    name: "add".into(),
                    content: "2".into(),
                    is_error: true,
                    media: Vec::new(),
                }],
            },
            ChatMessage::system("Answer in French."),
        ]
    }

    fn request(messages: Vec<ChatMessage>) -> ChatRequest {
        ChatRequest {
            messages,
            tools: vec![ToolDef {
                name: "add".into(),
                description: "Add".into(),
                parameters: json!({"type": "object", "properties": {"a": {"type": "number"}}}),
                strict_parameters: Some(
                    json!({"type": "object", "properties": {"a": {"type": "number"}},
                                               "required": ["a"], "additionalProperties": false}),
                ),
            }],
            tool_choice: ToolChoice::Tool("add".into()),
            max_tokens: Some(100),
            output: None,
        }
    }

    #[test]
    fn the_transcript_becomes_instructions_and_input_items() {
        let model = OpenAiResponses::new("k", "gpt-x").strict(true);
        let body = model.request_body(&request(transcript()), true, None);
        assert_eq!(
            body,
            json!({
                "model": "gpt-x",
                "instructions": "Be brief.\n\nUse tools.",
                "input": [
                    {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "1 + 1?"}]},
                    {"type": "message", "role": "assistant", "content": "Adding."},
                    {"type": "function_call", "call_id": "call_1", "name": "add", "arguments": "{\"a\":1}"},
                    {"type": "function_call_output", "call_id": "call_1", "output": "2"},
                    {"type": "message", "role": "system",
                     "content": [{"type": "input_text", "text": "Answer in French."}]},
                ],
                "store": false,
                "tools": [{"type": "function", "name": "add", "description": "Add", "strict": true,
                           "parameters": {"type": "object", "properties": {"a": {"type": "number"}},
                                          "required": ["a"], "additionalProperties": false}}],
                "tool_choice": {"type": "function", "name": "add"},
                "parallel_tool_calls": true,
                "max_output_tokens": 100,
                "stream": true,
            })
        );
        // A structured answer, strict when it can be; images in results.
        let mut structured = request(vec![
            ChatMessage::user("Look"),
            ChatMessage::Assistant {
                text: String::new(),
                tool_calls: vec![call("call_1")],
            },
            ChatMessage::ToolResults {
                results: vec![ToolResult {
                    call_id: "call_1".into(),
                    content: "a pixel".into(),
                    media: vec![
                        Media {
                            mime_type: "image/png".into(),
                            data: "iVBOR".into(),
                        },
                        Media {
                            mime_type: "application/pdf".into(),
                            data: "JVBE".into(),
                        },
                    ],
                    ..ToolResult::default()
                }],
            },
        ]);
        let schema = json!({"type": "object", "properties": {"a": {"type": "number"}}});
        structured.output = Some(OutputFormat {
            name: "Answer".into(),
            schema: schema.clone(),
            strict_schema: None,
        });
        let body = model.request_body(&structured, false, None);
        assert_eq!(
            body["text"],
            json!({"format": {"type": "json_schema", "name": "Answer", "schema": schema, "strict": false}})
        );
        assert_eq!(
            body["input"][2]["output"],
            json!([
                {"type": "input_text", "text": "a pixel"},
                {"type": "input_image", "image_url": "data:image/png;base64,iVBOR"},
            ])
        );

        // No tools, no system message, no cap, no stream: only the input.
        let plain = ChatRequest {
            messages: vec![ChatMessage::user("hi")],
            ..ChatRequest::default()
        };
        let body = model.request_body(&plain, false, None);
        let keys: Vec<&str> = body
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(keys, ["input", "model", "store"]);
        for (choice, json) in [
            (ToolChoice::Auto, json!("auto")),
            (ToolChoice::None, json!("none")),
            (ToolChoice::Required, json!("required")),
        ] {
            let mut request = request(vec![ChatMessage::user("hi")]);
            request.tool_choice = choice;
            assert_eq!(
                model.request_body(&request, false, None)["tool_choice"],
                json
            );
        }
    }

    #[test]
    fn a_continued_request_sends_what_follows_the_previous_answer() {
        let model = OpenAiResponses::new("k", "gpt-x").previous_response_id(true);
        let conversations = model.conversations.as_ref().unwrap();
        let messages = transcript();
        let first = messages[..3].to_vec();
        let answer = ChatResponse {
            text: "Adding.".into(),
            tool_calls: vec![call("call_1")],
            id: Some("resp_1".into()),
            ..ChatResponse::default()
        };
        assert!(conversations.find(&first).is_none());
        assert_eq!(
            model.request_body(&request(first.clone()), false, None)["store"],
            true
        );
        conversations.remember(first.clone(), &answer, None);

        let previous = conversations.find(&messages).unwrap();
        assert_eq!((previous.id.as_str(), previous.covers), ("resp_1", 4));
        let body = model.request_body(&request(messages.clone()), false, Some(&previous));
        assert_eq!(body["previous_response_id"], "resp_1");
        assert_eq!(body["store"], true);
        assert_eq!(body["instructions"], "Be brief.\n\nUse tools.");
        assert_eq!(
            body["input"],
            json!([
                {"type": "function_call_output", "call_id": "call_1", "output": "2"},
                {"type": "message", "role": "system",
                 "content": [{"type": "input_text", "text": "Answer in French."}]},
            ])
        );

        // Not an extension: the transcript as answered (nothing new), an
        // edited answer, another conversation.
        assert!(conversations.find(&messages[..4]).is_none());
        let mut edited = messages.clone();
        edited[3] = ChatMessage::assistant("Adding.");
        assert!(conversations.find(&edited).is_none());
        assert!(conversations.find(&[ChatMessage::user("1 + 1?")]).is_none());

        // The next answer replaces the one it continued; a fork of the first
        // conversation still finds the first answer until then.
        let second = ChatResponse {
            text: "Deux.".into(),
            id: Some("resp_2".into()),
            ..ChatResponse::default()
        };
        conversations.remember(messages.clone(), &second, Some("resp_1"));
        let mut next = messages.clone();
        next.extend([ChatMessage::assistant("Deux."), ChatMessage::user("Merci")]);
        let previous = conversations.find(&next).unwrap();
        assert_eq!((previous.id.as_str(), previous.covers), ("resp_2", 7));
        assert!(conversations.find(&messages).is_none());

        // An answer without an id is not remembered; a forgotten one is gone.
        conversations.remember(vec![ChatMessage::user("x")], &ChatResponse::default(), None);
        assert!(conversations
            .find(&[
                ChatMessage::user("x"),
                ChatMessage::assistant(""),
                ChatMessage::user("y")
            ])
            .is_none());
        conversations.forget("resp_2");
        assert!(conversations.find(&next).is_none());

        // At most MAX_CONVERSATIONS are kept, the oldest forgotten first.
        for i in 0..=MAX_CONVERSATIONS {
            let answer = ChatResponse {
                id: Some(format!("resp_{i}")),
                ..ChatResponse::default()
            };
            conversations.remember(vec![ChatMessage::user(i.to_string())], &answer, None);
        }
        let after = |i: usize| {
            vec![
                ChatMessage::user(i.to_string()),
                ChatMessage::assistant(""),
                ChatMessage::user("?"),
            ]
        };
        assert!(conversations.find(&after(0)).is_none());
        assert_eq!(conversations.find(&after(1)).unwrap().id, "resp_1");

        // A clone starts afresh; turning it off forgets.
        assert!(model
            .clone()
            .conversations
            .unwrap()
            .find(&after(1))
            .is_none());
        assert!(model.previous_response_id(false).conversations.is_none());
    }

    #[test]
    fn a_lost_previous_response_is_recognised() {
        let status = |status, message: &str| ModelError::Status {
            provider: PROVIDER.into(),
            status,
            message: message.into(),
            retry_after: None,
        };
        assert!(names_previous_response(&status(
            400,
            "Previous response with id 'resp_1' not found."
        )));
        assert!(names_previous_response(&status(
            404,
            "Invalid 'previous_response_id'"
        )));
        assert!(!names_previous_response(&status(400, "Invalid 'input[2]'")));
        assert!(!names_previous_response(&status(500, "previous response")));
    }

    #[test]
    fn reads_responses() {
        let value = json!({
            "id": "resp_9", "object": "response", "status": "completed", "model": "gpt-x-2026",
            "output": [
                {"type": "reasoning", "id": "rs_1", "summary": []},
                {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
                 "content": [{"type": "output_text", "text": "Hel", "annotations": []},
                             {"type": "output_text", "text": "lo", "annotations": []}]},
                {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "add",
                 "arguments": "{\"a\":1}", "status": "completed"},
            ],
            "usage": {"input_tokens": 30, "output_tokens": 9, "total_tokens": 39,
                      "input_tokens_details": {"cached_tokens": 16},
                      "output_tokens_details": {"reasoning_tokens": 2}},
        });
        let response = parse(&value).unwrap();
        assert_eq!(
            response,
            ChatResponse {
                text: "Hello".into(),
                tool_calls: vec![call("call_1")],
                stop_reason: Some("completed".into()),
                usage: Usage {
                    input_tokens: 30,
                    output_tokens: 9,
                    cached_input_tokens: 16,
                },
                model: Some("gpt-x-2026".into()),
                id: Some("resp_9".into()),
            }
        );

        let refusal = json!({"status": "incomplete", "incomplete_details": {"reason": "content_filter"},
            "output": [{"type": "message", "content": [{"type": "refusal", "refusal": "No."}]}]});
        let response = parse(&refusal).unwrap();
        assert_eq!(response.text, "No.");
        assert_eq!(response.stop_reason.as_deref(), Some("content_filter"));

        let failed = json!({"status": "failed", "output": [],
            "error": {"code": "server_error", "message": "The model failed"}});
        assert!(matches!(parse(&failed),
            Err(ModelError::Status { status: 500, ref message, .. }) if message == "The model failed"));
        assert!(matches!(
            parse(&json!({"status": "failed", "error": null})),
            Err(ModelError::Status { status: 500, .. })
        ));
        for bad in [
            json!({"status": "queued", "output": []}),
            json!({"status": "completed"}),
            json!({"output": [{"content": []}]}),
            json!({"output": [{"type": "function_call", "name": "f", "arguments": "{}"}]}),
        ] {
            assert!(
                matches!(parse(&bad), Err(ModelError::Malformed { .. })),
                "{bad}"
            );
        }
    }

    #[test]
    fn settings_come_from_the_environment() {
        let env = |vars: &'static [(&str, &str)]| {
            move |name: &str| {
                vars.iter()
                    .find(|(n, _)| *n == name)
                    .map(|(_, v)| (*v).to_owned())
            }
        };
        let model = OpenAiResponses::from_env_with(env(&[
            ("OPENAI_BASE_URL", "http://localhost:8080/v1/"),
            ("OPENAI_MODEL", "local"),
        ]))
        .unwrap();
        assert_eq!(model.model(), "local");
        assert_eq!(ChatModel::provider(&model), "openai");
        let turn = Turn {
            model: &model,
            previous: None,
        };
        assert_eq!(turn.url(), "http://localhost:8080/v1/responses");
        assert!(turn.headers().unwrap().is_empty());
        let missing = OpenAiResponses::from_env_with(env(&[("OPENAI_MODEL", "gpt-x")]));
        assert!(
            matches!(missing, Err(ModelError::Config { ref message, .. }) if message.contains("OPENAI_API_KEY"))
        );
        let debug = format!("{:?}", OpenAiResponses::new("sk-secret", "m"));
        assert!(
            debug.contains("<redacted>") && !debug.contains("sk-secret"),
            "{debug}"
        );
    }
}
