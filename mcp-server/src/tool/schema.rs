//! JSON Schemas for tool arguments and structured results, built once per tool.

use mcp_types::JsonObject;
use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

use crate::tool::accepts_absent;

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

/// Makes an output schema's root an object, as legacy revisions require.
///
/// Returns the schema and whether the structured value must be wrapped as
/// `{"result": value}` to match it.
pub(crate) fn object_root(schema: Schema) -> (Value, bool) {
    mcp_types::structured::wrap_schema(schema.to_value())
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
        }
    }

    fn property<T: JsonSchema>(&mut self, name: &str, description: &str) -> JsonObject {
        let schema = self.generator.subschema_for::<T>().to_value();
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
        let _ = name;
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

    /// The finished schema: `type: "object"`, `properties`, `required`, `$defs`.
    pub fn build(mut self) -> JsonObject {
        let mut root = JsonObject::new();
        root.insert("type".into(), "object".into());
        root.insert("properties".into(), Value::Object(self.properties));
        if !self.required.is_empty() {
            root.insert("required".into(), Value::Array(self.required));
        }
        let defs = self.generator.take_definitions(true);
        if !defs.is_empty() {
            root.insert("$defs".into(), Value::Object(defs));
        }
        root
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
