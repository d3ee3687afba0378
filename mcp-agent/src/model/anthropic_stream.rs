//! Reading a streamed Messages answer: `message_start` (usage), for each
//! content block `content_block_start`, `content_block_delta`s (`text_delta`,
//! `input_json_delta`) and `content_block_stop`, then `message_delta` (stop
//! reason, output usage) and `message_stop`; `ping`s anywhere; `error` for a
//! failure mid-stream. Unknown events and block types are ignored, as the
//! API's versioning policy asks.

use std::collections::BTreeMap;

use oxmcp_wire::sse::SseEvent;
use serde_json::Value;

use super::anthropic::add_usage;
use super::exchange::{event_data, event_type, string_at, Decoder};
use super::http::{error_object, malformed};
use crate::chat::{ChatResponse, ModelError, ToolCall, Usage};

const PROVIDER: &str = "anthropic";

/// One content block being streamed.
#[derive(Debug)]
enum Block {
    Text,
    ToolUse {
        call: ToolCall,
        /// The `input` of `content_block_start`, used when no
        /// `input_json_delta` follows.
        start_input: Value,
    },
    /// A block this crate does not read (thinking, server tools, ...).
    Other,
}

/// The answer assembled from the events so far.
#[derive(Debug, Default)]
pub(crate) struct EventDecoder {
    text: String,
    blocks: BTreeMap<u64, Block>,
    stop_reason: Option<String>,
    usage: Usage,
    /// The `model` of `message_start`.
    model: Option<String>,
    /// The `id` of `message_start`.
    id: Option<String>,
    stopped: bool,
}

impl Decoder for EventDecoder {
    fn event(&mut self, event: &SseEvent, text: &mut Vec<String>) -> Result<bool, ModelError> {
        let data = event_data(PROVIDER, event)?;
        let kind = event_type(&data, event);
        match kind {
            "message_start" => {
                if let Some(usage) = data.pointer("/message/usage") {
                    add_usage(&mut self.usage, usage);
                }
                let message = data.get("message").unwrap_or(&Value::Null);
                self.model = string_at(message, "model");
                self.id = string_at(message, "id");
            }
            "content_block_start" => self.block_start(&data)?,
            "content_block_delta" => self.block_delta(&data, text)?,
            "message_delta" => {
                if let Some(reason) = data.pointer("/delta/stop_reason").and_then(Value::as_str) {
                    self.stop_reason = Some(reason.to_owned());
                }
                if let Some(usage) = data.get("usage") {
                    add_usage(&mut self.usage, usage);
                }
            }
            "message_stop" => {
                self.stopped = true;
                return Ok(true);
            }
            "error" => {
                let error = data.get("error").unwrap_or(&data);
                return Err(error_object(PROVIDER, error));
            }
            _ => {} // ping, content_block_stop, and events added later
        }
        Ok(false)
    }

    fn finish(&mut self) -> Result<ChatResponse, ModelError> {
        if !self.stopped {
            return Err(malformed(
                PROVIDER,
                "the stream ended before `message_stop` (truncated)",
            ));
        }
        let tool_calls = std::mem::take(&mut self.blocks)
            .into_values()
            .filter_map(|block| match block {
                Block::ToolUse {
                    mut call,
                    start_input,
                } => {
                    if call.arguments.is_empty() {
                        call.arguments = match start_input {
                            Value::Object(input) if !input.is_empty() => {
                                Value::Object(input).to_string()
                            }
                            _ => "{}".to_owned(),
                        };
                    }
                    Some(call)
                }
                Block::Text | Block::Other => None,
            })
            .collect();
        Ok(ChatResponse {
            text: std::mem::take(&mut self.text),
            tool_calls,
            stop_reason: self.stop_reason.take(),
            usage: self.usage,
            model: self.model.take(),
            id: self.id.take(),
        })
    }
}

impl EventDecoder {
    fn block_start(&mut self, data: &Value) -> Result<(), ModelError> {
        let index = index(data, "content_block_start")?;
        let block = data
            .get("content_block")
            .ok_or_else(|| malformed(PROVIDER, "content_block_start has no content_block"))?;
        let field = |key: &str| {
            block
                .get(key)
                .and_then(Value::as_str)
                .map(str::to_owned)
                .ok_or_else(|| {
                    malformed(PROVIDER, format!("the tool_use block {index} has no {key}"))
                })
        };
        let block = match block.get("type").and_then(Value::as_str) {
            Some("text") => {
                // The start carries empty text, but take any it has.
                if let Some(text) = block.get("text").and_then(Value::as_str) {
                    self.text.push_str(text);
                }
                Block::Text
            }
            Some("tool_use") => Block::ToolUse {
                call: ToolCall {
                    id: field("id")?,
                    name: field("name")?,
                    arguments: String::new(),
                },
                start_input: block.get("input").cloned().unwrap_or(Value::Null),
            },
            _ => Block::Other,
        };
        self.blocks.insert(index, block);
        Ok(())
    }

    fn block_delta(&mut self, data: &Value, text: &mut Vec<String>) -> Result<(), ModelError> {
        let index = index(data, "content_block_delta")?;
        let block = self.blocks.get_mut(&index).ok_or_else(|| {
            malformed(
                PROVIDER,
                format!("content_block_delta for block {index}, which did not start"),
            )
        })?;
        let delta = data.get("delta");
        let piece = |key: &str| delta.and_then(|d| d.get(key)).and_then(Value::as_str);
        match (
            delta.and_then(|d| d.get("type")).and_then(Value::as_str),
            block,
        ) {
            (Some("text_delta"), Block::Text) => {
                let piece = piece("text").unwrap_or_default();
                self.text.push_str(piece);
                text.push(piece.to_owned());
            }
            (Some("input_json_delta"), Block::ToolUse { call, .. }) => {
                call.arguments
                    .push_str(piece("partial_json").unwrap_or_default());
            }
            (Some("text_delta" | "input_json_delta"), _) => {
                return Err(malformed(
                    PROVIDER,
                    format!("block {index} got a delta of another block type"),
                ));
            }
            _ => {} // thinking, signature, citations, ...
        }
        Ok(())
    }
}

/// The `index` of a block event.
fn index(data: &Value, event: &str) -> Result<u64, ModelError> {
    data.get("index")
        .and_then(Value::as_u64)
        .ok_or_else(|| malformed(PROVIDER, format!("{event} has no index")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(events: &[&str]) -> (Vec<String>, Result<ChatResponse, ModelError>) {
        super::super::exchange::decode_all::<EventDecoder>(events.iter().map(|data| SseEvent {
            event: String::new(),
            data: (*data).to_owned(),
        }))
    }

    #[test]
    fn assembles_text_and_tool_uses() {
        let (text, response) = run(&[
            r#"{"type":"message_start","message":{"id":"msg_1","usage":{"input_tokens":10,"output_tokens":1,"cache_read_input_tokens":4}}}"#,
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
            r#"{"type":"ping"}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}"#,
            r#"{"type":"content_block_stop","index":0}"#,
            r#"{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"t1","name":"f","input":{}}}"#,
            r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"a\":"}}"#,
            r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"1}"}}"#,
            r#"{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"t2","name":"g","input":{}}}"#,
            r#"{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":12}}"#,
            r#"{"type":"message_stop"}"#,
        ]);
        assert_eq!(text, ["Hi"]);
        let response = response.unwrap();
        assert_eq!(response.text, "Hi");
        assert_eq!(response.stop_reason.as_deref(), Some("tool_use"));
        assert_eq!(response.tool_calls.len(), 2);
        assert_eq!(response.tool_calls[0].arguments, r#"{"a":1}"#);
        assert_eq!(response.tool_calls[1].arguments, "{}");
        assert_eq!(response.id.as_deref(), Some("msg_1"));
        assert_eq!(
            response.usage,
            Usage {
                input_tokens: 10,
                output_tokens: 12,
                cached_input_tokens: 4
            }
        );
    }

    #[test]
    fn errors_and_truncation() {
        let (_, response) = run(&[r#"{"type":"message_start","message":{}}"#]);
        assert!(matches!(response, Err(ModelError::Malformed { .. })));
        let (_, response) = run(&[
            r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
        ]);
        assert!(
            matches!(response, Err(ModelError::Status { status: 529, ref message, .. }) if message == "Overloaded")
        );
        let (_, response) = run(&[
            r#"{"type":"content_block_delta","index":3,"delta":{"type":"text_delta","text":"x"}}"#,
        ]);
        assert!(matches!(response, Err(ModelError::Malformed { .. })));
    }
}
