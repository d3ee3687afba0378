//! The conversation model shared by the loop and the providers: messages,
//! tool calls and results, one request to a model and its response, and the
//! [`ChatModel`] trait every provider implements.
//!
//! Tool names here are the names the model sees (already mapped to the
//! providers' `^[a-zA-Z0-9_-]{1,64}$`, see [`crate::names`]); the tool set
//! maps them back to MCP names.

use std::fmt;
use std::time::Duration;

use futures_util::future::BoxFuture;
use futures_util::stream::BoxStream;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One message of a conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "snake_case")]
pub enum ChatMessage {
    /// Instructions for the model (OpenAI's `system` message, Anthropic's
    /// top-level `system`).
    System {
        /// The instructions.
        text: String,
    },
    /// What the user said.
    User {
        /// The text.
        text: String,
    },
    /// What the model answered: text, tool calls, or both.
    Assistant {
        /// The text (empty when the model only called tools).
        #[serde(default)]
        text: String,
        /// The tool calls, in the order the model made them.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        tool_calls: Vec<ToolCall>,
    },
    /// The results of one turn's tool calls, in call order, each tied to its
    /// call id (OpenAI: one `tool` message per result; Anthropic: one `user`
    /// message of `tool_result` blocks).
    ToolResults {
        /// The results.
        results: Vec<ToolResult>,
    },
}

impl ChatMessage {
    /// A system message.
    pub fn system(text: impl Into<String>) -> Self {
        ChatMessage::System { text: text.into() }
    }

    /// A user message.
    pub fn user(text: impl Into<String>) -> Self {
        ChatMessage::User { text: text.into() }
    }

    /// An assistant message with text only.
    pub fn assistant(text: impl Into<String>) -> Self {
        ChatMessage::Assistant {
            text: text.into(),
            tool_calls: Vec::new(),
        }
    }
}

/// A model's request to run a tool.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The provider's id for this call (OpenAI `call_...`, Anthropic `toolu_...`).
    pub id: String,
    /// The tool's name as the model sees it.
    pub name: String,
    /// The arguments exactly as the model wrote them: JSON text, which may be
    /// unparsable (the loop reports that back to the model).
    pub arguments: String,
}

/// What a tool call produced, as it goes back to the model.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ToolResult {
    /// The id of the call this answers.
    pub call_id: String,
    /// The tool's name as the model sees it.
    pub name: String,
    /// The result as text.
    pub content: String,
    /// The call failed (Anthropic's `is_error`; OpenAI has no flag, the text says it).
    #[serde(default)]
    pub is_error: bool,
    /// Images and documents the result carried, for the providers that
    /// take them (Anthropic inside `tool_result`, the Responses API as
    /// `input_image`, Chat Completions in a user message after the
    /// results); the text names them for the others.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub media: Vec<Media>,
}

/// An image or document a tool returned, as base64 data with its MIME type.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Media {
    /// `image/png`, `image/jpeg`, `image/gif`, `image/webp`, `application/pdf`, ...
    pub mime_type: String,
    /// The bytes, base64.
    pub data: String,
}

impl Media {
    /// Whether it is an image of a type the providers take (PNG, JPEG, GIF, WebP).
    pub fn is_image(&self) -> bool {
        matches!(
            self.mime_type.as_str(),
            "image/png" | "image/jpeg" | "image/gif" | "image/webp"
        )
    }

    /// Whether it is a PDF document.
    pub fn is_pdf(&self) -> bool {
        self.mime_type == "application/pdf"
    }

    /// A `data:` URL of it.
    pub fn data_url(&self) -> String {
        format!("data:{};base64,{}", self.mime_type, self.data)
    }
}

/// A JSON answer the model must give, by a schema (structured output).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OutputFormat {
    /// A name for it (`^[a-zA-Z0-9_-]{1,64}$`), as OpenAI wants one.
    pub name: String,
    /// The JSON Schema of the answer.
    pub schema: Value,
    /// The same in OpenAI's strict form, when it can be made strict.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strict_schema: Option<Value>,
}

/// One tool as offered to a model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolDef {
    /// The name the model sees (`^[a-zA-Z0-9_-]{1,64}$`).
    pub name: String,
    /// What the tool does.
    pub description: String,
    /// The tool's input schema, as the tool declared it.
    pub parameters: Value,
    /// The same schema in OpenAI's strict form, when it could be made strict
    /// (see [`crate::strict`]); `None` means the tool is offered non-strict.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strict_parameters: Option<Value>,
}

/// Whether and which tool the model must call.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolChoice {
    /// The model decides (the default).
    #[default]
    Auto,
    /// The model must call at least one tool (OpenAI `required`, Anthropic `any`).
    Required,
    /// The model must not call tools.
    None,
    /// The model must call this tool (the name the model sees).
    Tool(String),
}

/// One request to a model: the conversation so far and the tools it may call.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ChatRequest {
    /// The conversation, oldest first. System messages may appear anywhere;
    /// providers with a single system field join them.
    pub messages: Vec<ChatMessage>,
    /// The tools offered this turn.
    pub tools: Vec<ToolDef>,
    /// Whether and which tool the model must call.
    pub tool_choice: ToolChoice,
    /// A cap on the tokens the model may generate (Anthropic requires one;
    /// its implementation supplies a default).
    pub max_tokens: Option<u32>,
    /// The answer must be JSON by this schema (the provider's structured
    /// output mode); `None` for free text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<OutputFormat>,
}

/// Token counts as the provider reported them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Usage {
    /// Tokens read (OpenAI `prompt_tokens` / `input_tokens`, Anthropic `input_tokens`).
    pub input_tokens: u64,
    /// Tokens written (OpenAI `completion_tokens` / `output_tokens`, Anthropic `output_tokens`).
    pub output_tokens: u64,
    /// Input tokens read from the provider's prompt cache, when it says.
    pub cached_input_tokens: u64,
}

impl Usage {
    /// Adds another turn's counts.
    pub fn add(&mut self, other: Usage) {
        self.input_tokens += other.input_tokens;
        self.output_tokens += other.output_tokens;
        self.cached_input_tokens += other.cached_input_tokens;
    }
}

/// A model's whole answer to one request.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ChatResponse {
    /// The text (empty when the model only called tools).
    pub text: String,
    /// The tool calls, in order.
    pub tool_calls: Vec<ToolCall>,
    /// Why the model stopped, in the provider's words (`stop`, `tool_calls`,
    /// `end_turn`, `tool_use`, `length`, `max_tokens`, ...).
    pub stop_reason: Option<String>,
    /// The tokens this request used.
    pub usage: Usage,
    /// The model that answered, as the provider names it (`gpt-4o-2024-08-06`
    /// for a request to `gpt-4o`), when it says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The provider's id for this answer (`chatcmpl-...`, `msg_...`,
    /// `resp_...`), when it says. [`OpenAiResponses`](crate::model::OpenAiResponses)
    /// continues a conversation from it with `previous_response_id`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
}

/// A piece of a streamed answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Delta {
    /// More of the model's text.
    Text(String),
    /// The whole answer, assembled: always the last item of a stream.
    Done(ChatResponse),
}

/// A stream of [`Delta`]s ending with [`Delta::Done`].
pub type DeltaStream<'a> = BoxStream<'a, Result<Delta, ModelError>>;

/// A chat model that can call tools: OpenAI-compatible Chat Completions
/// ([`crate::model::OpenAiChat`]), the OpenAI Responses API
/// ([`crate::model::OpenAiResponses`]), Anthropic Messages
/// ([`crate::model::Anthropic`]), or your own.
pub trait ChatModel: Send + Sync {
    /// Who answers (`"openai"`, `"anthropic"`, ...), for error messages and events.
    fn provider(&self) -> &str;

    /// The model requests ask for (`"gpt-4o"`), when there is one name for
    /// it; telemetry records it. The default is `None`.
    fn model(&self) -> Option<&str> {
        None
    }

    /// Sends one request and waits for the whole answer.
    fn complete(&self, request: ChatRequest) -> BoxFuture<'_, Result<ChatResponse, ModelError>>;

    /// Sends one request and streams the answer. The default calls
    /// [`complete`](Self::complete) and yields its text in one piece.
    fn stream(&self, request: ChatRequest) -> BoxFuture<'_, Result<DeltaStream<'_>, ModelError>> {
        Box::pin(async move {
            let response = self.complete(request).await?;
            let mut items = Vec::with_capacity(2);
            if !response.text.is_empty() {
                items.push(Ok(Delta::Text(response.text.clone())));
            }
            items.push(Ok(Delta::Done(response)));
            let stream: DeltaStream<'_> = Box::pin(futures_util::stream::iter(items));
            Ok(stream)
        })
    }
}

impl<M: ChatModel + ?Sized> ChatModel for std::sync::Arc<M> {
    fn provider(&self) -> &str {
        (**self).provider()
    }

    fn model(&self) -> Option<&str> {
        (**self).model()
    }

    fn complete(&self, request: ChatRequest) -> BoxFuture<'_, Result<ChatResponse, ModelError>> {
        (**self).complete(request)
    }

    fn stream(&self, request: ChatRequest) -> BoxFuture<'_, Result<DeltaStream<'_>, ModelError>> {
        (**self).stream(request)
    }
}

impl<M: ChatModel + ?Sized> ChatModel for Box<M> {
    fn provider(&self) -> &str {
        (**self).provider()
    }

    fn model(&self) -> Option<&str> {
        (**self).model()
    }

    fn complete(&self, request: ChatRequest) -> BoxFuture<'_, Result<ChatResponse, ModelError>> {
        (**self).complete(request)
    }

    fn stream(&self, request: ChatRequest) -> BoxFuture<'_, Result<DeltaStream<'_>, ModelError>> {
        (**self).stream(request)
    }
}

/// A model request that failed. Every variant names the provider.
///
/// A leaf error: the message says everything (causes of a failed request are
/// already written into it) and `source()` is `None`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ModelError {
    /// The provider answered with an HTTP error status (after retrying
    /// rate limits and overloads within the configured bound).
    #[error("{provider}: HTTP {status}: {message}")]
    Status {
        /// The provider.
        provider: String,
        /// The HTTP status.
        status: u16,
        /// The message the provider sent (its `error.message`, else the body).
        message: String,
        /// The `Retry-After` the provider asked for, if any.
        retry_after: Option<Duration>,
    },
    /// The request could not be sent or the answer could not be read.
    #[error("{provider}: {message}")]
    Transport {
        /// The provider.
        provider: String,
        /// What went wrong, with the URL.
        message: String,
    },
    /// The provider's answer did not have the shape its API documents.
    #[error("{provider}: malformed response: {message}")]
    Malformed {
        /// The provider.
        provider: String,
        /// What was wrong.
        message: String,
    },
    /// The request could not be made (a missing setting, a tool the provider
    /// cannot express).
    #[error("{provider}: {message}")]
    Config {
        /// The provider.
        provider: String,
        /// What is missing or wrong.
        message: String,
    },
}

impl ModelError {
    /// The provider named by the error.
    pub fn provider(&self) -> &str {
        match self {
            ModelError::Status { provider, .. }
            | ModelError::Transport { provider, .. }
            | ModelError::Malformed { provider, .. }
            | ModelError::Config { provider, .. } => provider,
        }
    }
}

impl fmt::Display for ToolChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ToolChoice::Auto => f.write_str("auto"),
            ToolChoice::Required => f.write_str("required"),
            ToolChoice::None => f.write_str("none"),
            ToolChoice::Tool(name) => write!(f, "tool `{name}`"),
        }
    }
}
