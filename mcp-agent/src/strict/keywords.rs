//! What one schema object says: its type, enum, required keys, references,
//! and the small rewrites the conversion makes.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use super::convert::Extra;
use super::{ANNOTATIONS, CORE, TYPES};

/// A schema as an object (`true` is `{}`), or why it is not one.
pub(super) fn schema_object(schema: &Value, path: &str) -> Result<Map<String, Value>, String> {
    match schema {
        Value::Object(map) => Ok(map.clone()),
        Value::Bool(true) => Ok(Map::new()),
        Value::Bool(false) => Err(format!("{path}: the schema `false` accepts no value")),
        _ => Err(format!("{path}: not a schema (an object or a boolean)")),
    }
}

pub(super) fn strip_core(map: &mut Map<String, Value>) {
    for k in CORE {
        map.remove(k);
    }
}

/// The schema at a local reference (`#`, `#/$defs/X`, any `#/...` pointer).
pub(super) fn resolve<'v>(root: &'v Value, reference: &str) -> Result<&'v Value, String> {
    let Some(fragment) = reference.strip_prefix('#') else {
        return Err(format!(
            "the reference `{reference}` is not local (only `#/...` references can be inlined)"
        ));
    };
    // URI fragments may carry `%XX` escapes.
    let pointer = oxmcp_uri_template::percent_decode(fragment)
        .ok_or_else(|| format!("the reference `{reference}` is not valid percent-encoding"))?;
    if !pointer.is_empty() && !pointer.starts_with('/') {
        return Err(format!(
            "the reference `{reference}` names an anchor, which cannot be inlined"
        ));
    }
    root.pointer(&pointer)
        .ok_or_else(|| format!("the reference `{reference}` points at nothing"))
}

/// A property name as one JSON-pointer segment.
pub(super) fn escape_pointer(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

/// The schema `base` with the keywords of `overlay` (the referring schema)
/// added: both must hold, so they must agree, except annotations, where the
/// overlay wins, and `required`, which adds up.
pub(super) fn merge(
    mut base: Map<String, Value>,
    overlay: Map<String, Value>,
    path: &str,
) -> Result<Map<String, Value>, String> {
    for (k, v) in overlay {
        match base.get_mut(&k) {
            None => {
                base.insert(k, v);
            }
            Some(existing) if *existing == v => {}
            Some(existing) if ANNOTATIONS.contains(&k.as_str()) => *existing = v,
            Some(Value::Array(existing)) if k == "required" => {
                for name in v.as_array().into_iter().flatten() {
                    if !existing.contains(name) {
                        existing.push(name.clone());
                    }
                }
            }
            Some(_) => {
                return Err(format!(
                    "{path}: `{k}` differs between a schema and its `$ref` or `allOf`, which strict mode cannot combine"
                ))
            }
        }
    }
    Ok(base)
}

/// An alternative of a union with the union's other keywords applied.
pub(super) fn with_shared(variant: &Value, shared: &Map<String, Value>) -> Value {
    if shared.is_empty() {
        return variant.clone();
    }
    let mut combined = shared.clone();
    combined.insert("allOf".into(), Value::Array(vec![variant.clone()]));
    Value::Object(combined)
}

/// `enum` or `const` (as a one-value enum) of a schema.
pub(super) fn enum_values(
    map: &Map<String, Value>,
    path: &str,
) -> Result<Option<Vec<Value>>, String> {
    let values = match (map.get("enum"), map.get("const")) {
        (None, None) => return Ok(None),
        (None, Some(c)) => vec![c.clone()],
        (Some(e), c) => {
            let e = e
                .as_array()
                .ok_or_else(|| format!("{path}: `enum` is not an array"))?;
            match c {
                Some(c) if e.iter().any(|v| same_value(v, c)) => vec![c.clone()],
                Some(_) => {
                    return Err(format!(
                        "{path}: `const` is not one of `enum`: no value matches"
                    ))
                }
                None => e.clone(),
            }
        }
    };
    if values.is_empty() {
        return Err(format!("{path}: an empty `enum` accepts no value"));
    }
    if values.iter().any(|v| v.is_object() || v.is_array()) {
        return Err(format!(
            "{path}: `enum` or `const` with object or array values cannot be expressed in strict mode"
        ));
    }
    Ok(Some(values))
}

/// The schema's types: its `type`, else those of its enum values, else
/// object or array when object or array keywords say so.
pub(super) fn types_of(
    map: &Map<String, Value>,
    values: Option<&[Value]>,
    path: &str,
) -> Result<Vec<String>, String> {
    let mut types: Vec<String> = Vec::new();
    match map.get("type") {
        Some(Value::String(t)) => types.push(t.clone()),
        Some(Value::Array(ts)) => {
            for t in ts {
                let t = t
                    .as_str()
                    .ok_or_else(|| format!("{path}: `type` holds a non-string"))?;
                if !types.iter().any(|x| x == t) {
                    types.push(t.to_owned());
                }
            }
        }
        Some(_) => return Err(format!("{path}: `type` is neither a string nor an array")),
        None => {
            if let Some(values) = values {
                for v in values {
                    let kind = kind_of(v);
                    if !types.iter().any(|x| x == kind) {
                        types.push(kind.to_owned());
                    }
                }
                if types.iter().any(|t| t == "number") {
                    types.retain(|t| t != "integer");
                }
            } else if ["properties", "additionalProperties", "required"]
                .iter()
                .any(|k| map.contains_key(*k))
            {
                types.push("object".to_owned());
            } else if map.contains_key("items") {
                types.push("array".to_owned());
            }
        }
    }
    if types.is_empty() {
        return Err(format!(
            "{path}: no `type` (the schema accepts values of any type), which strict mode requires"
        ));
    }
    if let Some(unknown) = types.iter().find(|t| !TYPES.contains(&t.as_str())) {
        return Err(format!(
            "{path}: the type `{unknown}` is not supported in strict mode"
        ));
    }
    Ok(types)
}

/// The JSON type of a value, integers told apart (`integer`, `number` for
/// the others).
pub(super) fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) => {
            if n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0) {
                "integer"
            } else {
                "number"
            }
        }
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// JSON equality, numbers by value (`1` is `1.0`).
pub(super) fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x == y || x.as_f64() == y.as_f64(),
        _ => a == b,
    }
}

/// The number constraints, draft-04 boolean `exclusiveMinimum` and
/// `exclusiveMaximum` rewritten to their numeric form.
pub(super) fn number_constraints(map: &Map<String, Value>) -> Vec<(&'static str, Value)> {
    let number = |k: &str| map.get(k).filter(|v| v.is_number()).cloned();
    let mut minimum = number("minimum");
    let mut maximum = number("maximum");
    let mut exclusive_minimum = number("exclusiveMinimum");
    let mut exclusive_maximum = number("exclusiveMaximum");
    if map.get("exclusiveMinimum") == Some(&Value::Bool(true)) {
        exclusive_minimum = minimum.take();
    }
    if map.get("exclusiveMaximum") == Some(&Value::Bool(true)) {
        exclusive_maximum = maximum.take();
    }
    [
        ("minimum", minimum),
        ("exclusiveMinimum", exclusive_minimum),
        ("maximum", maximum),
        ("exclusiveMaximum", exclusive_maximum),
        ("multipleOf", number("multipleOf")),
    ]
    .into_iter()
    .filter_map(|(k, v)| Some((k, v?)))
    .collect()
}

pub(super) fn extra(value: Option<&Value>, path: &str) -> Result<Extra, String> {
    Ok(match value {
        None | Some(Value::Bool(true)) => Extra::Open,
        Some(Value::Bool(false)) => Extra::Closed,
        // `{}`, or only annotations: any value.
        Some(Value::Object(m)) if m.keys().all(|k| ANNOTATIONS.contains(&k.as_str())) => {
            Extra::Open
        }
        Some(Value::Object(_)) => Extra::Schema,
        Some(_) => return Err(format!("{path}: `additionalProperties` is not a schema")),
    })
}

pub(super) fn required_of(
    map: &Map<String, Value>,
    path: &str,
) -> Result<BTreeSet<String>, String> {
    match map.get("required") {
        None => Ok(BTreeSet::new()),
        Some(Value::Array(names)) => names
            .iter()
            .map(|n| {
                n.as_str()
                    .map(str::to_owned)
                    .ok_or_else(|| format!("{path}: `required` holds a non-string"))
            })
            .collect(),
        Some(_) => Err(format!("{path}: `required` is not an array")),
    }
}

/// A schema that also accepts `null`: `"type": [t, "null"]` for a scalar
/// type, else `anyOf` with `{"type": "null"}`.
pub(super) fn make_nullable(schema: Value) -> Value {
    let Value::Object(mut map) = schema else {
        return schema;
    };
    if let Some(Value::Array(variants)) = map.get_mut("anyOf") {
        variants.push(null_schema());
        return Value::Object(map);
    }
    if !map.contains_key("enum") {
        match map.get_mut("type") {
            Some(Value::String(t))
                if matches!(t.as_str(), "string" | "number" | "integer" | "boolean") =>
            {
                let t = std::mem::take(t);
                map.insert(
                    "type".into(),
                    Value::Array(vec![Value::String(t), "null".into()]),
                );
                return Value::Object(map);
            }
            Some(Value::Array(types)) => {
                types.push("null".into());
                return Value::Object(map);
            }
            _ => {}
        }
    }
    let mut out = Map::new();
    if let Some(description) = map.remove("description") {
        out.insert("description".into(), description);
    }
    out.insert(
        "anyOf".into(),
        Value::Array(vec![Value::Object(map), null_schema()]),
    );
    Value::Object(out)
}

pub(super) fn null_schema() -> Value {
    let mut map = Map::new();
    map.insert("type".into(), "null".into());
    Value::Object(map)
}

/// `keyword: value` for the description.
pub(super) fn note(key: &str, value: &Value) -> String {
    match value {
        Value::String(s) => format!("{key}: {s}"),
        other => format!("{key}: {other}"),
    }
}

/// Notes for `default` and `examples`, which strict mode drops.
pub(super) fn annotation_notes(map: &Map<String, Value>) -> Vec<String> {
    let mut notes = Vec::new();
    if let Some(default) = map.get("default") {
        notes.push(format!("default: {default}"));
    }
    if let Some(examples) = map.get("examples") {
        notes.push(format!("examples: {examples}"));
    }
    notes
}

/// The description with the notes on dropped keywords appended.
pub(super) fn describe(description: Option<&Value>, notes: &[String]) -> Option<Value> {
    let description = description
        .and_then(Value::as_str)
        .filter(|d| !d.is_empty());
    match (description, notes.is_empty()) {
        (None, true) => None,
        (Some(d), true) => Some(Value::String(d.to_owned())),
        (None, false) => Some(Value::String(notes.join("; "))),
        (Some(d), false) => Some(Value::String(format!("{d} ({})", notes.join("; ")))),
    }
}
