//! An in-process [`ChatModel`] that answers from a script and keeps every
//! request: the loop's tests drive the agent with it, no server needed.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use futures_util::future::BoxFuture;
use oxmcp_agent::chat::{ChatMessage, ChatModel, ChatRequest, ChatResponse, ModelError, ToolCall};

type Step = Box<dyn FnOnce(&ChatRequest) -> ChatResponse + Send>;

/// A model that answers each request with the next step of its script and
/// keeps every request.
#[derive(Default)]
pub struct Scripted {
    steps: Mutex<VecDeque<Step>>,
    requests: Mutex<Vec<ChatRequest>>,
}

impl Scripted {
    pub fn new() -> Arc<Scripted> {
        Arc::new(Scripted::default())
    }

    pub fn then(
        self: &Arc<Self>,
        step: impl FnOnce(&ChatRequest) -> ChatResponse + Send + 'static,
    ) -> Arc<Self> {
        self.steps.lock().unwrap().push_back(Box::new(step));
        Arc::clone(self)
    }

    pub fn requests(&self) -> Vec<ChatRequest> {
        self.requests.lock().unwrap().clone()
    }
}

impl ChatModel for Scripted {
    fn provider(&self) -> &'static str {
        "scripted"
    }

    fn complete(&self, request: ChatRequest) -> BoxFuture<'_, Result<ChatResponse, ModelError>> {
        let step = self.steps.lock().unwrap().pop_front();
        self.requests.lock().unwrap().push(request.clone());
        Box::pin(async move {
            match step {
                Some(step) => Ok(step(&request)),
                None => Err(ModelError::Malformed {
                    provider: "scripted".into(),
                    message: "the script has no step left".into(),
                }),
            }
        })
    }
}

pub fn call(id: &str, name: &str, arguments: &str) -> ToolCall {
    ToolCall {
        id: id.into(),
        name: name.into(),
        arguments: arguments.into(),
    }
}

pub fn calls(calls: Vec<ToolCall>) -> ChatResponse {
    ChatResponse {
        tool_calls: calls,
        stop_reason: Some("tool_calls".into()),
        ..ChatResponse::default()
    }
}

pub fn text(text: &str) -> ChatResponse {
    ChatResponse {
        text: text.into(),
        stop_reason: Some("stop".into()),
        ..ChatResponse::default()
    }
}

/// The results the last request sent back, as (call id, content, `is_error`).
pub fn last_results(request: &ChatRequest) -> Vec<(String, String, bool)> {
    match request.messages.last() {
        Some(ChatMessage::ToolResults { results }) => results
            .iter()
            .map(|r| (r.call_id.clone(), r.content.clone(), r.is_error))
            .collect(),
        other => panic!("the last message is not tool results: {other:?}"),
    }
}
