//! Arguments typed `key=value` on the command line, turned into the JSON a
//! tool or prompt takes: each value converted by the type its schema gives
//! (numbers, booleans, JSON for objects and arrays, strings as given), and
//! a wrong key, a wrong type or a missing required argument refused before
//! anything is sent, in the schema's own words.

use serde_json::{Map, Value};

/// Splits `key=value` arguments; anything else is refused.
pub(crate) fn split_pairs(pairs: &[String]) -> Result<Vec<(String, String)>, String> {
    pairs
        .iter()
        .map(|pair| match pair.split_once('=') {
            Some((key, value)) if !key.is_empty() => Ok((key.to_owned(), value.to_owned())),
            _ => Err(format!(
                "`{pair}` is not an argument: write arguments as key=value (or give them all with --args JSON)"
            )),
        })
        .collect()
}

/// The `arguments` object for tool `tool` whose input schema is `schema`:
/// `--args` (a JSON object) first, each `key=value` then set over it.
pub(crate) fn tool_arguments(
    tool: &str,
    schema: &Map<String, Value>,
    json: Option<&str>,
    pairs: &[(String, String)],
) -> Result<Map<String, Value>, String> {
    let mut arguments = match json {
        None => Map::new(),
        Some(text) => match serde_json::from_str(text) {
            Ok(Value::Object(object)) => object,
            Ok(_) => return Err("--args must be a JSON object, e.g. --args '{\"a\": 1}'".into()),
            Err(e) => {
                return Err(format!(
                    "--args is not valid JSON ({e}): give an object, e.g. --args '{{\"a\": 1}}'"
                ))
            }
        },
    };
    let properties = schema.get("properties").and_then(Value::as_object);
    // A key the schema does not declare is a typo unless the schema takes
    // any key: `additionalProperties` true or a schema, or no properties
    // declared and extra ones not forbidden.
    let open = match schema.get("additionalProperties") {
        Some(Value::Bool(false)) => false,
        Some(Value::Bool(true) | Value::Object(_)) => true,
        _ => properties.is_none_or(Map::is_empty),
    };
    for (key, text) in pairs {
        let property = properties.and_then(|p| p.get(key));
        let value = match property {
            Some(property) => convert(tool, key, text, property)?,
            None if open => guess(text),
            None => return Err(unknown_key(tool, key, properties)),
        };
        arguments.insert(key.clone(), value);
    }
    if !open {
        if let Some(key) = arguments
            .keys()
            .find(|k| properties.is_none_or(|p| !p.contains_key(*k)))
        {
            return Err(unknown_key(tool, key, properties));
        }
    }
    if let Some(required) = schema.get("required").and_then(Value::as_array) {
        for name in required.iter().filter_map(Value::as_str) {
            if !arguments.contains_key(name) {
                let said = properties
                    .and_then(|p| p.get(name))
                    .and_then(|p| p.get("description"))
                    .and_then(Value::as_str)
                    .map(|d| format!(" ({d})"))
                    .unwrap_or_default();
                return Err(format!(
                    "tool `{tool}` needs `{name}`{said}: add {name}=VALUE"
                ));
            }
        }
    }
    fits(tool, schema, &arguments)?;
    Ok(arguments)
}

/// Refuses `arguments` that the whole schema rejects (what `--args` gives,
/// nested values, constraints such as `minimum`), in the validator's words
/// and at the path of the value at fault. A schema that does not compile
/// is the server's to judge: the arguments go as they are.
fn fits(
    tool: &str,
    schema: &Map<String, Value>,
    arguments: &Map<String, Value>,
) -> Result<(), String> {
    let schema = Value::Object(schema.clone());
    let Ok(validator) = jsonschema::validator_for(&schema) else {
        return Ok(());
    };
    let instance = Value::Object(arguments.clone());
    match validator.validate(&instance) {
        Ok(()) => Ok(()),
        Err(e) => {
            let path = e.instance_path().to_string();
            let at = if path.is_empty() {
                String::new()
            } else {
                format!(" at `{path}`")
            };
            Err(format!(
                "the arguments of tool `{tool}` do not fit its input schema{at}: {e}"
            ))
        }
    }
}

fn unknown_key(tool: &str, key: &str, properties: Option<&Map<String, Value>>) -> String {
    let known: Vec<&str> = properties
        .map(|p| p.keys().map(String::as_str).collect())
        .unwrap_or_default();
    if known.is_empty() {
        format!("tool `{tool}` takes no arguments, but `{key}` was given: drop it")
    } else {
        format!(
            "tool `{tool}` has no parameter `{key}`: its parameters are {}",
            known.join(", ")
        )
    }
}

/// The JSON types a property's schema allows (`type`, or the `type`s of its
/// `anyOf`/`oneOf` branches, as `Option<T>` is often written); empty when
/// the schema does not say.
fn types(schema: &Value) -> Vec<&str> {
    let mut found = Vec::new();
    match schema.get("type") {
        Some(Value::String(t)) => found.push(t.as_str()),
        Some(Value::Array(ts)) => found.extend(ts.iter().filter_map(Value::as_str)),
        _ => {}
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(branches) = schema.get(key).and_then(Value::as_array) {
            for branch in branches {
                found.extend(types(branch));
            }
        }
    }
    found
}

/// `text` as a JSON value when it parses as one, else the string itself.
fn guess(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_owned()))
}

/// `text` converted to the type `schema` gives argument `key`.
fn convert(tool: &str, key: &str, text: &str, schema: &Value) -> Result<Value, String> {
    let allowed = types(schema);
    let value = if allowed.is_empty() {
        guess(text)
    } else {
        allowed
            .iter()
            .filter(|t| **t != "string")
            .find_map(|t| as_type(t, text))
            .or_else(|| {
                allowed
                    .contains(&"string")
                    .then(|| Value::String(text.to_owned()))
            })
            .ok_or_else(|| {
                let described = schema
                    .get("description")
                    .and_then(Value::as_str)
                    .map(|d| format!(" ({d})"))
                    .unwrap_or_default();
                format!(
                    "argument `{key}` of tool `{tool}`{described} must be {}, not `{text}`",
                    a_type(&allowed)
                )
            })?
    };
    if let Some(choices) = schema.get("enum").and_then(Value::as_array) {
        if !choices.contains(&value) {
            let list: Vec<String> = choices.iter().map(Value::to_string).collect();
            return Err(format!(
                "argument `{key}` of tool `{tool}` must be one of {}, not `{text}`",
                list.join(", ")
            ));
        }
    }
    Ok(value)
}

/// `text` as a value of JSON type `ty`, if it is one.
fn as_type(ty: &str, text: &str) -> Option<Value> {
    match ty {
        "integer" => text
            .parse::<i64>()
            .map(Value::from)
            .or_else(|_| text.parse::<u64>().map(Value::from))
            .ok(),
        "number" => text.parse::<i64>().map(Value::from).ok().or_else(|| {
            text.parse::<f64>()
                .ok()
                .filter(|f| f.is_finite())
                .map(Value::from)
        }),
        "boolean" => match text {
            "true" => Some(Value::Bool(true)),
            "false" => Some(Value::Bool(false)),
            _ => None,
        },
        "null" => (text == "null").then_some(Value::Null),
        "object" => serde_json::from_str(text).ok().filter(Value::is_object),
        "array" => serde_json::from_str(text).ok().filter(Value::is_array),
        _ => None,
    }
}

/// "a number", "an integer or null", … in the schema's words.
fn a_type(types: &[&str]) -> String {
    let words: Vec<String> = types
        .iter()
        .map(|t| match *t {
            "integer" => "an integer".to_owned(),
            "object" => "a JSON object".to_owned(),
            "array" => "a JSON array".to_owned(),
            "null" => "null".to_owned(),
            "boolean" => "a boolean (true or false)".to_owned(),
            other => format!("a {other}"),
        })
        .collect();
    words.join(" or ")
}

/// The `arguments` of prompt `prompt`, whose declared arguments are
/// `declared`: strings, by name, each one declared, the required ones there.
pub(crate) fn prompt_arguments(
    prompt: &str,
    declared: &[oxmcp_client::types::prompt::PromptArgument],
    pairs: Vec<(String, String)>,
) -> Result<Vec<(String, String)>, String> {
    for (key, _) in &pairs {
        if !declared.iter().any(|a| &a.name == key) {
            let names: Vec<&str> = declared.iter().map(|a| a.name.as_str()).collect();
            return Err(if names.is_empty() {
                format!("prompt `{prompt}` takes no arguments, but `{key}` was given: drop it")
            } else {
                format!(
                    "prompt `{prompt}` has no argument `{key}`: its arguments are {}",
                    names.join(", ")
                )
            });
        }
    }
    for argument in declared.iter().filter(|a| a.required == Some(true)) {
        if !pairs.iter().any(|(k, _)| k == &argument.name) {
            let said = argument
                .description
                .as_deref()
                .map(|d| format!(" ({d})"))
                .unwrap_or_default();
            return Err(format!(
                "prompt `{prompt}` needs `{}`{said}: add {}=VALUE",
                argument.name, argument.name
            ));
        }
    }
    Ok(pairs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Map<String, Value> {
        json!({
            "type": "object",
            "properties": {
                "a": {"type": "number", "description": "The first number"},
                "n": {"type": "integer"},
                "flag": {"type": "boolean"},
                "name": {"type": "string"},
                "values": {"type": "array", "items": {"type": "number"}},
                "maybe": {"type": ["integer", "null"]},
                "op": {"type": "string", "enum": ["add", "sub"]},
            },
            "required": ["a"],
            "additionalProperties": false,
        })
        .as_object()
        .unwrap()
        .clone()
    }

    fn pairs(items: &[&str]) -> Vec<(String, String)> {
        split_pairs(&items.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>()).unwrap()
    }

    #[test]
    fn values_take_the_type_their_schema_gives() {
        let args = tool_arguments(
            "t",
            &schema(),
            None,
            &pairs(&[
                "a=2.5",
                "n=7",
                "flag=true",
                "name=42",
                "values=[1,2]",
                "maybe=null",
                "op=add",
            ]),
        )
        .unwrap();
        assert_eq!(
            Value::Object(args),
            json!({"a": 2.5, "n": 7, "flag": true, "name": "42", "values": [1, 2], "maybe": null, "op": "add"})
        );
    }

    #[test]
    fn a_value_of_the_wrong_type_is_refused_in_the_schemas_words() {
        let e = tool_arguments("add", &schema(), None, &pairs(&["a=two"])).unwrap_err();
        assert_eq!(
            e,
            "argument `a` of tool `add` (The first number) must be a number, not `two`"
        );
        let e = tool_arguments("add", &schema(), None, &pairs(&["a=1", "n=1.5"])).unwrap_err();
        assert!(e.contains("must be an integer"), "{e}");
        let e = tool_arguments("add", &schema(), None, &pairs(&["a=1", "op=mul"])).unwrap_err();
        assert!(e.contains("one of \"add\", \"sub\""), "{e}");
    }

    #[test]
    fn an_unknown_key_names_the_parameters() {
        let e = tool_arguments("add", &schema(), None, &pairs(&["a=1", "c=3"])).unwrap_err();
        assert!(
            e.starts_with("tool `add` has no parameter `c`: its parameters are "),
            "{e}"
        );
        assert!(e.contains("values"), "{e}");
    }

    #[test]
    fn a_missing_required_argument_is_named_with_its_description() {
        let e = tool_arguments("add", &schema(), None, &pairs(&["n=1"])).unwrap_err();
        assert_eq!(e, "tool `add` needs `a` (The first number): add a=VALUE");
    }

    #[test]
    fn key_values_override_args_json() {
        let args = tool_arguments(
            "t",
            &schema(),
            Some(r#"{"a": 1, "n": 2}"#),
            &pairs(&["n=3"]),
        )
        .unwrap();
        assert_eq!(Value::Object(args), json!({"a": 1, "n": 3}));
        assert!(tool_arguments("t", &schema(), Some("[1]"), &[]).is_err());
        assert!(tool_arguments("t", &schema(), Some("{"), &[]).is_err());
    }

    #[test]
    fn a_schema_without_properties_takes_any_key() {
        let open = json!({"type": "object"}).as_object().unwrap().clone();
        let args = tool_arguments("t", &open, None, &pairs(&["x=1", "y=hi"])).unwrap();
        assert_eq!(Value::Object(args), json!({"x": 1, "y": "hi"}));
    }

    #[test]
    fn args_json_is_checked_against_the_whole_schema() {
        let e = tool_arguments("t", &schema(), Some(r#"{"a": 1, "c": 2}"#), &[]).unwrap_err();
        assert!(e.starts_with("tool `t` has no parameter `c`"), "{e}");
        let e = tool_arguments("t", &schema(), Some(r#"{"a": "x"}"#), &[]).unwrap_err();
        assert!(e.contains("do not fit its input schema at `/a`"), "{e}");
        let e = tool_arguments(
            "t",
            &schema(),
            Some(r#"{"a": 1, "values": [1, "two"]}"#),
            &[],
        )
        .unwrap_err();
        assert!(e.contains("at `/values/1`"), "{e}");
    }

    #[test]
    fn a_pair_without_equals_is_refused() {
        assert!(split_pairs(&["oops".to_owned()]).is_err());
        assert!(split_pairs(&["=x".to_owned()]).is_err());
    }
}
