//! Checks a strict schema (what `oxmcp_agent::strict::to_strict` produces)
//! against OpenAI's strict-mode rules as documented, independently of the
//! converter, and round-trips values through it.
//!
//! - [`rule_violations`]: what breaks the rules: `strict_rules.json` (a JSON
//!   Schema written from OpenAI's guide,
//!   <https://developers.openai.com/api/docs/guides/structured-outputs#supported-schemas>),
//!   then the rules a JSON Schema cannot express (`required` lists exactly
//!   the properties; at most 10 levels of nesting; the size limits).
//! - [`check_strict_form`]: the rules, then values generated from the strict
//!   schema, each valid under it and, once `from_strict` has mapped it back,
//!   valid under the original schema, or breaking only constraints strict
//!   mode cannot express, which the strict schema describes to the model.
//!
//! Shared by `mcp-agent/tests/agent/strict.rs` and the `agent_interop` example,
//! which runs it on the tools of live servers.

use std::collections::BTreeSet;
use std::sync::OnceLock;

use oxmcp_agent::strict::from_strict;
use serde_json::{json, Map, Value};

/// How many generated values each strict schema is checked with: the seed
/// picks null or a value at every nullable spot (always null, never null,
/// alternating) and which enum value, union alternative and type to take.
pub const SEEDS: usize = 9;

// ---------------------------------------------------------------------------
// The rules

fn rules() -> &'static jsonschema::Validator {
    static RULES: OnceLock<jsonschema::Validator> = OnceLock::new();
    RULES.get_or_init(|| {
        let rules: Value = serde_json::from_str(include_str!("strict_rules.json"))
            .expect("strict_rules.json is JSON");
        jsonschema::meta::validate(&rules).expect("strict_rules.json is a valid JSON Schema");
        jsonschema::validator_for(&rules).expect("strict_rules.json compiles")
    })
}

/// What breaks OpenAI's documented rules in `schema`: the meta-schema's
/// errors, then those of the checks it cannot express. Empty when the schema
/// keeps to the rules.
pub fn rule_violations(schema: &Value) -> Vec<String> {
    let mut problems: Vec<String> = rules()
        .iter_errors(schema)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect();
    let mut totals = Totals::default();
    unexpressed_rules(schema, "#", 0, &mut totals, &mut problems);
    if totals.properties > 5000 {
        problems.push(format!(
            "{} properties in all (limit 5000)",
            totals.properties
        ));
    }
    if totals.enum_values > 1000 {
        problems.push(format!(
            "{} enum values in all (limit 1000)",
            totals.enum_values
        ));
    }
    if totals.chars > 120_000 {
        problems.push(format!(
            "{} characters of names and enum values (limit 120,000)",
            totals.chars
        ));
    }
    problems
}

#[derive(Default)]
struct Totals {
    properties: usize,
    enum_values: usize,
    chars: usize,
}

/// The rules a JSON Schema cannot state: `required` lists exactly the keys
/// of `properties`; at most 10 levels of nesting; the size limits.
fn unexpressed_rules(
    schema: &Value,
    path: &str,
    depth: usize,
    totals: &mut Totals,
    problems: &mut Vec<String>,
) {
    if depth > 10 {
        problems.push(format!("{path}: nested {depth} levels deep (limit 10)"));
    }
    if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
        let keys: BTreeSet<&str> = properties.keys().map(String::as_str).collect();
        let required: Vec<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let listed: BTreeSet<&str> = required.iter().copied().collect();
        if keys != listed || required.len() != listed.len() {
            problems.push(format!(
                "{path}: required {required:?} is not exactly the properties {keys:?}"
            ));
        }
        totals.properties += properties.len();
        for (name, sub) in properties {
            totals.chars += name.chars().count();
            let sub_path = format!("{path}/properties/{name}");
            unexpressed_rules(sub, &sub_path, depth + 1, totals, problems);
        }
    }
    if let Some(items) = schema.get("items") {
        unexpressed_rules(items, &format!("{path}/items"), depth + 1, totals, problems);
    }
    if let Some(variants) = schema.get("anyOf").and_then(Value::as_array) {
        for (i, variant) in variants.iter().enumerate() {
            let sub_path = format!("{path}/anyOf/{i}");
            unexpressed_rules(variant, &sub_path, depth + 1, totals, problems);
        }
    }
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        totals.enum_values += values.len();
        let chars: usize = values
            .iter()
            .filter_map(Value::as_str)
            .map(|s| s.chars().count())
            .sum();
        totals.chars += chars;
        if values.len() > 250 && chars > 15_000 {
            problems.push(format!(
                "{path}: {} enum values of {chars} characters",
                values.len()
            ));
        }
    }
}

// ---------------------------------------------------------------------------
// Values valid under a strict schema

/// Walks a strict schema and writes a value for it. The seed decides, for
/// every nullable spot, null (seed % 3 == 0), a value (1) or each in turn
/// (2), and which enum value, union alternative and type to take.
struct Gen {
    seed: usize,
    counter: usize,
}

impl Gen {
    fn new(seed: usize) -> Self {
        Gen { seed, counter: 0 }
    }

    fn null_now(&mut self) -> bool {
        self.counter += 1;
        match self.seed % 3 {
            0 => true,
            1 => false,
            _ => self.counter % 2 == 0,
        }
    }

    fn pick(&mut self, n: usize) -> usize {
        self.counter += 1;
        (self.seed / 3 + self.counter) % n
    }

    /// A value for `schema`, or why the generator cannot write one (a schema
    /// outside the strict subset).
    fn value(&mut self, schema: &Value) -> Result<Value, String> {
        if let Some(variants) = schema.get("anyOf").and_then(Value::as_array) {
            let (nulls, others): (Vec<&Value>, Vec<&Value>) = variants
                .iter()
                .partition(|v| v.get("type") == Some(&json!("null")));
            if others.is_empty() || (!nulls.is_empty() && self.null_now()) {
                return Ok(Value::Null);
            }
            let i = self.pick(others.len());
            return self.value(others[i]);
        }
        let types: Vec<&str> = match schema.get("type") {
            Some(Value::String(t)) => vec![t.as_str()],
            Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
            _ => return Err(format!("no type in {schema}")),
        };
        let nullable = types.contains(&"null");
        if let Some(values) = schema.get("enum").and_then(Value::as_array) {
            let others: Vec<&Value> = values.iter().filter(|v| !v.is_null()).collect();
            let null_allowed = nullable && values.contains(&Value::Null);
            if others.is_empty() || (null_allowed && self.null_now()) {
                return Ok(Value::Null);
            }
            return Ok(others[self.pick(others.len())].clone());
        }
        let concrete: Vec<&str> = types.iter().copied().filter(|t| *t != "null").collect();
        if concrete.is_empty() || (nullable && self.null_now()) {
            return Ok(Value::Null);
        }
        match concrete[self.pick(concrete.len())] {
            "object" => {
                let properties = schema
                    .get("properties")
                    .and_then(Value::as_object)
                    .ok_or_else(|| format!("an object without properties: {schema}"))?;
                let mut object = Map::new();
                for (k, s) in properties {
                    object.insert(k.clone(), self.value(s)?);
                }
                Ok(Value::Object(object))
            }
            "array" => {
                let items = schema
                    .get("items")
                    .ok_or_else(|| format!("an array without items: {schema}"))?;
                let at_least = schema.get("minItems").and_then(Value::as_u64).unwrap_or(0);
                let at_most = schema
                    .get("maxItems")
                    .and_then(Value::as_u64)
                    .unwrap_or(u64::MAX);
                let n = at_least.max(1).min(at_most);
                (0..n)
                    .map(|_| self.value(items))
                    .collect::<Result<Vec<_>, _>>()
                    .map(Value::Array)
            }
            "boolean" => Ok(Value::Bool(self.pick(2) == 0)),
            t @ ("string" | "integer" | "number") => leaf(schema, t),
            other => Err(format!("unexpected type {other} in {schema}")),
        }
    }
}

/// The first candidate the leaf schema accepts (formats checked too).
fn leaf(schema: &Value, ty: &str) -> Result<Value, String> {
    let mut leaf = Map::new();
    leaf.insert("type".into(), ty.into());
    for k in [
        "pattern",
        "format",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
    ] {
        if let Some(v) = schema.get(k) {
            leaf.insert(k.into(), v.clone());
        }
    }
    let leaf = Value::Object(leaf);
    let validator = jsonschema::options()
        .should_validate_formats(true)
        .build(&leaf)
        .map_err(|e| format!("the leaf schema {leaf} does not compile: {e}"))?;
    let candidates = if ty == "string" {
        string_candidates()
    } else {
        number_candidates(schema)
    };
    candidates
        .into_iter()
        .filter(|c| ty != "integer" || c.is_i64())
        .find(|c| validator.is_valid(c))
        .ok_or_else(|| format!("no candidate value for {leaf}"))
}

fn string_candidates() -> Vec<Value> {
    [
        "a",
        "sample",
        "@user_1",
        "2024-05-06T07:08:09Z",
        "2024-05-06",
        "07:08:09Z",
        "P1D",
        "user@example.com",
        "example.com",
        "192.0.2.1",
        "2001:db8::1",
        "123e4567-e89b-12d3-a456-426614174000",
        "ABC-123",
        "",
    ]
    .into_iter()
    .map(Value::from)
    .collect()
}

fn number_candidates(schema: &Value) -> Vec<Value> {
    let mut numbers = vec![0.0, 1.0, 2.0, -1.0, 10.0, 100.0, 0.5, 1.5];
    let bounds: Vec<f64> = ["minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum"]
        .iter()
        .filter_map(|k| schema.get(*k).and_then(Value::as_f64))
        .collect();
    for &b in &bounds {
        numbers.extend([b, b + 1.0, b - 1.0, b + 0.5, b - 0.5, b.ceil(), b.floor()]);
    }
    if let Some(m) = schema.get("multipleOf").and_then(Value::as_f64) {
        numbers.push(m);
        for &b in &bounds {
            let k = (b / m).ceil();
            numbers.extend([k * m, (k + 1.0) * m, (k - 1.0) * m]);
        }
    }
    numbers
        .into_iter()
        .map(|n| {
            #[allow(clippy::cast_possible_truncation)]
            if n.fract() == 0.0 && n.abs() < 1e15 {
                json!(n as i64)
            } else {
                json!(n)
            }
        })
        .collect()
}

// ---------------------------------------------------------------------------
// The round trip

/// What [`check_strict_form`] found.
#[derive(Debug)]
pub struct RoundTrip {
    /// How many distinct values were checked.
    pub values: usize,
    /// Values valid under the strict schema that, mapped back, break only
    /// constraints strict mode cannot express and the strict schema tells
    /// the model in a description (`format: uri`, `minLength: 3`): the
    /// mapped value and what it breaks. OpenAI does not enforce these, so the
    /// agent's check against the original schema has to refuse such values.
    pub described_only: Vec<(Value, Vec<String>)>,
}

/// Checks `strict`, the strict form of `original`: it follows the rules
/// ([`rule_violations`]), and each of [`SEEDS`] generated values is valid
/// under it and, mapped back with `from_strict`, valid under `original`
/// (both with the `jsonschema` crate), or breaks only constraints the strict
/// schema describes ([`RoundTrip::described_only`]). Anything else is an
/// error, with the schemas and values.
pub fn check_strict_form(original: &Value, strict: &Value) -> Result<RoundTrip, String> {
    let problems = rule_violations(strict);
    if !problems.is_empty() {
        return Err(format!(
            "the strict schema breaks OpenAI's rules:\n  {}\n{strict:#}",
            problems.join("\n  ")
        ));
    }
    let strict_validator = jsonschema::validator_for(strict)
        .map_err(|e| format!("the strict schema does not compile: {e}\n{strict:#}"))?;
    let original_validator = jsonschema::validator_for(original)
        .map_err(|e| format!("the original schema does not compile: {e}\n{original:#}"))?;
    let mut seen = BTreeSet::new();
    let mut described_only = Vec::new();
    for seed in 0..SEEDS {
        let value = Gen::new(seed)
            .value(strict)
            .map_err(|e| format!("cannot generate a value (seed {seed}): {e}\n{strict:#}"))?;
        let errors: Vec<String> = strict_validator
            .iter_errors(&value)
            .map(|e| format!("{}: {e}", e.instance_path()))
            .collect();
        if !errors.is_empty() {
            return Err(format!(
                "generated value invalid under the strict schema:\n{value:#}\n{errors:?}\n{strict:#}"
            ));
        }
        let back = from_strict(original, value.clone());
        let mut described = Vec::new();
        let mut undescribed = Vec::new();
        for e in original_validator.iter_errors(&back) {
            let keyword = e.kind().keyword().to_owned();
            let path: Vec<String> = e.instance_path().iter().map(|s| s.to_string()).collect();
            let line = format!("{}: {e} (`{keyword}`)", e.instance_path());
            if describes(strict, &path, &keyword) {
                described.push(line);
            } else {
                undescribed.push(line);
            }
        }
        if !undescribed.is_empty() {
            return Err(format!(
                "mapped back, the value is invalid under the original schema:\nstrict value {value:#}\nmapped {back:#}\n{undescribed:?}\noriginal {original:#}\nstrict {strict:#}"
            ));
        }
        if !described.is_empty() && seen.insert(back.to_string()) {
            described_only.push((back, described));
        }
        seen.insert(value.to_string());
    }
    Ok(RoundTrip {
        values: seen.len(),
        described_only,
    })
}

/// Whether the strict schema, at the place that validates the instance at
/// `path` (its segments), tells the model about `keyword` in a description
/// (the converter writes `keyword: value` there for what it drops).
fn describes(strict: &Value, path: &[String], keyword: &str) -> bool {
    let mut nodes = vec![strict];
    for segment in path {
        nodes = nodes
            .into_iter()
            .flat_map(alternatives)
            .filter_map(|node| {
                node.get("properties")
                    .and_then(|p| p.get(segment.as_str()))
                    .or_else(|| {
                        node.get("items")
                            .filter(|_| segment.parse::<usize>().is_ok())
                    })
            })
            .collect();
    }
    let told = format!("{keyword}:");
    nodes.into_iter().flat_map(alternatives).any(|node| {
        node.get("description")
            .and_then(Value::as_str)
            .is_some_and(|d| d.contains(&told))
    })
}

/// A schema and, for an `anyOf`, its alternatives.
fn alternatives(node: &Value) -> Vec<&Value> {
    let mut all = vec![node];
    if let Some(variants) = node.get("anyOf").and_then(Value::as_array) {
        all.extend(variants);
    }
    all
}
