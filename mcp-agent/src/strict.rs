//! OpenAI's strict mode for function parameters (structured outputs).

// TODO(helper): implement.

use serde_json::Value;

/// The strict form of a tool's input schema, or why it cannot be made strict.
pub fn to_strict(schema: &Value) -> Result<Value, String> {
    let _ = schema;
    todo!()
}

/// Maps arguments written against the strict form back to arguments valid
/// under the original schema (a `null` given for an optional property that
/// does not accept `null` means the property is absent).
pub fn from_strict(original: &Value, arguments: Value) -> Value {
    let _ = original;
    arguments
}
