//! Arguments written against the strict form, back to the original.

use serde_json::{Map, Value};

use super::convert::Converter;
use super::keywords::{required_of, with_shared};
use super::read::{accepts, accepts_null, resolved};
use super::{StrictOptions, ANNOTATIONS, MAX_WALK};

// ---------------------------------------------------------------------------
// Arguments back

pub(super) struct Back<'a> {
    pub(super) root: &'a Value,
}

impl Back<'_> {
    pub(super) fn map(&self, schema: &Value, value: Value, depth: usize) -> Value {
        if depth > MAX_WALK || value.is_null() {
            return value;
        }
        let Some(schema) = resolved(self.root, schema) else {
            return value;
        };
        let union = schema
            .get("anyOf")
            .or_else(|| schema.get("oneOf"))
            .and_then(Value::as_array);
        if let Some(variants) = union {
            let shared: Map<String, Value> = schema
                .iter()
                .filter(|(k, _)| {
                    !matches!(k.as_str(), "anyOf" | "oneOf") && !ANNOTATIONS.contains(&k.as_str())
                })
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            for variant in variants {
                let variant = with_shared(variant, &shared);
                let strict =
                    Converter::new(self.root, StrictOptions::default()).convert(&variant, "#", 0);
                if strict.is_ok_and(|s| accepts(&s, &value)) {
                    return self.map(&variant, value, depth + 1);
                }
            }
            return value;
        }
        match value {
            Value::Object(object) => {
                let empty = Map::new();
                let properties = schema
                    .get("properties")
                    .and_then(Value::as_object)
                    .unwrap_or(&empty);
                let required = required_of(&schema, "#").unwrap_or_default();
                let mapped = object
                    .into_iter()
                    .filter_map(|(k, v)| match properties.get(&k) {
                        Some(sub) => {
                            if v.is_null()
                                && !required.contains(&k)
                                && !accepts_null(Some(self.root), sub, 0)
                            {
                                None
                            } else {
                                let v = self.map(sub, v, depth + 1);
                                Some((k, v))
                            }
                        }
                        None => Some((k, v)),
                    })
                    .collect();
                Value::Object(mapped)
            }
            Value::Array(items) => match schema.get("items") {
                Some(sub @ (Value::Object(_) | Value::Bool(_))) => Value::Array(
                    items
                        .into_iter()
                        .map(|v| self.map(sub, v, depth + 1))
                        .collect(),
                ),
                _ => Value::Array(items),
            },
            other => other,
        }
    }
}
