//! One-line readers of a call's outcome: its text, its
//! `structuredContent`, its error. Each is an assertion: it panics, naming
//! the tool and what came instead, when the call did not end as expected.

use oxmcp_client::types::{CallToolResult, ContentBlock, ResourceContents};
use oxmcp_client::{Error as CallError, IntoArguments};
use serde_json::Value;

use crate::TestClient;

impl TestClient {
    /// Calls `tool` and returns its text: the text blocks of the result,
    /// joined by newlines.
    ///
    /// # Panics
    ///
    /// If the call fails (a tool error, a protocol error) or its result has
    /// no text block.
    pub async fn call_text(&self, tool: &str, arguments: impl IntoArguments) -> String {
        let result = self.expect_success(tool, arguments).await;
        text_of(&result)
            .unwrap_or_else(|| panic!("`{tool}` returned no text block: {}", to_json(&result)))
    }

    /// Calls `tool` and returns its `structuredContent` (checked against
    /// the tool's `outputSchema` by the client).
    ///
    /// # Panics
    ///
    /// If the call fails or its result has no `structuredContent`.
    pub async fn call_structured(&self, tool: &str, arguments: impl IntoArguments) -> Value {
        let result = self.expect_success(tool, arguments).await;
        match result.structured_content {
            Some(value) => value,
            None => panic!(
                "`{tool}` returned no structuredContent: {}",
                to_json(&result)
            ),
        }
    }

    /// Calls `tool`, expecting it to fail, and returns what the caller
    /// reads: the text of a tool error (`isError: true`, what a model
    /// sees), or the message of a protocol error (an unknown tool, invalid
    /// arguments, a missing scope).
    ///
    /// # Panics
    ///
    /// If the call succeeds.
    pub async fn call_error(&self, tool: &str, arguments: impl IntoArguments) -> String {
        match self.call_tool(tool, arguments).await {
            Ok(result) => panic!(
                "`{tool}` succeeded where an error was expected: {}",
                to_json(&result)
            ),
            Err(CallError::Tool(result)) => text_of(&result).unwrap_or_default(),
            Err(CallError::Protocol(e)) => e.message,
            // The whole chain: a refusal by HTTP (a missing scope) is the
            // transport's error, its reason a level down.
            Err(e) => oxmcp_client::types::error::Chain(&e).to_string(),
        }
    }

    /// Reads the resource at `uri` and returns its text contents, joined
    /// by newlines.
    ///
    /// # Panics
    ///
    /// If the read fails or the resource has no text contents.
    pub async fn read_text(&self, uri: &str) -> String {
        let read = match self.read_resource(uri).await {
            Ok(read) => read,
            Err(e) => panic!(
                "reading `{uri}` failed: {}",
                oxmcp_client::types::error::Chain(&e)
            ),
        };
        let texts = read.contents.iter().filter_map(|c| match c {
            ResourceContents::Text(t) => Some(t.text.as_str()),
            _ => None,
        });
        joined(texts).unwrap_or_else(|| panic!("`{uri}` has no text contents"))
    }

    /// The names of the tools listed, in the server's order.
    ///
    /// # Panics
    ///
    /// If the listing fails.
    pub async fn tool_names(&self) -> Vec<String> {
        match self.list_tools().await {
            Ok(tools) => tools.into_iter().map(|t| t.name).collect(),
            Err(e) => panic!(
                "listing the tools failed: {}",
                oxmcp_client::types::error::Chain(&e)
            ),
        }
    }

    /// The call's result, or a panic that says how it failed.
    async fn expect_success(&self, tool: &str, arguments: impl IntoArguments) -> CallToolResult {
        match self.call_tool(tool, arguments).await {
            Ok(result) => result,
            Err(CallError::Tool(result)) => panic!(
                "`{tool}` failed: {}",
                text_of(&result).unwrap_or_else(|| to_json(&result))
            ),
            Err(e) => panic!(
                "calling `{tool}` failed: {}",
                oxmcp_client::types::error::Chain(&e)
            ),
        }
    }
}

/// The text blocks of `result`, joined by newlines; `None` without one.
fn text_of(result: &CallToolResult) -> Option<String> {
    joined(result.content.iter().filter_map(|block| match block {
        ContentBlock::Text(t) => Some(t.text.as_str()),
        _ => None,
    }))
}

/// `texts` joined by newlines; `None` when there is none.
fn joined<'a>(texts: impl Iterator<Item = &'a str>) -> Option<String> {
    let texts: Vec<&str> = texts.collect();
    (!texts.is_empty()).then(|| texts.join("\n"))
}

/// `result` as the JSON a panic message shows.
fn to_json(result: &CallToolResult) -> String {
    serde_json::to_string(result).unwrap_or_else(|e| format!("(unprintable: {e})"))
}
