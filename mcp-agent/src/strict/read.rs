//! Reading schemas: nullability, overlap, acceptance.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use super::convert::Converter;
use super::keywords::{kind_of, required_of, resolve, same_value};
use super::{StrictOptions, MAX_WALK, TYPES};

// ---------------------------------------------------------------------------
// Reading schemas: nullability, overlap, acceptance

/// The schema with its `$ref`s and one-schema `allOf` merged in, or `None`
/// when that fails.
pub(super) fn resolved(root: &Value, schema: &Value) -> Option<Map<String, Value>> {
    let mut resolver = Converter::new(root, StrictOptions::default());
    // Reading, not inlining: a reference to the root is fine here.
    resolver.refs.clear();
    resolver.flatten(schema, "#").ok()
}

pub(super) fn type_includes(types: &Value, wanted: &str) -> bool {
    match types {
        Value::String(t) => t == wanted,
        Value::Array(ts) => ts.iter().any(|t| t == wanted),
        _ => false,
    }
}

/// Whether `schema` certainly accepts `null`; `$ref`s are followed in
/// `root` when given.
pub(super) fn accepts_null(root: Option<&Value>, schema: &Value, depth: usize) -> bool {
    if depth > MAX_WALK {
        return false;
    }
    let map = match schema {
        Value::Bool(b) => return *b,
        Value::Object(map) => map,
        _ => return false,
    };
    let nullable = |s: &Value| accepts_null(root, s, depth + 1);
    if let Some(reference) = map.get("$ref") {
        let target = root
            .zip(reference.as_str())
            .and_then(|(root, r)| resolve(root, r).ok());
        if !target.is_some_and(nullable) {
            return false;
        }
    }
    if map.get("type").is_some_and(|t| !type_includes(t, "null")) {
        return false;
    }
    if map
        .get("enum")
        .is_some_and(|e| !e.as_array().is_some_and(|e| e.contains(&Value::Null)))
    {
        return false;
    }
    if map.get("const").is_some_and(|c| !c.is_null()) {
        return false;
    }
    let variants = |k: &str| map.get(k).and_then(Value::as_array);
    if map.get("anyOf").is_some() && !variants("anyOf").is_some_and(|v| v.iter().any(nullable)) {
        return false;
    }
    if map.get("oneOf").is_some()
        && variants("oneOf").is_none_or(|v| v.iter().filter(|s| nullable(s)).count() != 1)
    {
        return false;
    }
    if map.get("allOf").is_some() && !variants("allOf").is_some_and(|v| v.iter().all(nullable)) {
        return false;
    }
    // Keywords whose effect on `null` is not worth working out.
    !["not", "if", "then", "else"]
        .iter()
        .any(|k| map.contains_key(*k))
}

/// The kinds of JSON values a schema admits, as its `type` or enum values
/// say (`integer` and `number` for the non-integers); `None` for any kind.
pub(super) fn kinds(map: &Map<String, Value>) -> Option<BTreeSet<&'static str>> {
    let mut kinds = BTreeSet::new();
    if let Some(types) = map.get("type") {
        let types: Vec<&Value> = match types {
            Value::Array(ts) => ts.iter().collect(),
            t => vec![t],
        };
        for t in types {
            match t.as_str()? {
                "number" => kinds.extend(["integer", "number"]),
                "integer" => {
                    kinds.insert("integer");
                }
                other => {
                    kinds.insert(TYPES.iter().find(|t| **t == other)?);
                }
            }
        }
        return Some(kinds);
    }
    let values = map
        .get("enum")
        .and_then(Value::as_array)
        .cloned()
        .or_else(|| map.get("const").map(|c| vec![c.clone()]))?;
    Some(values.iter().map(kind_of).collect())
}

pub(super) fn enum_set(map: &Map<String, Value>) -> Option<Vec<Value>> {
    map.get("const")
        .map(|c| vec![c.clone()])
        .or_else(|| map.get("enum").and_then(Value::as_array).cloned())
}

/// Whether no value can match both `a` and `b` (`false` when unsure).
pub(super) fn disjoint(root: &Value, a: &Value, b: &Value, depth: usize) -> bool {
    if depth > MAX_WALK {
        return false;
    }
    let (Some(a), Some(b)) = (resolved(root, a), resolved(root, b)) else {
        return false;
    };
    let (kinds_a, kinds_b) = (kinds(&a), kinds(&b));
    if let (Some(ka), Some(kb)) = (&kinds_a, &kinds_b) {
        if ka.is_disjoint(kb) {
            return true;
        }
    }
    if let (Some(ea), Some(eb)) = (enum_set(&a), enum_set(&b)) {
        if !ea.iter().any(|x| eb.iter().any(|y| same_value(x, y))) {
            return true;
        }
    }
    let object_only = |k: &Option<BTreeSet<&str>>| {
        k.as_ref()
            .is_some_and(|k| k.len() == 1 && k.contains("object"))
    };
    if !(object_only(&kinds_a) && object_only(&kinds_b)) {
        return false;
    }
    let empty = Map::new();
    let props = |m: &Map<String, Value>| -> Map<String, Value> {
        m.get("properties")
            .and_then(Value::as_object)
            .unwrap_or(&empty)
            .clone()
    };
    let required = |m: &Map<String, Value>| required_of(m, "#").unwrap_or_default();
    let closed = |m: &Map<String, Value>| {
        m.get("additionalProperties") == Some(&Value::Bool(false))
            || m.get("unevaluatedProperties") == Some(&Value::Bool(false))
    };
    let (props_a, props_b) = (props(&a), props(&b));
    let (required_a, required_b) = (required(&a), required(&b));
    // A key one requires and the other forbids.
    if required_a
        .iter()
        .any(|k| closed(&b) && !props_b.contains_key(k))
        || required_b
            .iter()
            .any(|k| closed(&a) && !props_a.contains_key(k))
    {
        return true;
    }
    // A key both require, with values that cannot be the same.
    required_a
        .intersection(&required_b)
        .any(|k| match (props_a.get(k), props_b.get(k)) {
            (Some(x), Some(y)) => disjoint(root, x, y, depth + 1),
            _ => false,
        })
}

/// Whether a strict schema accepts `value`, as far as types, enums, keys,
/// items and unions go (not `pattern`, `format` or bounds).
pub(super) fn accepts(strict: &Value, value: &Value) -> bool {
    let map = match strict {
        Value::Bool(b) => return *b,
        Value::Object(map) => map,
        _ => return false,
    };
    if let Some(Value::Array(variants)) = map.get("anyOf") {
        if !variants.iter().any(|v| accepts(v, value)) {
            return false;
        }
    }
    if let Some(types) = map.get("type") {
        let kind = kind_of(value);
        let ok = type_includes(types, kind)
            || (kind == "integer" && type_includes(types, "number"))
            || (kind == "number"
                && type_includes(types, "integer")
                && value.as_f64().is_some_and(|f| f.fract() == 0.0));
        if !ok {
            return false;
        }
    }
    if let Some(Value::Array(values)) = map.get("enum") {
        if !values.iter().any(|v| same_value(v, value)) {
            return false;
        }
    }
    match value {
        Value::Object(object) => {
            if let Some(Value::Object(properties)) = map.get("properties") {
                let all_known = object
                    .iter()
                    .all(|(k, v)| properties.get(k).is_some_and(|s| accepts(s, v)));
                let all_present = properties.keys().all(|k| object.contains_key(k));
                all_known && all_present
            } else {
                true
            }
        }
        Value::Array(items) => map
            .get("items")
            .is_none_or(|schema| items.iter().all(|v| accepts(schema, v))),
        _ => true,
    }
}
