//! Parameters as the model meets them: the rules `#[param]` declares (ranges,
//! lengths, patterns, allowed values) and those a type implies, in the input
//! schema and checked before the tool runs; arguments the tool does not
//! declare refused (unless it opts out); every argument error in the model's
//! words; a prompt argument's default shown in its description.

use mcp_test_support::server as support;

use oxmcp_server::types::{CallToolResult, JsonObject};
use oxmcp_server::{tool, Context, Server, ToolBox, ToolEntry};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use support::{modern_meta, Client};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Unit {
    Celsius,
    Fahrenheit,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct Point {
    pub x: f64,
    pub y: f64,
    /// Optional: the error marks which fields are.
    pub label: Option<String>,
}

#[derive(Debug, Default)]
pub struct Weather;

#[tool(description = "Weather forecasts")]
impl Weather {
    #[describe("Forecast for a city")]
    #[param(
        city,
        "The city",
        min_length = 2,
        max_length = 12,
        pattern = "^[A-Z][a-z]+$"
    )]
    pub fn forecast(
        &self,
        city: String,
        #[param("Days ahead", min = 1, max = 16)] days: u8,
        #[param("The unit", default = Unit::Celsius)] unit: Unit,
        #[param("How much to say", one_of("short", "long"), default = "short")] detail: String,
    ) -> String {
        format!("{city} {days} {unit:?} {detail}")
    }

    #[describe("Bounds of every other kind")]
    pub async fn bounds(
        &self,
        #[param("A ratio", exclusive_min = 0.0, max = 1.0)] ratio: f64,
        #[param("Tags", min_length = 1, max_length = 2)] tags: Vec<String>,
        #[param("A level", one_of(1, 2, 4))] level: Option<u8>,
        #[param("Below zero", min = -10, exclusive_max = 0)] cold: Option<i32>,
        #[param("A mood", one_of("calm", "stormy"))] mood: Option<String>,
        ctx: Context,
    ) -> String {
        #[allow(deprecated)]
        ctx.info("checked before this runs");
        tokio::task::yield_now().await;
        format!("{ratio} {tags:?} {level:?} {cold:?} {mood:?}")
    }

    #[describe("Every common type, each optional")]
    #[allow(clippy::too_many_arguments)]
    pub fn kinds(
        &self,
        #[param("i8")] small: Option<i8>,
        #[param("u16")] port: Option<u16>,
        #[param("i32")] offset: Option<i32>,
        #[param("u32")] count: Option<u32>,
        #[param("i64")] stamp: Option<i64>,
        #[param("u64")] size: Option<u64>,
        #[param("f32")] ratio: Option<f32>,
        #[param("bool")] flag: Option<bool>,
        #[param("String")] label: Option<String>,
        #[param("Vec<u8>")] octets: Option<Vec<u8>>,
        #[param("an enum")] unit: Option<Unit>,
        #[param("a struct")] point: Option<Point>,
    ) -> String {
        format!("{small:?}{port:?}{offset:?}{count:?}{stamp:?}{size:?}{ratio:?}{flag:?}{label:?}{octets:?}{unit:?}{point:?}")
    }

    #[describe("Takes nothing")]
    pub fn ping(&self) -> &'static str {
        "pong"
    }

    // A proxy passes on whatever it is given: it reads only `text`.
    #[tool(allow_unknown_arguments)]
    #[describe("Echo the text, ignoring anything else")]
    pub fn echo(&self, #[param("The text")] text: String) -> String {
        text
    }

    #[prompt]
    #[describe("Ask for a review")]
    #[param(strictness, "From 1 to 5", default = 3)]
    pub fn review(
        &self,
        #[param("The text")] text: String,
        strictness: u8,
        #[param("The tone", default = "warm")] tone: Option<String>,
    ) -> String {
        format!("{text} {strictness} {tone:?}")
    }
}

fn server() -> Server {
    Server::builder("weather", "1.0").toolbox(Weather).build()
}

/// The result of one call, the same over a legacy session, a 2026-07-28
/// request and in process (the arguments read from a map rather than from
/// the request's text).
struct Calls {
    legacy: Client,
    modern: Client,
    tools: Vec<ToolEntry>,
    id: i64,
}

impl Calls {
    async fn start() -> Calls {
        let mut legacy = Client::start(server());
        legacy.initialize("2025-11-25").await;
        Calls {
            legacy,
            modern: Client::start(server()),
            tools: Weather.into_tools(),
            id: 0,
        }
    }

    async fn call(&mut self, name: &str, arguments: Value) -> Value {
        self.id += 1;
        let params = json!({"name": name, "arguments": arguments});
        let legacy = self.legacy.request(self.id, "tools/call", params).await;
        let params = json!({"name": name, "arguments": arguments, "_meta": modern_meta()});
        let modern = self.modern.request(self.id, "tools/call", params).await;
        let tool = self.tools.iter().find(|t| t.name() == name).unwrap();
        let map: JsonObject = serde_json::from_value(arguments).unwrap();
        let local: CallToolResult = tool.invoke(map, Context::detached()).await;
        let local = serde_json::to_value(&local).unwrap();
        let legacy = legacy["result"].clone();
        let mut modern = modern["result"].clone();
        let extra = modern.as_object_mut().unwrap();
        extra.remove("resultType");
        extra.remove("_meta");
        assert_eq!(legacy, modern, "the eras differ");
        assert_eq!(legacy, local, "in process differs");
        legacy
    }

    /// The error text of a refused call.
    async fn refused(&mut self, name: &str, arguments: Value) -> String {
        let r = self.call(name, arguments.clone()).await;
        assert_eq!(r["isError"], true, "{arguments} was accepted: {r}");
        let text = r["content"][0]["text"].as_str().unwrap();
        text.strip_prefix("invalid arguments: ")
            .unwrap_or_else(|| panic!("{text}"))
            .to_owned()
    }

    /// The text of an accepted call.
    async fn accepted(&mut self, name: &str, arguments: Value) -> String {
        let r = self.call(name, arguments.clone()).await;
        assert_ne!(r["isError"], true, "{arguments} was refused: {r}");
        r["content"][0]["text"].as_str().unwrap().to_owned()
    }
}

fn input_schema(name: &str) -> Value {
    let tool = Weather
        .into_tools()
        .into_iter()
        .find(|t| t.name() == name)
        .unwrap();
    Value::Object(tool.tool().input_schema.clone())
}

#[test]
fn the_rules_are_written_into_the_schema() {
    assert_eq!(
        input_schema("forecast"),
        json!({
            "type": "object",
            "properties": {
                "city": {
                    "type": "string", "description": "The city",
                    "minLength": 2, "maxLength": 12, "pattern": "^[A-Z][a-z]+$"
                },
                "days": {
                    "type": "integer", "format": "uint8", "description": "Days ahead",
                    "minimum": 1, "maximum": 16
                },
                "unit": {"$ref": "#/$defs/Unit", "description": "The unit", "default": "celsius"},
                "detail": {
                    "type": "string", "description": "How much to say",
                    "default": "short", "enum": ["short", "long"]
                }
            },
            "required": ["city", "days"],
            "$defs": {"Unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}}
        })
    );
    assert_eq!(
        input_schema("bounds")["properties"],
        json!({
            "ratio": {"type": "number", "format": "double", "description": "A ratio", "exclusiveMinimum": 0.0, "maximum": 1.0},
            "tags": {"type": "array", "items": {"type": "string"}, "description": "Tags", "minItems": 1, "maxItems": 2},
            "level": {
                "type": ["integer", "null"], "format": "uint8", "description": "A level",
                "minimum": 0, "maximum": 255, "enum": [1, 2, 4, null]
            },
            "cold": {
                "type": ["integer", "null"], "format": "int32", "description": "Below zero",
                "minimum": -10, "exclusiveMaximum": 0
            },
            "mood": {"type": ["string", "null"], "description": "A mood", "enum": ["calm", "stormy", null]}
        })
    );
}

#[test]
fn integers_advertise_their_natural_bounds() {
    let p = &input_schema("kinds")["properties"];
    let bounds = |k: &str| (p[k]["minimum"].clone(), p[k]["maximum"].clone());
    assert_eq!(bounds("small"), (json!(-128), json!(127)));
    assert_eq!(bounds("port"), (json!(0), json!(65535)));
    assert_eq!(bounds("offset"), (json!(i32::MIN), json!(i32::MAX)));
    assert_eq!(bounds("count"), (json!(0), json!(u32::MAX)));
    assert_eq!(bounds("stamp"), (json!(i64::MIN), json!(i64::MAX)));
    assert_eq!(bounds("size"), (json!(0), json!(u64::MAX)));
    assert_eq!(p["octets"]["items"]["maximum"], 255);
    assert_eq!(p["ratio"].get("minimum"), None, "floats have no bounds");
}

#[tokio::test]
async fn numbers_inside_their_range_pass_and_outside_are_refused() {
    let mut c = Calls::start().await;
    let city = json!("Lyon");
    for days in [1, 16] {
        c.accepted("forecast", json!({"city": city, "days": days}))
            .await;
    }
    for (days, got) in [(json!(0), "0"), (json!(17), "17"), (json!(300), "300")] {
        assert_eq!(
            c.refused("forecast", json!({"city": city, "days": days}))
                .await,
            format!("`days` must be an integer from 1 to 16 (got {got})")
        );
    }
    assert_eq!(
        c.accepted("bounds", json!({"ratio": 1, "tags": ["a"], "cold": -10}))
            .await,
        "1 [\"a\"] None Some(-10) None"
    );
    c.accepted("bounds", json!({"ratio": 0.001, "tags": ["a"], "cold": -1}))
        .await;
    assert_eq!(
        c.refused("bounds", json!({"ratio": 0, "tags": ["a"]}))
            .await,
        "`ratio` must be a number greater than 0.0 and at most 1.0 (got 0)"
    );
    assert_eq!(
        c.refused("bounds", json!({"ratio": 1.5, "tags": ["a"]}))
            .await,
        "`ratio` must be a number greater than 0.0 and at most 1.0 (got 1.5)"
    );
    assert_eq!(
        c.refused("bounds", json!({"ratio": 0.5, "tags": ["a"], "cold": 0}))
            .await,
        "`cold` must be an integer at least -10 and less than 0 (got 0)"
    );
    assert_eq!(
        c.refused("bounds", json!({"ratio": 0.5, "tags": ["a"], "cold": -11}))
            .await,
        "`cold` must be an integer at least -10 and less than 0 (got -11)"
    );
}

#[tokio::test]
async fn lengths_patterns_and_allowed_values_are_checked() {
    let mut c = Calls::start().await;
    let ok = |city: &str| json!({"city": city, "days": 3});
    c.accepted("forecast", ok("Lo")).await;
    c.accepted("forecast", ok("Lisbonlisbon")).await;
    let city = "`city` must be a string of 2 to 12 characters matching `^[A-Z][a-z]+$`";
    assert_eq!(
        c.refused("forecast", ok("L")).await,
        format!("{city} (got 1 character)")
    );
    assert_eq!(
        c.refused("forecast", ok("Lisbonlisbonx")).await,
        format!("{city} (got 13 characters)")
    );
    // Characters, not bytes: twelve of them in 14 bytes pass the length
    // (and only then fail the pattern, which wants A-Z).
    assert_eq!(
        c.refused("forecast", ok("Évoraévoraév")).await,
        format!("{city} (got a string that does not match)")
    );
    assert_eq!(
        c.refused("forecast", ok("lyon")).await,
        format!("{city} (got a string that does not match)")
    );
    assert_eq!(
        c.refused(
            "forecast",
            json!({"city": "Lyon", "days": 3, "detail": "verbose"})
        )
        .await,
        "`detail` must be one of \"short\", \"long\" (got \"verbose\")"
    );
    assert_eq!(
        c.accepted(
            "forecast",
            json!({"city": "Lyon", "days": 3, "detail": "long"})
        )
        .await,
        "Lyon 3 Celsius long"
    );
    // A list's length counts its items; allowed numbers compare by value.
    assert_eq!(
        c.refused("bounds", json!({"ratio": 0.5, "tags": []})).await,
        "`tags` must be a list of 1 to 2 items, each item a string (got 0 items)"
    );
    assert_eq!(
        c.refused("bounds", json!({"ratio": 0.5, "tags": ["a", "b", "c"]}))
            .await,
        "`tags` must be a list of 1 to 2 items, each item a string (got 3 items)"
    );
    assert_eq!(
        c.refused("bounds", json!({"ratio": 0.5, "tags": ["a"], "level": 3}))
            .await,
        "`level` must be one of 1, 2, 4 (got 3)"
    );
    c.accepted("bounds", json!({"ratio": 0.5, "tags": ["a"], "level": 4}))
        .await;
    assert_eq!(
        c.accepted(
            "bounds",
            json!({"ratio": 0.5, "tags": ["a"], "mood": "calm"})
        )
        .await,
        "0.5 [\"a\"] None None Some(\"calm\")"
    );
    assert_eq!(
        c.refused(
            "bounds",
            json!({"ratio": 0.5, "tags": ["a"], "mood": "sunny"})
        )
        .await,
        "`mood` must be one of \"calm\", \"stormy\" (got \"sunny\")"
    );
    c.accepted(
        "bounds",
        json!({"ratio": 0.5, "tags": ["a"], "level": null}),
    )
    .await;
}

#[tokio::test]
async fn unknown_arguments_are_refused_with_the_accepted_names() {
    let mut c = Calls::start().await;
    // A misspelled optional argument would otherwise take its default.
    assert_eq!(
        c.refused(
            "forecast",
            json!({"city": "Lyon", "days": 3, "detial": "long"})
        )
        .await,
        "unknown argument `detial` (the arguments are `city`, `days`, `unit`, `detail`)"
    );
    assert_eq!(
        c.refused("ping", json!({"x": 1, "y": 2})).await,
        "unknown arguments `x`, `y` (the tool takes no arguments)"
    );
    // With other problems, every one is named.
    assert_eq!(
        c.refused("forecast", json!({"city": "Lyon", "days": 0, "extra": true}))
            .await,
        "`days` must be an integer from 1 to 16 (got 0); unknown argument `extra` (the arguments are `city`, `days`, `unit`, `detail`)"
    );
    // The tool that opts out ignores them.
    assert_eq!(
        c.accepted("echo", json!({"text": "hi", "extra": [1]}))
            .await,
        "hi"
    );
    assert_eq!(c.accepted("ping", json!({})).await, "pong");
}

#[tokio::test]
async fn argument_errors_are_worded_for_the_model_for_every_common_type() {
    let mut c = Calls::start().await;
    let cases = [
        (
            "small",
            json!(200),
            "`small` must be an integer from -128 to 127 (got 200)",
        ),
        (
            "port",
            json!(-1),
            "`port` must be an integer from 0 to 65535 (got -1)",
        ),
        (
            "offset",
            json!(1.5),
            "`offset` must be an integer from -2147483648 to 2147483647 (got 1.5)",
        ),
        (
            "count",
            json!("7"),
            "`count` must be an integer from 0 to 4294967295 (got a string)",
        ),
        (
            "stamp",
            json!([1]),
            "`stamp` must be an integer from -9223372036854775808 to 9223372036854775807 (got a list)",
        ),
        (
            "size",
            json!(-5),
            "`size` must be an integer from 0 to 18446744073709551615 (got -5)",
        ),
        ("ratio", json!("x"), "`ratio` must be a number (got a string)"),
        (
            "flag",
            json!("yes"),
            "`flag` must be true or false (got a string)",
        ),
        ("label", json!(5), "`label` must be a string (got 5)"),
        (
            "octets",
            json!([1, 256]),
            "`octets` must be a list, each item an integer from 0 to 255 (got a list)",
        ),
        (
            "unit",
            json!("kelvin"),
            "`unit` must be one of \"celsius\", \"fahrenheit\" (got \"kelvin\")",
        ),
        (
            "point",
            json!({"x": 1}),
            "`point` must be an object with `x` (required), `y` (required), `label` (optional) (missing field `y`)",
        ),
    ];
    for (name, value, message) in cases {
        assert_eq!(c.refused("kinds", json!({ name: value })).await, message);
    }
    // A string sent where a number goes is not echoed (it may be a secret).
    let text = c.refused("kinds", json!({"count": "hunter2"})).await;
    assert!(!text.contains("hunter2"), "{text}");
    // Missing required arguments are named, with what they must be.
    assert_eq!(
        c.refused("forecast", json!({})).await,
        "missing required argument `city` (a string of 2 to 12 characters matching `^[A-Z][a-z]+$`); missing required argument `days` (an integer from 1 to 16)"
    );
    assert_eq!(
        c.accepted("kinds", json!({"small": -128, "unit": "fahrenheit", "point": {"x": 1, "y": 2}}))
            .await,
        "Some(-128)NoneNoneNoneNoneNoneNoneNoneNoneNoneSome(Fahrenheit)Some(Point { x: 1.0, y: 2.0, label: None })"
    );
}

#[tokio::test]
async fn a_prompt_argument_shows_its_default_in_its_description() {
    let mut c = Client::start(server());
    c.initialize("2025-11-25").await;
    let r = c.request(1, "prompts/list", json!({})).await;
    assert_eq!(
        r["result"]["prompts"][0]["arguments"],
        json!([
            {"name": "text", "description": "The text", "required": true},
            {"name": "strictness", "description": "From 1 to 5 (default: 3)", "required": false},
            {"name": "tone", "description": "The tone (default: warm)", "required": false}
        ])
    );
    let r = c
        .request(
            2,
            "prompts/get",
            json!({"name": "review", "arguments": {"text": "t"}}),
        )
        .await;
    assert_eq!(
        r["result"]["messages"][0]["content"]["text"],
        "t 3 Some(\"warm\")"
    );
}

#[derive(Debug, Default)]
pub struct BadPattern;

#[tool(description = "A pattern that is not a regular expression")]
impl BadPattern {
    #[describe("Never built")]
    pub fn find(&self, #[param("Text", pattern = "([a-z]")] text: String) -> String {
        text
    }
}

#[test]
fn an_invalid_pattern_is_refused_when_the_toolbox_is_built() {
    let panic = std::panic::catch_unwind(|| BadPattern.into_tools()).unwrap_err();
    let message = panic.downcast_ref::<String>().unwrap();
    assert!(
        message.starts_with("the `pattern` of parameter `text` is not a valid regular expression"),
        "{message}"
    );
}
