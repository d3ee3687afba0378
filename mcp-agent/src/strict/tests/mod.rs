//! The strict conversion, case by case: structure and references here;
//! keywords and composition in `keywords`, limits and nullability in `limits`.

mod keywords;
mod limits;

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
