//! OpenAI's strict mode for function parameters (structured outputs).
//!
//! With `"strict": true` OpenAI constrains the model's arguments to the
//! function's JSON Schema, but only accepts a subset of JSON Schema
//! ([Supported schemas][doc]). [`to_strict`] rewrites a tool's input schema
//! into that subset, or says why it cannot; [`from_strict`] maps arguments
//! written against the strict form back to arguments for the original schema.
//!
//! The rules, as the guide documents them, and what [`to_strict`] does:
//!
//! - The root must be an object, not `anyOf`. Anything else is an error.
//! - Every object has `additionalProperties: false`, and every property is
//!   listed in `required`. Properties that were optional become nullable
//!   (`"type": ["string", "null"]` for a scalar type, else `anyOf` with
//!   `{"type": "null"}`), unless they already accept `null`; [`from_strict`]
//!   turns such a `null` back into an absent property. An object whose
//!   `additionalProperties` is a schema (a map, such as a `HashMap<String, T>`)
//!   or that has no `properties` and accepts other keys cannot be strict.
//! - Supported types are string, number, integer, boolean, object, array,
//!   null (in unions), `enum` and `anyOf`. `const` becomes a one-value `enum`.
//!   Type arrays such as `["integer", "null"]` are kept. A schema whose type
//!   is unknown (`{}`, `true`, a bare description) cannot be strict, nor can
//!   an array without `items` or with tuple items.
//! - Local `$ref`s (`#/$defs/X`, `#/definitions/X`, any `#/...` pointer) are
//!   inlined and `$defs`/`definitions` removed (OpenAI accepts definitions,
//!   but inlining leaves one form to check). A recursive reference cannot be
//!   inlined: error. So is a `$ref` to another document.
//! - Composition the guide lists as unsupported (`allOf`, `not`,
//!   `dependentRequired`, `dependentSchemas`, `if`/`then`/`else`) is an
//!   error, except `allOf` with a single schema, which is merged. So are
//!   keywords that constrain values in ways the subset cannot express
//!   (`patternProperties`, `propertyNames`, `prefixItems`, `contains`,
//!   `unevaluatedItems`, `dependencies`). `oneOf` becomes `anyOf` when its
//!   alternatives cannot overlap (different types, different `enum`/`const`
//!   values, objects told apart by a required property), else it is an
//!   error.
//! - Kept constraints: for strings `pattern` and the documented `format`s
//!   (`date-time`, `time`, `date`, `duration`, `email`, `hostname`, `ipv4`,
//!   `ipv6`, `uuid`); for numbers `minimum`, `maximum`, `exclusiveMinimum`,
//!   `exclusiveMaximum`, `multipleOf`; for arrays `minItems`, `maxItems`.
//!   Fine-tuned models do not support these ([`StrictOptions::fine_tuned`]
//!   drops them).
//! - Other keywords are dropped. Those that still tell the model something
//!   (`default`, `examples`, `minLength`, `maxLength`, `minProperties`,
//!   `maxProperties`, `uniqueItems`, other string formats,
//!   `contentEncoding`, `contentMediaType`, and the constraints above when
//!   dropped) are appended to the `description` in parentheses, e.g.
//!   `"The count (default: 10)"`. Annotations (`title`, `$schema`, `$id`,
//!   `$comment`, `deprecated`, ...) and unknown keywords are dropped silently.
//!   OpenAI does not enforce what was dropped: arguments still need checking
//!   against the original schema.
//! - Limits: at most 10 levels of nesting (the root is level 0; every
//!   property, `items` and `anyOf` alternative is one level deeper), 5000
//!   object properties in all, 1000 enum values in all, 120,000 characters
//!   of property names and enum values, and 15,000 characters of values in
//!   one string enum of more than 250 values.
//!
//! Errors name the JSON path of the schema that could not be converted, as
//! a JSON pointer into the schema with references followed:
//! `#/properties/tags: an object whose additionalProperties is a schema (a map) cannot be strict`.
//!
//! [doc]: https://developers.openai.com/api/docs/guides/structured-outputs#supported-schemas

use std::collections::BTreeSet;

use serde_json::{Map, Value};

/// Nesting levels OpenAI accepts below the root.
const MAX_DEPTH: usize = 10;
/// Object properties OpenAI accepts in one schema.
const MAX_PROPERTIES: usize = 5000;
/// Enum values OpenAI accepts in one schema.
const MAX_ENUM_VALUES: usize = 1000;
/// Characters of property names and enum values OpenAI accepts in one schema.
const MAX_CHARS: usize = 120_000;
/// A string enum with more values than this ...
const LARGE_ENUM: usize = 250;
/// ... may hold at most this many characters of values.
const MAX_LARGE_ENUM_CHARS: usize = 15_000;
/// Schema nodes one conversion may produce (inlining can multiply them).
const MAX_NODES: usize = 100_000;
/// Nesting followed by [`from_strict`] and the helpers before giving up.
const MAX_WALK: usize = 128;

/// The string formats OpenAI documents.
const STRING_FORMATS: [&str; 9] = [
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];

/// The JSON Schema types strict mode supports.
const TYPES: [&str; 7] = [
    "string", "number", "integer", "boolean", "object", "array", "null",
];

/// Keywords that restrict values in ways strict mode cannot express.
const UNSUPPORTED: [&str; 16] = [
    "not",
    "if",
    "then",
    "else",
    "dependentRequired",
    "dependentSchemas",
    "dependencies",
    "patternProperties",
    "propertyNames",
    "prefixItems",
    "contains",
    "minContains",
    "maxContains",
    "unevaluatedItems",
    "$dynamicRef",
    "$recursiveRef",
];

/// Keywords that only describe: when a schema and its `$ref` or `allOf`
/// disagree on one, the referring schema wins.
const ANNOTATIONS: [&str; 8] = [
    "description",
    "title",
    "default",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
    "$comment",
];

/// Core keywords with no meaning once references are inlined.
const CORE: [&str; 7] = [
    "$schema",
    "$id",
    "$anchor",
    "$dynamicAnchor",
    "$vocabulary",
    "$defs",
    "definitions",
];

/// How [`to_strict_with`] converts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StrictOptions {
    constraints: bool,
}

impl Default for StrictOptions {
    fn default() -> Self {
        StrictOptions { constraints: true }
    }
}

impl StrictOptions {
    /// The default: keeps the constraints OpenAI supports (`pattern`,
    /// `format`, `minimum`, `maximum`, `exclusiveMinimum`,
    /// `exclusiveMaximum`, `multipleOf`, `minItems`, `maxItems`).
    pub fn new() -> Self {
        StrictOptions::default()
    }

    /// For fine-tuned models, which do not support those constraints: they
    /// are dropped and described in the `description` instead.
    pub fn fine_tuned() -> Self {
        StrictOptions { constraints: false }
    }

    /// Whether to keep the supported constraints (`true`) or move them into
    /// the `description` (`false`).
    pub fn constraints(mut self, keep: bool) -> Self {
        self.constraints = keep;
        self
    }
}

/// The strict form of a tool's input schema, or why it cannot be made strict.
///
/// See the [module documentation](self) for the rules.
///
/// ```
/// use serde_json::json;
///
/// let schema = json!({
///     "type": "object",
///     "properties": {
///         "city": {"type": "string"},
///         "days": {"type": "integer", "default": 1}
///     },
///     "required": ["city"]
/// });
/// let strict = mcp_agent::strict::to_strict(&schema).unwrap();
/// assert_eq!(strict, json!({
///     "type": "object",
///     "properties": {
///         "city": {"type": "string"},
///         "days": {"type": ["integer", "null"], "description": "default: 1"}
///     },
///     "required": ["city", "days"],
///     "additionalProperties": false
/// }));
///
/// let map = json!({"type": "object", "additionalProperties": {"type": "string"}});
/// assert!(mcp_agent::strict::to_strict(&map).is_err());
/// ```
pub fn to_strict(schema: &Value) -> Result<Value, String> {
    to_strict_with(schema, StrictOptions::default())
}

/// [`to_strict`] with options (for fine-tuned models, say).
pub fn to_strict_with(schema: &Value, options: StrictOptions) -> Result<Value, String> {
    let mut converter = Converter::new(schema, options);
    let strict = converter.convert(schema, "#", 0)?;
    if strict.get("type").and_then(Value::as_str) != Some("object") {
        return Err(if strict.get("anyOf").is_some() {
            "#: the root must be an object, not `anyOf`".to_owned()
        } else {
            "#: the root must be an object (\"type\": \"object\")".to_owned()
        });
    }
    let mut totals = Totals::default();
    check_limits(&strict, "#", 0, &mut totals)?;
    totals.check()?;
    Ok(strict)
}

/// Maps arguments written against the strict form back to arguments valid
/// under the original schema (a `null` given for an optional property that
/// does not accept `null` means the property is absent).
///
/// It walks `arguments` along `original` (following its `$ref`s, `items`,
/// and for `anyOf`/`oneOf` the first alternative whose strict form accepts
/// the value) and drops those `null`s. Anything it does not recognize is
/// left as it is.
///
/// ```
/// use serde_json::json;
///
/// let schema = json!({
///     "type": "object",
///     "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
///     "required": ["city"]
/// });
/// let args = mcp_agent::strict::from_strict(&schema, json!({"city": "Oslo", "days": null}));
/// assert_eq!(args, json!({"city": "Oslo"}));
/// ```
pub fn from_strict(original: &Value, arguments: Value) -> Value {
    // Mapping back only ever drops `null`s: without one there is nothing to do.
    if !contains_null(&arguments) {
        return arguments;
    }
    Back { root: original }.map(original, arguments, 0)
}

fn contains_null(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::Array(items) => items.iter().any(contains_null),
        Value::Object(map) => map.values().any(contains_null),
        _ => false,
    }
}

/// Whether `schema` certainly accepts `null`: `true`, a `type` or `enum`
/// that includes it, an `anyOf` alternative that does... When unsure (a
/// `$ref`, `not`, `if`), `false`.
///
/// ```
/// use serde_json::json;
/// use mcp_agent::strict::is_nullable;
///
/// assert!(is_nullable(&json!({"type": ["string", "null"]})));
/// assert!(is_nullable(&json!({"anyOf": [{"type": "integer"}, {"type": "null"}]})));
/// assert!(!is_nullable(&json!({"type": "string"})));
/// ```
pub fn is_nullable(schema: &Value) -> bool {
    accepts_null(None, schema, 0)
}

// ---------------------------------------------------------------------------
// Conversion

/// One conversion: the document `$ref`s point into, and what has been used.
struct Converter<'a> {
    root: &'a Value,
    options: StrictOptions,
    /// The references being inlined on the current path (`#` is the root).
    refs: Vec<String>,
    properties: usize,
    nodes: usize,
}

/// Whether an object accepts keys beyond its `properties`.
#[derive(PartialEq, Eq)]
enum Extra {
    Open,
    Closed,
    Schema,
}

impl<'a> Converter<'a> {
    fn new(root: &'a Value, options: StrictOptions) -> Self {
        Converter {
            root,
            options,
            refs: vec!["#".to_owned()],
            properties: 0,
            nodes: 0,
        }
    }

    fn convert(&mut self, schema: &Value, path: &str, depth: usize) -> Result<Value, String> {
        let mark = self.refs.len();
        let out = self.convert_node(schema, path, depth);
        self.refs.truncate(mark);
        out
    }

    fn convert_node(&mut self, schema: &Value, path: &str, depth: usize) -> Result<Value, String> {
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
    fn flatten(&mut self, schema: &Value, path: &str) -> Result<Map<String, Value>, String> {
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

    fn convert_union(
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

    fn convert_typed(
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

    fn convert_object(
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
    fn keep(
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
    fn pairwise_disjoint(&self, variants: &[Value]) -> bool {
        variants.iter().enumerate().all(|(i, a)| {
            variants[i + 1..]
                .iter()
                .all(|b| disjoint(self.root, a, b, 0))
        })
    }
}

/// A schema as an object (`true` is `{}`), or why it is not one.
fn schema_object(schema: &Value, path: &str) -> Result<Map<String, Value>, String> {
    match schema {
        Value::Object(map) => Ok(map.clone()),
        Value::Bool(true) => Ok(Map::new()),
        Value::Bool(false) => Err(format!("{path}: the schema `false` accepts no value")),
        _ => Err(format!("{path}: not a schema (an object or a boolean)")),
    }
}

fn strip_core(map: &mut Map<String, Value>) {
    for k in CORE {
        map.remove(k);
    }
}

/// The schema at a local reference (`#`, `#/$defs/X`, any `#/...` pointer).
fn resolve<'v>(root: &'v Value, reference: &str) -> Result<&'v Value, String> {
    let Some(fragment) = reference.strip_prefix('#') else {
        return Err(format!(
            "the reference `{reference}` is not local (only `#/...` references can be inlined)"
        ));
    };
    let pointer = percent_decode(fragment)
        .ok_or_else(|| format!("the reference `{reference}` is not valid percent-encoding"))?;
    if !pointer.is_empty() && !pointer.starts_with('/') {
        return Err(format!(
            "the reference `{reference}` names an anchor, which cannot be inlined"
        ));
    }
    root.pointer(&pointer)
        .ok_or_else(|| format!("the reference `{reference}` points at nothing"))
}

/// Decodes `%XX` escapes (URI fragments may carry them).
fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// A property name as one JSON-pointer segment.
fn escape_pointer(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

/// The schema `base` with the keywords of `overlay` (the referring schema)
/// added: both must hold, so they must agree, except annotations, where the
/// overlay wins, and `required`, which adds up.
fn merge(
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
fn with_shared(variant: &Value, shared: &Map<String, Value>) -> Value {
    if shared.is_empty() {
        return variant.clone();
    }
    let mut combined = shared.clone();
    combined.insert("allOf".into(), Value::Array(vec![variant.clone()]));
    Value::Object(combined)
}

/// `enum` or `const` (as a one-value enum) of a schema.
fn enum_values(map: &Map<String, Value>, path: &str) -> Result<Option<Vec<Value>>, String> {
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
fn types_of(
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
fn kind_of(value: &Value) -> &'static str {
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
fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x == y || x.as_f64() == y.as_f64(),
        _ => a == b,
    }
}

/// The number constraints, draft-04 boolean `exclusiveMinimum` and
/// `exclusiveMaximum` rewritten to their numeric form.
fn number_constraints(map: &Map<String, Value>) -> Vec<(&'static str, Value)> {
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

fn extra(value: Option<&Value>, path: &str) -> Result<Extra, String> {
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

fn required_of(map: &Map<String, Value>, path: &str) -> Result<BTreeSet<String>, String> {
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
fn make_nullable(schema: Value) -> Value {
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

fn null_schema() -> Value {
    let mut map = Map::new();
    map.insert("type".into(), "null".into());
    Value::Object(map)
}

/// `keyword: value` for the description.
fn note(key: &str, value: &Value) -> String {
    match value {
        Value::String(s) => format!("{key}: {s}"),
        other => format!("{key}: {other}"),
    }
}

/// Notes for `default` and `examples`, which strict mode drops.
fn annotation_notes(map: &Map<String, Value>) -> Vec<String> {
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
fn describe(description: Option<&Value>, notes: &[String]) -> Option<Value> {
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

// ---------------------------------------------------------------------------
// Limits of the finished schema

#[derive(Default)]
struct Totals {
    properties: usize,
    enum_values: usize,
    chars: usize,
}

impl Totals {
    fn check(&self) -> Result<(), String> {
        if self.properties > MAX_PROPERTIES {
            return Err(format!(
                "#: {} object properties in all, over OpenAI's limit of {MAX_PROPERTIES}",
                self.properties
            ));
        }
        if self.enum_values > MAX_ENUM_VALUES {
            return Err(format!(
                "#: {} enum values in all, over OpenAI's limit of {MAX_ENUM_VALUES}",
                self.enum_values
            ));
        }
        if self.chars > MAX_CHARS {
            return Err(format!(
                "#: {} characters of property names and enum values, over OpenAI's limit of {MAX_CHARS}",
                self.chars
            ));
        }
        Ok(())
    }
}

fn check_limits(
    schema: &Value,
    path: &str,
    depth: usize,
    totals: &mut Totals,
) -> Result<(), String> {
    if depth > MAX_DEPTH {
        return Err(format!(
            "{path}: nested more than {MAX_DEPTH} levels deep (OpenAI's limit)"
        ));
    }
    let Value::Object(map) = schema else {
        return Ok(());
    };
    if let Some(Value::Object(properties)) = map.get("properties") {
        totals.properties += properties.len();
        for (name, sub) in properties {
            totals.chars += name.chars().count();
            let sub_path = format!("{path}/properties/{}", escape_pointer(name));
            check_limits(sub, &sub_path, depth + 1, totals)?;
        }
    }
    if let Some(items) = map.get("items") {
        check_limits(items, &format!("{path}/items"), depth + 1, totals)?;
    }
    if let Some(Value::Array(variants)) = map.get("anyOf") {
        for (i, variant) in variants.iter().enumerate() {
            check_limits(variant, &format!("{path}/anyOf/{i}"), depth + 1, totals)?;
        }
    }
    if let Some(Value::Array(values)) = map.get("enum") {
        totals.enum_values += values.len();
        let chars: usize = values
            .iter()
            .filter_map(Value::as_str)
            .map(|s| s.chars().count())
            .sum();
        totals.chars += chars;
        if values.len() > LARGE_ENUM && chars > MAX_LARGE_ENUM_CHARS {
            return Err(format!(
                "{path}: an enum of {} values holding {chars} characters, over OpenAI's limit of {MAX_LARGE_ENUM_CHARS} for enums of more than {LARGE_ENUM} values",
                values.len()
            ));
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Reading schemas: nullability, overlap, acceptance

/// The schema with its `$ref`s and one-schema `allOf` merged in, or `None`
/// when that fails.
fn resolved(root: &Value, schema: &Value) -> Option<Map<String, Value>> {
    let mut resolver = Converter::new(root, StrictOptions::default());
    // Reading, not inlining: a reference to the root is fine here.
    resolver.refs.clear();
    resolver.flatten(schema, "#").ok()
}

fn type_includes(types: &Value, wanted: &str) -> bool {
    match types {
        Value::String(t) => t == wanted,
        Value::Array(ts) => ts.iter().any(|t| t == wanted),
        _ => false,
    }
}

/// Whether `schema` certainly accepts `null`; `$ref`s are followed in
/// `root` when given.
fn accepts_null(root: Option<&Value>, schema: &Value, depth: usize) -> bool {
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
fn kinds(map: &Map<String, Value>) -> Option<BTreeSet<&'static str>> {
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

fn enum_set(map: &Map<String, Value>) -> Option<Vec<Value>> {
    map.get("const")
        .map(|c| vec![c.clone()])
        .or_else(|| map.get("enum").and_then(Value::as_array).cloned())
}

/// Whether no value can match both `a` and `b` (`false` when unsure).
fn disjoint(root: &Value, a: &Value, b: &Value, depth: usize) -> bool {
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
fn accepts(strict: &Value, value: &Value) -> bool {
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

// ---------------------------------------------------------------------------
// Arguments back

struct Back<'a> {
    root: &'a Value,
}

impl Back<'_> {
    fn map(&self, schema: &Value, value: Value, depth: usize) -> Value {
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn strict(schema: &Value) -> Value {
        to_strict(schema).unwrap_or_else(|e| panic!("{e}\n{schema:#}"))
    }

    fn error(schema: &Value) -> String {
        match to_strict(schema) {
            Ok(s) => panic!("converted, but should not have:\n{s:#}"),
            Err(e) => e,
        }
    }

    fn object(properties: &Value) -> Value {
        json!({"type": "object", "properties": properties})
    }

    #[test]
    fn everything_required_and_closed() {
        let schema = json!({
            "type": "object",
            "properties": {
                "a": {"type": "string"},
                "b": {"type": "integer"},
                "c": {"type": "object", "properties": {"d": {"type": "boolean"}}, "required": ["d"]}
            },
            "required": ["a", "c"]
        });
        assert_eq!(
            strict(&schema),
            json!({
                "type": "object",
                "properties": {
                    "a": {"type": "string"},
                    "b": {"type": ["integer", "null"]},
                    "c": {
                        "type": "object",
                        "properties": {"d": {"type": "boolean"}},
                        "required": ["d"],
                        "additionalProperties": false
                    }
                },
                "required": ["a", "b", "c"],
                "additionalProperties": false
            })
        );
    }

    #[test]
    fn optional_properties_become_nullable() {
        let schema = object(&json!({
            "s": {"type": "string", "description": "text"},
            "n": {"type": "number"},
            "e": {"type": "string", "enum": ["x", "y"], "description": "pick"},
            "o": {"type": "object", "properties": {}},
            "arr": {"type": "array", "items": {"type": "string"}},
            "u": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
            "t": {"type": ["string", "integer"]},
            "already": {"type": ["string", "null"]},
            "already_any": {"anyOf": [{"type": "string"}, {"type": "null"}]}
        }));
        let s = strict(&schema);
        let p = &s["properties"];
        assert_eq!(
            p["s"],
            json!({"type": ["string", "null"], "description": "text"})
        );
        assert_eq!(p["n"], json!({"type": ["number", "null"]}));
        assert_eq!(
            p["e"],
            json!({"description": "pick", "anyOf": [{"type": "string", "enum": ["x", "y"]}, {"type": "null"}]})
        );
        assert_eq!(
            p["o"],
            json!({"anyOf": [
                {"type": "object", "properties": {}, "required": [], "additionalProperties": false},
                {"type": "null"}
            ]})
        );
        assert_eq!(
            p["arr"],
            json!({"anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "null"}]})
        );
        assert_eq!(
            p["u"],
            json!({"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]})
        );
        assert_eq!(p["t"], json!({"type": ["string", "integer", "null"]}));
        assert_eq!(p["already"], json!({"type": ["string", "null"]}));
        assert_eq!(
            p["already_any"],
            json!({"anyOf": [{"type": "string"}, {"type": "null"}]})
        );
        assert_eq!(s["required"].as_array().unwrap().len(), 9);
    }

    #[test]
    fn refs_are_inlined() {
        let schema = json!({
            "type": "object",
            "properties": {
                "p": {"$ref": "#/$defs/Point", "description": "where"},
                "q": {"$ref": "#/definitions/Point"},
                "r": {"$ref": "#/properties/p"}
            },
            "required": ["p", "q", "r"],
            "$defs": {"Point": {
                "type": "object",
                "description": "a point",
                "properties": {"x": {"type": "number"}, "y": {"type": "number"}},
                "required": ["x", "y"]
            }},
            "definitions": {"Point": {"$ref": "#/$defs/Point"}}
        });
        let s = strict(&schema);
        let point = json!({
            "type": "object",
            "description": "where",
            "properties": {"x": {"type": "number"}, "y": {"type": "number"}},
            "required": ["x", "y"],
            "additionalProperties": false
        });
        assert_eq!(s["properties"]["p"], point);
        assert_eq!(s["properties"]["r"], point);
        assert_eq!(s["properties"]["q"]["description"], "a point");
        assert!(s.get("$defs").is_none() && s.get("definitions").is_none());
        assert!(!s.to_string().contains("$ref"));
    }

    #[test]
    fn escaped_pointers_resolve() {
        let schema = json!({
            "type": "object",
            "properties": {"a": {"$ref": "#/$defs/a~1b%20c"}},
            "required": ["a"],
            "$defs": {"a/b c": {"type": "string"}}
        });
        assert_eq!(
            strict(&schema)["properties"]["a"],
            json!({"type": "string"})
        );
    }

    #[test]
    fn recursive_refs_are_errors() {
        let list = json!({
            "type": "object",
            "properties": {"head": {"$ref": "#/$defs/Node"}},
            "$defs": {"Node": {
                "type": "object",
                "properties": {"next": {"anyOf": [{"$ref": "#/$defs/Node"}, {"type": "null"}]}}
            }}
        });
        let e = error(&list);
        assert!(
            e.contains("#/properties/head/properties/next/anyOf/0"),
            "{e}"
        );
        assert!(e.contains("recursive reference `#/$defs/Node`"), "{e}");

        let root = json!({"type": "object", "properties": {"child": {"$ref": "#"}}});
        assert!(error(&root).contains("recursive reference `#`"));

        let cycle = json!({
            "type": "object",
            "properties": {"a": {"$ref": "#/$defs/A"}},
            "$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"$ref": "#/$defs/A"}}
        });
        assert!(error(&cycle).contains("recursive"));
    }

    #[test]
    fn a_ref_used_twice_is_not_recursion() {
        let schema = json!({
            "type": "object",
            "properties": {"from": {"$ref": "#/$defs/P"}, "to": {"$ref": "#/$defs/P"}},
            "required": ["from", "to"],
            "$defs": {"P": {"type": "object", "properties": {"x": {"$ref": "#/$defs/N"}}, "required": ["x"]},
                      "N": {"type": "number"}}
        });
        let s = strict(&schema);
        assert_eq!(s["properties"]["from"], s["properties"]["to"]);
    }

    #[test]
    fn non_local_and_dangling_refs_are_errors() {
        let remote = object(&json!({"a": {"$ref": "https://example.com/schema.json"}}));
        assert!(error(&remote).contains(
            "#/properties/a: the reference `https://example.com/schema.json` is not local"
        ));
        let anchor = object(&json!({"a": {"$ref": "#addressDef"}}));
        assert!(error(&anchor).contains("anchor"));
        let dangling = object(&json!({"a": {"$ref": "#/$defs/Missing"}}));
        assert!(error(&dangling).contains("points at nothing"));
    }

    #[test]
    fn maps_and_free_form_objects_are_errors() {
        let map =
            object(&json!({"m": {"type": "object", "additionalProperties": {"type": "integer"}}}));
        let e = error(&map);
        assert!(e.starts_with("#/properties/m: "), "{e}");
        assert!(e.contains("a map"), "{e}");

        let free = object(&json!({"m": {"type": "object"}}));
        assert!(error(&free).starts_with("#/properties/m: an object without `properties`"));

        let root = json!({"type": "object"});
        assert!(error(&root).starts_with("#: an object without `properties`"));

        let unevaluated = object(
            &json!({"m": {"type": "object", "properties": {}, "unevaluatedProperties": {"type": "string"}}}),
        );
        assert!(error(&unevaluated).contains("a map"));

        // A closed object without properties is the empty object.
        let empty = json!({"type": "object", "additionalProperties": false});
        assert_eq!(
            strict(&empty),
            json!({"type": "object", "properties": {}, "required": [], "additionalProperties": false})
        );
        // Open extra keys with declared properties close.
        let open = json!({"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": true, "required": ["a"]});
        assert_eq!(strict(&open)["additionalProperties"], false);
        let described = json!({"type": "object", "properties": {}, "additionalProperties": {"description": "anything"}});
        assert_eq!(strict(&described)["additionalProperties"], false);
        let unevaluated_false =
            json!({"type": "object", "properties": {}, "unevaluatedProperties": false});
        assert!(strict(&unevaluated_false)
            .get("unevaluatedProperties")
            .is_none());
    }

    #[test]
    fn required_without_a_schema_is_an_error() {
        let schema = json!({"type": "object", "properties": {}, "required": ["ghost"]});
        assert!(error(&schema).contains("`ghost`"));
    }

    #[test]
    fn root_must_be_an_object() {
        assert!(error(&json!({"type": "string"})).contains("root must be an object"));
        let any = json!({"anyOf": [
            {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
            {"type": "object", "properties": {"b": {"type": "string"}}, "required": ["b"]}
        ]});
        assert!(error(&any).contains("not `anyOf`"));
        assert!(
            error(&json!({"type": ["object", "null"], "properties": {}}))
                .contains("root must be an object")
        );
        // Typeless with properties: an object.
        assert_eq!(strict(&json!({"properties": {}}))["type"], "object");
    }

    #[test]
    fn unsupported_keywords_are_dropped_or_described() {
        let schema = json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "$id": "urn:x",
            "title": "Args",
            "type": "object",
            "properties": {
                "name": {"type": "string", "minLength": 1, "maxLength": 20, "title": "Name", "description": "Who"},
                "count": {"type": "integer", "default": 10, "minimum": 0, "maximum": 100, "format": "uint32"},
                "email": {"type": "string", "format": "email", "pattern": "^.+@.+$"},
                "site": {"type": "string", "format": "uri", "examples": ["https://a.example"]},
                "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": true, "minItems": 1, "maxItems": 5},
                "x": {"type": "number", "exclusiveMinimum": 0, "multipleOf": 0.5, "x-vendor": 1, "nullable": true, "deprecated": true}
            },
            "required": ["name", "count", "email", "site", "tags", "x"],
            "minProperties": 1
        });
        assert_eq!(
            strict(&schema),
            json!({
                "type": "object",
                "description": "minProperties: 1",
                "properties": {
                    "name": {"type": "string", "description": "Who (minLength: 1; maxLength: 20)"},
                    "count": {"type": "integer", "minimum": 0, "maximum": 100, "description": "default: 10"},
                    "email": {"type": "string", "format": "email", "pattern": "^.+@.+$"},
                    "site": {"type": "string", "description": "examples: [\"https://a.example\"]; format: uri"},
                    "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 5,
                             "description": "items must be unique"},
                    "x": {"type": "number", "exclusiveMinimum": 0, "multipleOf": 0.5}
                },
                "required": ["count", "email", "name", "site", "tags", "x"],
                "additionalProperties": false
            })
        );
    }

    #[test]
    fn fine_tuned_models_get_constraints_as_text() {
        let schema = object(&json!({
            "n": {"type": "integer", "minimum": 1, "description": "How many"},
            "s": {"type": "string", "pattern": "^a", "format": "date"},
            "v": {"type": "array", "items": {"type": "integer"}, "maxItems": 3}
        }));
        let s = to_strict_with(&schema, StrictOptions::fine_tuned()).unwrap();
        let p = &s["properties"];
        assert_eq!(
            p["n"],
            json!({"type": ["integer", "null"], "description": "How many (minimum: 1)"})
        );
        assert_eq!(
            p["s"],
            json!({"type": ["string", "null"], "description": "pattern: ^a; format: date"})
        );
        assert_eq!(p["v"]["description"], "maxItems: 3");
        assert!(p["v"]["anyOf"][0].get("maxItems").is_none());
        assert_eq!(
            StrictOptions::new().constraints(false),
            StrictOptions::fine_tuned()
        );
    }

    #[test]
    fn keywords_of_other_types_are_dropped() {
        let schema =
            object(&json!({"s": {"type": "string", "minimum": 3, "items": {"type": "string"}}}));
        assert_eq!(
            strict(&schema)["properties"]["s"],
            json!({"type": ["string", "null"]})
        );
    }

    #[test]
    fn draft4_exclusive_bounds() {
        let schema = json!({"type": "object", "properties": {"n": {
            "type": "number", "minimum": 0, "exclusiveMinimum": true, "maximum": 9, "exclusiveMaximum": false
        }}, "required": ["n"]});
        assert_eq!(
            strict(&schema)["properties"]["n"],
            json!({"type": "number", "exclusiveMinimum": 0, "maximum": 9})
        );
    }

    #[test]
    fn const_becomes_enum_and_types_are_inferred() {
        let schema = json!({"type": "object", "properties": {
            "k": {"const": "circle"},
            "e": {"enum": ["a", 1, null]},
            "n": {"enum": [1, 2.5]},
            "both": {"enum": ["a", "b"], "const": "b", "type": "string"},
            "arr": {"items": {"type": "integer"}}
        }, "required": ["k", "e", "n", "both", "arr"]});
        let p = strict(&schema)["properties"].clone();
        assert_eq!(p["k"], json!({"type": "string", "enum": ["circle"]}));
        assert_eq!(
            p["e"],
            json!({"type": ["string", "integer", "null"], "enum": ["a", 1, null]})
        );
        assert_eq!(p["n"], json!({"type": "number", "enum": [1, 2.5]}));
        assert_eq!(p["both"], json!({"type": "string", "enum": ["b"]}));
        assert_eq!(
            p["arr"],
            json!({"type": "array", "items": {"type": "integer"}})
        );
    }

    #[test]
    fn bad_enums_are_errors() {
        assert!(error(&object(&json!({"e": {"enum": []}}))).contains("empty `enum`"));
        assert!(
            error(&object(&json!({"e": {"enum": [{"a": 1}]}}))).contains("object or array values")
        );
        assert!(error(&object(&json!({"e": {"enum": ["a"], "const": "b"}})))
            .contains("`const` is not one of `enum`"));
    }

    #[test]
    fn missing_or_unknown_types_are_errors() {
        let e = error(&object(&json!({"any": {"description": "anything"}})));
        assert!(e.starts_with("#/properties/any: no `type`"), "{e}");
        assert!(error(&object(&json!({"any": {}}))).contains("no `type`"));
        assert!(error(&object(&json!({"any": true}))).contains("no `type`"));
        assert!(error(&object(&json!({"never": false}))).contains("accepts no value"));
        assert!(error(&object(&json!({"d": {"type": "date"}}))).contains("type `date`"));
        assert!(
            error(&object(&json!({"d": {"type": 3}}))).contains("neither a string nor an array")
        );
        assert!(error(&object(&json!({"d": 3}))).contains("not a schema"));
    }

    #[test]
    fn arrays_need_items() {
        let e = error(&object(&json!({"a": {"type": "array"}})));
        assert!(
            e.starts_with("#/properties/a: an array without `items`"),
            "{e}"
        );
        assert!(error(&object(
            &json!({"a": {"type": "array", "items": [{"type": "string"}]}})
        ))
        .contains("tuple"));
        assert!(error(&object(
            &json!({"a": {"type": "array", "prefixItems": [{"type": "string"}], "items": false}})
        ))
        .contains("`prefixItems`"));
        assert!(
            error(&object(&json!({"a": {"type": "array", "items": {}}})))
                .contains("#/properties/a/items: no `type`")
        );
    }

    #[test]
    fn unsupported_composition_is_an_error() {
        for key in [
            "not",
            "if",
            "then",
            "else",
            "dependentRequired",
            "dependentSchemas",
            "patternProperties",
            "propertyNames",
            "contains",
        ] {
            let mut schema = object(&json!({"a": {"type": "string"}}));
            schema[key] = json!({});
            let e = error(&schema);
            assert_eq!(e, format!("#: `{key}` cannot be expressed in strict mode"));
        }
        let all = object(&json!({"a": {"allOf": [{"type": "string"}, {"minLength": 1}]}}));
        assert_eq!(
            error(&all),
            "#/properties/a: `allOf` with 2 schemas cannot be expressed in strict mode"
        );
    }

    #[test]
    fn single_allof_is_merged() {
        let schema = json!({
            "type": "object",
            "properties": {"a": {"allOf": [{"$ref": "#/$defs/E"}], "description": "mine", "default": "x"}},
            "$defs": {"E": {"type": "string", "enum": ["x", "y"], "description": "theirs"}}
        });
        assert_eq!(
            strict(&schema)["properties"]["a"],
            json!({"description": "mine (default: \"x\")", "anyOf": [{"type": "string", "enum": ["x", "y"]}, {"type": "null"}]})
        );
        let conflict = object(&json!({"a": {"allOf": [{"type": "string"}], "type": "integer"}}));
        assert!(error(&conflict).contains("`type` differs"));
    }

    #[test]
    fn oneof_becomes_anyof_when_exclusive() {
        // Externally tagged Rust enum: a string enum and single-key objects.
        let external = json!({"type": "object", "properties": {"shape": {"oneOf": [
            {"type": "string", "enum": ["Empty"]},
            {"type": "object", "properties": {"Circle": {"type": "number"}}, "required": ["Circle"], "additionalProperties": false},
            {"type": "object", "properties": {"Square": {"type": "number"}}, "required": ["Square"], "additionalProperties": false}
        ]}}, "required": ["shape"]});
        let s = strict(&external);
        assert_eq!(
            s["properties"]["shape"]["anyOf"].as_array().unwrap().len(),
            3
        );
        // Internally tagged: a required tag with different constants.
        let internal = json!({"type": "object", "properties": {"shape": {"oneOf": [
            {"type": "object", "properties": {"kind": {"type": "string", "const": "circle"}, "r": {"type": "number"}}, "required": ["kind", "r"]},
            {"type": "object", "properties": {"kind": {"type": "string", "const": "square"}, "side": {"type": "number"}}, "required": ["kind", "side"]}
        ]}}, "required": ["shape"]});
        let s = strict(&internal);
        assert_eq!(
            s["properties"]["shape"]["anyOf"][0]["properties"]["kind"],
            json!({"type": "string", "enum": ["circle"]})
        );
        // Different types; integer against string.
        let types = object(&json!({"v": {"oneOf": [{"type": "string"}, {"type": "integer"}]}}));
        strict(&types);
        // Overlap: integer is a number.
        let overlap = object(&json!({"v": {"oneOf": [{"type": "number"}, {"type": "integer"}]}}));
        assert!(error(&overlap).contains("#/properties/v: `oneOf` whose alternatives may overlap"));
        let open = object(&json!({"v": {"oneOf": [
            {"type": "object", "properties": {"a": {"type": "string"}}},
            {"type": "object", "properties": {"b": {"type": "string"}}}
        ]}}));
        assert!(error(&open).contains("may overlap"));
        assert!(error(&object(
            &json!({"v": {"oneOf": [{"type": "string"}], "anyOf": [{"type": "string"}]}})
        ))
        .contains("both"));
        assert!(error(&object(&json!({"v": {"anyOf": []}}))).contains("non-empty"));
    }

    #[test]
    fn union_siblings_apply_to_every_alternative() {
        let schema = json!({"type": "object", "properties": {"v": {
            "description": "a value",
            "type": "object",
            "properties": {"id": {"type": "string"}},
            "required": ["id"],
            "anyOf": [
                {"properties": {"a": {"type": "integer"}}, "required": ["a"]},
                {"properties": {"b": {"type": "integer"}}, "required": ["b"]}
            ]
        }}, "required": ["v"]});
        // Both alternatives carry `properties`: they cannot be merged.
        assert!(error(&schema).contains("`properties` differs"));
        let schema = json!({"type": "object", "properties": {"v": {
            "description": "a value",
            "minimum": 0,
            "anyOf": [{"type": "integer"}, {"type": "string"}]
        }}, "required": ["v"]});
        assert_eq!(
            strict(&schema)["properties"]["v"],
            json!({"description": "a value", "anyOf": [{"type": "integer", "minimum": 0}, {"type": "string"}]})
        );
    }

    #[test]
    fn nested_unions_are_spliced() {
        let schema = json!({
            "type": "object",
            "properties": {"v": {"anyOf": [{"$ref": "#/$defs/U"}, {"type": "null"}]}},
            "required": ["v"],
            "$defs": {"U": {"oneOf": [{"type": "string"}, {"type": "integer"}]}}
        });
        assert_eq!(
            strict(&schema)["properties"]["v"],
            json!({"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]})
        );
        // A described inner union stays whole.
        let schema = json!({
            "type": "object",
            "properties": {"v": {"anyOf": [{"anyOf": [{"type": "string"}, {"type": "integer"}], "description": "d"}, {"type": "null"}]}},
            "required": ["v"]
        });
        assert_eq!(
            strict(&schema)["properties"]["v"]["anyOf"][0]["description"],
            "d"
        );
    }

    fn nest(levels: usize) -> Value {
        let mut schema = json!({"type": "string"});
        for _ in 0..levels {
            schema = json!({"type": "object", "properties": {"x": schema}, "required": ["x"]});
        }
        schema
    }

    #[test]
    fn nesting_limit() {
        // Ten objects below the root: the string leaf is at depth 10.
        strict(&nest(10));
        let e = error(&nest(11));
        assert!(e.contains("nested more than 10 levels"), "{e}");
        assert!(e.starts_with("#/properties/x/properties/x"), "{e}");
        // The null wrapper of an optional object counts as a level.
        let mut optional = nest(10);
        let mut node = &mut optional;
        for _ in 0..8 {
            node = &mut node["properties"]["x"];
        }
        node["required"] = json!([]);
        let e = error(&optional);
        assert!(
            e.contains("/anyOf/0/properties/x: nested more than 10"),
            "{e}"
        );
    }

    #[test]
    fn size_limits() {
        let many: Map<String, Value> = (0..5001)
            .map(|i| (format!("p{i}"), json!({"type": "string"})))
            .collect();
        assert!(error(&json!({"type": "object", "properties": many}))
            .contains("5000 object properties"));
        let values: Vec<Value> = (0..1001).map(|i| json!(i)).collect();
        let e = error(&object(&json!({"e": {"type": "integer", "enum": values}})));
        assert!(e.contains("1001 enum values"), "{e}");
        let long: Vec<Value> = (0..300).map(|i| json!(format!("{i:0>60}"))).collect();
        let e = error(&object(&json!({"e": {"type": "string", "enum": long}})));
        assert!(
            e.starts_with("#/properties/e/anyOf/0: an enum of 300 values"),
            "{e}"
        );
        let names: Map<String, Value> = (0..2000)
            .map(|i| (format!("{i:0>61}"), json!({"type": "string"})))
            .collect();
        assert!(error(&json!({"type": "object", "properties": names})).contains("characters"));
    }

    #[test]
    fn inlining_blowup_is_bounded() {
        let mut defs = Map::new();
        defs.insert("D0".into(), json!({"type": "string"}));
        for i in 1..10 {
            let props: Map<String, Value> = (0..12)
                .map(|j| {
                    (
                        format!("f{j}"),
                        json!({"$ref": format!("#/$defs/D{}", i - 1)}),
                    )
                })
                .collect();
            defs.insert(
                format!("D{i}"),
                json!({"type": "object", "properties": props}),
            );
        }
        let schema = json!({"type": "object", "properties": {"root": {"$ref": "#/$defs/D9"}}, "$defs": defs});
        let e = error(&schema);
        assert!(
            e.contains("5000 object properties") || e.contains("subschemas"),
            "{e}"
        );
    }

    #[test]
    fn nullability() {
        assert!(is_nullable(&json!(true)));
        assert!(is_nullable(&json!({})));
        assert!(is_nullable(&json!({"type": "null"})));
        assert!(is_nullable(&json!({"enum": ["a", null]})));
        assert!(is_nullable(&json!({"const": null})));
        assert!(is_nullable(
            &json!({"oneOf": [{"type": "string"}, {"type": "null"}]})
        ));
        assert!(is_nullable(
            &json!({"allOf": [{"type": ["string", "null"]}]})
        ));
        assert!(!is_nullable(&json!(false)));
        assert!(!is_nullable(&json!({"type": "string"})));
        assert!(!is_nullable(&json!({"enum": ["a"]})));
        assert!(!is_nullable(&json!({"type": "null", "enum": ["a"]})));
        assert!(!is_nullable(
            &json!({"oneOf": [{"type": ["string", "null"]}, {"type": "null"}]})
        ));
        assert!(!is_nullable(&json!({"$ref": "#/$defs/X"})));
        assert!(!is_nullable(&json!({"not": {"type": "string"}})));
        let root = json!({"$defs": {"N": {"type": "null"}}});
        assert!(accepts_null(Some(&root), &json!({"$ref": "#/$defs/N"}), 0));
    }

    #[test]
    fn arguments_back() {
        let schema = json!({
            "type": "object",
            "properties": {
                "req": {"type": "string"},
                "opt": {"type": "string"},
                "opt_null": {"type": ["string", "null"]},
                "req_null": {"type": ["integer", "null"]},
                "inner": {"$ref": "#/$defs/Inner"},
                "list": {"type": "array", "items": {"$ref": "#/$defs/Inner"}}
            },
            "required": ["req", "req_null"],
            "$defs": {"Inner": {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "boolean"}}, "required": ["a"]}}
        });
        let strict_args = json!({
            "req": "x", "opt": null, "opt_null": null, "req_null": null,
            "inner": {"a": 1, "b": null},
            "list": [{"a": 2, "b": null}, {"a": 3, "b": true}]
        });
        assert_eq!(
            from_strict(&schema, strict_args),
            json!({
                "req": "x", "opt_null": null, "req_null": null,
                "inner": {"a": 1},
                "list": [{"a": 2}, {"a": 3, "b": true}]
            })
        );
        // An absent optional object.
        assert_eq!(
            from_strict(&schema, json!({"req": "x", "req_null": 1, "inner": null})),
            json!({"req": "x", "req_null": 1})
        );
        // Through a reference to the root.
        let tree = json!({"type": "object", "properties": {
            "label": {"type": "string"},
            "children": {"type": "array", "items": {"$ref": "#"}}
        }});
        assert_eq!(
            from_strict(
                &tree,
                json!({"label": null, "children": [{"label": null, "children": []}]})
            ),
            json!({"children": [{"children": []}]})
        );
        // Not an object: unchanged.
        assert_eq!(from_strict(&schema, json!("text")), json!("text"));
        assert_eq!(
            from_strict(&json!(true), json!({"a": null})),
            json!({"a": null})
        );
    }

    #[test]
    fn arguments_back_through_unions() {
        let schema = json!({
            "type": "object",
            "properties": {"shape": {"oneOf": [
                {"type": "object", "properties": {"kind": {"const": "circle"}, "r": {"type": "number"}, "label": {"type": "string"}}, "required": ["kind", "r"]},
                {"type": "object", "properties": {"kind": {"const": "square"}, "side": {"type": "number"}, "label": {"type": "string"}}, "required": ["kind", "side"]}
            ]}},
            "required": ["shape"]
        });
        let to = strict(&schema);
        assert_eq!(
            to["properties"]["shape"]["anyOf"].as_array().unwrap().len(),
            2
        );
        assert_eq!(
            from_strict(
                &schema,
                json!({"shape": {"kind": "square", "side": 2, "label": null}})
            ),
            json!({"shape": {"kind": "square", "side": 2}})
        );
        assert_eq!(
            from_strict(
                &schema,
                json!({"shape": {"kind": "circle", "r": 1, "label": "c"}})
            ),
            json!({"shape": {"kind": "circle", "r": 1, "label": "c"}})
        );
        // Nothing matches: unchanged.
        assert_eq!(
            from_strict(
                &schema,
                json!({"shape": {"kind": "hexagon", "label": null}})
            ),
            json!({"shape": {"kind": "hexagon", "label": null}})
        );
    }

    #[test]
    fn acceptance_of_strict_values() {
        let s = strict(&json!({"type": "object", "properties": {
            "n": {"type": "integer"}, "f": {"type": "number"}, "e": {"enum": [1, "a"]},
            "l": {"type": "array", "items": {"type": "boolean"}}
        }, "required": ["n", "f", "e", "l"]}));
        assert!(accepts(&s, &json!({"n": 1, "f": 1, "e": 1.0, "l": [true]})));
        assert!(accepts(&s, &json!({"n": 2.0, "f": 1.5, "e": "a", "l": []})));
        assert!(!accepts(&s, &json!({"n": 1.5, "f": 1, "e": 1, "l": []})));
        assert!(!accepts(&s, &json!({"n": 1, "f": 1, "e": 1})));
        assert!(!accepts(
            &s,
            &json!({"n": 1, "f": 1, "e": 1, "l": [], "extra": 0})
        ));
        assert!(!accepts(&s, &json!({"n": 1, "f": 1, "e": 2, "l": []})));
        assert!(!accepts(&s, &json!({"n": 1, "f": 1, "e": 1, "l": [1]})));
    }
}
