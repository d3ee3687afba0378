//! Tools: `tools/list`, `tools/call` and the `Tool` definition.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::base::{CacheScope, ResultType};
use crate::content::ContentBlock;
use crate::{JsonObject, Meta};

pub use crate::base::Icon;

/// Hints about a tool's behaviour. Untrusted: clients must not rely on them for safety.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolAnnotations {
    /// A display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The tool does not modify its environment (default false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only_hint: Option<bool>,
    /// The tool may perform destructive updates (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destructive_hint: Option<bool>,
    /// Repeating a call with the same arguments has no further effect (default false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotent_hint: Option<bool>,
    /// The tool talks to an open world of external entities (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_world_hint: Option<bool>,
}

impl ToolAnnotations {
    /// Whether no hint is set (the annotations can be left out).
    pub fn is_empty(&self) -> bool {
        *self == ToolAnnotations::default()
    }
}

/// Execution properties of a tool (2025-11-25 tasks).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolExecution {
    /// `"forbidden"`, `"optional"` or `"required"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_support: Option<String>,
}

/// A tool definition, as listed by `tools/list`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Tool {
    /// The unique name: 1–128 characters of `[A-Za-z0-9_.-]`.
    pub name: String,
    /// A display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the tool does, for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// JSON Schema of the arguments; its root is `type: "object"`.
    pub input_schema: JsonObject,
    /// JSON Schema of `structuredContent`, when the tool returns structured results.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
    /// Behaviour hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<ToolAnnotations>,
    /// Icons (2025-11-25+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Execution properties (2025-11-25).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub execution: Option<ToolExecution>,
    /// Open metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl Tool {
    /// A tool named `name` taking arguments by `input_schema`, with nothing
    /// else set (fill the public fields for the rest).
    pub fn new(name: impl Into<String>, input_schema: JsonObject) -> Tool {
        Tool {
            name: name.into(),
            title: None,
            description: None,
            input_schema,
            output_schema: None,
            annotations: None,
            icons: None,
            execution: None,
            meta: None,
        }
    }
}

/// Whether `name` follows the spec's tool-name rule: 1–128 characters of `[A-Za-z0-9_.-]`.
pub fn is_valid_tool_name(name: &str) -> bool {
    (1..=128).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}

/// Parameters of `tools/list`.
pub type ListToolsParams = crate::base::PaginatedParams;

/// Result of `tools/list`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListToolsResult {
    /// The tools of this page.
    pub tools: Vec<Tool>,
    /// The cursor of the next page; absent on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// 2026-07-28: always `complete`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// 2026-07-28: how long the list may be cached, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// 2026-07-28: who may share the cached list.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<CacheScope>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// Parameters of `tools/call`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallToolParams {
    /// The tool's name.
    pub name: String,
    /// The arguments; absent means no arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<JsonObject>,
    /// 2026-07-28 MRTR: answers to the input requests of a previous `input_required` result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_responses: Option<JsonObject>,
    /// 2026-07-28 MRTR: the opaque state echoed from the previous round.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
    /// 2025-11-25 (experimental tasks): asks for task-augmented execution. A
    /// `TaskMetadata` object, e.g. `{"ttl": 60000}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<JsonObject>,
    /// Request metadata: `progressToken`, and the modern protocol fields.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl CallToolParams {
    /// A call of `name` with `arguments`.
    pub fn new(name: impl Into<String>, arguments: JsonObject) -> Self {
        CallToolParams {
            name: name.into(),
            arguments: Some(arguments),
            input_responses: None,
            request_state: None,
            task: None,
            meta: None,
        }
    }
}

/// Result of `tools/call`.
///
/// A tool that fails (bad input, a business error) returns this with
/// `is_error: Some(true)`; protocol failures (unknown tool) are JSON-RPC errors.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallToolResult {
    /// The unstructured result.
    pub content: Vec<ContentBlock>,
    /// The structured result, conforming to the tool's `outputSchema`: a JSON
    /// object up to 2025-11-25, any JSON value in 2026-07-28 (a present `null`
    /// is `Some(Value::Null)`, and is written back).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::wire::any_value"
    )]
    pub structured_content: Option<Value>,
    /// Whether the call failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// 2026-07-28: `complete` (an `input_required` round is a different result).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl CallToolResult {
    /// A successful result with these blocks.
    pub fn success(content: Vec<ContentBlock>) -> Self {
        CallToolResult {
            content,
            ..CallToolResult::default()
        }
    }

    /// A failed result (`isError: true`) with one text block.
    pub fn error(message: impl Into<String>) -> Self {
        CallToolResult {
            content: vec![ContentBlock::text(message)],
            is_error: Some(true),
            ..CallToolResult::default()
        }
    }

    /// A successful result with one text block.
    pub fn text(text: impl Into<String>) -> Self {
        CallToolResult::success(vec![ContentBlock::text(text)])
    }

    /// Whether the result reports a failure.
    pub fn is_error(&self) -> bool {
        self.is_error == Some(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_names() {
        assert!(is_valid_tool_name("get_weather.v2-beta"));
        assert!(!is_valid_tool_name(""));
        assert!(!is_valid_tool_name("has space"));
        assert!(!is_valid_tool_name("slash/name"));
        assert!(!is_valid_tool_name(&"x".repeat(129)));
        assert!(is_valid_tool_name(&"x".repeat(128)));
    }
}
