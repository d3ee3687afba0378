//! OpenAI strict mode against the rules as documented, independently of the
//! converter: every schema `to_strict` produces must pass
//! `strict_rules.json` (a JSON Schema written from OpenAI's guide,
//! <https://developers.openai.com/api/docs/guides/structured-outputs#supported-schemas>)
//! and the checks a JSON Schema cannot express; values generated from the
//! strict schema must be valid under it and, once `from_strict` has mapped
//! them back, under the original schema.
//!
//! The corpus: what schemars 1.x generates for Rust types, the input schemas
//! of `#[tool]` toolboxes (the calculator example, the conformance fixture,
//! toolboxes with optional, defaulted, nested and enum parameters), and
//! hand-written schemas in the style of the TypeScript SDK's zod output.

use std::collections::{HashMap, HashSet};

use oxmcp_agent::strict::{from_strict, is_nullable, to_strict, to_strict_with, StrictOptions};
use oxmcp_server::{tool, Context, ToolBox, ToolEntry, ToolError};
use schemars::generate::SchemaSettings;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};

// ---------------------------------------------------------------------------
// The rules and the round trip (shared with the agent_interop example)

use crate::support;

use support::strict_check::{check_strict_form, rule_violations};

fn assert_follows_rules(name: &str, schema: &Value) {
    let problems = rule_violations(schema);
    assert!(
        problems.is_empty(),
        "{name}: the strict schema breaks OpenAI's rules:\n  {}\n{schema:#}",
        problems.join("\n  ")
    );
}

/// Converts `original`, checks the result against the rules, then checks
/// generated values under the strict and, mapped back, the original schema;
/// the fine-tuned form (which keeps no constraint) against the rules.
fn round_trip(name: &str, original: &Value) -> Value {
    let strict = to_strict(original).unwrap_or_else(|e| panic!("{name}: {e}\n{original:#}"));
    match check_strict_form(original, &strict) {
        Ok(checked) => assert!(
            checked.values > 0 && checked.described_only.is_empty(),
            "{name}: mapped back, values break the original schema: {:?}",
            checked.described_only
        ),
        Err(e) => panic!("{name}: {e}"),
    }
    let fine_tuned = to_strict_with(original, StrictOptions::fine_tuned())
        .unwrap_or_else(|e| panic!("{name} (fine-tuned): {e}"));
    assert_follows_rules(name, &fine_tuned);
    for keyword in [
        "pattern",
        "format",
        "minimum",
        "maximum",
        "multipleOf",
        "minItems",
        "maxItems",
    ] {
        assert!(
            !fine_tuned.to_string().contains(&format!("\"{keyword}\":")),
            "{name}: `{keyword}` kept for fine-tuned models"
        );
    }
    strict
}

fn assert_not_strict(name: &str, original: &Value, reason: &str) -> String {
    match to_strict(original) {
        Ok(strict) => panic!("{name}: converted, but cannot be strict:\n{strict:#}"),
        Err(e) => {
            assert!(
                e.contains(reason),
                "{name}: the reason {e:?} does not say {reason:?}"
            );
            assert!(e.starts_with('#'), "{name}: the reason {e:?} names no path");
            e
        }
    }
}

// ---------------------------------------------------------------------------
// schemars 1.x

fn schema_for<T: JsonSchema>() -> Value {
    SchemaSettings::draft2020_12()
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value()
}

/// A flat struct of scalars, one optional.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Flat {
    pub name: String,
    pub count: u32,
    pub ratio: f64,
    pub enabled: bool,
    pub nickname: Option<String>,
    pub tags: Vec<String>,
    pub small: i8,
    pub big: u64,
    pub single: f32,
    pub letter: char,
}

/// A postal address.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Address {
    /// Street and number.
    pub street: String,
    pub city: String,
    pub zip: Option<String>,
}

/// Nested structs, optional and in lists.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Person {
    pub name: String,
    pub home: Address,
    /// Where they work, if anywhere.
    pub work: Option<Address>,
    pub previous: Vec<Address>,
    pub nicknames: Option<Vec<String>>,
    pub aliases: HashSet<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub enum Color {
    Red,
    Green,
    Blue,
}

/// Documented variants come out as `oneOf` of constants.
#[derive(Debug, Deserialize, JsonSchema)]
pub enum Level {
    /// Quiet.
    Low,
    /// Loud.
    High,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub enum Shape {
    Circle { r: f64 },
    Square(f64),
    Empty,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Op {
    Add { a: f64, b: f64 },
    Negate { x: f64, label: Option<String> },
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(tag = "t", content = "c")]
pub enum Msg {
    Text(String),
    Num(i64),
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Either {
    Num(f64),
    Text(String),
}

/// Enums of every serde representation.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Painting {
    pub color: Color,
    pub level: Level,
    pub shape: Shape,
    pub op: Op,
    pub msg: Option<Msg>,
    pub either: Either,
    pub palette: Vec<Color>,
    pub maybe_color: Option<Color>,
}

fn default_mode() -> String {
    "fast".into()
}

/// Defaults and renames.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Settings {
    #[serde(default)]
    pub retry_count: u8,
    #[serde(default = "default_mode")]
    pub mode: String,
    #[serde(default)]
    pub verbose: bool,
    pub limit: Option<u16>,
    #[serde(default)]
    pub extra_tags: Vec<String>,
}

/// `deny_unknown_fields`: already closed.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Closed {
    pub x: i32,
    pub y: Option<i32>,
}

/// Validation attributes.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Validated {
    /// The search query.
    #[schemars(length(min = 1, max = 100))]
    pub query: String,
    /// How many results.
    #[schemars(range(min = 1, max = 50))]
    pub limit: Option<u8>,
    #[schemars(regex(pattern = r"^[a-z]+$"))]
    pub slug: String,
    #[schemars(email)]
    pub email: String,
    #[schemars(url)]
    pub homepage: Option<String>,
    #[schemars(length(min = 1, max = 3))]
    pub picks: Vec<u8>,
}

/// A map: cannot be strict.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct WithMap {
    pub scores: HashMap<String, i64>,
}

/// Recursive through a list: cannot be strict.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Tree {
    pub value: i32,
    pub children: Vec<Tree>,
}

/// Recursive through an option: cannot be strict.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct List {
    pub value: i32,
    pub next: Option<Box<List>>,
}

/// Any JSON value: cannot be strict.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct AnyValue {
    pub payload: Value,
}

/// A tuple: cannot be strict.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Pair {
    pub pair: (i32, String),
}

/// Flattened extra keys: cannot be strict.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Flattened {
    pub id: String,
    #[serde(flatten)]
    pub rest: HashMap<String, String>,
}

#[test]
fn schemars_types_round_trip() {
    for (name, schema) in [
        ("Flat", schema_for::<Flat>()),
        ("Address", schema_for::<Address>()),
        ("Person", schema_for::<Person>()),
        ("Painting", schema_for::<Painting>()),
        ("Settings", schema_for::<Settings>()),
        ("Closed", schema_for::<Closed>()),
        ("Validated", schema_for::<Validated>()),
    ] {
        round_trip(name, &schema);
    }
}

#[test]
fn schemars_details() {
    let strict = round_trip("Flat", &schema_for::<Flat>());
    // `char`'s length bounds are dropped and told in the description.
    let letter = &strict["properties"]["letter"];
    assert_eq!(letter["type"], "string");
    assert!(letter["description"]
        .as_str()
        .unwrap()
        .contains("maxLength: 1"));
    assert_eq!(
        strict["properties"]["nickname"]["type"],
        json!(["string", "null"])
    );

    let strict = round_trip("Settings", &schema_for::<Settings>());
    let mode = &strict["properties"]["mode"];
    assert_eq!(mode["type"], json!(["string", "null"]));
    assert!(mode["description"]
        .as_str()
        .unwrap()
        .contains("default: \"fast\""));

    let strict = round_trip("Validated", &schema_for::<Validated>());
    let p = &strict["properties"];
    assert_eq!(p["slug"]["pattern"], "^[a-z]+$");
    assert_eq!(p["email"]["format"], "email");
    assert!(p["homepage"].get("format").is_none());
    assert_eq!(p["limit"]["minimum"], 1);
    assert_eq!(p["limit"]["maximum"], 50);
    assert_eq!(p["picks"]["minItems"], 1);
    assert_eq!(
        p["query"]["description"],
        "The search query. (minLength: 1; maxLength: 100)"
    );
}

#[test]
fn schemars_types_that_cannot_be_strict() {
    assert_not_strict(
        "WithMap",
        &schema_for::<WithMap>(),
        "#/properties/scores: an object whose additionalProperties is a schema",
    );
    assert_not_strict("Tree", &schema_for::<Tree>(), "recursive reference");
    assert_not_strict("List", &schema_for::<List>(), "recursive reference");
    assert_not_strict(
        "AnyValue",
        &schema_for::<AnyValue>(),
        "#/properties/payload: no `type`",
    );
    assert_not_strict("Pair", &schema_for::<Pair>(), "#/properties/pair");
    assert_not_strict(
        "Flattened",
        &schema_for::<Flattened>(),
        "additionalProperties is a schema",
    );
}

// ---------------------------------------------------------------------------
// `#[tool]` toolboxes

fn input_schemas(tools: Vec<ToolEntry>) -> Vec<(String, Value)> {
    tools
        .into_iter()
        .map(|t| {
            (
                t.name().to_owned(),
                Value::Object(t.tool().input_schema.clone()),
            )
        })
        .collect()
}

/// The calculator example's tools (`examples/calculator_tools.rs`), same
/// parameters, copied so that this test stays within the crate.
#[derive(Debug, Default)]
pub struct Calculator {
    memory: f64,
}

#[tool(description = "Arithmetic on two numbers, with one memory register")]
impl Calculator {
    #[describe("Add two numbers")]
    #[param(a, "The first number")]
    #[param(b, "The second number")]
    pub fn add(&self, a: f64, b: f64) -> f64 {
        a + b + self.memory * 0.0
    }

    #[describe("Subtract b from a")]
    #[param(a, "The first number")]
    #[param(b, "The second number")]
    pub fn subtract(&self, a: f64, b: f64) -> f64 {
        a - b + self.memory * 0.0
    }

    #[describe("Multiply two numbers")]
    #[param(a, "The first number")]
    #[param(b, "The second number")]
    pub fn multiply(&self, a: f64, b: f64) -> f64 {
        a * b + self.memory * 0.0
    }

    #[describe("Divide a by b")]
    pub fn divide(
        &self,
        #[param("The first number")] a: f64,
        #[param("The second number")] b: f64,
    ) -> Result<f64, ToolError> {
        if b == 0.0 {
            return Err(ToolError::new("division by zero"));
        }
        Ok(a / b + self.memory * 0.0)
    }

    #[describe("Store a value in memory and return the previous one")]
    pub fn store(&mut self, #[param("The value to store")] value: f64) -> f64 {
        std::mem::replace(&mut self.memory, value)
    }

    #[describe("Return the value in memory")]
    pub fn recall(&self) -> f64 {
        self.memory
    }

    #[describe("Summary statistics of a list of numbers")]
    pub fn stats(&self, #[param("The numbers to summarise")] values: Vec<f64>) -> f64 {
        values.iter().sum::<f64>() + self.memory * 0.0
    }

    #[describe("Count to n, reporting progress")]
    pub async fn count_to(
        &self,
        #[param("The number to count to")] n: u32,
        ctx: Context,
    ) -> String {
        ctx.progress(f64::from(n), Some(f64::from(n)));
        tokio::task::yield_now().await;
        format!("counted to {n} from {}", self.memory)
    }
}

/// The conformance fixture's macro tools (`examples/conformance_server.rs`).
#[derive(Debug)]
pub struct Fixture;

#[tool(description = "The tools the MCP conformance suite calls")]
impl Fixture {
    #[describe("Tests simple text content response")]
    pub fn test_simple_text(&self) -> String {
        format!("{self:?}")
    }

    #[describe("Tests tool that emits log messages during execution")]
    pub async fn test_tool_with_logging(&self, ctx: Context) -> String {
        ctx.progress(1.0, None);
        tokio::task::yield_now().await;
        format!("{self:?}")
    }

    #[describe("Tests error response handling")]
    pub fn test_error_handling(&self) -> Result<String, ToolError> {
        Err(ToolError::new(format!("{self:?}")))
    }

    #[describe("Needs the client's sampling capability")]
    #[tool(requires_client(sampling))]
    pub fn test_missing_capability(&self) -> String {
        format!("{self:?}")
    }
}

/// The conformance fixture's tool declared at run time, same schema: JSON
/// Schema 2020-12 features the macros do not generate.
#[derive(Debug)]
pub struct SchemaTools;

impl ToolBox for SchemaTools {
    const NAME: &'static str = "SchemaTools";
    const DESCRIPTION: &'static str = "Tools with hand-written schemas";

    fn into_tools(self) -> Vec<ToolEntry> {
        let schema = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "$defs": {
                "address": {
                    "$anchor": "addressDef",
                    "type": "object",
                    "properties": {
                        "street": {"type": "string"},
                        "city": {"type": "string"}
                    }
                }
            },
            "properties": {
                "name": {"type": "string"},
                "address": {"$ref": "#/$defs/address"},
                "contactMethod": {"type": "string", "enum": ["phone", "email"]},
                "phone": {"type": "string"},
                "email": {"type": "string"}
            },
            "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
            "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
            "then": {"required": ["phone"]},
            "else": {"required": ["email"]},
            "additionalProperties": false
        });
        vec![ToolEntry::dynamic(
            "json_schema_2020_12_tool",
            "Tool with JSON Schema 2020-12 features",
            schema,
            |_args, _ctx| async { "ok" },
        )
        .unwrap()]
    }
}

/// Parameters of every kind a toolbox takes.
#[derive(Debug)]
pub struct Kinds;

#[tool(description = "Parameters of many kinds")]
impl Kinds {
    #[describe("Search")]
    pub fn search(
        &self,
        #[param("What to look for")] query: String,
        #[param("How many results", default = 10)] max_results: u32,
        #[param("Only these languages")] languages: Option<Vec<String>>,
        #[param("Case sensitive", default = false)] exact: bool,
        #[param("Minimum score")] min_score: Option<f64>,
    ) -> String {
        format!("{self:?} {query} {max_results} {languages:?} {exact} {min_score:?}")
    }

    #[describe("Send a letter")]
    pub fn send(
        &self,
        #[param("Who")] to: Person,
        #[param("From")] from: Option<Address>,
        #[param("Return address")] back: Address,
        #[param("How")] settings: Settings,
    ) -> String {
        format!("{self:?} {to:?} {from:?} {back:?} {settings:?}")
    }

    #[describe("Paint")]
    pub fn paint(
        &self,
        #[param("The color")] color: Color,
        #[param("Shapes")] shapes: Vec<Shape>,
        #[param("An operation")] op: Option<Op>,
        #[param("The painting")] painting: Painting,
    ) -> String {
        format!("{self:?} {color:?} {shapes:?} {op:?} {painting:?}")
    }

    #[describe("Checked inputs")]
    pub fn checked(
        &self,
        #[param("Inputs")] input: Validated,
        #[param("Closed")] c: Closed,
    ) -> String {
        format!("{self:?} {input:?} {c:?}")
    }

    #[describe("Scores")]
    pub fn scores(&self, #[param("By name")] scores: HashMap<String, i64>) -> String {
        format!("{self:?} {scores:?}")
    }

    #[describe("Walk a tree")]
    pub fn walk(&self, #[param("The tree")] tree: Tree) -> String {
        format!("{self:?} {tree:?}")
    }

    #[describe("Anything")]
    pub fn anything(&self, #[param("Any JSON")] payload: Value) -> String {
        format!("{self:?} {payload}")
    }
}

#[test]
fn calculator_tools_round_trip() {
    let schemas = input_schemas(Calculator::default().into_tools());
    assert_eq!(schemas.len(), 8);
    for (name, schema) in &schemas {
        let strict = round_trip(name, schema);
        if name == "add" {
            assert_eq!(
                strict,
                json!({
                    "type": "object",
                    "properties": {
                        "a": {"type": "number", "description": "The first number"},
                        "b": {"type": "number", "description": "The second number"}
                    },
                    "required": ["a", "b"],
                    "additionalProperties": false
                })
            );
        }
        if name == "recall" {
            assert_eq!(strict["properties"], json!({}));
        }
    }
}

#[test]
fn conformance_fixture_tools() {
    for (name, schema) in input_schemas(Fixture.into_tools()) {
        round_trip(&name, &schema);
    }
    let schemas = input_schemas(SchemaTools.into_tools());
    assert_eq!(schemas[0].0, "json_schema_2020_12_tool");
    assert_not_strict(
        &schemas[0].0,
        &schemas[0].1,
        "cannot be expressed in strict mode",
    );
}

#[test]
fn toolbox_parameters() {
    let schemas: HashMap<String, Value> = input_schemas(Kinds.into_tools()).into_iter().collect();
    for name in ["search", "send", "paint", "checked"] {
        round_trip(name, &schemas[name]);
    }
    let search = to_strict(&schemas["search"]).unwrap();
    assert_eq!(
        search["properties"]["max_results"]["description"],
        "How many results (default: 10)"
    );
    assert!(is_nullable(&search["properties"]["languages"]));
    assert_not_strict(
        "scores",
        &schemas["scores"],
        "#/properties/scores: an object whose additionalProperties is a schema",
    );
    assert_not_strict(
        "walk",
        &schemas["walk"],
        "recursive reference `#/$defs/Tree`",
    );
    assert_not_strict(
        "anything",
        &schemas["anything"],
        "#/properties/payload: no `type`",
    );
}

#[test]
fn optional_arguments_come_back_absent() {
    let schemas: HashMap<String, Value> = input_schemas(Kinds.into_tools()).into_iter().collect();
    let search = &schemas["search"];
    let args = from_strict(
        search,
        json!({"query": "rust", "max_results": null, "languages": null, "exact": null, "min_score": 0.5}),
    );
    // `languages` and `min_score` (Option) accept null and keep it; the
    // defaulted parameters do not and are dropped.
    assert_eq!(
        args,
        json!({"query": "rust", "languages": null, "min_score": 0.5})
    );
    assert!(jsonschema::is_valid(search, &args));
}

// ---------------------------------------------------------------------------
// Zod-style schemas (the TypeScript SDK's `zod-to-json-schema` output)

fn zod(properties: &Value, required: &[&str]) -> Value {
    json!({
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false,
        "$schema": "http://json-schema.org/draft-07/schema#"
    })
}

#[test]
fn zod_style_schemas_round_trip() {
    let corpus = [
        (
            "weather",
            zod(
                &json!({
                    "city": {"type": "string", "description": "City name"},
                    "units": {"type": "string", "enum": ["metric", "imperial"], "default": "metric"},
                    "days": {"type": "integer", "minimum": 1, "maximum": 14, "description": "Forecast length"}
                }),
                &["city"],
            ),
        ),
        (
            "create_issue",
            zod(
                &json!({
                    "title": {"type": "string", "minLength": 1},
                    "body": {"type": "string"},
                    "labels": {"type": "array", "items": {"type": "string"}, "maxItems": 10},
                    "assignee": {
                        "type": "object",
                        "properties": {
                            "login": {"type": "string"},
                            "id": {"type": "number", "exclusiveMinimum": 0}
                        },
                        "required": ["login"],
                        "additionalProperties": false
                    },
                    "priority": {"anyOf": [{"type": "number"}, {"type": "string", "enum": ["low", "high"]}]}
                }),
                &["title"],
            ),
        ),
        (
            "nullable_and_literal",
            zod(
                &json!({
                    "mode": {"type": "string", "const": "append"},
                    "note": {"type": ["string", "null"]},
                    "count": {"type": "integer", "multipleOf": 5, "minimum": 0},
                    "flags": {"type": "array", "items": {"type": "boolean"}, "minItems": 1},
                    "when": {"type": "string", "format": "date-time"},
                    "id": {"type": "string", "format": "uuid"},
                    "handle": {"type": "string", "pattern": "^@[a-zA-Z0-9_]+$"}
                }),
                &["mode", "note"],
            ),
        ),
        (
            "nested_arrays",
            zod(
                &json!({
                    "rows": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {
                                "cells": {"type": "array", "items": {"type": "number"}},
                                "header": {"type": "boolean", "default": false}
                            },
                            "required": ["cells"],
                            "additionalProperties": false
                        }
                    },
                    "matrix": {"type": "array", "items": {"type": "array", "items": {"type": "integer"}}}
                }),
                &["rows"],
            ),
        ),
        (
            "discriminated",
            zod(
                &json!({
                    "action": {
                        "anyOf": [
                            {
                                "type": "object",
                                "properties": {"type": {"type": "string", "const": "move"}, "x": {"type": "number"}, "y": {"type": "number"}},
                                "required": ["type", "x", "y"],
                                "additionalProperties": false
                            },
                            {
                                "type": "object",
                                "properties": {"type": {"type": "string", "const": "say"}, "text": {"type": "string"}, "loud": {"type": "boolean"}},
                                "required": ["type", "text"],
                                "additionalProperties": false
                            }
                        ]
                    }
                }),
                &["action"],
            ),
        ),
        ("no_arguments", zod(&json!({}), &[])),
    ];
    for (name, schema) in &corpus {
        round_trip(name, schema);
    }
}

/// The Python SDK's input schemas (pydantic): titles, `anyOf` with null for
/// `Optional`, `$defs`.
#[test]
fn pydantic_style_schema_round_trips() {
    let schema = json!({
        "$defs": {
            "Unit": {"enum": ["c", "f"], "title": "Unit", "type": "string"},
            "Place": {
                "properties": {
                    "name": {"title": "Name", "type": "string"},
                    "lat": {"anyOf": [{"type": "number"}, {"type": "null"}], "default": null, "title": "Lat"}
                },
                "required": ["name"],
                "title": "Place",
                "type": "object"
            }
        },
        "properties": {
            "place": {"$ref": "#/$defs/Place"},
            "unit": {"$ref": "#/$defs/Unit", "default": "c"},
            "days": {"default": 3, "maximum": 14, "minimum": 1, "title": "Days", "type": "integer"},
            "note": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": null, "title": "Note"}
        },
        "required": ["place"],
        "title": "forecastArguments",
        "type": "object"
    });
    let strict = round_trip("pydantic", &schema);
    assert_eq!(
        strict["properties"]["unit"],
        json!({"description": "default: \"c\"", "anyOf": [{"type": "string", "enum": ["c", "f"]}, {"type": "null"}]})
    );
}

#[test]
fn zod_style_schemas_that_cannot_be_strict() {
    let record = zod(
        &json!({"headers": {"type": "object", "additionalProperties": {"type": "string"}}}),
        &["headers"],
    );
    assert_not_strict(
        "record",
        &record,
        "#/properties/headers: an object whose additionalProperties is a schema",
    );
    let any = zod(&json!({"value": {}}), &["value"]);
    assert_not_strict("any", &any, "#/properties/value: no `type`");
    let intersection = zod(
        &json!({"both": {"allOf": [{"type": "object", "properties": {"a": {"type": "string"}}}, {"type": "object", "properties": {"b": {"type": "string"}}}]}}),
        &["both"],
    );
    assert_not_strict(
        "intersection",
        &intersection,
        "#/properties/both: `allOf` with 2 schemas",
    );
    let tuple = zod(
        &json!({"point": {"type": "array", "minItems": 2, "maxItems": 2, "items": [{"type": "number"}, {"type": "number"}]}}),
        &["point"],
    );
    assert_not_strict("tuple", &tuple, "#/properties/point: tuple");
}

/// A dropped constraint the model may break: the strict schema cannot say
/// `minLength`, so it only tells the model in the description, and a value
/// valid under the strict schema can still fail the original. The tool
/// reports that back to the model.
#[test]
fn dropped_constraints_are_described_not_enforced() {
    let schema = zod(
        &json!({"code": {"type": "string", "minLength": 3}}),
        &["code"],
    );
    let strict = round_trip_strict_only(&schema);
    assert_eq!(strict["properties"]["code"]["description"], "minLength: 3");
    assert!(jsonschema::is_valid(&strict, &json!({"code": "a"})));
    assert!(!jsonschema::is_valid(
        &schema,
        &from_strict(&schema, json!({"code": "a"}))
    ));
    // The round trip tells such values apart from a mapping that is wrong.
    let checked = check_strict_form(&schema, &strict).unwrap();
    assert_eq!(checked.described_only.len(), 1, "{checked:?}");
    assert_eq!(checked.described_only[0].0, json!({"code": "a"}));
    assert!(checked.described_only[0].1[0].contains("`minLength`"));
}

fn round_trip_strict_only(schema: &Value) -> Value {
    let strict = to_strict(schema).unwrap();
    assert_follows_rules("strict only", &strict);
    strict
}

// ---------------------------------------------------------------------------
// The rules themselves: they accept what the guide shows and reject what it
// forbids, so that passing them means something.

#[test]
fn rules_accept_documented_shapes() {
    let documented = [
        json!({
            "type": "object",
            "properties": {
                "location": {"type": "string", "description": "Where"},
                "unit": {"type": ["string", "null"], "enum": ["F", "C"]}
            },
            "additionalProperties": false,
            "required": ["location", "unit"]
        }),
        json!({
            "type": "object",
            "properties": {
                "item": {"anyOf": [
                    {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"], "additionalProperties": false},
                    {"type": "null"}
                ]},
                "value": {"type": "number", "minimum": -130, "maximum": 130},
                "handle": {"type": "string", "pattern": "^@[a-z]+$", "format": "email"},
                "list": {"type": "array", "items": {"type": "integer"}, "minItems": 1, "maxItems": 3}
            },
            "required": ["item", "value", "handle", "list"],
            "additionalProperties": false
        }),
    ];
    for schema in &documented {
        assert_follows_rules("documented", schema);
    }
}

#[test]
fn rules_reject_what_the_guide_forbids() {
    let ok = || {
        json!({
            "type": "object",
            "properties": {"a": {"type": "string"}},
            "required": ["a"],
            "additionalProperties": false
        })
    };
    assert!(rule_violations(&ok()).is_empty());
    let mut cases: Vec<(&str, Value)> = Vec::new();
    let mut s = ok();
    s.as_object_mut().unwrap().remove("additionalProperties");
    cases.push(("no additionalProperties", s));
    let mut s = ok();
    s["additionalProperties"] = json!(true);
    cases.push(("open additionalProperties", s));
    let mut s = ok();
    s["required"] = json!([]);
    cases.push(("a property not required", s));
    let mut s = ok();
    s["properties"]["a"] = json!({"$ref": "#/$defs/A"});
    s["$defs"] = json!({"A": {"type": "string"}});
    cases.push(("$ref", s));
    let mut s = ok();
    s["properties"]["a"] = json!({"allOf": [{"type": "string"}]});
    cases.push(("allOf", s));
    let mut s = ok();
    s["properties"]["a"] = json!({"type": "string", "not": {"const": "x"}});
    cases.push(("not", s));
    let mut s = ok();
    s["properties"]["a"] = json!({"description": "untyped"});
    cases.push(("no type", s));
    let mut s = ok();
    s["properties"]["a"] = json!({"type": "string", "minLength": 2});
    cases.push(("minLength", s));
    let mut s = ok();
    s["properties"]["a"] = json!({"type": "string", "format": "uri"});
    cases.push(("an undocumented format", s));
    let mut s = ok();
    s["properties"]["a"] = json!({"type": "integer", "pattern": "^1"});
    cases.push(("pattern on a number", s));
    let mut s = ok();
    s["properties"]["a"] = json!({"type": "array"});
    cases.push(("array without items", s));
    let mut s = ok();
    s["properties"]["a"] = json!({"type": "object", "properties": {}, "required": []});
    cases.push(("nested object not closed", s));
    let mut s = ok();
    s["properties"]["a"] = json!({"type": "string", "const": "x"});
    cases.push(("const", s));
    let mut s = ok();
    s["properties"]["a"] = json!({"type": "date"});
    cases.push(("unknown type", s));
    cases.push(("root anyOf", json!({"anyOf": [ok(), ok()]})));
    cases.push(("root not an object", json!({"type": "string"})));
    let mut deep = json!({"type": "string"});
    for _ in 0..11 {
        deep = json!({"type": "object", "properties": {"x": deep}, "required": ["x"], "additionalProperties": false});
    }
    cases.push(("11 levels", deep));
    let values: Vec<Value> = (0..1001).map(Value::from).collect();
    let mut s = ok();
    s["properties"]["a"] = json!({"type": "integer", "enum": values});
    cases.push(("1001 enum values", s));
    for (what, schema) in cases {
        assert!(
            !rule_violations(&schema).is_empty(),
            "the rules accept {what}: {schema}"
        );
        // And the converter never produces such a schema: it either fixes it
        // or refuses it.
        if let Ok(strict) = to_strict(&schema) {
            assert_follows_rules(what, &strict);
        }
    }
}
