//! The structured-content wrapping rule, shared by servers and clients.
//!
//! Legacy revisions require a tool's `outputSchema` (and so its
//! `structuredContent`) to be an object. A tool whose output is not an
//! object (a number, a list) is served with its schema wrapped as
//! `{"type": "object", "properties": {"result": <schema>}, "required": ["result"]}`
//! and its value as `{"result": <value>}`; a client that knows the rule
//! unwraps it again. The Python SDK follows the same convention.

use serde_json::Value;

use crate::JsonObject;

/// The property holding a wrapped value.
pub const RESULT: &str = "result";

/// Whether a tool with this output schema has its values wrapped: its root
/// is not an object schema.
pub fn is_wrapped(output_schema: &Value) -> bool {
    output_schema.get("type").and_then(Value::as_str) != Some("object")
}

/// The output schema to publish for `schema`, and whether values must be
/// wrapped with [`wrap_value`] to match it. `$defs` stay at the root, where
/// the inner schema's `$ref`s point.
pub fn wrap_schema(schema: Value) -> (Value, bool) {
    if !is_wrapped(&schema) {
        return (schema, false);
    }
    let mut inner = match schema {
        Value::Object(map) => map,
        // `true` accepts anything; `false` nothing.
        Value::Bool(b) => {
            let mut m = JsonObject::new();
            if !b {
                m.insert("not".into(), Value::Object(JsonObject::new()));
            }
            m
        }
        _ => JsonObject::new(),
    };
    let defs = inner.remove("$defs");
    let mut properties = JsonObject::new();
    properties.insert(RESULT.into(), Value::Object(inner));
    let mut root = JsonObject::new();
    root.insert("type".into(), "object".into());
    root.insert("properties".into(), Value::Object(properties));
    root.insert("required".into(), Value::Array(vec![RESULT.into()]));
    if let Some(defs) = defs {
        root.insert("$defs".into(), defs);
    }
    (Value::Object(root), true)
}

/// `{"result": value}`.
pub fn wrap_value(value: Value) -> Value {
    let mut obj = JsonObject::new();
    obj.insert(RESULT.to_owned(), value);
    Value::Object(obj)
}

/// The inner value of `{"result": value}` (that key and no other), if
/// `value` has that shape.
pub fn unwrapped(value: &Value) -> Option<&Value> {
    match value {
        Value::Object(map) if map.len() == 1 => map.get(RESULT),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn wraps_non_object_roots_and_keeps_defs_at_the_root() {
        let (schema, wrapped) = wrap_schema(json!({"type": "object", "properties": {}}));
        assert!(!wrapped);
        assert_eq!(schema["type"], "object");

        let (schema, wrapped) = wrap_schema(json!({
            "type": "array", "items": {"$ref": "#/$defs/P"}, "$defs": {"P": {"type": "object"}}
        }));
        assert!(wrapped);
        assert_eq!(schema["required"], json!(["result"]));
        assert_eq!(schema["properties"]["result"]["type"], "array");
        assert_eq!(schema["$defs"]["P"]["type"], "object");
        assert!(schema["properties"]["result"].get("$defs").is_none());

        let (schema, _) = wrap_schema(json!(false));
        assert_eq!(schema["properties"]["result"], json!({"not": {}}));
    }

    #[test]
    fn unwrapping_inverts_wrapping() {
        let v = json!([1, 2]);
        assert_eq!(unwrapped(&wrap_value(v.clone())), Some(&v));
        assert_eq!(unwrapped(&json!({"result": 1, "other": 2})), None);
        assert_eq!(unwrapped(&json!(3)), None);
    }
}
