//! The JSON-RPC envelope: the method, the id, duplicate keys and the
//! `jsonrpc` member.

use serde_json::{json, Value};

use crate::table::{add_raw, answered, both, error1, ping, req1, unparsed, Case, Expect, S11};

/// Method names no server has: each is a request, answered with -32601; a
/// method that is no string, or a request that is also a response, is no
/// request at all.
pub(super) fn methods() -> Vec<Case> {
    let unknown =
        |name: &str, method: &str| answered(name, req1(method, &json!({})), error1(-32601));
    vec![
        unknown("a 1 MiB method name", &"m".repeat(1 << 20)),
        unknown("a method with spaces", " tools/list "),
        unknown("a method in upper case", "TOOLS/LIST"),
        unparsed(
            "a method that is a number",
            r#"{"jsonrpc":"2.0","id":1,"method":5}"#,
            -32600,
        ),
        both(
            "method and result together",
            S11,
            r#"{"jsonrpc":"2.0","id":1,"method":"ping","result":{}}"#,
            400,
            error1(-32600),
        ),
    ]
}

/// Ids of every type: what JSON-RPC allows is echoed (a string or an
/// integer, in i64), anything else refused before the request is read.
pub(super) fn ids() -> Vec<Case> {
    let pong = |name: &str, id: Value| answered(name, ping(&id), Expect::Success(id, None));
    vec![
        unparsed("a null id", ping(&Value::Null), -32600),
        unparsed("a float id", ping(&json!(1.5)), -32600),
        unparsed(
            "an integral float id",
            r#"{"jsonrpc":"2.0","id":1.0,"method":"ping"}"#,
            -32600,
        ),
        unparsed("an object id", ping(&json!({"a": 1})), -32600),
        unparsed("an array id", ping(&json!([1])), -32600),
        unparsed("a boolean id", ping(&json!(true)), -32600),
        unparsed(
            "an id of 2^63",
            r#"{"jsonrpc":"2.0","id":9223372036854775808,"method":"ping"}"#,
            -32600,
        ),
        unparsed(
            "an id of 2^64",
            r#"{"jsonrpc":"2.0","id":18446744073709551616,"method":"ping"}"#,
            -32600,
        ),
        pong("an id of -2^63", json!(i64::MIN)),
        pong("an id of 0", json!(0)),
        pong("an empty string id", json!("")),
        pong("a 100 KB string id", json!("i".repeat(100_000))),
        pong("an id with escapes", json!("\u{0}\n\"é\u{1F600}")),
    ]
}

/// Duplicate members of the envelope: (name, the line); each refused with
/// -32600 before the request is read.
const DUPLICATE_MEMBERS: &[(&str, &str)] = &[
    (
        "a duplicate id",
        r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}"#,
    ),
    (
        "a duplicate method",
        r#"{"jsonrpc":"2.0","id":1,"method":"ping","method":"tools/list"}"#,
    ),
    (
        "a duplicate params",
        r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{},"params":{}}"#,
    ),
];

/// Duplicate keys: refused in the envelope; in the arguments, the last wins.
pub(super) fn duplicate_keys() -> Vec<Case> {
    let mut cases: Vec<Case> = DUPLICATE_MEMBERS
        .iter()
        .map(|&(name, line)| unparsed(name, line, -32600))
        .collect();
    cases.push(answered(
        "a duplicate argument (the last wins)",
        add_raw(r#"{"a":1,"a":5,"b":1}"#),
        Expect::Success(json!(1), Some("6".into())),
    ));
    cases
}

/// A `jsonrpc` member other than "2.0": (name, the line); each refused with
/// -32600, the id still echoed, and HTTP 400.
const BAD_JSONRPC: &[(&str, &str)] = &[
    ("jsonrpc missing", r#"{"id":1,"method":"ping"}"#),
    ("jsonrpc 1.0", r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#),
    (
        "jsonrpc as a number",
        r#"{"jsonrpc":2.0,"id":1,"method":"ping"}"#,
    ),
    ("jsonrpc null", r#"{"jsonrpc":null,"id":1,"method":"ping"}"#),
];

pub(super) fn jsonrpc_member() -> Vec<Case> {
    BAD_JSONRPC
        .iter()
        .map(|&(name, line)| both(name, S11, line, 400, error1(-32600)))
        .collect()
}
