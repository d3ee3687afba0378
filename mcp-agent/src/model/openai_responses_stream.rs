//! Reading a streamed Responses API answer: `response.*` events, each with
//! its `type` in the data. Text comes in `response.output_text.delta`s; a
//! `function_call` output item starts with `response.output_item.added`
//! (its `call_id` and `name`), its arguments come in
//! `response.function_call_arguments.delta`s keyed by `output_index`, and
//! `response.output_item.done` gives it whole; `response.completed` (or
//! `response.incomplete`) ends the stream with the whole response (status,
//! usage, model, id); `response.failed` and `error` are failures. Other
//! events are ignored.

use std::collections::BTreeMap;

use oxmcp_wire::sse::SseEvent;
use serde_json::Value;

use super::exchange::{event_data, event_type, Decoder};
use super::http::{error_object, malformed};
use super::openai::text_or_refusal;
use super::openai_responses::{failed, function_call, outcome, parse};
use crate::chat::{ChatResponse, ModelError, ToolCall};

const PROVIDER: &str = "openai";

/// The answer assembled from the events so far.
#[derive(Debug, Default)]
pub(crate) struct EventDecoder {
    text: String,
    refusal: Option<String>,
    /// The function calls, by `output_index`.
    calls: BTreeMap<u64, ToolCall>,
    /// Whether an output item event came.
    items: bool,
    /// The response of `response.completed` or `response.incomplete`.
    response: Option<Value>,
}

impl Decoder for EventDecoder {
    fn event(&mut self, event: &SseEvent, text: &mut Vec<String>) -> Result<bool, ModelError> {
        let data = event_data(PROVIDER, event)?;
        let kind = event_type(&data, event);
        let delta = || {
            data.get("delta")
                .and_then(Value::as_str)
                .unwrap_or_default()
        };
        match kind {
            "response.output_text.delta" => {
                self.text.push_str(delta());
                text.push(delta().to_owned());
            }
            "response.refusal.delta" => self
                .refusal
                .get_or_insert_with(String::new)
                .push_str(delta()),
            "response.output_item.added" | "response.output_item.done" => self.item(&data)?,
            "response.function_call_arguments.delta" => {
                self.call(&data, kind)?.arguments.push_str(delta());
            }
            "response.function_call_arguments.done" => {
                if let Some(arguments) = data.get("arguments").and_then(Value::as_str) {
                    arguments.clone_into(&mut self.call(&data, kind)?.arguments);
                }
            }
            "response.completed" | "response.incomplete" => {
                let response = data
                    .get("response")
                    .filter(|r| r.is_object())
                    .ok_or_else(|| malformed(PROVIDER, format!("{kind} has no response")))?;
                if !self.items {
                    // No output item events: the output is in the response.
                    let whole = parse(response)?;
                    text.push(whole.text.clone());
                    self.text = whole.text;
                    self.calls = (0..).zip(whole.tool_calls).collect();
                }
                self.response = Some(response.clone());
                return Ok(true);
            }
            "response.failed" => {
                return Err(failed(data.get("response").unwrap_or(&Value::Null)));
            }
            "error" => return Err(error_object(PROVIDER, &data)),
            _ => {} // created, in_progress, content parts, reasoning, ...
        }
        Ok(false)
    }

    fn finish(&mut self) -> Result<ChatResponse, ModelError> {
        let Some(response) = self.response.take() else {
            return Err(malformed(
                PROVIDER,
                "the stream ended before `response.completed` (truncated)",
            ));
        };
        // Each call came from a `function_call` item with its call_id and name.
        Ok(ChatResponse {
            text: text_or_refusal(std::mem::take(&mut self.text), self.refusal.take()),
            tool_calls: std::mem::take(&mut self.calls).into_values().collect(),
            ..outcome(&response)?
        })
    }
}

impl EventDecoder {
    /// An output item added or done: a `function_call` is (re)started from
    /// it, whole when done.
    fn item(&mut self, data: &Value) -> Result<(), ModelError> {
        self.items = true;
        let item = data.get("item").unwrap_or(&Value::Null);
        if item.get("type").and_then(Value::as_str) != Some("function_call") {
            return Ok(());
        }
        let index = output_index(data)?;
        let at = format!("the function_call item at output_index {index}");
        let mut call = function_call(item, &at)?;
        if let Some(streamed) = self.calls.get(&index) {
            // The added item has no arguments yet: keep those streamed.
            if call.arguments.is_empty() {
                call.arguments.clone_from(&streamed.arguments);
            }
        }
        self.calls.insert(index, call);
        Ok(())
    }

    /// The function call an arguments event is about.
    fn call(&mut self, data: &Value, kind: &str) -> Result<&mut ToolCall, ModelError> {
        let index = output_index(data)?;
        self.calls.get_mut(&index).ok_or_else(|| {
            malformed(
                PROVIDER,
                format!("{kind} for output_index {index}, which is no function call"),
            )
        })
    }
}

/// The `output_index` of an item event.
fn output_index(data: &Value) -> Result<u64, ModelError> {
    data.get("output_index")
        .and_then(Value::as_u64)
        .ok_or_else(|| malformed(PROVIDER, "an output item event has no output_index"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chat::Usage;
    use serde_json::json;

    fn run(events: &[Value]) -> (Vec<String>, Result<ChatResponse, ModelError>) {
        super::super::exchange::decode_all::<EventDecoder>(events.iter().map(|data| SseEvent {
            event: data["type"].as_str().unwrap_or_default().to_owned(),
            data: data.to_string(),
        }))
    }

    fn response(status: &str, output: &Value) -> Value {
        json!({
            "id": "resp_1", "object": "response", "status": status, "model": "gpt-x-2026",
            "output": output,
            "usage": {"input_tokens": 12, "output_tokens": 7, "total_tokens": 19,
                      "input_tokens_details": {"cached_tokens": 4},
                      "output_tokens_details": {"reasoning_tokens": 0}},
        })
    }

    #[test]
    fn assembles_text_and_calls() {
        let call = |id: &str, name: &str, arguments: &str| {
            json!({"type": "function_call", "id": format!("fc_{id}"), "call_id": id,
                   "name": name, "arguments": arguments, "status": "completed"})
        };
        let (text, answer) = run(&[
            json!({"type": "response.created", "response": response("in_progress", &json!([]))}),
            json!({"type": "response.output_item.added", "output_index": 0,
                   "item": {"type": "message", "id": "msg_1", "role": "assistant", "content": [], "status": "in_progress"}}),
            json!({"type": "response.output_text.delta", "output_index": 0, "content_index": 0, "delta": "He"}),
            json!({"type": "response.output_text.delta", "output_index": 0, "content_index": 0, "delta": "llo"}),
            json!({"type": "response.output_item.added", "output_index": 1, "item": call("call_a", "add", "")}),
            json!({"type": "response.function_call_arguments.delta", "output_index": 1, "delta": "{\"a\":"}),
            json!({"type": "response.output_item.added", "output_index": 2, "item": call("call_b", "neg", "")}),
            json!({"type": "response.function_call_arguments.delta", "output_index": 2, "delta": "{}"}),
            json!({"type": "response.function_call_arguments.delta", "output_index": 1, "delta": "1}"}),
            json!({"type": "response.function_call_arguments.done", "output_index": 2, "arguments": "{\"x\":2}"}),
            json!({"type": "response.output_item.done", "output_index": 1, "item": call("call_a", "add", "{\"a\":1}")}),
            json!({"type": "response.completed", "response": response("completed", &json!([]))}),
            json!({"type": "response.output_text.delta", "output_index": 0, "delta": "ignored"}),
        ]);
        assert_eq!(text, ["He", "llo"]);
        let answer = answer.unwrap();
        assert_eq!(answer.text, "Hello");
        let calls: Vec<_> = answer
            .tool_calls
            .iter()
            .map(|c| (c.id.as_str(), c.name.as_str(), c.arguments.as_str()))
            .collect();
        assert_eq!(
            calls,
            [
                ("call_a", "add", "{\"a\":1}"),
                ("call_b", "neg", "{\"x\":2}")
            ]
        );
        assert_eq!(answer.stop_reason.as_deref(), Some("completed"));
        assert_eq!(
            answer.usage,
            Usage {
                input_tokens: 12,
                output_tokens: 7,
                cached_input_tokens: 4
            }
        );
        assert_eq!(answer.model.as_deref(), Some("gpt-x-2026"));
        assert_eq!(answer.id.as_deref(), Some("resp_1"));
    }

    #[test]
    fn incomplete_refused_and_whole_answers() {
        let mut incomplete = response("incomplete", &json!([]));
        incomplete["incomplete_details"] = json!({"reason": "max_output_tokens"});
        let (_, answer) = run(&[
            json!({"type": "response.refusal.delta", "output_index": 0, "content_index": 0, "delta": "No."}),
            json!({"type": "response.output_item.done", "output_index": 0, "item": {"type": "message"}}),
            json!({"type": "response.incomplete", "response": incomplete}),
        ]);
        let answer = answer.unwrap();
        assert_eq!(answer.text, "No.");
        assert_eq!(answer.stop_reason.as_deref(), Some("max_output_tokens"));

        // A server that sends no item events: the output of the response.
        let output = json!([
            {"type": "message", "id": "m", "role": "assistant", "status": "completed",
             "content": [{"type": "output_text", "text": "Hi", "annotations": []}]},
            {"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}"},
        ]);
        let (text, answer) = run(&[
            json!({"type": "response.completed", "response": response("completed", &output)}),
        ]);
        let answer = answer.unwrap();
        assert_eq!(text, ["Hi"]);
        assert_eq!((answer.text.as_str(), answer.tool_calls.len()), ("Hi", 1));
    }

    #[test]
    fn errors_and_truncation() {
        let (_, answer) =
            run(&[json!({"type": "response.output_text.delta", "output_index": 0, "delta": "Hi"})]);
        assert!(
            matches!(answer, Err(ModelError::Malformed { ref message, .. }) if message.contains("truncated"))
        );

        let mut failed = response("failed", &json!([]));
        failed["error"] = json!({"code": "rate_limit_exceeded", "message": "Slow down"});
        let (_, answer) = run(&[json!({"type": "response.failed", "response": failed})]);
        assert!(
            matches!(answer, Err(ModelError::Status { status: 429, ref message, .. }) if message == "Slow down")
        );

        let (_, answer) = run(&[
            json!({"type": "error", "code": "server_error", "message": "boom", "param": null, "sequence_number": 3}),
        ]);
        assert!(
            matches!(answer, Err(ModelError::Status { status: 500, ref message, .. }) if message == "boom")
        );

        let (_, answer) = run(&[
            json!({"type": "response.function_call_arguments.delta", "output_index": 4, "delta": "{"}),
        ]);
        assert!(matches!(answer, Err(ModelError::Malformed { .. })));

        let (_, answer) = run(&[
            json!({"type": "response.output_item.added", "output_index": 0, "item": {"type": "function_call", "name": "f", "arguments": ""}}),
        ]);
        assert!(
            matches!(answer, Err(ModelError::Malformed { ref message, .. }) if message.contains("call_id"))
        );

        let mut event = SseEvent {
            event: "response.output_text.delta".into(),
            data: "{not json".into(),
        };
        let mut decoder = EventDecoder::default();
        assert!(decoder.event(&event, &mut Vec::new()).is_err());
        event.data = r#"{"type":"response.completed"}"#.into();
        assert!(decoder.event(&event, &mut Vec::new()).is_err());
    }
}
