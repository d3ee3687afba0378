//! Reading a streamed Chat Completion: `data: {chunk}` events ending with
//! `data: [DONE]`, text in `choices[0].delta.content`, tool calls in
//! `choices[0].delta.tool_calls[]` fragments keyed by `index` (the first
//! fragment of a call has its `id` and `function.name`, the others pieces of
//! `function.arguments`), usage in a last chunk with empty `choices`.

use std::collections::BTreeMap;

use oxmcp_wire::sse::SseEvent;
use serde_json::Value;

use super::exchange::{string_at, Decoder};
use super::http::{error_object, malformed};
use super::openai::{text_or_refusal, usage};
use crate::chat::{ChatResponse, ModelError, ToolCall};

const PROVIDER: &str = "openai";

/// The answer assembled from the chunks so far.
#[derive(Debug, Default)]
pub(crate) struct ChunkDecoder {
    text: String,
    refusal: Option<String>,
    calls: BTreeMap<u64, ToolCall>,
    finish_reason: Option<String>,
    usage: Option<Value>,
    /// The `model` of the chunks (each carries it).
    model: Option<String>,
    /// The `id` of the chunks (each carries it).
    id: Option<String>,
    done: bool,
}

impl Decoder for ChunkDecoder {
    fn event(&mut self, event: &SseEvent, text: &mut Vec<String>) -> Result<bool, ModelError> {
        let data = event.data.trim();
        if data == "[DONE]" {
            self.done = true;
            return Ok(true);
        }
        let chunk: Value = serde_json::from_str(data)
            .map_err(|e| malformed(PROVIDER, format!("a stream chunk is not JSON: {e}")))?;
        if let Some(error) = chunk.get("error").filter(|e| !e.is_null()) {
            return Err(error_object(PROVIDER, error));
        }
        if event.event == "error" {
            return Err(error_object(PROVIDER, &chunk));
        }
        if let Some(usage) = chunk.get("usage").filter(|u| u.is_object()) {
            self.usage = Some(usage.clone());
        }
        if self.model.is_none() {
            self.model = string_at(&chunk, "model");
        }
        if self.id.is_none() {
            self.id = string_at(&chunk, "id");
        }
        let choices = match chunk.get("choices") {
            None | Some(Value::Null) => return Ok(false),
            Some(Value::Array(choices)) => choices,
            Some(_) => return Err(malformed(PROVIDER, "a chunk's choices is not an array")),
        };
        // Only the first choice is asked for (no `n`); another is ignored.
        let first = choices
            .iter()
            .find(|c| c.get("index").and_then(Value::as_u64).unwrap_or(0) == 0);
        if let Some(choice) = first {
            self.choice(choice, text)?;
        }
        Ok(false)
    }

    fn finish(&mut self) -> Result<ChatResponse, ModelError> {
        if !self.done && self.finish_reason.is_none() {
            return Err(malformed(
                PROVIDER,
                "the stream ended before `data: [DONE]` and without a finish_reason (truncated)",
            ));
        }
        let mut tool_calls = Vec::with_capacity(self.calls.len());
        for (index, call) in std::mem::take(&mut self.calls) {
            if call.id.is_empty() || call.name.is_empty() {
                return Err(malformed(
                    PROVIDER,
                    format!("the streamed tool call with index {index} has no id or no name"),
                ));
            }
            tool_calls.push(call);
        }
        Ok(ChatResponse {
            text: text_or_refusal(std::mem::take(&mut self.text), self.refusal.take()),
            tool_calls,
            stop_reason: self.finish_reason.take(),
            usage: self.usage.as_ref().map(usage).unwrap_or_default(),
            model: self.model.take(),
            id: self.id.take(),
        })
    }
}

impl ChunkDecoder {
    /// One `choices[]` entry: its delta and finish reason.
    fn choice(&mut self, choice: &Value, text: &mut Vec<String>) -> Result<(), ModelError> {
        if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
            self.finish_reason = Some(reason.to_owned());
        }
        let Some(delta) = choice.get("delta").filter(|d| !d.is_null()) else {
            return Ok(());
        };
        if let Some(content) = delta.get("content").and_then(Value::as_str) {
            self.text.push_str(content);
            text.push(content.to_owned());
        }
        if let Some(refusal) = delta.get("refusal").and_then(Value::as_str) {
            self.refusal
                .get_or_insert_with(String::new)
                .push_str(refusal);
        }
        match delta.get("tool_calls") {
            None | Some(Value::Null) => Ok(()),
            Some(Value::Array(calls)) => {
                for call in calls {
                    self.tool_call(call);
                }
                Ok(())
            }
            Some(_) => Err(malformed(
                PROVIDER,
                "choices[0].delta.tool_calls is not an array",
            )),
        }
    }

    /// One fragment of a tool call, merged into the call with its `index`
    /// (without one, as some compatible servers send: a fragment with an
    /// `id` starts a call, another continues the last one).
    fn tool_call(&mut self, fragment: &Value) {
        let last = self.calls.keys().next_back().copied();
        let index = match fragment.get("index").and_then(Value::as_u64) {
            Some(index) => index,
            None if fragment.get("id").is_some_and(Value::is_string) => {
                last.map_or(0, |last| last.saturating_add(1))
            }
            None => last.unwrap_or(0),
        };
        let call = self.calls.entry(index).or_insert_with(|| ToolCall {
            id: String::new(),
            name: String::new(),
            arguments: String::new(),
        });
        if let Some(id) = fragment.get("id").and_then(Value::as_str) {
            if call.id.is_empty() {
                id.clone_into(&mut call.id);
            }
        }
        let Some(function) = fragment.get("function") else {
            return;
        };
        if let Some(name) = function.get("name").and_then(Value::as_str) {
            // OpenAI sends the name once; a server repeating it is not
            // taken to extend it.
            if call.name != name {
                call.name.push_str(name);
            }
        }
        if let Some(arguments) = function.get("arguments").and_then(Value::as_str) {
            call.arguments.push_str(arguments);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(events: &[&str]) -> (Vec<String>, Result<ChatResponse, ModelError>) {
        super::super::exchange::decode_all::<ChunkDecoder>(events.iter().map(|data| SseEvent {
            event: String::new(),
            data: (*data).to_owned(),
        }))
    }

    #[test]
    fn assembles_text_and_calls() {
        let (text, response) = run(&[
            r#"{"id":"chatcmpl-1","choices":[{"index":0,"delta":{"role":"assistant","content":"Hi"}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"b","type":"function","function":{"name":"g","arguments":""}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"f","arguments":"{\"x\""}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":":1}"}},{"index":1,"function":{"arguments":"{}"}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}],"usage":null}"#,
            r#"{"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":7,"prompt_tokens_details":{"cached_tokens":2}}}"#,
            "[DONE]",
            "ignored",
        ]);
        assert_eq!(text, ["Hi"]);
        let response = response.unwrap();
        assert_eq!(response.text, "Hi");
        assert_eq!(response.stop_reason.as_deref(), Some("tool_calls"));
        let calls: Vec<_> = response
            .tool_calls
            .iter()
            .map(|c| (c.id.as_str(), c.name.as_str(), c.arguments.as_str()))
            .collect();
        assert_eq!(calls, [("a", "f", "{\"x\":1}"), ("b", "g", "{}")]);
        assert_eq!(response.usage.input_tokens, 5);
        assert_eq!(response.usage.output_tokens, 7);
        assert_eq!(response.usage.cached_input_tokens, 2);
        assert_eq!(response.id.as_deref(), Some("chatcmpl-1"));
    }

    #[test]
    fn errors_and_truncation() {
        let (_, response) = run(&[r#"{"choices":[{"index":0,"delta":{"content":"Hi"}}]}"#]);
        assert!(matches!(response, Err(ModelError::Malformed { .. })));
        let (_, response) = run(&[r#"{"error":{"message":"boom","type":"server_error"}}"#]);
        assert!(
            matches!(response, Err(ModelError::Status { status: 500, ref message, .. }) if message == "boom")
        );
        let (_, response) = run(&[
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"id":"a","function":{"name":"f","arguments":"{}"}},{"id":"b","function":{"name":"g","arguments":"{"}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"function":{"arguments":"}"}}]},"finish_reason":"tool_calls"}]}"#,
        ]);
        let names: Vec<_> = response
            .unwrap()
            .tool_calls
            .into_iter()
            .map(|c| (c.name, c.arguments))
            .collect();
        assert_eq!(
            names,
            [("f".into(), "{}".into()), ("g".into(), "{}".into())]
        );
        let (_, response) = run(&["{not json"]);
        assert!(matches!(response, Err(ModelError::Malformed { .. })));
        let (_, response) = run(&[
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{}"}}]},"finish_reason":"tool_calls"}]}"#,
        ]);
        assert!(matches!(response, Err(ModelError::Malformed { .. })));
    }
}
