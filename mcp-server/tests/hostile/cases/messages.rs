//! Notifications and responses (never answered, unless malformed), and
//! batches (2025-03-26 only).

use serde_json::json;

use crate::checks::{mixed_batch_reply, ten_thousand_replies};
use crate::support;
use crate::table::{
    add_req, both, case, ping, refused, stdio_only, unanswered, unparsed, Case, Expect, HttpExpect,
    S03, S11,
};

/// Notifications and responses the server has no use for: (name, the line).
const IGNORED: &[(&str, &str)] = &[
    (
        "an unknown notification",
        r#"{"jsonrpc":"2.0","method":"notifications/whatever","params":{"x":[1,2,3]}}"#,
    ),
    (
        "a notification with array params",
        r#"{"jsonrpc":"2.0","method":"notifications/initialized","params":[1]}"#,
    ),
];

/// Responses to requests the server never sent: (name, the line).
const STRAY_RESPONSES: &[(&str, &str)] = &[
    (
        "a response to a request never sent",
        r#"{"jsonrpc":"2.0","id":99,"result":{"x":1}}"#,
    ),
    (
        "an error response to a request never sent",
        r#"{"jsonrpc":"2.0","id":99,"error":{"code":-1,"message":"no"}}"#,
    ),
    (
        "an error response with a null id",
        r#"{"jsonrpc":"2.0","id":null,"error":{"code":-1,"message":"no"}}"#,
    ),
];

pub(super) fn never_answered() -> Vec<Case> {
    let quiet = |&(name, line): &(&str, &str)| unanswered(name, line);
    let mut cases: Vec<Case> = IGNORED.iter().map(quiet).collect();
    cases.push(unparsed(
        "a notification with string params",
        r#"{"jsonrpc":"2.0","method":"notifications/x","params":"s"}"#,
        -32600,
    ));
    cases.extend(STRAY_RESPONSES.iter().map(quiet));
    cases.extend([
        both(
            "a malformed error response",
            S11,
            r#"{"jsonrpc":"2.0","id":99,"error":"bad"}"#,
            400,
            Expect::Error(-32600, json!(99)),
        ),
        unparsed(
            "a response with a null id",
            r#"{"jsonrpc":"2.0","id":null,"result":{}}"#,
            -32600,
        ),
    ]);
    cases
}

pub(super) fn batches() -> Vec<Case> {
    let one_ping = ping(&json!(1));
    let notifications = format!(
        "[{},{}]",
        support::initialized(),
        support::cancel(&json!(5))
    );
    let mixed = format!(
        "[{one_ping},{},{},{{}},{},5]",
        support::initialized(),
        r#"{"jsonrpc":"2.0","id":7,"result":{}}"#,
        add_req(2, &json!({"a": 1, "b": 2}))
    );
    let pings: Vec<String> = (0..10_000).map(|i| ping(&json!(i))).collect();
    vec![
        unparsed(
            "a batch outside 2025-03-26",
            format!("[{one_ping}]"),
            -32600,
        ),
        both("an empty batch", S03, "[]", 400, refused(-32600)),
        both(
            "an unclosed batch",
            S03,
            format!("[{one_ping},"),
            400,
            refused(-32700),
        ),
        both(
            "a nested batch",
            S03,
            format!("[[{one_ping}]]"),
            200,
            Expect::Batch(1),
        ),
        case(
            "a batch of only notifications",
            S03,
            notifications,
            Expect::Nothing,
            HttpExpect::Status(202, Expect::Nothing),
        ),
        stdio_only(
            "a mixed batch",
            S03,
            mixed,
            Expect::Lines(1, mixed_batch_reply),
        ),
        both(
            "a batch with duplicate ids",
            S03,
            format!("[{one_ping},{one_ping}]"),
            200,
            Expect::Batch(2),
        ),
        stdio_only(
            "a batch of 10k requests",
            S03,
            format!("[{}]", pings.join(",")),
            Expect::Lines(1, ten_thousand_replies),
        ),
    ]
}
