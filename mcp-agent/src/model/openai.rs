//! OpenAI-compatible Chat Completions (OpenAI, llama.cpp's server, vLLM,
//! Ollama's `/v1`), and the tool formats of Chat Completions and Responses.

// TODO(helper): implement.

use futures_util::future::BoxFuture;
use serde_json::Value;

use crate::chat::{ChatModel, ChatRequest, ChatResponse, ModelError, ToolChoice, ToolDef};

/// The Chat Completions `tools` array:
/// `{"type":"function","function":{name, description, parameters, strict}}`.
/// With `strict`, tools that have a strict form use it with `strict: true`.
pub fn chat_tools(tools: &[ToolDef], strict: bool) -> Vec<Value> {
    let _ = (tools, strict);
    todo!()
}

/// The Responses API `tools` array:
/// `{"type":"function", name, description, parameters, strict}`.
pub fn responses_tools(tools: &[ToolDef], strict: bool) -> Vec<Value> {
    let _ = (tools, strict);
    todo!()
}

/// Chat Completions `tool_choice`.
pub fn chat_tool_choice(choice: &ToolChoice) -> Value {
    let _ = choice;
    todo!()
}

/// An OpenAI-compatible Chat Completions model.
#[derive(Debug, Clone)]
pub struct OpenAiChat {
    _private: (),
}

impl ChatModel for OpenAiChat {
    fn provider(&self) -> &str {
        "openai"
    }

    fn complete(&self, request: ChatRequest) -> BoxFuture<'_, Result<ChatResponse, ModelError>> {
        let _ = request;
        todo!()
    }
}
