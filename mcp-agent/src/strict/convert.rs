//! The conversion to the strict form.

use serde_json::{Map, Value};

use super::keywords::{
    annotation_notes, describe, enum_values, escape_pointer, extra, make_nullable, merge, note,
    number_constraints, required_of, resolve, schema_object, strip_core, types_of, with_shared,
};
use super::read::disjoint;
use super::{
    is_nullable, StrictOptions, ANNOTATIONS, MAX_DEPTH, MAX_NODES, MAX_PROPERTIES, STRING_FORMATS,
    UNSUPPORTED,
};

// ---------------------------------------------------------------------------
// Conversion

/// One conversion: the document `$ref`s point into, and what has been used.
pub(super) struct Converter<'a> {
    pub(super) root: &'a Value,
    pub(super) options: StrictOptions,
    /// The references being inlined on the current path (`#` is the root).
    pub(super) refs: Vec<String>,
    pub(super) properties: usize,
    pub(super) nodes: usize,
}

/// Whether an object accepts keys beyond its `properties`.
#[derive(PartialEq, Eq)]
pub(super) enum Extra {
    Open,
    Closed,
    Schema,
}

impl<'a> Converter<'a> {
    pub(super) fn new(root: &'a Value, options: StrictOptions) -> Self {
        Converter {
            root,
            options,
            refs: vec!["#".to_owned()],
            properties: 0,
            nodes: 0,
        }
    }

    pub(super) fn convert(
        &mut self,
        schema: &Value,
        path: &str,
        depth: usize,
    ) -> Result<Value, String> {
        let mark = self.refs.len();
        let out = self.convert_node(schema, path, depth);
        self.refs.truncate(mark);
        out
    }

    pub(super) fn convert_node(
        &mut self,
        schema: &Value,
        path: &str,
        depth: usize,
    ) -> Result<Value, String> {
        if depth > MAX_DEPTH {
            return Err(format!(
                "{path}: nested more than {MAX_DEPTH} levels deep (OpenAI's limit)"
            ));
        }
        self.nodes += 1;
        if self.nodes > MAX_NODES {
            return Err(format!(
                "{path}: the schema grows past {MAX_NODES} subschemas once its references are inlined"
            ));
        }
        let map = self.flatten(schema, path)?;
        if let Some(key) = UNSUPPORTED.iter().find(|k| map.contains_key(**k)) {
            return Err(format!(
                "{path}: `{key}` cannot be expressed in strict mode"
            ));
        }
        if map.contains_key("anyOf") || map.contains_key("oneOf") {
            self.convert_union(&map, path, depth)
        } else {
            self.convert_typed(&map, path, depth)
        }
    }

    /// The schema as one object: `$ref`s resolved and merged with their
    /// siblings, a one-schema `allOf` merged, core keywords removed. The
    /// references followed stay on `self.refs` (the caller truncates).
    pub(super) fn flatten(
        &mut self,
        schema: &Value,
        path: &str,
    ) -> Result<Map<String, Value>, String> {
        let mut map = schema_object(schema, path)?;
        loop {
            if let Some(reference) = map.remove("$ref") {
                let reference = reference
                    .as_str()
                    .ok_or_else(|| format!("{path}: `$ref` is not a string"))?
                    .to_owned();
                if self.refs.contains(&reference) {
                    return Err(format!(
                        "{path}: the recursive reference `{reference}` cannot be inlined"
                    ));
                }
                let target = resolve(self.root, &reference).map_err(|e| format!("{path}: {e}"))?;
                let target = schema_object(target, path)?;
                self.refs.push(reference);
                strip_core(&mut map);
                map = merge(target, map, path)?;
            } else if let Some(all) = map.remove("allOf") {
                let all = all
                    .as_array()
                    .ok_or_else(|| format!("{path}: `allOf` is not an array"))?;
                let [only] = all.as_slice() else {
                    return Err(format!(
                        "{path}: `allOf` with {} schemas cannot be expressed in strict mode",
                        all.len()
                    ));
                };
                let only = schema_object(only, path)?;
                strip_core(&mut map);
                map = merge(only, map, path)?;
            } else {
                break;
            }
        }
        strip_core(&mut map);
        Ok(map)
    }

    pub(super) fn convert_union(
        &mut self,
        map: &Map<String, Value>,
        path: &str,
        depth: usize,
    ) -> Result<Value, String> {
        if map.contains_key("anyOf") && map.contains_key("oneOf") {
            return Err(format!(
                "{path}: both `anyOf` and `oneOf` cannot be expressed in strict mode"
            ));
        }
        let key = if map.contains_key("anyOf") {
            "anyOf"
        } else {
            "oneOf"
        };
        let variants = map
            .get(key)
            .and_then(Value::as_array)
            .filter(|v| !v.is_empty())
            .ok_or_else(|| format!("{path}: `{key}` is not a non-empty array"))?;
        if key == "oneOf" && !self.pairwise_disjoint(variants) {
            return Err(format!(
                "{path}: `oneOf` whose alternatives may overlap cannot be rewritten as `anyOf`"
            ));
        }
        // Annotations stay on the union; everything else applies to every
        // alternative.
        let mut shared = Map::new();
        for (k, v) in map {
            if k != key && !ANNOTATIONS.contains(&k.as_str()) {
                shared.insert(k.clone(), v.clone());
            }
        }
        let mut converted = Vec::with_capacity(variants.len());
        for (i, variant) in variants.iter().enumerate() {
            let variant = with_shared(variant, &shared);
            match self.convert(&variant, &format!("{path}/{key}/{i}"), depth + 1)? {
                // A bare union inside a union: its alternatives join this one.
                Value::Object(mut inner) if inner.len() == 1 && inner.contains_key("anyOf") => {
                    if let Some(Value::Array(alternatives)) = inner.remove("anyOf") {
                        converted.extend(alternatives);
                    }
                }
                other => converted.push(other),
            }
        }
        let mut out = Map::new();
        let notes = annotation_notes(map);
        if let Some(description) = describe(map.get("description"), &notes) {
            out.insert("description".into(), description);
        }
        out.insert("anyOf".into(), Value::Array(converted));
        Ok(Value::Object(out))
    }

    pub(super) fn convert_typed(
        &mut self,
        map: &Map<String, Value>,
        path: &str,
        depth: usize,
    ) -> Result<Value, String> {
        let values = enum_values(map, path)?;
        let types = types_of(map, values.as_deref(), path)?;
        let has = |t: &str| types.iter().any(|x| x == t);
        let mut out = Map::new();
        let mut notes = annotation_notes(map);
        out.insert(
            "type".into(),
            match types.as_slice() {
                [one] => Value::String(one.clone()),
                _ => Value::Array(types.iter().cloned().map(Value::String).collect()),
            },
        );
        if let Some(values) = values {
            out.insert("enum".into(), Value::Array(values));
        }
        if has("string") {
            if let Some(pattern) = map.get("pattern") {
                self.keep(&mut out, &mut notes, "pattern", pattern);
            }
            if let Some(format) = map.get("format") {
                if format.as_str().is_some_and(|f| STRING_FORMATS.contains(&f)) {
                    self.keep(&mut out, &mut notes, "format", format);
                } else {
                    notes.push(note("format", format));
                }
            }
            for k in [
                "minLength",
                "maxLength",
                "contentEncoding",
                "contentMediaType",
            ] {
                if let Some(v) = map.get(k) {
                    notes.push(note(k, v));
                }
            }
        }
        if has("number") || has("integer") {
            for (k, v) in number_constraints(map) {
                self.keep(&mut out, &mut notes, k, &v);
            }
        }
        if has("array") {
            let items = match map.get("items") {
                Some(items @ (Value::Object(_) | Value::Bool(_))) => items,
                Some(_) => {
                    return Err(format!(
                        "{path}: tuple `items` cannot be expressed in strict mode"
                    ))
                }
                None => {
                    return Err(format!(
                        "{path}: an array without `items` (items of any type) cannot be strict"
                    ))
                }
            };
            let items = self.convert(items, &format!("{path}/items"), depth + 1)?;
            out.insert("items".into(), items);
            for k in ["minItems", "maxItems"] {
                if let Some(v) = map.get(k) {
                    self.keep(&mut out, &mut notes, k, v);
                }
            }
            if map.get("uniqueItems") == Some(&Value::Bool(true)) {
                notes.push("items must be unique".to_owned());
            }
        }
        if has("object") {
            self.convert_object(map, &mut out, &mut notes, path, depth)?;
        }
        if let Some(description) = describe(map.get("description"), &notes) {
            out.insert("description".into(), description);
        }
        Ok(Value::Object(out))
    }

    pub(super) fn convert_object(
        &mut self,
        map: &Map<String, Value>,
        out: &mut Map<String, Value>,
        notes: &mut Vec<String>,
        path: &str,
        depth: usize,
    ) -> Result<(), String> {
        let properties = match map.get("properties") {
            Some(Value::Object(p)) => Some(p),
            Some(_) => return Err(format!("{path}: `properties` is not an object")),
            None => None,
        };
        let additional = extra(map.get("additionalProperties"), path)?;
        let unevaluated = extra(map.get("unevaluatedProperties"), path)?;
        if additional == Extra::Schema || unevaluated == Extra::Schema {
            return Err(format!(
                "{path}: an object whose additionalProperties is a schema (a map) cannot be strict"
            ));
        }
        let closed = additional == Extra::Closed || unevaluated == Extra::Closed;
        if properties.is_none() && !closed {
            return Err(format!(
                "{path}: an object without `properties` that accepts any key (a map) cannot be strict"
            ));
        }
        let required = required_of(map, path)?;
        let empty = Map::new();
        let properties = properties.unwrap_or(&empty);
        if let Some(missing) = required.iter().find(|r| !properties.contains_key(*r)) {
            return Err(format!(
                "{path}: `required` names `{missing}`, which has no schema in `properties`"
            ));
        }
        let mut converted = Map::new();
        for (name, schema) in properties {
            self.properties += 1;
            if self.properties > MAX_PROPERTIES {
                return Err(format!(
                    "{path}: more than {MAX_PROPERTIES} object properties in all (OpenAI's limit)"
                ));
            }
            let sub_path = format!("{path}/properties/{}", escape_pointer(name));
            let mut strict = self.convert(schema, &sub_path, depth + 1)?;
            if !required.contains(name) && !is_nullable(&strict) {
                strict = make_nullable(strict);
            }
            converted.insert(name.clone(), strict);
        }
        let names = converted.keys().cloned().map(Value::String).collect();
        out.insert("properties".into(), Value::Object(converted));
        out.insert("required".into(), Value::Array(names));
        out.insert("additionalProperties".into(), Value::Bool(false));
        for k in ["minProperties", "maxProperties"] {
            if let Some(v) = map.get(k) {
                notes.push(note(k, v));
            }
        }
        Ok(())
    }

    /// A supported constraint: kept, or noted for fine-tuned models.
    pub(super) fn keep(
        &self,
        out: &mut Map<String, Value>,
        notes: &mut Vec<String>,
        key: &str,
        value: &Value,
    ) {
        if self.options.constraints {
            out.insert(key.to_owned(), value.clone());
        } else {
            notes.push(note(key, value));
        }
    }

    /// Whether no value can match two of these alternatives.
    pub(super) fn pairwise_disjoint(&self, variants: &[Value]) -> bool {
        variants.iter().enumerate().all(|(i, a)| {
            variants[i + 1..]
                .iter()
                .all(|b| disjoint(self.root, a, b, 0))
        })
    }
}
