//! Bad params per method: params of the wrong shape, and `tools/call`'s
//! name and arguments.

use serde_json::{json, Value};

use crate::checks::fifty_thousand_unknown;
use crate::support::LATEST_LEGACY;
use crate::table::{add_req, answered, both, error1, req1, Case, Expect, Setup, S11};

/// Params a method cannot take, in a session: (name, method, the params as
/// JSON, the code, the HTTP status). Invalid params (-32602) are answered
/// (200); params that are neither an object nor an array make the message
/// no request (-32600, 400).
const WRONG_PARAMS: &[(&str, &str, &str, i64, u16)] = &[
    (
        "tools/call params an array",
        "tools/call",
        "[1, 2]",
        -32602,
        200,
    ),
    (
        "tools/call params an empty array",
        "tools/call",
        "[]",
        -32602,
        200,
    ),
    (
        "tools/call params a string",
        "tools/call",
        r#""add""#,
        -32600,
        400,
    ),
    (
        "tools/call params a number",
        "tools/call",
        "42",
        -32600,
        400,
    ),
    ("tools/call params true", "tools/call", "true", -32600, 400),
    ("tools/call params null", "tools/call", "null", -32602, 200),
    (
        "tools/list params an array",
        "tools/list",
        "[1]",
        -32602,
        200,
    ),
    (
        "logging/setLevel with a bad level",
        "logging/setLevel",
        r#"{"level": "loud"}"#,
        -32602,
        200,
    ),
];

/// MCP's params are named: by-position arrays are refused (-32602), even
/// one that would fill every field in order.
const BY_POSITION: &[(&str, &str, &str)] = &[
    (
        "tools/call params a by-position array",
        "tools/call",
        r#"["add", {"a": 1, "b": 2}]"#,
    ),
    (
        "tools/list params an array holding null",
        "tools/list",
        "[null]",
    ),
];

fn from_table(name: &str, method: &str, params: &str, code: i64, status: u16) -> Case {
    let params: Value = serde_json::from_str(params).expect("the table's params are JSON");
    both(name, S11, req1(method, &params), status, error1(code))
}

pub(super) fn wrong_params() -> Vec<Case> {
    let fresh = |name: &str, input: String| both(name, Setup::Fresh, input, 200, error1(-32602));
    let full_by_position = json!([LATEST_LEGACY, {}, {"name": "x", "version": "1"}]);
    let mut cases: Vec<Case> = WRONG_PARAMS
        .iter()
        .map(|&(name, method, params, code, status)| from_table(name, method, params, code, status))
        .collect();
    cases.extend([
        fresh("initialize params an array", req1("initialize", &json!([]))),
        fresh(
            "initialize without params",
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize"}"#.to_owned(),
        ),
        fresh(
            "initialize params a full by-position array",
            req1("initialize", &full_by_position),
        ),
    ]);
    cases.extend(
        BY_POSITION
            .iter()
            .map(|&(name, method, params)| from_table(name, method, params, -32602, 200)),
    );
    cases
}

/// `tools/call`'s name and arguments: arguments that are not an object
/// (-32602), or an object `add` cannot take (an isError result the model
/// can correct); names no tool has.
pub(super) fn tool_arguments() -> Vec<Case> {
    let fifty_thousand: serde_json::Map<_, _> = (0..50_000)
        .map(|i| (format!("k{i}"), json!(i)))
        .chain([("a".to_owned(), json!(2)), ("b".to_owned(), json!(3))])
        .collect();
    let call = |params: Value| req1("tools/call", &params);
    vec![
        answered(
            "arguments an array",
            add_req(1, &json!([1, 2])),
            error1(-32602),
        ),
        answered(
            "arguments a string",
            add_req(1, &json!("a=1")),
            error1(-32602),
        ),
        answered("arguments a number", add_req(1, &json!(5)), error1(-32602)),
        answered(
            "arguments null",
            add_req(1, &json!(null)),
            Expect::ToolError(json!(1)),
        ),
        answered(
            "arguments of the wrong types",
            add_req(1, &json!({"a": "1", "b": [2]})),
            Expect::ToolError(json!(1)),
        ),
        // Refused as unknown, in a message of bounded length.
        answered(
            "50k extra arguments",
            add_req(1, &json!(fifty_thousand)),
            Expect::Lines(1, fifty_thousand_unknown),
        ),
        answered(
            "a tool name that is a number",
            call(json!({"name": 5})),
            error1(-32602),
        ),
        answered(
            "no tool name",
            call(json!({"arguments": {}})),
            error1(-32602),
        ),
        answered(
            "an empty tool name",
            call(json!({"name": ""})),
            error1(-32602),
        ),
        answered(
            "a 1 MiB tool name",
            call(json!({"name": "n".repeat(1 << 20)})),
            error1(-32602),
        ),
        answered(
            "a bad cursor",
            req1("tools/list", &json!({"cursor": "\u{0}not-a-cursor"})),
            error1(-32602),
        ),
    ]
}
