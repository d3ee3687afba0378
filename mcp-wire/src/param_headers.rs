//! 2026-07-28 `Mcp-Param-{Name}` headers from `x-mcp-header` schema
//! annotations: which parameters a tool mirrors into headers, whether its
//! annotations are valid, and the header values for a call (encoded by
//! [`encode_value`]).

use std::collections::HashSet;

use crate::header::{encode_value, MCP_PARAM_PREFIX};
use oxmcp_types::{JsonObject, Tool};
use serde_json::Value;

/// The schema annotation naming a parameter's header.
const X_MCP_HEADER: &str = "x-mcp-header";

/// Whether `name` is an HTTP field-name token (`1*tchar`, RFC 9110).
fn is_token(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// Keywords whose values are subschemas (or arrays / maps of them) through
/// which an `x-mcp-header` annotation is not statically reachable.
const SUBSCHEMA_KEYWORDS: &[&str] = &[
    "items",
    "prefixItems",
    "additionalItems",
    "contains",
    "anyOf",
    "allOf",
    "oneOf",
    "not",
    "if",
    "then",
    "else",
    "$defs",
    "definitions",
    "additionalProperties",
    "patternProperties",
    "dependentSchemas",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
];

/// One annotated parameter: its header name and its property path.
#[derive(Debug)]
pub struct Annotated {
    header: String,
    path: Vec<String>,
}

/// Collects annotations, or says why the schema's annotations are invalid.
fn walk(
    schema: &Value,
    path: &mut Vec<String>,
    reachable: bool,
    out: &mut Vec<Annotated>,
) -> Result<(), String> {
    let Some(obj) = schema.as_object() else {
        return Ok(());
    };
    if let Some(header) = obj.get(X_MCP_HEADER) {
        if !reachable || path.is_empty() {
            return Err(format!(
                "`{X_MCP_HEADER}` is only allowed on properties reachable through `properties` alone"
            ));
        }
        let Some(header) = header.as_str().filter(|h| is_token(h)) else {
            return Err(format!(
                "`{X_MCP_HEADER}` of `{}` must be a non-empty HTTP token",
                path.join(".")
            ));
        };
        let primitive = matches!(
            obj.get("type").and_then(Value::as_str),
            Some("string" | "integer" | "boolean")
        );
        if !primitive {
            return Err(format!(
                "`{X_MCP_HEADER}` on `{}` needs a string, integer or boolean parameter",
                path.join(".")
            ));
        }
        out.push(Annotated {
            header: header.to_owned(),
            path: path.clone(),
        });
    }
    if let Some(Value::Object(props)) = obj.get("properties") {
        for (name, sub) in props {
            path.push(name.clone());
            let r = walk(sub, path, reachable, out);
            path.pop();
            r?;
        }
    }
    for keyword in SUBSCHEMA_KEYWORDS {
        let Some(v) = obj.get(*keyword) else { continue };
        let mut scratch = Vec::new();
        match v {
            Value::Array(items) => {
                for item in items {
                    walk(item, &mut scratch, false, out)?;
                }
            }
            Value::Object(map)
                if matches!(
                    *keyword,
                    "$defs" | "definitions" | "patternProperties" | "dependentSchemas"
                ) =>
            {
                for sub in map.values() {
                    walk(sub, &mut scratch, false, out)?;
                }
            }
            other => walk(other, &mut scratch, false, out)?,
        }
    }
    Ok(())
}

/// A tool's `x-mcp-header` annotations, or why they are invalid.
pub fn annotations(tool: &Tool) -> Result<Vec<Annotated>, String> {
    // Most schemas have no annotation at all: skip the walk.
    if !serde_json::to_string(&tool.input_schema)
        .unwrap_or_default()
        .contains(X_MCP_HEADER)
    {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    let schema = Value::Object(tool.input_schema.clone());
    walk(&schema, &mut Vec::new(), true, &mut out)?;
    let mut seen = HashSet::new();
    for a in &out {
        if !seen.insert(a.header.to_ascii_lowercase()) {
            return Err(format!(
                "`{X_MCP_HEADER}` value `{}` is used twice",
                a.header
            ));
        }
    }
    Ok(out)
}

/// Checks a tool's `x-mcp-header` annotations (a tool whose annotations are
/// invalid must not be offered over Streamable HTTP).
pub fn check_tool(tool: &Tool) -> Result<(), String> {
    annotations(tool).map(drop)
}

/// The `Mcp-Param-{Name}` headers for `annotated` parameters in `arguments`
/// (absent and `null` values send no header).
pub fn values(annotated: &[Annotated], arguments: &JsonObject) -> Vec<(String, String)> {
    let mut headers = Vec::new();
    for a in annotated {
        let mut value = arguments.get(&a.path[0]);
        for key in &a.path[1..] {
            value = value.and_then(|v| v.get(key));
        }
        let text = match value {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Bool(b)) => b.to_string(),
            Some(Value::Number(n)) => match (n.as_i64(), n.as_f64()) {
                (Some(i), _) => i.to_string(),
                #[allow(clippy::cast_possible_truncation)] // integral and in the safe range
                (None, Some(f)) if f.fract() == 0.0 && f.abs() < 9_007_199_254_740_992.0 => {
                    (f as i64).to_string()
                }
                _ => n.to_string(),
            },
            _ => continue,
        };
        headers.push((
            format!("{MCP_PARAM_PREFIX}{}", a.header),
            encode_value(&text),
        ));
    }
    headers
}

/// The `Mcp-Param-{Name}` headers for a call of `tool` with `arguments`.
#[cfg(test)]
fn param_headers(tool: &Tool, arguments: Option<&JsonObject>) -> Vec<(String, String)> {
    match (annotations(tool), arguments) {
        (Ok(a), Some(args)) => values(&a, args),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[allow(clippy::needless_pass_by_value)]
    fn tool(schema: Value) -> Tool {
        serde_json::from_value(json!({"name": "t", "inputSchema": schema})).unwrap()
    }

    #[test]
    fn mirrors_annotated_parameters() {
        let t = tool(json!({
            "type": "object",
            "properties": {
                "region": {"type": "string", "x-mcp-header": "Region"},
                "opts": {"type": "object", "properties": {
                    "dry": {"type": "boolean", "x-mcp-header": "Dry"}
                }},
                "query": {"type": "string"}
            }
        }));
        assert!(check_tool(&t).is_ok());
        let args = json!({"region": "us-west1", "opts": {"dry": true}, "query": "x"});
        let mut headers = param_headers(&t, args.as_object());
        headers.sort();
        assert_eq!(
            headers,
            vec![
                ("Mcp-Param-Dry".to_owned(), "true".to_owned()),
                ("Mcp-Param-Region".to_owned(), "us-west1".to_owned()),
            ]
        );
        assert!(param_headers(&t, json!({}).as_object()).is_empty());
    }

    #[test]
    fn rejects_invalid_annotations() {
        for schema in [
            json!({"type": "object", "properties": {"n": {"type": "number", "x-mcp-header": "N"}}}),
            json!({"type": "object", "properties": {"a": {"type": "string", "x-mcp-header": "bad name"}}}),
            json!({"type": "object", "properties": {
                "a": {"type": "string", "x-mcp-header": "X"},
                "b": {"type": "string", "x-mcp-header": "x"}}}),
            json!({"type": "object", "properties": {"a": {"type": "array",
                "items": {"type": "string", "x-mcp-header": "A"}}}}),
            json!({"type": "object", "anyOf": [{"properties": {"a": {"type": "string", "x-mcp-header": "A"}}}]}),
        ] {
            assert!(check_tool(&tool(schema.clone())).is_err(), "{schema}");
        }
    }
}
