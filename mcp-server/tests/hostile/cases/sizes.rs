//! Oversized input: deep nesting (a recursion limit, not a stack overflow),
//! numbers out of range, and the limit on one message.

use serde_json::json;

use crate::support;
use crate::table::{
    add_raw, answered, both, case, padded_ping, refused, unparsed, Case, Expect, HttpExpect, MAX,
    S03, S11,
};

/// Codes a message too deep to read may get: not JSON, or not a request.
const TOO_DEEP: &[i64] = &[-32700, -32600];

fn deep_arrays(n: usize) -> String {
    format!("{}{}", "[".repeat(n), "]".repeat(n))
}

pub(super) fn nesting() -> Vec<Case> {
    let deep = deep_arrays(100_000);
    let objects = format!("{}1{}", r#"{"a":"#.repeat(100_000), "}".repeat(100_000));
    let in_member = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"ping","x":{deep}}}"#);
    let as_id = format!(r#"{{"jsonrpc":"2.0","id":{deep},"method":"ping"}}"#);
    vec![
        unparsed("100k nested arrays, unclosed", "[".repeat(100_000), -32700),
        both(
            "100k nested arrays",
            S11,
            deep.clone(),
            400,
            Expect::ErrorOneOf(TOO_DEEP, json!(null)),
        ),
        both(
            "100k nested arrays in a 2025-03-26 session",
            S03,
            deep.clone(),
            200,
            Expect::Batch(1),
        ),
        unparsed("100k nested objects", objects, -32600),
        answered(
            "100k nested arrays in an unknown member (skipped)",
            in_member,
            Expect::Success(json!(1), None),
        ),
        both(
            "100k nested arrays as the id",
            S11,
            as_id,
            400,
            Expect::ErrorOneOf(TOO_DEEP, json!(null)),
        ),
        // Well-formed JSON that is not what the parameter takes: an input
        // validation error, which the spec (tools, "Error Handling") reports
        // in the tool's result so the model can correct it.
        answered(
            "100k nested arrays in the arguments",
            add_raw(&format!(r#"{{"a":{deep}}}"#)),
            Expect::ToolError(json!(1)),
        ),
    ]
}

/// Numbers out of range for the parameter are an input validation error
/// ("value out of range" is the spec's own example).
pub(super) fn numbers() -> Vec<Case> {
    let huge_int = "123456789012345678901234567890";
    let sum = support::sum_text(huge_int.parse().unwrap(), 0.0);
    let ten_k_digits = format!(r#"{{"a":1{},"b":1}}"#, "0".repeat(10_000));
    vec![
        answered(
            "a huge float argument",
            add_raw(r#"{"a":1e400,"b":1}"#),
            Expect::ToolError(json!(1)),
        ),
        answered(
            "a 10k-digit integer argument",
            add_raw(&ten_k_digits),
            Expect::ToolError(json!(1)),
        ),
        answered(
            "a huge integer argument",
            add_raw(&format!(r#"{{"a":{huge_int},"b":0}}"#)),
            Expect::Success(json!(1), Some(sum)),
        ),
    ]
}

/// The limit on one message, 4 MiB: at it, and one byte over.
pub(super) fn size_limit() -> Vec<Case> {
    vec![
        answered(
            "a message of exactly 4 MiB",
            padded_ping(1, MAX),
            Expect::Success(json!(1), None),
        ),
        case(
            "a message of 4 MiB + 1",
            S11,
            padded_ping(1, MAX + 1),
            refused(-32600),
            HttpExpect::Status(413, Expect::Code(-32600)),
        ),
    ]
}
