//! The three models pointed at a scripted model server, by provider.

use oxmcp_agent::chat::ChatModel;
use oxmcp_agent::model::{Anthropic, OpenAiChat, OpenAiResponses};

use super::ScriptedModel;

/// The API key the scripted server is started with.
pub const KEY: &str = "sk-test-key";

/// Which API a model speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Provider {
    /// OpenAI Chat Completions.
    OpenAi,
    /// The OpenAI Responses API.
    Responses,
    /// Anthropic Messages.
    Anthropic,
}

impl Provider {
    /// The model of this API on `server` (OpenAI ones strict).
    pub fn model(self, server: &ScriptedModel, streaming: bool) -> Box<dyn ChatModel> {
        match self {
            Provider::OpenAi => Box::new(
                OpenAiChat::new(KEY, "gpt-test")
                    .base_url(server.openai_base_url())
                    .streaming(streaming)
                    .strict(true),
            ),
            Provider::Responses => Box::new(
                OpenAiResponses::new(KEY, "gpt-test")
                    .base_url(server.openai_base_url())
                    .streaming(streaming)
                    .strict(true),
            ),
            Provider::Anthropic => Box::new(
                Anthropic::new(KEY, "claude-test")
                    .base_url(server.base_url())
                    .streaming(streaming),
            ),
        }
    }

    /// The API, as scripts name it.
    pub fn script_name(self) -> &'static str {
        match self {
            Provider::OpenAi => "openai",
            Provider::Responses => "openai_responses",
            Provider::Anthropic => "anthropic",
        }
    }

    /// The provider, as the model names it (in errors).
    pub fn reported(self) -> &'static str {
        match self {
            Provider::OpenAi | Provider::Responses => "openai",
            Provider::Anthropic => "anthropic",
        }
    }
}
