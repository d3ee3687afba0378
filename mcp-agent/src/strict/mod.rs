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

use serde_json::Value;

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
/// let strict = oxmcp_agent::strict::to_strict(&schema).unwrap();
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
/// assert!(oxmcp_agent::strict::to_strict(&map).is_err());
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
/// let args = oxmcp_agent::strict::from_strict(&schema, json!({"city": "Oslo", "days": null}));
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
/// use oxmcp_agent::strict::is_nullable;
///
/// assert!(is_nullable(&json!({"type": ["string", "null"]})));
/// assert!(is_nullable(&json!({"anyOf": [{"type": "integer"}, {"type": "null"}]})));
/// assert!(!is_nullable(&json!({"type": "string"})));
/// ```
pub fn is_nullable(schema: &Value) -> bool {
    accepts_null(None, schema, 0)
}

use self::back::Back;
use self::convert::Converter;
use self::limits::{check_limits, Totals};
use self::read::accepts_null;

mod back;
mod convert;
mod keywords;
mod limits;
mod read;
#[cfg(test)]
mod tests;
