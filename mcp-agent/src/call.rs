//! Calling one tool of a set: arguments checked against the input schema,
//! then the tool run in-process or on its server.

use std::time::Duration;

use oxmcp_server::Context;
use oxmcp_types::{CallToolResult, JsonObject};
use serde_json::Value;

use crate::catalog::{SetTool, Target};
use crate::toolset::ToolSet;
use crate::view::ToolView;

/// A direct call ([`ToolSet::call`], [`ToolView::call`]) that did not produce
/// a result. A tool's own `isError` result is a result, not this error.
///
/// `Display` says what failed at this level only; [`ToolCallError::Failed`]
/// returns the client's error from `source()`. Print the chain with
/// [`oxmcp_client::types::error::Chain`].
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ToolCallError {
    /// No tool of that name.
    #[error("no tool is named `{name}` (the tools are: {known})")]
    UnknownTool {
        /// The name asked for.
        name: String,
        /// The names there are, comma-separated.
        known: String,
    },
    /// The arguments are not an object valid under the tool's input schema.
    #[error("{0}")]
    InvalidArguments(String),
    /// The tool is one the caller executes ([`crate::pause::CallerTool`]): there
    /// is nothing here to run.
    #[error("`{0}` is executed by the caller, not by this process")]
    CallerTool(String),
    /// The server or the connection failed, or the call timed out.
    #[error("the call to `{tool}` failed")]
    Failed {
        /// The tool.
        tool: String,
        /// Why.
        #[source]
        error: oxmcp_client::Error,
    },
}

impl ToolSet {
    /// Calls a tool of the set by its name in the set, as the agent does:
    /// the arguments are mapped back from the strict form and checked
    /// against the tool's input schema first.
    ///
    /// ```
    /// use oxmcp_agent::ToolSet;
    /// use oxmcp_server::tool;
    /// use serde_json::json;
    ///
    /// pub struct Maths;
    ///
    /// #[tool(description = "Maths")]
    /// impl Maths {
    ///     #[describe("Add two numbers")]
    ///     pub fn add(&self, #[param("First")] a: f64, #[param("Second")] b: f64) -> f64 {
    ///         a + b
    ///     }
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let set = ToolSet::builder().toolbox(Maths).build().await?;
    /// let result = set.call("add", json!({"a": 2, "b": 3})).await?;
    /// assert_eq!(result.content[0].as_text(), Some("5"));
    /// assert!(set.call("add", json!({"a": "two"})).await.is_err());
    /// # Ok(())
    /// # }
    /// ```
    pub async fn call(
        &self,
        name: &str,
        arguments: Value,
    ) -> Result<CallToolResult, ToolCallError> {
        self.view().call(name, arguments).await
    }
}

impl ToolView {
    /// Calls a tool of the view by its name (see [`ToolSet::call`]).
    pub async fn call(
        &self,
        name: &str,
        arguments: Value,
    ) -> Result<CallToolResult, ToolCallError> {
        let Some(tool) = self.get(name) else {
            return Err(ToolCallError::UnknownTool {
                name: name.to_owned(),
                known: self.names().join(", "),
            });
        };
        call_checked(tool, name, arguments).await
    }
}

async fn call_checked(
    tool: &SetTool,
    name: &str,
    arguments: Value,
) -> Result<CallToolResult, ToolCallError> {
    if matches!(tool.target, Target::Caller) {
        return Err(ToolCallError::CallerTool(name.to_owned()));
    }
    let arguments = tool
        .check_arguments(arguments)
        .map_err(ToolCallError::InvalidArguments)?;
    tool.call(arguments, None)
        .await
        .map_err(|error| ToolCallError::Failed {
            tool: name.to_owned(),
            error,
        })
}

impl SetTool {
    /// One attempt at the tool, local or remote, within `timeout`.
    pub(crate) async fn call(
        &self,
        arguments: JsonObject,
        timeout: Option<Duration>,
    ) -> Result<CallToolResult, oxmcp_client::Error> {
        let call = async {
            if let Some(lifecycle) = &self.lifecycle {
                if let Err(e) = lifecycle.ensure_started().await {
                    return Ok(CallToolResult::error(e.to_string()));
                }
            }
            match &self.target {
                Target::Local(entry) => Ok(entry.invoke(arguments, Context::detached()).await),
                // The loop hands these to the caller; a direct call is refused earlier.
                Target::Caller => Ok(CallToolResult::error(format!(
                    "`{}` is executed by the caller",
                    self.name()
                ))),
                Target::Remote {
                    client,
                    name,
                    called,
                } => {
                    called.store(true, std::sync::atomic::Ordering::Release);
                    client.call_tool_raw(name, arguments).await
                }
            }
        };
        match timeout {
            None => call.await,
            Some(limit) => tokio::time::timeout(limit, call)
                .await
                .unwrap_or(Err(oxmcp_client::Error::Timeout(limit))),
        }
    }

    /// A model's arguments (JSON text) as an object valid under the input
    /// schema, or the problem, worded for the model.
    pub(crate) fn parse_arguments(&self, raw: &str) -> Result<JsonObject, String> {
        let raw = raw.trim();
        let value: Value = if raw.is_empty() {
            Value::Object(JsonObject::new())
        } else {
            serde_json::from_str(raw).map_err(|e| {
                format!(
                    "the arguments for `{}` are not valid JSON ({e}); send one JSON object",
                    self.name()
                )
            })?
        };
        self.check_arguments(value)
    }

    /// Arguments as an object valid under the input schema (after mapping
    /// back from the strict form), or the problem.
    pub(crate) fn check_arguments(&self, value: Value) -> Result<JsonObject, String> {
        if !value.is_object() {
            return Err(format!(
                "the arguments for `{}` must be a JSON object, not {}",
                self.name(),
                oxmcp_wire::json::kind(&value)
            ));
        }
        let value = crate::strict::from_strict(&self.schema, value);
        if let Some(problems) = self.validator.as_ref().and_then(|v| v.problems(&value)) {
            return Err(format!(
                "invalid arguments for `{}`: {problems}",
                self.name()
            ));
        }
        match value {
            Value::Object(map) => Ok(map),
            _ => Err(format!(
                "the arguments for `{}` must be a JSON object",
                self.name()
            )),
        }
    }
}
