//! The rules of a tool's parameters: those declared in `#[param]` (a range,
//! a length, a pattern, the allowed values) and those a type implies (an
//! integer's natural bounds). Each is written into the input schema, checked
//! on every call before the tool runs, and worded for the model from the
//! parameter's schema ("an integer from 1 to 16").

use std::borrow::Cow;
use std::fmt::Write as _;

use oxmcp_types::JsonObject;
use serde::de::IgnoredAny;
use serde_json::{Number, Value};

use crate::common::json_text;

/// One bound of a numeric range, as `#[param(min = ..)]` writes it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Bound {
    /// An integer literal.
    Int(i128),
    /// A float literal.
    Float(f64),
}

impl Bound {
    /// The bound as a JSON number (an integer beyond 64 bits as a float).
    pub(crate) fn to_json(self) -> Value {
        match self {
            Bound::Int(i) => i64::try_from(i)
                .map(Value::from)
                .or_else(|_| u64::try_from(i).map(Value::from))
                .unwrap_or_else(|_| {
                    #[allow(clippy::cast_precision_loss, reason = "beyond 64 bits, as a float")]
                    float_json(i as f64)
                }),
            Bound::Float(f) => float_json(f),
        }
    }

    /// `n` compared with the bound.
    fn cmp(self, n: &Number) -> Option<std::cmp::Ordering> {
        match (self, as_int(n)) {
            (Bound::Int(b), Some(i)) => Some(i.cmp(&b)),
            #[allow(clippy::cast_precision_loss, reason = "compared as floats")]
            (Bound::Int(b), None) => n.as_f64()?.partial_cmp(&(b as f64)),
            (Bound::Float(b), _) => n.as_f64()?.partial_cmp(&b),
        }
    }
}

fn float_json(f: f64) -> Value {
    Number::from_f64(f).map_or(Value::Null, Value::Number)
}

fn as_int(n: &Number) -> Option<i128> {
    n.as_i64()
        .map(i128::from)
        .or_else(|| n.as_u64().map(i128::from))
}

/// What a length counts: a string's characters or a list's items.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LengthOf {
    /// Unicode scalar values, as JSON Schema's `minLength` counts them.
    Chars,
    /// Array items (`minItems`).
    Items,
}

impl LengthOf {
    /// The schema's keywords for the least and the most.
    pub(crate) fn keywords(self) -> (&'static str, &'static str) {
        match self {
            LengthOf::Chars => ("minLength", "maxLength"),
            LengthOf::Items => ("minItems", "maxItems"),
        }
    }
}

/// The checks of one parameter beyond its type.
#[derive(Debug, Default)]
pub(crate) struct Rules {
    /// The least value, and whether it is excluded.
    pub(crate) min: Option<(Bound, bool)>,
    /// The greatest value, and whether it is excluded.
    pub(crate) max: Option<(Bound, bool)>,
    pub(crate) length: Option<(LengthOf, Option<u64>, Option<u64>)>,
    #[cfg(feature = "validation")]
    pub(crate) pattern: Option<regex::Regex>,
    /// The allowed values (`enum`), compared as JSON.
    pub(crate) allowed: Vec<Value>,
}

impl Rules {
    fn is_empty(&self) -> bool {
        let no_pattern = {
            #[cfg(feature = "validation")]
            {
                self.pattern.is_none()
            }
            #[cfg(not(feature = "validation"))]
            {
                true
            }
        };
        self.min.is_none()
            && self.max.is_none()
            && self.length.is_none()
            && self.allowed.is_empty()
            && no_pattern
    }

    /// `Err` with what was sent (worded for the model) when `arg` breaks a rule.
    fn check(&self, arg: &JsonArg<'_>) -> Result<(), String> {
        if self.is_empty() || arg.is_null() {
            return Ok(());
        }
        if let Some(n) = arg.number() {
            let low = self.min.is_some_and(|(b, excl)| {
                b.cmp(&n).is_none_or(|o| o.is_lt() || (excl && o.is_eq()))
            });
            let high = self.max.is_some_and(|(b, excl)| {
                b.cmp(&n).is_none_or(|o| o.is_gt() || (excl && o.is_eq()))
            });
            if low || high {
                return Err(n.to_string());
            }
        }
        if let Some((of, min, max)) = self.length {
            let count = match of {
                LengthOf::Chars => arg.string().map(|s| s.chars().count() as u64),
                LengthOf::Items => arg.items(),
            };
            if let Some(count) = count {
                if min.is_some_and(|m| count < m) || max.is_some_and(|m| count > m) {
                    let unit = match of {
                        LengthOf::Chars => "character",
                        LengthOf::Items => "item",
                    };
                    let s = if count == 1 { "" } else { "s" };
                    return Err(format!("{count} {unit}{s}"));
                }
            }
        }
        #[cfg(feature = "validation")]
        if let Some(re) = &self.pattern {
            if arg.string().is_some_and(|s| !re.is_match(&s)) {
                return Err("a string that does not match".to_owned());
            }
        }
        if !self.allowed.is_empty() {
            let value = arg.value();
            if !value
                .as_ref()
                .is_some_and(|v| self.allowed.iter().any(|a| same(a, v)))
            {
                return Err(arg.got(true));
            }
        }
        Ok(())
    }
}

/// Whether two JSON values are equal, numbers compared by value (`1` is `1.0`).
fn same(allowed: &Value, sent: &Value) -> bool {
    match (allowed, sent) {
        (Value::Number(want), Value::Number(got)) => match (as_int(want), as_int(got)) {
            (Some(want), Some(got)) => want == got,
            _ => want.as_f64() == got.as_f64(),
        },
        _ => allowed == sent,
    }
}

/// One parameter as the checks see it.
#[derive(Debug)]
pub(crate) struct Param {
    /// Its name on the wire.
    pub(crate) name: String,
    /// What it must be, for the model: "an integer from 1 to 16".
    pub(crate) expected: String,
    /// It is an object: a value that does not decode is described by
    /// serde's words (which field is missing or wrong).
    object: bool,
    /// Its schema lists the values allowed: a string sent is echoed.
    lists_values: bool,
    rules: Rules,
}

/// The parameters of one tool, in order: their names, their rules and the
/// words of their errors. Built once with the input schema
/// ([`InputSchemaBuilder::finish`](crate::tool::schema::InputSchemaBuilder::finish)).
#[derive(Debug, Default)]
pub struct Params {
    pub(crate) list: Vec<Param>,
}

impl Params {
    pub(crate) fn get(&self, i: usize) -> Option<&Param> {
        self.list.get(i)
    }

    /// Whether `name` is one of them.
    pub(crate) fn accepts(&self, name: &str) -> bool {
        self.list.iter().any(|p| p.name == name)
    }

    /// "the arguments are `a`, `b`" or "the tool takes no arguments".
    pub(crate) fn accepted(&self) -> String {
        if self.list.is_empty() {
            return "the tool takes no arguments".to_owned();
        }
        let mut out = String::from("the arguments are ");
        for (i, p) in self.list.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            let _ = write!(out, "`{}`", p.name);
        }
        out
    }
}

impl Param {
    /// Parameter `name` of schema `schema` (its property in the input
    /// schema, whose `$defs` are `defs`), with its rules.
    pub(crate) fn new(
        name: String,
        schema: Option<&Value>,
        defs: &JsonObject,
        rules: Rules,
    ) -> Param {
        let any = Value::Bool(true);
        let schema = schema.unwrap_or(&any);
        let resolved = resolve(schema, defs).and_then(Value::as_object);
        Param {
            name,
            expected: describe(schema, Some(defs), 0),
            object: resolved.is_some_and(|o| o.get("type") == Some(&Value::from("object"))),
            lists_values: resolved.is_some_and(|o| allowed_values(o, Some(defs)).is_some()),
            rules,
        }
    }

    /// `Err` with the model's words when `arg` breaks a rule.
    pub(crate) fn check(&self, arg: &JsonArg<'_>) -> Result<(), String> {
        self.rules.check(arg).map_err(|got| self.invalid(&got))
    }

    /// "`days` must be an integer from 1 to 16 (got 20)".
    pub(crate) fn invalid(&self, got: &str) -> String {
        must_be(&self.name, &self.expected, got)
    }

    /// "missing required argument `days` (an integer from 1 to 16)".
    pub(crate) fn missing(&self) -> String {
        missing_argument(&self.name, Some(&self.expected))
    }

    /// A value that did not decode, in the model's words: what the
    /// parameter must be and what was sent; for an object, serde's `detail`.
    pub(crate) fn undecodable(&self, arg: &JsonArg<'_>, detail: &str) -> String {
        if self.object {
            format!("`{}` must be {} ({detail})", self.name, self.expected)
        } else {
            self.invalid(&arg.got(self.lists_values))
        }
    }
}

/// "`days` must be an integer from 1 to 16 (got 20)": an argument of the
/// wrong kind, in the words of its schema, for a tool's argument and a
/// prompt's alike.
pub(crate) fn must_be(name: &str, expected: &str, got: &str) -> String {
    format!("`{name}` must be {expected} (got {got})")
}

/// "missing required argument `days` (an integer from 1 to 16)", or
/// without the words when there are none (a type with no schema).
pub(crate) fn missing_argument(name: &str, expected: Option<&str>) -> String {
    match expected {
        Some(expected) => format!("missing required argument `{name}` ({expected})"),
        None => format!("missing required argument `{name}`"),
    }
}

/// What a value of the root schema `schema` (with its `$defs`) must be,
/// in the model's words: "an integer from 0 to 255".
pub(crate) fn expected(schema: &Value) -> String {
    let defs = schema.get("$defs").and_then(Value::as_object);
    describe(schema, defs, 0)
}

/// A string sent as it is shown back: quoted, cut after 40 bytes.
pub(crate) fn shown(text: &str) -> String {
    JsonArg::Value(&Value::from(text)).got(true)
}

/// One argument's JSON, where the call holds it: request text or a value.
pub(crate) enum JsonArg<'a> {
    Text(&'a str),
    Value(&'a Value),
}

impl JsonArg<'_> {
    fn is_null(&self) -> bool {
        match self {
            JsonArg::Text(t) => *t == "null",
            JsonArg::Value(v) => v.is_null(),
        }
    }

    fn number(&self) -> Option<Number> {
        match self {
            JsonArg::Text(t) if t.starts_with(|c: char| c == '-' || c.is_ascii_digit()) => {
                serde_json::from_str(t).ok()
            }
            JsonArg::Text(_) => None,
            JsonArg::Value(v) => v.as_number().cloned(),
        }
    }

    fn string(&self) -> Option<Cow<'_, str>> {
        match self {
            JsonArg::Text(t) if t.starts_with('"') => serde_json::from_str::<&str>(t)
                .map(Cow::Borrowed)
                .or_else(|_| serde_json::from_str::<String>(t).map(Cow::Owned))
                .ok(),
            JsonArg::Text(_) => None,
            JsonArg::Value(v) => v.as_str().map(Cow::Borrowed),
        }
    }

    /// The number of items of an array (a `Vec` of a zero-sized type
    /// does not allocate).
    fn items(&self) -> Option<u64> {
        match self {
            JsonArg::Text(t) if t.starts_with('[') => serde_json::from_str::<Vec<IgnoredAny>>(t)
                .ok()
                .map(|v| v.len() as u64),
            JsonArg::Text(_) => None,
            JsonArg::Value(v) => v.as_array().map(|a| a.len() as u64),
        }
    }

    fn value(&self) -> Option<Value> {
        match self {
            JsonArg::Text(t) => serde_json::from_str(t).ok(),
            JsonArg::Value(v) => Some((*v).clone()),
        }
    }

    /// What was sent, without echoing a string (it may be a secret) unless
    /// `echo_strings` (the parameter lists its allowed values).
    fn got(&self, echo_strings: bool) -> String {
        const MAX: usize = 40;
        let text: Cow<'_, str> = match self {
            JsonArg::Text(t) => Cow::Borrowed(t),
            JsonArg::Value(v) => Cow::Owned(json_text(v)),
        };
        let short = |t: &str| {
            if t.len() <= MAX {
                t.to_owned()
            } else {
                let cut = (0..=MAX)
                    .rev()
                    .find(|&i| t.is_char_boundary(i))
                    .unwrap_or(0);
                format!("{}…", &t[..cut])
            }
        };
        match text.as_bytes().first() {
            Some(b'"') if echo_strings => short(&text),
            Some(b'"') => "a string".to_owned(),
            Some(b'[') => "a list".to_owned(),
            Some(b'{') => "an object".to_owned(),
            _ => short(&text),
        }
    }
}

/// Integer formats (as schemars names them) whose natural bounds it leaves
/// out of the schema. 128-bit integers are left out: their bounds are beyond
/// what a JSON number holds exactly, and most clients parse numbers as f64.
fn natural_bounds(format: &str) -> Option<(Value, Value)> {
    Some(match format {
        "uint8" => (0.into(), u8::MAX.into()),
        "uint16" => (0.into(), u16::MAX.into()),
        "uint32" => (0.into(), u32::MAX.into()),
        "uint64" => (0.into(), u64::MAX.into()),
        "uint" => (0.into(), (usize::MAX as u64).into()),
        "int8" => (i8::MIN.into(), i8::MAX.into()),
        "int16" => (i16::MIN.into(), i16::MAX.into()),
        "int32" => (i32::MIN.into(), i32::MAX.into()),
        "int64" => (i64::MIN.into(), i64::MAX.into()),
        "int" => ((isize::MIN as i64).into(), (isize::MAX as i64).into()),
        _ => return None,
    })
}

/// Adds each integer's natural bounds where its schema (or a schema inside
/// it) lacks them: `u32` is "from 0 to 4294967295", not just "from 0".
pub(crate) fn add_natural_bounds(schema: &mut Value) {
    match schema {
        Value::Object(obj) => {
            let integer = match obj.get("type") {
                Some(Value::String(t)) => t == "integer",
                Some(Value::Array(ts)) => ts.iter().any(|t| t == "integer"),
                _ => false,
            };
            let bounds = obj
                .get("format")
                .and_then(Value::as_str)
                .and_then(natural_bounds);
            if let (true, Some((min, max))) = (integer, bounds) {
                if !obj.contains_key("exclusiveMinimum") {
                    obj.entry("minimum").or_insert(min);
                }
                if !obj.contains_key("exclusiveMaximum") {
                    obj.entry("maximum").or_insert(max);
                }
            }
            obj.values_mut().for_each(add_natural_bounds);
        }
        Value::Array(items) => items.iter_mut().for_each(add_natural_bounds),
        _ => {}
    }
}

/// The schema a `$ref` names, or the one branch of an `Option`'s `anyOf`
/// that is not `null`, else `schema` itself.
fn resolve<'a>(schema: &'a Value, defs: &'a JsonObject) -> Option<&'a Value> {
    let obj = schema.as_object()?;
    if let Some(target) = obj.get("$ref").and_then(Value::as_str) {
        return defs.get(target.strip_prefix("#/$defs/")?);
    }
    if let Some(Value::Array(branches)) = obj.get("anyOf") {
        let mut real = branches
            .iter()
            .filter(|b| b.get("type") != Some(&Value::from("null")));
        if let (Some(one), None) = (real.next(), real.next()) {
            return resolve(one, defs);
        }
    }
    Some(schema)
}

/// What a value of `schema` must be, in the model's words: "an integer from
/// 0 to 255", "one of \"c\", \"f\"", "a list, each item a string".
fn describe(schema: &Value, defs: Option<&JsonObject>, depth: u8) -> String {
    let Some(obj) = schema.as_object() else {
        return "any value".to_owned();
    };
    if depth > 4 {
        return "a valid value".to_owned();
    }
    if let Some(target) = obj.get("$ref").and_then(Value::as_str) {
        let def = target
            .strip_prefix("#/$defs/")
            .and_then(|name| defs?.get(name));
        return match def {
            Some(def) => describe(def, defs, depth + 1),
            None => "a valid value".to_owned(),
        };
    }
    if let Some(values) = allowed_values(obj, defs) {
        return one_of(&values);
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = obj.get(key) {
            let words: Vec<String> = branches
                .iter()
                .filter(|b| b.get("type").and_then(Value::as_str) != Some("null"))
                .map(|b| describe(b, defs, depth + 1))
                .collect();
            return words.join(" or ");
        }
    }
    let kind = match obj.get("type") {
        Some(Value::String(t)) => t.as_str(),
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null")
            .unwrap_or("null"),
        _ => return "a valid value".to_owned(),
    };
    match kind {
        "integer" => format!("an integer{}", range(obj)),
        "number" => format!("a number{}", range(obj)),
        "boolean" => "true or false".to_owned(),
        "string" => {
            let mut out = format!(
                "a string{}",
                length(obj, "minLength", "maxLength", "character")
            );
            if let Some(p) = obj.get("pattern").and_then(Value::as_str) {
                let _ = write!(out, " matching `{p}`");
            }
            out
        }
        "array" => {
            let mut out = format!("a list{}", length(obj, "minItems", "maxItems", "item"));
            if let Some(items) = obj.get("items") {
                let _ = write!(out, ", each item {}", describe(items, defs, depth + 1));
            }
            out
        }
        "object" => object(obj, defs, depth),
        "null" => "null".to_owned(),
        _ => "a valid value".to_owned(),
    }
}

/// The values of an `enum`, a `const`, or a `oneOf` of them (an enum of
/// unit variants, some documented).
fn allowed_values(obj: &JsonObject, defs: Option<&JsonObject>) -> Option<Vec<Value>> {
    if let Some(Value::Array(values)) = obj.get("enum") {
        return Some(values.iter().filter(|v| !v.is_null()).cloned().collect());
    }
    if let Some(value) = obj.get("const") {
        return Some(vec![value.clone()]);
    }
    let branches = obj.get("oneOf").or_else(|| obj.get("anyOf"))?.as_array()?;
    let mut out = Vec::new();
    for branch in branches {
        let branch = match branch.get("$ref").and_then(Value::as_str) {
            Some(target) => defs?.get(target.strip_prefix("#/$defs/")?)?,
            None => branch,
        };
        let b = branch.as_object()?;
        if b.get("type").and_then(Value::as_str) == Some("null") {
            continue;
        }
        out.extend(allowed_values(b, defs)?);
    }
    (!out.is_empty()).then_some(out)
}

fn one_of(values: &[Value]) -> String {
    let list: Vec<String> = values.iter().map(json_text).collect();
    match list.as_slice() {
        [one] => one.clone(),
        _ => format!("one of {}", list.join(", ")),
    }
}

fn range(obj: &JsonObject) -> String {
    let get = |k: &str| obj.get(k).filter(|v| v.is_number()).map(json_text);
    let (min, xmin) = (get("minimum"), get("exclusiveMinimum"));
    let (max, xmax) = (get("maximum"), get("exclusiveMaximum"));
    let low = match (&min, &xmin) {
        (_, Some(x)) => Some(format!("greater than {x}")),
        (Some(m), None) => Some(format!("at least {m}")),
        _ => None,
    };
    let high = match (&max, &xmax) {
        (_, Some(x)) => Some(format!("less than {x}")),
        (Some(m), None) => Some(format!("at most {m}")),
        _ => None,
    };
    match (min, max, xmin, xmax, low, high) {
        (Some(a), Some(b), None, None, _, _) => format!(" from {a} to {b}"),
        (.., Some(l), Some(h)) => format!(" {l} and {h}"),
        (.., Some(l), None) => format!(" {l}"),
        (.., None, Some(h)) => format!(" {h}"),
        _ => String::new(),
    }
}

fn length(obj: &JsonObject, min_key: &str, max_key: &str, unit: &str) -> String {
    let get = |k: &str| obj.get(k).and_then(Value::as_u64);
    let plural = |n: u64| if n == 1 { "" } else { "s" };
    match (get(min_key), get(max_key)) {
        (Some(a), Some(b)) if a == b => format!(" of exactly {a} {unit}{}", plural(a)),
        (Some(a), Some(b)) => format!(" of {a} to {b} {unit}s"),
        (Some(a), None) => format!(" of at least {a} {unit}{}", plural(a)),
        (None, Some(b)) => format!(" of at most {b} {unit}{}", plural(b)),
        (None, None) => String::new(),
    }
}

/// "an object with `name` (required), `limit` (optional)": which fields
/// the model must send is what it needs to fix a call, so the required
/// ones come first.
fn object(obj: &JsonObject, defs: Option<&JsonObject>, depth: u8) -> String {
    if let Some(Value::Object(props)) = obj.get("properties") {
        if !props.is_empty() {
            let required = obj.get("required").and_then(Value::as_array);
            let is_required = |k: &str| required.is_some_and(|r| r.iter().any(|n| n == k));
            let (must, may): (Vec<&String>, Vec<&String>) =
                props.keys().partition(|k| is_required(k));
            let fields: Vec<String> = must
                .iter()
                .map(|k| format!("`{k}` (required)"))
                .chain(may.iter().map(|k| format!("`{k}` (optional)")))
                .collect();
            return format!("an object with {}", fields.join(", "));
        }
    }
    match obj.get("additionalProperties") {
        Some(values @ Value::Object(_)) => {
            format!(
                "an object whose values are each {}",
                describe(values, defs, depth + 1)
            )
        }
        _ => "an object".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn words() {
        let e = |s: Value| describe(&s, None, 0);
        assert_eq!(
            e(
                json!({"type": "object", "properties": {"limit": {}, "name": {}}, "required": ["name"]})
            ),
            "an object with `name` (required), `limit` (optional)"
        );
        assert_eq!(
            e(json!({"type": "integer", "minimum": 0, "maximum": 255})),
            "an integer from 0 to 255"
        );
        assert_eq!(
            e(json!({"type": ["number", "null"], "exclusiveMinimum": 0})),
            "a number greater than 0"
        );
        assert_eq!(
            e(json!({"type": "string", "minLength": 1, "maxLength": 1})),
            "a string of exactly 1 character"
        );
        assert_eq!(e(json!({"enum": ["c", "f", null]})), "one of \"c\", \"f\"");
        assert_eq!(
            e(json!({"type": "array", "items": {"type": "boolean"}})),
            "a list, each item true or false"
        );
    }

    #[test]
    fn bounds_compare_by_value() {
        let n = |t: &str| serde_json::from_str::<Number>(t).unwrap();
        assert!(Bound::Int(16).cmp(&n("16")).unwrap().is_eq());
        assert!(Bound::Int(16).cmp(&n("16.5")).unwrap().is_gt());
        assert!(Bound::Float(0.5).cmp(&n("0")).unwrap().is_lt());
        assert!(same(&json!(1), &json!(1.0)));
    }
}
