//! Bytes that are not one JSON-RPC message: refused before the id is read
//! (a null id; HTTP 400), or, for blank lines, never answered.

use serde_json::json;

use crate::checks::{two_pings, unknown_c};
use crate::table::{
    add_req, answered, both, case, error1, ping, refused, stdio_only, unparsed, Case, Expect,
    HttpExpect, S11,
};

/// Not JSON, or not one JSON object: (name, the line, the code).
const NOT_ONE_OBJECT: &[(&str, &str, i64)] = &[
    ("not JSON", "{this is not json", -32700),
    ("a JSON string", r#""just a string""#, -32600),
    ("a JSON number", "42", -32600),
    ("JSON null", "null", -32600),
    (
        "trailing garbage",
        r#"{"jsonrpc":"2.0","id":1,"method":"ping"} xyz"#,
        -32700,
    ),
    (
        "two objects on one line",
        r#"{"jsonrpc":"2.0","id":1,"method":"ping"}{"jsonrpc":"2.0","id":2,"method":"ping"}"#,
        -32700,
    ),
    (
        "a byte-order mark",
        "\u{feff}{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}",
        -32700,
    ),
];

pub(super) fn not_one_object() -> Vec<Case> {
    NOT_ONE_OBJECT
        .iter()
        .map(|&(name, line, code)| unparsed(name, line, code))
        .collect()
}

/// Bytes that are not UTF-8, NULs, a lone surrogate.
pub(super) fn bytes() -> Vec<Case> {
    let bad_in_string = [
        br#"{"jsonrpc":"2.0","id":1,"method":"ping"#.as_slice(),
        b"\xc3\x28\"}",
    ];
    let nul_in_string = [
        br#"{"jsonrpc":"2.0","id":1,"method":"pi"#.as_slice(),
        b"\0ng\"}",
    ];
    vec![
        unparsed("invalid UTF-8", b"\xff\xfe\xfd".to_vec(), -32700),
        unparsed(
            "invalid UTF-8 inside a string",
            bad_in_string.concat(),
            -32700,
        ),
        both(
            "a lone surrogate escape",
            S11,
            r#"{"jsonrpc":"2.0","id":1,"method":"\ud800"}"#,
            400,
            Expect::ErrorOneOf(&[-32700, -32600, -32601], json!(null)),
        ),
        unparsed("raw NUL bytes", b"\0\0\0".to_vec(), -32700),
        unparsed("a raw NUL inside a string", nul_in_string.concat(), -32700),
        answered(
            "an escaped NUL in the method",
            r#"{"jsonrpc":"2.0","id":1,"method":"ping\u0000"}"#,
            error1(-32601),
        ),
        // `add` takes no `c`: the answer names it (tools refuse unknown arguments).
        answered(
            "an escaped NUL in an argument",
            add_req(1, &json!({"a": 1, "b": 2, "c": "\u{0}"})),
            Expect::Lines(1, unknown_c),
        ),
    ]
}

/// Blank lines and line endings: stdio's framing (HTTP has no lines).
pub(super) fn framing() -> Vec<Case> {
    let crlf = format!("{}\r\n{}\r\n", ping(&json!(1)), ping(&json!(2)));
    vec![
        case(
            "a line of only whitespace",
            S11,
            " \t  \t ",
            Expect::Nothing,
            HttpExpect::Status(400, refused(-32700)),
        ),
        stdio_only("empty lines", S11, "\n\n\n", Expect::Nothing),
        stdio_only("a carriage return alone", S11, "\r", Expect::Nothing),
        stdio_only("CRLF line endings", S11, crlf, Expect::Lines(2, two_pings)),
        answered(
            "a CR inside the JSON",
            "{\"jsonrpc\":\"2.0\",\r\"id\":1,\r\"method\":\"ping\"}",
            Expect::Success(json!(1), None),
        ),
    ]
}
