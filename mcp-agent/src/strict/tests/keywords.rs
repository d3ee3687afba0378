//! Keywords strict mode lacks (dropped or described), types, enums and
//! composition (`allOf`, `oneOf`, `anyOf`).

use super::*;
use serde_json::json;

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
    assert!(error(&object(&json!({"e": {"enum": [{"a": 1}]}}))).contains("object or array values"));
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
    assert!(error(&object(&json!({"d": {"type": 3}}))).contains("neither a string nor an array"));
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
