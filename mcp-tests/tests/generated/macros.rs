//! Behaviour of the code `#[tool]` generates, seen through the public API:
//! `ToolBox::into_tools()` and each entry's wire definition.

// Some tools are `async` without awaiting, to cover async expansion.
#![allow(clippy::unused_async)]

use std::collections::HashMap;

use oxmcp_server::{
    tool, types::CallToolResult, types::ContentBlock, Context, Json, ToolBox, ToolEntry, ToolError,
};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

#[derive(Debug, Deserialize, Serialize, schemars::JsonSchema)]
pub struct Hit {
    pub title: String,
    pub score: f64,
}

#[derive(Debug, Deserialize, Serialize, schemars::JsonSchema)]
pub struct Point {
    pub x: f64,
    pub y: f64,
}

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
        a + b
    }

    /// A doc comment before `#[describe]` stays a doc comment.
    #[describe("Store a value and return the previous one")]
    #[inline]
    pub async fn store(&mut self, #[param("Value to store")] value: f64) -> f64 {
        std::mem::replace(&mut self.memory, value)
    }

    #[describe("Search the archive")]
    #[tool(read_only, open_world = false, title = "Archive search")]
    pub async fn search(
        &self,
        #[param("Query text")] query: String,
        #[param("Maximum results", default = 5)] max_results: u32,
        #[param("Only after this date")] since: Option<String>,
        ctx: Context,
    ) -> Result<Json<Vec<Hit>>, ToolError> {
        let _ = (since, ctx.is_cancelled());
        Ok(Json(vec![Hit {
            title: query,
            score: f64::from(max_results),
        }]))
    }

    #[describe("Forget the memory")]
    #[tool(name = "memory.clear", destructive, idempotent = true)]
    pub fn clear_memory(&mut self, _ctx: &Context) {
        self.memory = 0.0;
    }

    #[describe("Only outside tests: compiled out here")]
    #[cfg(not(test))]
    pub fn hidden(&self) -> String {
        String::new()
    }

    fn helper(&self) -> f64 {
        self.memory
    }

    #[describe("Read the memory")]
    pub fn recall(&self) -> String {
        self.helper().to_string()
    }
}

fn tools<T: ToolBox>(toolbox: T) -> Vec<ToolEntry> {
    toolbox.into_tools()
}

fn find<'a>(tools: &'a [ToolEntry], name: &str) -> &'a ToolEntry {
    tools
        .iter()
        .find(|t| t.name() == name)
        .unwrap_or_else(|| panic!("no tool `{name}`"))
}

fn input_schema(entry: &ToolEntry) -> Value {
    Value::Object(entry.tool().input_schema.clone())
}

#[test]
fn toolbox_name_and_description_come_from_the_impl() {
    assert_eq!(Calculator::NAME, "Calculator");
    assert_eq!(
        Calculator::DESCRIPTION,
        "Arithmetic on two numbers, with one memory register"
    );
}

#[test]
fn every_pub_fn_is_a_tool_in_declaration_order() {
    let tools = tools(Calculator::default());
    let names: Vec<&str> = tools.iter().map(ToolEntry::name).collect();
    assert_eq!(names, ["add", "store", "search", "memory.clear", "recall"]);
}

#[test]
fn descriptions_come_from_describe() {
    let tools = tools(Calculator::default());
    let add = find(&tools, "add").tool();
    assert_eq!(add.description.as_deref(), Some("Add two numbers"));
    assert_eq!(add.title, None);
    assert_eq!(add.annotations, None);
    assert_eq!(
        find(&tools, "store").tool().description.as_deref(),
        Some("Store a value and return the previous one")
    );
}

#[test]
fn method_level_params_are_described_and_required() {
    let tools = tools(Calculator::default());
    let schema = input_schema(find(&tools, "add"));
    assert_eq!(
        schema,
        json!({
            "type": "object",
            "properties": {
                "a": {"type": "number", "format": "double", "description": "The first number"},
                "b": {"type": "number", "format": "double", "description": "The second number"},
            },
            "required": ["a", "b"],
        })
    );
}

#[test]
fn inline_params_defaults_options_and_context() {
    let tools = tools(Calculator::default());
    let search = find(&tools, "search");
    let schema = input_schema(search);
    let props = schema["properties"].as_object().unwrap();
    let mut keys: Vec<&str> = props.keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        ["max_results", "query", "since"],
        "Context is not a parameter"
    );
    assert_eq!(props["query"]["type"], "string");
    assert_eq!(props["query"]["description"], "Query text");
    assert_eq!(props["max_results"]["type"], "integer");
    assert_eq!(props["max_results"]["default"], 5);
    assert_eq!(props["max_results"]["description"], "Maximum results");
    assert_eq!(props["since"]["description"], "Only after this date");
    assert_eq!(
        schema["required"],
        json!(["query"]),
        "defaults and options are optional"
    );
}

#[test]
fn no_params_gives_an_empty_object_schema() {
    let tools = tools(Calculator::default());
    for name in ["recall", "memory.clear"] {
        let schema = input_schema(find(&tools, name));
        assert_eq!(
            schema,
            json!({"type": "object", "properties": {}}),
            "{name}"
        );
    }
}

#[test]
fn title_and_annotations() {
    let tools = tools(Calculator::default());
    let search = find(&tools, "search").tool();
    assert_eq!(search.title.as_deref(), Some("Archive search"));
    let ann = search.annotations.as_ref().unwrap();
    assert_eq!(ann.read_only_hint, Some(true));
    assert_eq!(ann.open_world_hint, Some(false));
    assert_eq!(ann.destructive_hint, None);
    assert_eq!(ann.idempotent_hint, None);

    let clear = find(&tools, "memory.clear").tool();
    let ann = clear.annotations.as_ref().unwrap();
    assert_eq!(ann.destructive_hint, Some(true));
    assert_eq!(ann.idempotent_hint, Some(true));
    assert_eq!(ann.read_only_hint, None);
    assert_eq!(ann.open_world_hint, None);
}

#[test]
fn json_results_have_an_output_schema() {
    let tools = tools(Calculator::default());
    let search = find(&tools, "search").tool();
    let output = search
        .output_schema
        .as_ref()
        .expect("Json<T> has an output schema");
    // A list is not an object: it is wrapped as {"result": [...]}.
    assert_eq!(output["type"], "object");
    assert_eq!(output["properties"]["result"]["type"], "array");
    assert_eq!(output["required"], json!(["result"]));
    assert!(output["$defs"]["Hit"].is_object(), "{output}");
    // Plain values have none.
    assert_eq!(find(&tools, "add").tool().output_schema, None);
    assert_eq!(find(&tools, "recall").tool().output_schema, None);
}

#[test]
fn cfg_d_out_method_is_not_a_tool() {
    let tools = tools(Calculator::default());
    assert!(tools.iter().all(|t| t.name() != "hidden"));
}

// ---------------------------------------------------------------------------
// Free functions.

#[tool(title = "Adder", read_only, idempotent)]
#[describe("Add two integers")]
pub fn add_numbers(
    #[param("The first addend")] a: i64,
    #[param("The second addend")] b: i64,
) -> i64 {
    a + b
}

#[tool(name = "geo.distance")]
#[describe("Distance between two points")]
#[param(from, "The start")]
#[param(to, "The end")]
pub async fn distance(from: Point, to: Point) -> Json<f64> {
    Json((to.x - from.x).hypot(to.y - from.y))
}

#[tool]
#[describe("Tag counts")]
pub fn tag_counts(
    #[param("Counts by tag")] counts: HashMap<String, u32>,
    #[param("Tags to drop")] drop: Vec<String>,
    #[param("Case sensitive", default = true)] case_sensitive: bool,
    #[param("Between tags", default = ", ")] separator: String,
    #[param("Where the cloud is centred", default = Point { x: 0.0, y: 0.5 })] origin: Point,
) -> Result<CallToolResult, ToolError> {
    let _ = (counts, drop, case_sensitive, separator, origin);
    Ok(CallToolResult::text("ok"))
}

#[tool]
#[describe("Say hello")]
fn hello(ctx: Context) -> Vec<ContentBlock> {
    let _ = ctx;
    vec![ContentBlock::text("hello")]
}

#[test]
fn free_fn_becomes_a_unit_struct_toolbox() {
    assert_eq!(AddNumbersTool::NAME, "add_numbers");
    assert_eq!(AddNumbersTool::DESCRIPTION, "Add two integers");
    let tools = tools(AddNumbersTool);
    assert_eq!(tools.len(), 1);
    let tool = tools[0].tool();
    assert_eq!(tool.name, "add_numbers");
    assert_eq!(tool.title.as_deref(), Some("Adder"));
    let ann = tool.annotations.as_ref().unwrap();
    assert_eq!(
        (ann.read_only_hint, ann.idempotent_hint),
        (Some(true), Some(true))
    );
    let schema = input_schema(&tools[0]);
    assert_eq!(schema["properties"]["a"]["type"], "integer");
    assert_eq!(
        schema["properties"]["b"]["description"],
        "The second addend"
    );
    assert_eq!(schema["required"], json!(["a", "b"]));
    // The function itself is untouched.
    assert_eq!(add_numbers(2, 3), 5);
}

#[test]
fn free_fn_rename_and_shared_definitions() {
    assert_eq!(DistanceTool::NAME, "geo.distance");
    let tools = tools(DistanceTool);
    assert_eq!(tools[0].name(), "geo.distance");
    let schema = input_schema(&tools[0]);
    assert_eq!(schema["properties"]["from"]["$ref"], "#/$defs/Point");
    assert_eq!(schema["properties"]["from"]["description"], "The start");
    assert_eq!(schema["properties"]["to"]["$ref"], "#/$defs/Point");
    assert_eq!(
        schema["$defs"]["Point"]["properties"]["x"]["type"],
        "number"
    );
    let output = tools[0].tool().output_schema.as_ref().unwrap();
    assert_eq!(output["properties"]["result"]["type"], "number");
}

#[test]
fn collections_and_defaults_in_free_fn() {
    let tools = tools(TagCountsTool);
    let schema = input_schema(&tools[0]);
    let props = &schema["properties"];
    assert_eq!(props["counts"]["type"], "object");
    assert_eq!(props["counts"]["additionalProperties"]["type"], "integer");
    assert_eq!(props["drop"]["type"], "array");
    assert_eq!(props["drop"]["items"]["type"], "string");
    assert_eq!(props["case_sensitive"]["type"], "boolean");
    assert_eq!(props["case_sensitive"]["default"], true);
    // A string literal default of a `String` parameter.
    assert_eq!(props["separator"]["type"], "string");
    assert_eq!(props["separator"]["default"], ", ");
    // A struct's default: its schema shared in `$defs`, as without a default.
    assert_eq!(props["origin"]["$ref"], "#/$defs/Point");
    assert_eq!(props["origin"]["default"], json!({"x": 0.0, "y": 0.5}));
    assert_eq!(schema["required"], json!(["counts", "drop"]));
    assert_eq!(tools[0].tool().output_schema, None);
}

#[test]
fn private_free_fn_and_context_only() {
    let tools = tools(HelloTool);
    assert_eq!(tools[0].name(), "hello");
    assert_eq!(
        input_schema(&tools[0]),
        json!({"type": "object", "properties": {}})
    );
}

// ---------------------------------------------------------------------------
// Generics, raw identifiers, structured output objects.

pub trait Backend: Send + Sync + 'static {
    fn get(&self, key: &str) -> Option<String>;
}

#[derive(Debug)]
pub struct MapBackend(HashMap<String, String>);

impl Backend for MapBackend {
    fn get(&self, key: &str) -> Option<String> {
        self.0.get(key).cloned()
    }
}

#[derive(Debug)]
pub struct Store<B> {
    backend: B,
}

#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct Lookup {
    pub found: bool,
    pub value: Option<String>,
}

#[tool(description = "A key-value store over any backend")]
impl<B: Backend> Store<B> {
    #[describe("Look a key up")]
    pub fn get(&self, #[param("The key")] r#type: String) -> Json<Lookup> {
        let value = self.backend.get(&r#type);
        Json(Lookup {
            found: value.is_some(),
            value,
        })
    }
}

#[test]
fn generic_impl_and_raw_identifiers() {
    assert_eq!(<Store<MapBackend>>::NAME, "Store");
    let store = Store {
        backend: MapBackend(HashMap::new()),
    };
    let tools = tools(store);
    let schema = input_schema(&tools[0]);
    assert_eq!(schema["properties"]["type"]["description"], "The key");
    assert_eq!(schema["required"], json!(["type"]));
    let output = tools[0].tool().output_schema.as_ref().unwrap();
    // An object root is used as it is.
    assert_eq!(output["type"], "object");
    assert_eq!(output["properties"]["found"]["type"], "boolean");
    assert!(output.get("$schema").is_none());
}

#[test]
fn definitions_serialize_as_the_wire_expects() {
    let tools = tools(Calculator::default());
    let wire = serde_json::to_value(find(&tools, "search").tool()).unwrap();
    assert_eq!(wire["name"], "search");
    assert_eq!(wire["title"], "Archive search");
    assert_eq!(
        wire["annotations"],
        json!({"readOnlyHint": true, "openWorldHint": false})
    );
    assert_eq!(
        wire["inputSchema"]["properties"]["max_results"]["default"],
        5
    );
    assert!(wire["outputSchema"].is_object());
}

#[derive(Debug, Default)]
pub struct Files;

#[tool(description = "Files, with the reference servers' camelCase parameters")]
impl Files {
    #[describe("Replace text in a file")]
    #[param(old_text, "The text to replace", rename = "oldText")]
    pub fn edit(
        &self,
        old_text: String,
        #[param("Preview only", rename = "dryRun", default = false)] dry_run: bool,
        #[param("The file")] path: String,
    ) -> String {
        format!("{path}: {old_text} {dry_run}")
    }

    #[describe("List a directory")]
    pub fn list(
        &self,
        #[param("name or size", rename = "sortBy")] sort_by: Option<String>,
        #[param("The entry type", rename = "kind")] r#type: String,
    ) -> String {
        let kind = r#type;
        format!("{sort_by:?} {kind}")
    }
}

#[test]
fn renamed_params_have_their_wire_name_in_the_schema_in_both_forms() {
    let tools = tools(Files);
    let edit = input_schema(find(&tools, "edit"));
    assert_eq!(
        edit,
        json!({
            "type": "object",
            "properties": {
                "oldText": {"type": "string", "description": "The text to replace"},
                "dryRun": {"type": "boolean", "description": "Preview only", "default": false},
                "path": {"type": "string", "description": "The file"},
            },
            "required": ["oldText", "path"],
        })
    );
    let list = input_schema(find(&tools, "list"));
    let props = list["properties"].as_object().unwrap();
    let mut keys: Vec<&str> = props.keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(keys, ["kind", "sortBy"], "a raw identifier renamed too");
    assert_eq!(list["required"], json!(["kind"]));
}
