//! Reading an OpenAPI document: its version, local `$ref`s resolved with
//! their positions, and schemas made JSON Schema 2020-12 (what MCP tool
//! schemas are), bounded in depth and size.

use serde_json::{Map, Value};

use super::OpenApiError;

/// How deep a recursive schema is expanded before it is cut.
const MAX_RECURSION: usize = 3;
/// The most schema nodes one tool's schemas may hold once resolved: a
/// document of thousands of operations loads in bounded time and memory.
const MAX_NODES: usize = 20_000;

/// The OpenAPI major.minor a document declares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Version {
    V30,
    V31,
}

/// A parsed document.
#[derive(Debug)]
pub(crate) struct Doc {
    pub(crate) root: Value,
    pub(crate) version: Version,
}

impl Doc {
    /// Reads `text` (JSON, or YAML when it is not JSON) as an OpenAPI 3.0
    /// or 3.1 document.
    pub(crate) fn parse(text: &str) -> Result<Doc, OpenApiError> {
        let trimmed = text.trim_start();
        let root: Value = if trimmed.starts_with('{') {
            serde_json::from_str(text).map_err(|e| {
                OpenApiError::at(
                    "",
                    format!(
                        "not valid JSON (line {}, column {}): {}",
                        e.line(),
                        e.column(),
                        e
                    ),
                )
            })?
        } else {
            serde_yaml_ng::from_str(text)
                .map_err(|e| OpenApiError::at("", format!("not valid YAML: {e}")))?
        };
        if root.get("swagger").is_some() {
            return Err(OpenApiError::at(
                "/swagger",
                "this is a Swagger (OpenAPI 2.0) document; convert it to OpenAPI 3 first \
                 (e.g. `npx swagger2openapi in.json -o out.json`, or the Swagger Editor's \
                 converter)",
            ));
        }
        let version = match root.get("openapi").and_then(Value::as_str) {
            Some(v) if v.starts_with("3.0") => Version::V30,
            Some(v) if v.starts_with("3.1") => Version::V31,
            Some(v) => {
                return Err(OpenApiError::at(
                    "/openapi",
                    format!("OpenAPI {v} is not supported: 3.0 and 3.1 are"),
                ))
            }
            None => {
                return Err(OpenApiError::at(
                    "",
                    "not an OpenAPI document: it has no `openapi` version field",
                ))
            }
        };
        if !root.get("paths").is_some_and(Value::is_object) {
            return Err(OpenApiError::at(
                "/paths",
                "the document has no `paths` object",
            ));
        }
        Ok(Doc { root, version })
    }

    /// The value at the JSON pointer `pointer`.
    pub(crate) fn at(&self, pointer: &str) -> Option<&Value> {
        self.root.pointer(pointer)
    }

    /// `value`, or what its `$ref` chain leads to, with the pointer of
    /// where it was found. A `$ref` that points nowhere, outside the
    /// document, or into a cycle of references is an error naming `at`.
    pub(crate) fn deref<'a>(
        &'a self,
        value: &'a Value,
        at: &str,
    ) -> Result<(&'a Value, String), OpenApiError> {
        let mut current = value;
        let mut pointer = at.to_owned();
        let mut seen: Vec<String> = Vec::new();
        while let Some(reference) = current.get("$ref").and_then(Value::as_str) {
            let target = local_pointer(reference)
                .ok_or_else(|| OpenApiError::at(&pointer, format!("the $ref {reference:?} is not in this document (only `#/...` references are read)")))?;
            if seen.contains(&target) {
                seen.push(target);
                return Err(OpenApiError::at(
                    at,
                    format!("a cycle of references: {}", seen.join(" -> ")),
                ));
            }
            current = self.root.pointer(&target).ok_or_else(|| {
                OpenApiError::at(&pointer, format!("the $ref {reference:?} points nowhere"))
            })?;
            seen.push(target.clone());
            pointer = target;
        }
        Ok((current, pointer))
    }

    /// The schema at `at`, every `$ref` in it resolved (a recursive one
    /// expanded [`MAX_RECURSION`] times, then cut with a note), made JSON
    /// Schema 2020-12.
    pub(crate) fn schema(&self, schema: &Value, at: &str) -> Result<Value, OpenApiError> {
        let mut budget = MAX_NODES;
        let mut stack = Vec::new();
        self.expand(schema, at, &mut stack, &mut budget)
    }

    fn expand(
        &self,
        value: &Value,
        at: &str,
        stack: &mut Vec<String>,
        budget: &mut usize,
    ) -> Result<Value, OpenApiError> {
        if *budget == 0 {
            return Ok(cut("the schema is too large to expand here"));
        }
        *budget -= 1;
        if value.get("$ref").is_some() {
            let (target, pointer) = self.deref(value, at)?;
            let depth = stack.iter().filter(|p| **p == pointer).count();
            if depth >= MAX_RECURSION {
                return Ok(cut(&format!(
                    "a recursive schema ({pointer}), not expanded further"
                )));
            }
            stack.push(pointer.clone());
            let mut expanded = self.expand(target, &pointer, stack, budget)?;
            stack.pop();
            // 3.1 allows keywords beside `$ref` (a description, say): they win.
            if let (Value::Object(out), Value::Object(beside)) = (&mut expanded, value) {
                for (k, v) in beside.iter().filter(|(k, _)| *k != "$ref") {
                    out.insert(
                        k.clone(),
                        self.expand(v, &format!("{at}/{}", escape(k)), stack, budget)?,
                    );
                }
            }
            return Ok(expanded);
        }
        Ok(match value {
            Value::Object(map) => {
                let mut out = Map::new();
                for (k, v) in map {
                    let here = format!("{at}/{}", escape(k));
                    // Values that are data, not schemas: kept as they are.
                    let keep = matches!(
                        k.as_str(),
                        "example" | "examples" | "default" | "enum" | "const"
                    );
                    out.insert(
                        k.clone(),
                        if keep {
                            v.clone()
                        } else {
                            self.expand(v, &here, stack, budget)?
                        },
                    );
                }
                if self.version == Version::V30 {
                    from_30(&mut out);
                }
                Value::Object(out)
            }
            Value::Array(items) => Value::Array(
                items
                    .iter()
                    .enumerate()
                    .map(|(i, v)| self.expand(v, &format!("{at}/{i}"), stack, budget))
                    .collect::<Result<_, _>>()?,
            ),
            other => other.clone(),
        })
    }
}

/// The JSON pointer of a local `$ref` (`#/components/schemas/Pet`).
fn local_pointer(reference: &str) -> Option<String> {
    let fragment = reference.strip_prefix('#')?;
    // Percent-encoded characters in the fragment (RFC 6901, section 6).
    Some(
        percent_encoding::percent_decode_str(fragment)
            .decode_utf8_lossy()
            .into_owned(),
    )
}

/// The text at `key` of `object`, empty when there is none.
pub(crate) fn text<'a>(object: &'a Value, key: &str) -> &'a str {
    object.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// `key` as one JSON pointer token.
pub(crate) fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// A schema standing for what is not expanded, saying why.
fn cut(why: &str) -> Value {
    let mut m = Map::new();
    m.insert("description".into(), Value::String(format!("({why})")));
    Value::Object(m)
}

/// An OpenAPI 3.0 schema object's own keywords as JSON Schema 2020-12 says
/// them: `nullable` as a `null` type, boolean `exclusiveMinimum` and
/// `exclusiveMaximum` as numbers.
fn from_30(schema: &mut Map<String, Value>) {
    if schema.remove("nullable") == Some(Value::Bool(true)) {
        if let Some(Value::String(t)) = schema.get_mut("type") {
            let t = std::mem::take(t);
            schema.insert("type".into(), Value::Array(vec![t.into(), "null".into()]));
        }
    }
    for (flag, bound) in [
        ("exclusiveMinimum", "minimum"),
        ("exclusiveMaximum", "maximum"),
    ] {
        if let Some(Value::Bool(exclusive)) = schema.get(flag).cloned() {
            schema.remove(flag);
            if exclusive {
                if let Some(limit) = schema.remove(bound) {
                    schema.insert(flag.into(), limit);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn doc(v: &Value) -> Doc {
        Doc::parse(&v.to_string()).unwrap()
    }

    #[test]
    fn versions_and_what_is_not_openapi_3() {
        let e = Doc::parse(r#"{"swagger": "2.0", "paths": {}}"#)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("Swagger (OpenAPI 2.0)") && e.contains("swagger2openapi"),
            "{e}"
        );
        let e = Doc::parse(r#"{"openapi": "4.0.0", "paths": {}}"#)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("at /openapi: OpenAPI 4.0.0 is not supported"),
            "{e}"
        );
        let e = Doc::parse("{\"openapi\": 3").unwrap_err().to_string();
        assert!(e.contains("not valid JSON (line 1"), "{e}");
        let e = Doc::parse("a: [").unwrap_err().to_string();
        assert!(e.contains("not valid YAML"), "{e}");
        let yaml = "openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths: {}\n";
        assert_eq!(Doc::parse(yaml).unwrap().version, Version::V31);
    }

    #[test]
    fn refs_resolve_recursion_is_bounded_cycles_and_dangling_refs_are_refused() {
        let d = doc(&json!({
            "openapi": "3.0.3", "paths": {},
            "components": {"schemas": {
                "Pet": {"type": "object", "properties": {"tag": {"$ref": "#/components/schemas/Tag"}}},
                "Tag": {"type": "string", "nullable": true},
                "Node": {"type": "object", "properties": {"child": {"$ref": "#/components/schemas/Node"}}},
                "A": {"$ref": "#/components/schemas/B"},
                "B": {"$ref": "#/components/schemas/A"},
                "Range": {"type": "integer", "minimum": 1, "exclusiveMinimum": true}
            }}
        }));
        let pet = d
            .schema(&json!({"$ref": "#/components/schemas/Pet"}), "/x")
            .unwrap();
        assert_eq!(pet["properties"]["tag"]["type"], json!(["string", "null"]));
        let node = d
            .schema(&json!({"$ref": "#/components/schemas/Node"}), "/x")
            .unwrap();
        let deepest = &node["properties"]["child"]["properties"]["child"]["properties"]["child"];
        assert!(
            deepest["description"]
                .as_str()
                .unwrap()
                .contains("recursive"),
            "{node}"
        );
        let e = d
            .schema(&json!({"$ref": "#/components/schemas/A"}), "/paths/~1a")
            .unwrap_err()
            .to_string();
        assert!(e.contains("at /paths/~1a: a cycle of references"), "{e}");
        let e = d
            .schema(&json!({"$ref": "#/components/schemas/Nope"}), "/paths/~1a")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("the $ref \"#/components/schemas/Nope\" points nowhere"),
            "{e}"
        );
        let e = d
            .schema(&json!({"$ref": "other.json#/x"}), "/y")
            .unwrap_err()
            .to_string();
        assert!(e.contains("is not in this document"), "{e}");
        let range = d
            .schema(&json!({"$ref": "#/components/schemas/Range"}), "/x")
            .unwrap();
        assert_eq!(range, json!({"type": "integer", "exclusiveMinimum": 1}));
    }
}
