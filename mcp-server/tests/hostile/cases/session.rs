//! The session: requests before `initialize`, a second `initialize`,
//! cancellations of what does not exist, and progress tokens of odd types.

use serde_json::{json, Value};

use crate::checks::{a_response, latest_legacy_offered};
use crate::support::{self, LATEST_LEGACY};
use crate::table::{
    add_req, both, case, count_to, error1, refused, req1, stdio_only, unanswered, Case, Expect,
    HttpExpect, Setup, S11,
};

/// Before `initialize`, stdio answers a request with -32600 and its id; HTTP
/// without a session refuses it with 400 (its body checked as the
/// transport's error).
pub(super) fn lifecycle() -> Vec<Case> {
    let too_early = |name: &str, input: String, stdio: Expect| {
        case(
            name,
            Setup::Fresh,
            input,
            stdio,
            HttpExpect::Status(400, refused(-32600)),
        )
    };
    let set_level = req1("logging/setLevel", &json!({"level":"debug"}));
    vec![
        too_early(
            "tools/list before initialize",
            req1("tools/list", &json!({})),
            error1(-32600),
        ),
        too_early(
            "tools/call before initialize",
            add_req(1, &json!({"a": 1, "b": 2})),
            error1(-32600),
        ),
        too_early(
            "logging/setLevel before initialize",
            set_level,
            error1(-32600),
        ),
        too_early(
            "initialized before initialize",
            support::initialized().to_string(),
            Expect::Nothing,
        ),
        stdio_only(
            "a second initialize",
            S11,
            support::initialize_request(&json!(1), LATEST_LEGACY).to_string(),
            Expect::Lines(1, a_response),
        ),
        stdio_only(
            "initialize with an unknown version",
            Setup::Fresh,
            support::initialize_request(&json!(1), "1999-01-01").to_string(),
            Expect::Lines(1, latest_legacy_offered),
        ),
    ]
}

/// Cancellations of nothing the server runs, or malformed: never answered.
pub(super) fn cancellation() -> Vec<Case> {
    vec![
        unanswered(
            "cancel an unknown id",
            support::cancel(&json!(12345)).to_string(),
        ),
        unanswered(
            "cancel an object id",
            support::cancel(&json!({"a": 1})).to_string(),
        ),
        unanswered(
            "cancel without params",
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled"}"#,
        ),
        unanswered(
            "cancel with array params",
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":[1]}"#,
        ),
        unanswered(
            "cancel the initialize request",
            support::cancel(&json!("init")).to_string(),
        ),
    ]
}

/// Progress tokens of odd types, on `count_to(2)`: a string or a number is
/// echoed in two progress notifications before the result; anything else
/// gets the result alone.
pub(super) fn progress_tokens() -> Vec<Case> {
    let echoed = |name: &str, token: Value| {
        let input = count_to(1, &token);
        both(name, S11, input, 200, Expect::Progress(3, Some(token)))
    };
    let ignored = |name: &str, token: Value| {
        both(
            name,
            S11,
            count_to(1, &token),
            200,
            Expect::Progress(1, None),
        )
    };
    let long_token = json!("t".repeat(100_000));
    vec![
        echoed("a string progress token", json!("tok")),
        echoed("a float progress token", json!(1.5)),
        echoed("a negative progress token", json!(-7)),
        stdio_only(
            "a 100 KB progress token",
            S11,
            count_to(1, &long_token),
            Expect::Progress(3, Some(long_token.clone())),
        ),
        ignored("an object progress token", json!({"a": 1})),
        ignored("an array progress token", json!([1])),
        ignored("a boolean progress token", json!(true)),
        ignored("a null progress token", json!(null)),
    ]
}
