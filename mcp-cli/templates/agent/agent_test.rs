//! The agent's loop with a scripted model in place of a real one (no
//! network, no key): it calls `greet`, then answers with what it returned.

use oxmcp_agent::chat::{ChatMessage, ChatModel, ChatRequest, ChatResponse, ModelError, ToolCall};
use oxmcp_agent::Finish;
use oxmcp_server::types::call::BoxFuture;

/// Calls `greet` once, then answers with its result.
struct Scripted;

impl ChatModel for Scripted {
    fn provider(&self) -> &str {
        "scripted"
    }

    fn complete(&self, request: ChatRequest) -> BoxFuture<'_, Result<ChatResponse, ModelError>> {
        Box::pin(async move {
            Ok(match request.messages.last() {
                Some(ChatMessage::ToolResults { results }) => ChatResponse {
                    text: format!("The tool said: {}", results[0].content),
                    ..ChatResponse::default()
                },
                _ => ChatResponse {
                    tool_calls: vec![ToolCall {
                        id: "call_1".into(),
                        name: "greet".into(),
                        arguments: r#"{"name": "Ada"}"#.into(),
                    }],
                    ..ChatResponse::default()
                },
            })
        })
    }
}

#[tokio::test]
async fn the_agent_calls_a_tool_and_answers_with_its_result() {
    let agent = {{crate}}::agent(Scripted).await.unwrap();
    let Finish::Done { output, outcome } = agent.run("Greet Ada").await.unwrap() else {
        panic!("nothing here pauses a run");
    };
    assert_eq!(output, "The tool said: Hello, Ada!");
    assert_eq!(outcome.tool_calls.len(), 1);
    assert_eq!(outcome.tool_calls[0].reply, "Hello, Ada!");
}
