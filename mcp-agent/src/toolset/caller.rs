//! Tools the caller executes: a definition (name, description, input
//! schema) and no handler. The model calls one; the run pauses and hands the
//! call to whoever awaits it, who runs it wherever it likes and resumes the
//! run with the result.

use oxmcp_types::Tool;
use serde_json::Value;

/// A tool the caller of the agent executes: offered to the model like any
/// other, but with no handler in this process. A run whose model calls it
/// pauses ([`PausedRun::pending`](crate::pause::PausedRun::pending)); the caller runs
/// the call and resumes the run with its result
/// ([`Agent::resume`](crate::Agent::resume), [`Run::result`](crate::Run::result)).
///
/// ```
/// use oxmcp_agent::pause::CallerTool;
/// use serde_json::json;
///
/// let location = CallerTool::new(
///     "get_location",
///     "The user's current city, from their browser",
///     json!({"type": "object", "properties": {}}),
/// )
/// .expect("an object schema");
/// assert_eq!(location.name(), "get_location");
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct CallerTool(pub(crate) Tool);

/// A [`CallerTool`] whose input schema is not a JSON Schema object.
#[derive(Debug, Clone, thiserror::Error)]
#[error("the input schema of caller tool `{name}` must be a JSON object schema (`\"type\": \"object\"`)")]
pub struct CallerToolError {
    /// The tool.
    pub name: String,
}

impl CallerTool {
    /// A tool named `name` (1–128 characters of `[A-Za-z0-9_.-]`), described
    /// for the model, whose arguments follow `input_schema` (an object
    /// schema, as MCP requires). The arguments are validated against it
    /// before the run hands the call over.
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        input_schema: Value,
    ) -> Result<CallerTool, CallerToolError> {
        let name = name.into();
        let schema = match input_schema {
            Value::Object(map) if map.get("type").and_then(Value::as_str) == Some("object") => map,
            _ => return Err(CallerToolError { name }),
        };
        let mut tool = Tool::new(name, schema);
        tool.description = Some(description.into());
        Ok(CallerTool(tool))
    }

    /// A tool whose arguments are a value of `T`: the input schema is
    /// `T`'s (schemars), as `#[tool]` makes them.
    pub fn of<T: schemars::JsonSchema>(
        name: impl Into<String>,
        description: impl Into<String>,
    ) -> Result<CallerTool, CallerToolError> {
        let schema = serde_json::to_value(schemars::schema_for!(T)).unwrap_or(Value::Null);
        CallerTool::new(name, description, schema)
    }

    /// The tool's name (before a source prefix).
    pub fn name(&self) -> &str {
        &self.0.name
    }

    /// The definition, as MCP would list it.
    pub fn definition(&self) -> &Tool {
        &self.0
    }
}
