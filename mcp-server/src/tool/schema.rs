//! JSON Schemas for tool arguments and structured results, built once per tool.

use oxmcp_types::JsonObject;
use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

use crate::tool::accepts_absent;
use crate::tool::rules::{self as param_rules, Bound, Param, Params, Rules};

fn generator() -> SchemaGenerator {
    SchemaSettings::draft2020_12().into_generator()
}

/// The standalone (root) schema of `T`, with its `$defs`, without `$schema`.
pub(crate) fn root_schema_for<T: JsonSchema>() -> Schema {
    let mut schema = generator().into_root_schema_for::<T>();
    if let Some(obj) = schema.as_object_mut() {
        obj.remove("$schema");
    }
    schema
}

/// What a value of `T` must be, in the words a tool's argument errors use
/// ("an integer from 0 to 255"): for the string arguments of prompts and
/// templates, whose types have a schema too. Made only for an error.
pub(crate) fn expected_of<T: JsonSchema>() -> String {
    let mut schema = root_schema_for::<T>().to_value();
    param_rules::add_natural_bounds(&mut schema);
    param_rules::expected(&schema)
}

/// Makes an output schema's root an object, as legacy revisions require.
///
/// Returns the schema and whether the structured value must be wrapped as
/// `{"result": value}` to match it.
pub(crate) fn object_root(schema: Schema) -> (Value, bool) {
    oxmcp_types::structured::wrap_schema(schema.to_value())
}

/// Builds a tool's `inputSchema`: an object with one described property per parameter.
///
/// Generated code calls [`param`](Self::param) or
/// [`param_with_default`](Self::param_with_default) once per parameter, then
/// [`build`](Self::build). Subschemas shared between parameters land once in `$defs`.
#[allow(missing_debug_implementations)]
pub struct InputSchemaBuilder {
    generator: SchemaGenerator,
    properties: JsonObject,
    required: Vec<Value>,
    /// Each parameter's name and rules, in order.
    rules: Vec<(String, Rules)>,
}

impl Default for InputSchemaBuilder {
    fn default() -> Self {
        Self::new()
    }
}

impl InputSchemaBuilder {
    /// An empty object schema.
    pub fn new() -> Self {
        InputSchemaBuilder {
            generator: generator(),
            properties: JsonObject::new(),
            required: Vec::new(),
            rules: Vec::new(),
        }
    }

    fn property<T: JsonSchema>(&mut self, name: &str, description: &str) -> JsonObject {
        let mut schema = self.generator.subschema_for::<T>().to_value();
        param_rules::add_natural_bounds(&mut schema);
        let mut obj = match schema {
            Value::Object(map) => map,
            // `true` accepts anything; `false` nothing.
            Value::Bool(true) => JsonObject::new(),
            other => {
                let mut m = JsonObject::new();
                m.insert("allOf".into(), Value::Array(vec![other]));
                m
            }
        };
        obj.insert("description".into(), Value::String(description.to_owned()));
        self.rules.push((name.to_owned(), Rules::default()));
        obj
    }

    /// A parameter; required unless `T` accepts absence (`Option<T>`).
    pub fn param<T: JsonSchema + DeserializeOwned>(&mut self, name: &str, description: &str) {
        let obj = self.property::<T>(name, description);
        if !accepts_absent::<T>() {
            self.required.push(Value::String(name.to_owned()));
        }
        self.properties.insert(name.to_owned(), Value::Object(obj));
    }

    /// An optional parameter with a default value, shown as `"default"` in the schema.
    pub fn param_with_default<T: JsonSchema + Serialize>(
        &mut self,
        name: &str,
        description: &str,
        default: &T,
    ) {
        let mut obj = self.property::<T>(name, description);
        if let Ok(value) = serde_json::to_value(default) {
            obj.insert("default".into(), value);
        }
        self.properties.insert(name.to_owned(), Value::Object(obj));
    }

    /// The schema of the parameter added last, and its rules.
    ///
    /// # Panics
    ///
    /// When no parameter was added yet (generated code adds one first).
    fn last(&mut self) -> (&mut JsonObject, &mut Rules) {
        let (name, rules) = self.rules.last_mut().expect("a parameter was added");
        let Some(Value::Object(obj)) = self.properties.get_mut(name.as_str()) else {
            unreachable!("each parameter has its property")
        };
        (obj, rules)
    }

    /// The parameter added last is at least `bound` (greater, if `exclusive`):
    /// `minimum` (or `exclusiveMinimum`) in its schema, checked on each call.
    pub fn minimum<T: crate::tool::bounds::Numeric>(&mut self, bound: Bound, exclusive: bool) {
        let (obj, rules) = self.last();
        set_bound(obj, ["minimum", "exclusiveMinimum"], bound, exclusive);
        rules.min = Some((bound, exclusive));
    }

    /// The parameter added last is at most `bound` (less, if `exclusive`).
    pub fn maximum<T: crate::tool::bounds::Numeric>(&mut self, bound: Bound, exclusive: bool) {
        let (obj, rules) = self.last();
        set_bound(obj, ["maximum", "exclusiveMaximum"], bound, exclusive);
        rules.max = Some((bound, exclusive));
    }

    /// The parameter added last has `min` to `max` characters (a string) or
    /// items (a list).
    pub fn length<T: crate::tool::bounds::HasLength>(
        &mut self,
        min: Option<u64>,
        max: Option<u64>,
    ) {
        let (obj, rules) = self.last();
        let (min_key, max_key) = T::LENGTH_OF.keywords();
        if let Some(min) = min {
            obj.insert(min_key.into(), min.into());
        }
        if let Some(max) = max {
            obj.insert(max_key.into(), max.into());
        }
        rules.length = Some((T::LENGTH_OF, min, max));
    }

    /// The parameter added last matches the regular expression `pattern`
    /// (anywhere in the string, as JSON Schema's `pattern` does).
    ///
    /// # Panics
    ///
    /// When `pattern` is not a valid regular expression: the message names
    /// the parameter and the problem, when the toolbox is built.
    #[cfg(feature = "validation")]
    pub fn pattern<T: crate::tool::bounds::Textual>(&mut self, pattern: &str) {
        let name = self
            .rules
            .last()
            .map(|(n, _)| n.as_str())
            .unwrap_or_default();
        let re = match regex::Regex::new(pattern) {
            Ok(re) => re,
            Err(e) => {
                panic!("the `pattern` of parameter `{name}` is not a valid regular expression: {e}")
            }
        };
        let (obj, rules) = self.last();
        obj.insert("pattern".into(), Value::String(pattern.to_owned()));
        rules.pattern = Some(re);
    }

    /// The parameter added last takes only these values (`enum`).
    pub fn one_of<T: Serialize>(&mut self, values: &[T]) {
        let (obj, rules) = self.last();
        let mut allowed: Vec<Value> = values
            .iter()
            .filter_map(|v| serde_json::to_value(v).ok())
            .collect();
        allowed.dedup();
        let mut listed = allowed.clone();
        let nullable = match obj.get("type") {
            Some(Value::Array(types)) => types.iter().any(|t| t == "null"),
            _ => false,
        } || accepts_null(obj);
        if nullable && !listed.contains(&Value::Null) {
            listed.push(Value::Null);
        }
        obj.insert("enum".into(), Value::Array(listed));
        rules.allowed = allowed;
    }

    /// The finished schema: `type: "object"`, `properties`, `required`, `$defs`.
    pub fn build(self) -> JsonObject {
        self.finish().0
    }

    /// The finished schema, and the parameters' rules and the words of their
    /// errors, which the generated code checks each call's arguments with.
    pub fn finish(mut self) -> (JsonObject, Params) {
        let mut root = JsonObject::new();
        root.insert("type".into(), "object".into());
        let mut defs = self.generator.take_definitions(true);
        for def in defs.values_mut() {
            param_rules::add_natural_bounds(def);
        }
        let list = self
            .rules
            .into_iter()
            .map(|(name, rules)| {
                let schema = self.properties.get(&name);
                Param::new(name, schema, &defs, rules)
            })
            .collect();
        root.insert("properties".into(), Value::Object(self.properties));
        if !self.required.is_empty() {
            root.insert("required".into(), Value::Array(self.required));
        }
        if !defs.is_empty() {
            root.insert("$defs".into(), Value::Object(defs));
        }
        (root, Params { list })
    }
}

/// Writes a bound under its keyword (`keys`: inclusive, exclusive), in
/// place of the type's own natural bound.
fn set_bound(obj: &mut JsonObject, keys: [&str; 2], bound: Bound, exclusive: bool) {
    let [inclusive, excluding] = keys;
    if exclusive {
        obj.remove(inclusive);
        obj.insert(excluding.into(), bound.to_json());
    } else {
        obj.insert(inclusive.into(), bound.to_json());
    }
}

/// Whether a schema's `anyOf` admits `null` (an `Option` of a `$ref`).
fn accepts_null(obj: &JsonObject) -> bool {
    obj.get("anyOf").and_then(Value::as_array).is_some_and(|b| {
        b.iter()
            .any(|b| b.get("type") == Some(&Value::from("null")))
    })
}

/// A prompt's or template's argument of a type with a JSON Schema is
/// refused in the words tools use (see `prompt::args::Words`).
impl<T: JsonSchema> crate::prompt::args::WordsSchema for &crate::prompt::args::Words<T> {
    fn words(&self) -> fn() -> Option<String> {
        || Some(expected_of::<T>())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::collections::HashMap;

    #[derive(serde::Deserialize, serde::Serialize, JsonSchema)]
    struct Point {
        x: f64,
        y: f64,
    }

    #[test]
    fn primitive_table() {
        let mut b = InputSchemaBuilder::new();
        b.param::<String>("s", "a string");
        b.param::<u32>("n", "an integer");
        b.param::<f64>("f", "a float");
        b.param::<bool>("b", "a bool");
        b.param::<Vec<String>>("v", "a list");
        b.param::<HashMap<String, i64>>("m", "a map");
        b.param::<Option<String>>("o", "optional");
        b.param_with_default::<u32>("d", "defaulted", &5);
        let s = Value::Object(b.build());
        assert_eq!(s["type"], "object");
        assert_eq!(s["properties"]["s"]["type"], "string");
        assert_eq!(s["properties"]["n"]["type"], "integer");
        assert_eq!(s["properties"]["f"]["type"], "number");
        assert_eq!(s["properties"]["b"]["type"], "boolean");
        assert_eq!(s["properties"]["v"]["type"], "array");
        assert_eq!(s["properties"]["v"]["items"]["type"], "string");
        assert_eq!(s["properties"]["m"]["type"], "object");
        assert_eq!(
            s["properties"]["m"]["additionalProperties"]["type"],
            "integer"
        );
        assert_eq!(s["properties"]["d"]["default"], 5);
        assert_eq!(s["properties"]["s"]["description"], "a string");
        assert_eq!(s["required"], json!(["s", "n", "f", "b", "v", "m"]));
    }

    #[test]
    fn structs_go_through_schemars_with_defs() {
        let mut b = InputSchemaBuilder::new();
        b.param::<Point>("from", "start");
        b.param::<Point>("to", "end");
        let s = Value::Object(b.build());
        assert_eq!(s["properties"]["from"]["$ref"], "#/$defs/Point");
        assert_eq!(s["$defs"]["Point"]["properties"]["x"]["type"], "number");
    }

    #[test]
    fn non_object_output_is_wrapped() {
        let (schema, wrapped) = object_root(root_schema_for::<Vec<Point>>());
        assert!(wrapped);
        assert_eq!(schema["type"], "object");
        assert_eq!(schema["properties"]["result"]["type"], "array");
        assert_eq!(schema["$defs"]["Point"]["type"], "object");
        let (schema, wrapped) = object_root(root_schema_for::<Point>());
        assert!(!wrapped);
        assert_eq!(schema["type"], "object");
    }
}
