//! Anthropic Messages, and its tool format.

// TODO(helper): implement.

use futures_util::future::BoxFuture;
use serde_json::Value;

use crate::chat::{ChatModel, ChatRequest, ChatResponse, ModelError, ToolChoice, ToolDef};

/// The Messages `tools` array: `{name, description, input_schema}`.
pub fn tools(tools: &[ToolDef]) -> Vec<Value> {
    let _ = tools;
    todo!()
}

/// Messages `tool_choice` (`auto`, `any`, `none`, `{"type":"tool","name":...}`).
pub fn tool_choice(choice: &ToolChoice) -> Value {
    let _ = choice;
    todo!()
}

/// An Anthropic Messages model.
#[derive(Debug, Clone)]
pub struct Anthropic {
    _private: (),
}

impl ChatModel for Anthropic {
    fn provider(&self) -> &str {
        "anthropic"
    }

    fn complete(&self, request: ChatRequest) -> BoxFuture<'_, Result<ChatResponse, ModelError>> {
        let _ = request;
        todo!()
    }
}
