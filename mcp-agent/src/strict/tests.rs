use super::*;
use serde_json::{json, Map};

use super::read::accepts;

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
    assert!(error(&remote)
        .contains("#/properties/a: the reference `https://example.com/schema.json` is not local"));
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
    assert!(
        error(&json!({"type": "object", "properties": many})).contains("5000 object properties")
    );
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
    let schema =
        json!({"type": "object", "properties": {"root": {"$ref": "#/$defs/D9"}}, "$defs": defs});
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
