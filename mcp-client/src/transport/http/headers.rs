//! 2026-07-28 request-metadata headers: the `=?base64?…?=` value encoding,
//! and `Mcp-Param-{Name}` headers from `x-mcp-header` schema annotations.

use std::collections::HashSet;

use mcp_types::{JsonObject, Tool};
use serde_json::Value;

/// The schema annotation naming a parameter's header.
const X_MCP_HEADER: &str = "x-mcp-header";

/// A header value as the spec's Value Encoding rule wants it: plain when it
/// is visible ASCII (or inner spaces and tabs) without surrounding
/// whitespace and does not look like the sentinel, Base64 otherwise.
pub(crate) fn encode_value(value: &str) -> String {
    let visible = value
        .bytes()
        .all(|b| (0x20..=0x7e).contains(&b) || b == b'\t');
    let padded = value.starts_with([' ', '\t']) || value.ends_with([' ', '\t']);
    let sentinel = value.starts_with("=?base64?") && value.ends_with("?=");
    let plain = !value.is_empty() && visible && !padded && !sentinel;
    if plain {
        value.to_owned()
    } else {
        format!("=?base64?{}?=", base64(value.as_bytes()))
    }
}

/// Standard Base64 with padding.
pub(crate) fn base64(input: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(input.len().div_ceil(3) * 4);
    for chunk in input.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

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
pub(crate) struct Annotated {
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
pub(crate) fn annotations(tool: &Tool) -> Result<Vec<Annotated>, String> {
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
pub(crate) fn check_tool(tool: &Tool) -> Result<(), String> {
    annotations(tool).map(drop)
}

/// The `Mcp-Param-{Name}` headers for `annotated` parameters in `arguments`
/// (absent and `null` values send no header).
pub(crate) fn values(annotated: &[Annotated], arguments: &JsonObject) -> Vec<(String, String)> {
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
        headers.push((format!("Mcp-Param-{}", a.header), encode_value(&text)));
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

    #[test]
    fn encodes_values_per_the_spec_table() {
        assert_eq!(encode_value("us-west1"), "us-west1");
        assert_eq!(
            encode_value("Hello, 世界"),
            "=?base64?SGVsbG8sIOS4lueVjA==?="
        );
        assert_eq!(encode_value(" padded "), "=?base64?IHBhZGRlZCA=?=");
        assert_eq!(encode_value("line1\nline2"), "=?base64?bGluZTEKbGluZTI=?=");
        assert_eq!(
            encode_value("=?base64?literal?="),
            "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="
        );
    }

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
