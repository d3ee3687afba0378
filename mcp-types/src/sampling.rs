//! Sampling: `sampling/createMessage`, which a server asks of the client
//! (a request in the legacy era, an input request in the 2026-07-28 era).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::content::{ContentBlock, Role};
use crate::Meta;

/// What a sampling message says: one block, several, or a block of a kind
/// this crate does not model (tool use and tool results), kept as JSON.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum SamplingContent {
    /// One content block.
    One(Box<ContentBlock>),
    /// Several content blocks (2025-11-25+).
    Many(Vec<ContentBlock>),
    /// Anything else, as sent.
    Other(Value),
}

impl SamplingContent {
    /// The text of the first text block, if any.
    pub fn text(&self) -> Option<&str> {
        match self {
            SamplingContent::One(b) => b.as_text(),
            SamplingContent::Many(bs) => bs.iter().find_map(ContentBlock::as_text),
            SamplingContent::Other(_) => None,
        }
    }
}

/// One message of a conversation to sample from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SamplingMessage {
    /// Who says it.
    pub role: Role,
    /// What is said.
    pub content: SamplingContent,
    /// Open metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl SamplingMessage {
    /// A text message from the user.
    pub fn user_text(text: impl Into<String>) -> Self {
        SamplingMessage {
            role: Role::User,
            content: SamplingContent::One(Box::new(ContentBlock::text(text))),
            meta: None,
        }
    }
}

/// Parameters of `sampling/createMessage`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateMessageParams {
    /// The conversation.
    pub messages: Vec<SamplingMessage>,
    /// Which model the server would prefer (`hints`, priorities).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_preferences: Option<Value>,
    /// A system prompt the client may use.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    /// `none` (default), or the deprecated `thisServer` / `allServers`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_context: Option<String>,
    /// Sampling temperature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// The most tokens to sample.
    pub max_tokens: u64,
    /// Sequences that stop sampling.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_sequences: Option<Vec<String>>,
    /// Provider-specific metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Value>,
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl CreateMessageParams {
    /// A request to sample at most `max_tokens` after `messages`.
    pub fn new(messages: Vec<SamplingMessage>, max_tokens: u64) -> Self {
        CreateMessageParams {
            messages,
            model_preferences: None,
            system_prompt: None,
            include_context: None,
            temperature: None,
            max_tokens,
            stop_sequences: None,
            metadata: None,
            meta: None,
        }
    }
}

/// Result of `sampling/createMessage`: the sampled message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateMessageResult {
    /// Who says it (the assistant).
    pub role: Role,
    /// What was sampled.
    pub content: SamplingContent,
    /// The model that sampled it.
    pub model: String,
    /// Why sampling stopped (`endTurn`, `stopSequence`, `maxTokens`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn requests_and_results_use_the_spec_shapes() {
        let p = CreateMessageParams::new(vec![SamplingMessage::user_text("Hi")], 100);
        assert_eq!(
            serde_json::to_value(&p).unwrap(),
            json!({"messages": [{"role": "user", "content": {"type": "text", "text": "Hi"}}], "maxTokens": 100})
        );
        let r: CreateMessageResult = serde_json::from_value(json!({
            "role": "assistant", "content": {"type": "text", "text": "Paris"},
            "model": "m", "stopReason": "endTurn"
        }))
        .unwrap();
        assert_eq!(r.content.text(), Some("Paris"));
        let many: CreateMessageResult = serde_json::from_value(json!({
            "role": "assistant", "content": [{"type": "text", "text": "a"}], "model": "m"
        }))
        .unwrap();
        assert_eq!(many.content.text(), Some("a"));
    }
}
