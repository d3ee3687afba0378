//! Nesting and size limits, bounded inlining, nullability and the
//! mapping back of strict arguments.

use super::*;
use serde_json::json;

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
