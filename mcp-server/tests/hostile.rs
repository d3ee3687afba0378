//! The hostile-input table: every case is sent to a server, gets its expected
//! answer (JSON-RPC error code and id on stdio; HTTP status and body on HTTP),
//! and a follow-up request on the same connection or session still succeeds.
//!
//! The JSON-RPC rows run against stdio in memory (`Server::serve_io`), once
//! more against the real `calculator` example as a child process, and against
//! Streamable HTTP on a real 127.0.0.1 socket. HTTP-only rows (Host, Origin,
//! framing, HTTP versions, slow clients) follow.
#![allow(
    clippy::too_many_lines,
    clippy::needless_pass_by_value,
    clippy::cast_possible_truncation,
    clippy::cast_precision_loss,
    reason = "a table of test cases reads best as one long function"
)]

mod support;

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use mcp_server::http::HttpConfig;
use serde_json::{json, Value};
use support::{
    as_refs, http_request, legacy_headers, modern_add, modern_call_headers, result_text, Client,
    HttpConn, HttpServer, Response, ACCEPT_BOTH, JSON, LATEST_LEGACY,
};
use tokio::io::AsyncWriteExt as _;

/// 4 MiB: the default limit on one message (a stdio line, an HTTP body).
const MAX: usize = 4 * 1024 * 1024;

/// What the connection looks like before a case's input.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Setup {
    /// Nothing sent yet (stdio); no session (HTTP).
    Fresh,
    /// A legacy session initialized at this revision.
    Legacy(&'static str),
}

/// What the server must answer.
#[derive(Clone)]
enum Expect {
    /// Nothing at all (notifications, responses, blank lines).
    Nothing,
    /// One error response with this code and id.
    Error(i64, Value),
    /// One error response with one of these codes and this id.
    ErrorOneOf(&'static [i64], Value),
    /// One successful response with this id (and this text, for a tool).
    Ok(Value, Option<String>),
    /// One tool result with `isError: true`.
    ToolError(Value),
    /// One batch reply holding this many responses, every one well formed.
    Batch(usize),
    /// `n` messages, checked by a function.
    Lines(usize, fn(&[Value]) -> Result<(), String>),
}

impl Expect {
    fn lines(&self) -> usize {
        match self {
            Expect::Nothing => 0,
            Expect::Lines(n, _) => *n,
            _ => 1,
        }
    }

    fn check(&self, got: &[Value]) -> Result<(), String> {
        if got.len() != self.lines() {
            return Err(format!(
                "expected {} message(s), got {}",
                self.lines(),
                got.len()
            ));
        }
        let one = || &got[0];
        match self {
            Expect::Nothing => Ok(()),
            Expect::Error(code, id) => check_error(one(), &[*code], id),
            Expect::ErrorOneOf(codes, id) => check_error(one(), codes, id),
            Expect::Ok(id, text) => {
                let v = one();
                support::check_response(v)?;
                if &v["id"] != id || v.get("result").is_none() {
                    return Err(format!("expected a result for id {id}"));
                }
                if v["result"]["isError"] == true {
                    return Err("expected success, got isError".into());
                }
                match text {
                    Some(t) if result_text(v) != Some(t.as_str()) => {
                        Err(format!("expected the text {t:?}"))
                    }
                    _ => Ok(()),
                }
            }
            Expect::ToolError(id) => {
                let v = one();
                support::check_response(v)?;
                if &v["id"] != id || v["result"]["isError"] != true {
                    return Err(format!("expected an isError result for id {id}"));
                }
                Ok(())
            }
            Expect::Batch(n) => {
                let Some(items) = one().as_array() else {
                    return Err("expected a batch reply (an array)".into());
                };
                if items.len() != *n {
                    return Err(format!(
                        "expected {n} replies in the batch, got {}",
                        items.len()
                    ));
                }
                items.iter().try_for_each(support::check_response)
            }
            Expect::Lines(_, f) => f(got),
        }
    }
}

/// The isError result of a call to `add` with an unknown argument `c`.
fn unknown_c(got: &[Value]) -> Result<(), String> {
    let text = refused_text(got)?;
    if !text.contains("unknown argument `c`") {
        return Err(format!("expected `c` named unknown: {text}"));
    }
    Ok(())
}

/// The isError result of a call to `add` with 50,000 unknown arguments:
/// ten named, the rest counted.
fn fifty_thousand_unknown(got: &[Value]) -> Result<(), String> {
    let text = refused_text(got)?;
    if !text.contains("unknown arguments `k0`") || !text.contains(" and 49990 more") {
        return Err(format!("expected the first names and a count: {text}"));
    }
    if text.len() > 400 {
        return Err(format!("the message is {} bytes long", text.len()));
    }
    Ok(())
}

/// The text of one isError tool result with id 1.
fn refused_text(got: &[Value]) -> Result<&str, String> {
    let [v] = got else {
        return Err(format!("expected one message, got {}", got.len()));
    };
    support::check_response(v)?;
    if v["id"] != json!(1) || v["result"]["isError"] != true {
        return Err(format!("expected an isError result for id 1: {v}"));
    }
    result_text(v).ok_or_else(|| format!("no text: {v}"))
}

fn check_error(v: &Value, codes: &[i64], id: &Value) -> Result<(), String> {
    support::check_response(v)?;
    let code = v["error"]["code"].as_i64();
    if !codes.iter().any(|c| Some(*c) == code) {
        return Err(format!("expected an error code in {codes:?}"));
    }
    if &v["id"] != id {
        return Err(format!("expected the id {id}"));
    }
    Ok(())
}

/// What HTTP must answer to the same message as a POST body.
#[derive(Clone)]
enum HttpExpect {
    /// This status, and this JSON-RPC content in the body.
    Status(u16, Expect),
    /// The row is about stdio framing only.
    Skip,
}

struct Case {
    name: String,
    setup: Setup,
    /// The bytes sent: one or more lines on stdio; the body (without the
    /// final newline) on HTTP.
    input: Vec<u8>,
    stdio: Expect,
    http: HttpExpect,
}

fn case(
    name: impl Into<String>,
    setup: Setup,
    input: impl Into<Vec<u8>>,
    stdio: Expect,
    http: HttpExpect,
) -> Case {
    let mut input = input.into();
    if !input.ends_with(b"\n") {
        input.push(b'\n');
    }
    Case {
        name: name.into(),
        setup,
        input,
        stdio,
        http,
    }
}

const S11: Setup = Setup::Legacy(LATEST_LEGACY);
const S03: Setup = Setup::Legacy("2025-03-26");

fn null() -> Value {
    Value::Null
}

fn req(id: &Value, method: &str, params: &Value) -> String {
    json!({"jsonrpc":"2.0","id":id,"method":method,"params":params}).to_string()
}

fn add_req(id: i64, arguments: &Value) -> String {
    req(
        &json!(id),
        "tools/call",
        &json!({"name":"add","arguments":arguments}),
    )
}

/// The HTTP answer to a message that does not decode: 400 and the same error.
fn h400(e: Expect) -> HttpExpect {
    HttpExpect::Status(400, e)
}

/// The HTTP answer to a request in a legacy session: 200 and the same response.
fn h200(e: Expect) -> HttpExpect {
    HttpExpect::Status(200, e)
}

/// The HTTP answer to a notification or response: 202, empty.
fn h202() -> HttpExpect {
    HttpExpect::Status(202, Expect::Nothing)
}

fn progress_then_result(got: &[Value], token: Option<&Value>) -> Result<(), String> {
    let (last, notes) = got.split_last().ok_or("nothing")?;
    support::check_response(last)?;
    if result_text(last) != Some("counted to 2") {
        return Err("expected `counted to 2`".into());
    }
    for n in notes {
        if n["method"] != "notifications/progress" {
            return Err(format!("expected progress, got {n}"));
        }
        if Some(&n["params"]["progressToken"]) != token {
            return Err(format!("the token is not echoed: {n}"));
        }
    }
    Ok(())
}

fn count_to(id: i64, token: &Value) -> String {
    req(
        &json!(id),
        "tools/call",
        &json!({"name":"count_to","arguments":{"n":2},"_meta":{"progressToken":token}}),
    )
}

/// The JSON-RPC rows. Every `tools/call` goes to `add` or `count_to`, which
/// the calculator example has too.
fn cases() -> Vec<Case> {
    use Expect::{Batch, Error, ErrorOneOf, Lines, Nothing, Ok, ToolError};
    let deep_arrays = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
    let long_id = "i".repeat(100_000);
    let long_token = "t".repeat(100_000);
    let huge_int = "123456789012345678901234567890";
    let huge_int_f: f64 = huge_int.parse().unwrap();
    vec![
        // ---- not JSON, or not one JSON object
        case(
            "not JSON",
            S11,
            "{this is not json",
            Error(-32700, null()),
            h400(Error(-32700, null())),
        ),
        case(
            "a JSON string",
            S11,
            r#""just a string""#,
            Error(-32600, null()),
            h400(Error(-32600, null())),
        ),
        case(
            "a JSON number",
            S11,
            "42",
            Error(-32600, null()),
            h400(Error(-32600, null())),
        ),
        case(
            "JSON null",
            S11,
            "null",
            Error(-32600, null()),
            h400(Error(-32600, null())),
        ),
        case(
            "trailing garbage",
            S11,
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"} xyz"#,
            Error(-32700, null()),
            h400(Error(-32700, null())),
        ),
        case(
            "two objects on one line",
            S11,
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}{"jsonrpc":"2.0","id":2,"method":"ping"}"#,
            Error(-32700, null()),
            h400(Error(-32700, null())),
        ),
        case(
            "a byte-order mark",
            S11,
            "\u{feff}{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}",
            Error(-32700, null()),
            h400(Error(-32700, null())),
        ),
        // ---- nesting: a recursion limit, not a stack overflow
        case(
            "100k nested arrays, unclosed",
            S11,
            "[".repeat(100_000),
            Error(-32700, null()),
            h400(Error(-32700, null())),
        ),
        case(
            "100k nested arrays",
            S11,
            deep_arrays(100_000),
            ErrorOneOf(&[-32700, -32600], null()),
            h400(ErrorOneOf(&[-32700, -32600], null())),
        ),
        case(
            "100k nested arrays in a 2025-03-26 session",
            S03,
            deep_arrays(100_000),
            Batch(1),
            h200(Batch(1)),
        ),
        case(
            "100k nested objects",
            S11,
            format!("{}1{}", r#"{"a":"#.repeat(100_000), "}".repeat(100_000)),
            Error(-32600, null()),
            h400(Error(-32600, null())),
        ),
        case(
            "100k nested arrays in an unknown member (skipped)",
            S11,
            format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"ping","x":{}}}"#,
                deep_arrays(100_000)
            ),
            Ok(json!(1), None),
            h200(Ok(json!(1), None)),
        ),
        case(
            "100k nested arrays as the id",
            S11,
            format!(
                r#"{{"jsonrpc":"2.0","id":{},"method":"ping"}}"#,
                deep_arrays(100_000)
            ),
            ErrorOneOf(&[-32700, -32600], null()),
            h400(ErrorOneOf(&[-32700, -32600], null())),
        ),
        case(
            "100k nested arrays in the arguments",
            S11,
            add_req(1, &json!({})).replace(
                "\"arguments\":{}",
                &format!(r#""arguments":{{"a":{}}}"#, deep_arrays(100_000)),
            ),
            // Well-formed JSON that is not what the parameter takes: an input
            // validation error, which the spec (tools, "Error Handling") reports
            // in the tool's result so the model can correct it.
            ToolError(json!(1)),
            h200(ToolError(json!(1))),
        ),
        // ---- numbers: out of range for the parameter is an input
        // validation error ("value out of range" is the spec's own example).
        case(
            "a huge float argument",
            S11,
            add_req(1, &json!({})).replace("{}", r#"{"a":1e400,"b":1}"#),
            ToolError(json!(1)),
            h200(ToolError(json!(1))),
        ),
        case(
            "a 10k-digit integer argument",
            S11,
            add_req(1, &json!({}))
                .replace("{}", &format!(r#"{{"a":1{},"b":1}}"#, "0".repeat(10_000))),
            ToolError(json!(1)),
            h200(ToolError(json!(1))),
        ),
        case(
            "a huge integer argument",
            S11,
            add_req(1, &json!({})).replace("{}", &format!(r#"{{"a":{huge_int},"b":0}}"#)),
            Ok(json!(1), Some(support::sum_text(huge_int_f, 0.0))),
            h200(Ok(json!(1), Some(support::sum_text(huge_int_f, 0.0)))),
        ),
        // ---- bytes
        case(
            "invalid UTF-8",
            S11,
            b"\xff\xfe\xfd".to_vec(),
            Error(-32700, null()),
            h400(Error(-32700, null())),
        ),
        case(
            "invalid UTF-8 inside a string",
            S11,
            [
                br#"{"jsonrpc":"2.0","id":1,"method":"ping"#.as_slice(),
                b"\xc3\x28\"}",
            ]
            .concat(),
            Error(-32700, null()),
            h400(Error(-32700, null())),
        ),
        case(
            "a lone surrogate escape",
            S11,
            r#"{"jsonrpc":"2.0","id":1,"method":"\ud800"}"#,
            ErrorOneOf(&[-32700, -32600, -32601], json!(null)),
            h400(ErrorOneOf(&[-32700, -32600, -32601], json!(null))),
        ),
        case(
            "raw NUL bytes",
            S11,
            b"\0\0\0".to_vec(),
            Error(-32700, null()),
            h400(Error(-32700, null())),
        ),
        case(
            "a raw NUL inside a string",
            S11,
            [
                br#"{"jsonrpc":"2.0","id":1,"method":"pi"#.as_slice(),
                b"\0ng\"}",
            ]
            .concat(),
            Error(-32700, null()),
            h400(Error(-32700, null())),
        ),
        case(
            "an escaped NUL in the method",
            S11,
            r#"{"jsonrpc":"2.0","id":1,"method":"ping\u0000"}"#,
            Error(-32601, json!(1)),
            h200(Error(-32601, json!(1))),
        ),
        case(
            "an escaped NUL in an argument",
            S11,
            add_req(1, &json!({"a": 1, "b": 2, "c": "\u{0}"})),
            // `add` takes no `c`: the answer names it (tools refuse unknown arguments).
            Lines(1, unknown_c),
            h200(Lines(1, unknown_c)),
        ),
        // ---- framing
        case(
            "a line of only whitespace",
            S11,
            " \t  \t ",
            Nothing,
            h400(Error(-32700, null())),
        ),
        case("empty lines", S11, "\n\n\n", Nothing, HttpExpect::Skip),
        case(
            "a carriage return alone",
            S11,
            "\r",
            Nothing,
            HttpExpect::Skip,
        ),
        case(
            "CRLF line endings",
            S11,
            format!(
                "{}\r\n{}\r\n",
                req(&json!(1), "ping", &json!({})),
                req(&json!(2), "ping", &json!({}))
            ),
            Lines(2, |got| {
                if got[0]["id"] == 1
                    && got[1]["id"] == 2
                    && got.iter().all(|g| g["result"] == json!({}))
                {
                    std::result::Result::Ok(())
                } else {
                    Err("two pings answered".into())
                }
            }),
            HttpExpect::Skip,
        ),
        case(
            "a CR inside the JSON",
            S11,
            "{\"jsonrpc\":\"2.0\",\r\"id\":1,\r\"method\":\"ping\"}",
            Ok(json!(1), None),
            h200(Ok(json!(1), None)),
        ),
        // ---- methods
        case(
            "a 1 MiB method name",
            S11,
            req(&json!(1), &"m".repeat(1 << 20), &json!({})),
            Error(-32601, json!(1)),
            h200(Error(-32601, json!(1))),
        ),
        case(
            "a method with spaces",
            S11,
            req(&json!(1), " tools/list ", &json!({})),
            Error(-32601, json!(1)),
            h200(Error(-32601, json!(1))),
        ),
        case(
            "a method in upper case",
            S11,
            req(&json!(1), "TOOLS/LIST", &json!({})),
            Error(-32601, json!(1)),
            h200(Error(-32601, json!(1))),
        ),
        case(
            "a method that is a number",
            S11,
            r#"{"jsonrpc":"2.0","id":1,"method":5}"#,
            Error(-32600, null()),
            h400(Error(-32600, null())),
        ),
        case(
            "method and result together",
            S11,
            r#"{"jsonrpc":"2.0","id":1,"method":"ping","result":{}}"#,
            Error(-32600, json!(1)),
            h400(Error(-32600, json!(1))),
        ),
        // ---- params of the wrong type
        case(
            "tools/call params an array",
            S11,
            req(&json!(1), "tools/call", &json!([1, 2])),
            Error(-32602, json!(1)),
            h200(Error(-32602, json!(1))),
        ),
        case(
            "tools/call params an empty array",
            S11,
            req(&json!(1), "tools/call", &json!([])),
            Error(-32602, json!(1)),
            h200(Error(-32602, json!(1))),
        ),
        case(
            "tools/call params a string",
            S11,
            req(&json!(1), "tools/call", &json!("add")),
            Error(-32600, json!(1)),
            h400(Error(-32600, json!(1))),
        ),
        case(
            "tools/call params a number",
            S11,
            req(&json!(1), "tools/call", &json!(42)),
            Error(-32600, json!(1)),
            h400(Error(-32600, json!(1))),
        ),
        case(
            "tools/call params true",
            S11,
            req(&json!(1), "tools/call", &json!(true)),
            Error(-32600, json!(1)),
            h400(Error(-32600, json!(1))),
        ),
        case(
            "tools/call params null",
            S11,
            req(&json!(1), "tools/call", &json!(null)),
            Error(-32602, json!(1)),
            h200(Error(-32602, json!(1))),
        ),
        case(
            "tools/list params an array",
            S11,
            req(&json!(1), "tools/list", &json!([1])),
            Error(-32602, json!(1)),
            h200(Error(-32602, json!(1))),
        ),
        case(
            "logging/setLevel with a bad level",
            S11,
            req(&json!(1), "logging/setLevel", &json!({"level": "loud"})),
            Error(-32602, json!(1)),
            h200(Error(-32602, json!(1))),
        ),
        case(
            "initialize params an array",
            Setup::Fresh,
            req(&json!(1), "initialize", &json!([])),
            Error(-32602, json!(1)),
            HttpExpect::Status(200, Error(-32602, json!(1))),
        ),
        case(
            "initialize without params",
            Setup::Fresh,
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize"}"#,
            Error(-32602, json!(1)),
            HttpExpect::Status(200, Error(-32602, json!(1))),
        ),
        // MCP's params are named: a by-position array that would fill every
        // field in order is still refused.
        case(
            "initialize params a full by-position array",
            Setup::Fresh,
            req(
                &json!(1),
                "initialize",
                &json!([LATEST_LEGACY, {}, {"name": "x", "version": "1"}]),
            ),
            Error(-32602, json!(1)),
            HttpExpect::Status(200, Error(-32602, json!(1))),
        ),
        case(
            "tools/call params a by-position array",
            S11,
            req(&json!(1), "tools/call", &json!(["add", {"a": 1, "b": 2}])),
            Error(-32602, json!(1)),
            h200(Error(-32602, json!(1))),
        ),
        case(
            "tools/list params an array",
            S11,
            req(&json!(1), "tools/list", &json!([null])),
            Error(-32602, json!(1)),
            h200(Error(-32602, json!(1))),
        ),
        // ---- ids of every type
        case(
            "a null id",
            S11,
            req(&null(), "ping", &json!({})),
            Error(-32600, null()),
            h400(Error(-32600, null())),
        ),
        case(
            "a float id",
            S11,
            req(&json!(1.5), "ping", &json!({})),
            Error(-32600, null()),
            h400(Error(-32600, null())),
        ),
        case(
            "an integral float id",
            S11,
            r#"{"jsonrpc":"2.0","id":1.0,"method":"ping"}"#,
            Error(-32600, null()),
            h400(Error(-32600, null())),
        ),
        case(
            "an object id",
            S11,
            req(&json!({"a": 1}), "ping", &json!({})),
            Error(-32600, null()),
            h400(Error(-32600, null())),
        ),
        case(
            "an array id",
            S11,
            req(&json!([1]), "ping", &json!({})),
            Error(-32600, null()),
            h400(Error(-32600, null())),
        ),
        case(
            "a boolean id",
            S11,
            req(&json!(true), "ping", &json!({})),
            Error(-32600, null()),
            h400(Error(-32600, null())),
        ),
        case(
            "an id of 2^63",
            S11,
            r#"{"jsonrpc":"2.0","id":9223372036854775808,"method":"ping"}"#,
            Error(-32600, null()),
            h400(Error(-32600, null())),
        ),
        case(
            "an id of 2^64",
            S11,
            r#"{"jsonrpc":"2.0","id":18446744073709551616,"method":"ping"}"#,
            Error(-32600, null()),
            h400(Error(-32600, null())),
        ),
        case(
            "an id of -2^63",
            S11,
            req(&json!(i64::MIN), "ping", &json!({})),
            Ok(json!(i64::MIN), None),
            h200(Ok(json!(i64::MIN), None)),
        ),
        case(
            "an id of 0",
            S11,
            req(&json!(0), "ping", &json!({})),
            Ok(json!(0), None),
            h200(Ok(json!(0), None)),
        ),
        case(
            "an empty string id",
            S11,
            req(&json!(""), "ping", &json!({})),
            Ok(json!(""), None),
            h200(Ok(json!(""), None)),
        ),
        case(
            "a 100 KB string id",
            S11,
            req(&json!(long_id), "ping", &json!({})),
            Ok(json!(long_id), None),
            h200(Ok(json!(long_id), None)),
        ),
        case(
            "an id with escapes",
            S11,
            req(&json!("\u{0}\n\"é\u{1F600}"), "ping", &json!({})),
            Ok(json!("\u{0}\n\"é\u{1F600}"), None),
            h200(Ok(json!("\u{0}\n\"é\u{1F600}"), None)),
        ),
        // ---- duplicate keys
        case(
            "a duplicate id",
            S11,
            r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}"#,
            Error(-32600, null()),
            h400(Error(-32600, null())),
        ),
        case(
            "a duplicate method",
            S11,
            r#"{"jsonrpc":"2.0","id":1,"method":"ping","method":"tools/list"}"#,
            Error(-32600, null()),
            h400(Error(-32600, null())),
        ),
        case(
            "a duplicate params",
            S11,
            r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{},"params":{}}"#,
            Error(-32600, null()),
            h400(Error(-32600, null())),
        ),
        case(
            "a duplicate argument (the last wins)",
            S11,
            add_req(1, &json!({})).replace("{}", r#"{"a":1,"a":5,"b":1}"#),
            Ok(json!(1), Some("6".into())),
            h200(Ok(json!(1), Some("6".into()))),
        ),
        // ---- the jsonrpc member
        case(
            "jsonrpc missing",
            S11,
            r#"{"id":1,"method":"ping"}"#,
            Error(-32600, json!(1)),
            h400(Error(-32600, json!(1))),
        ),
        case(
            "jsonrpc 1.0",
            S11,
            r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#,
            Error(-32600, json!(1)),
            h400(Error(-32600, json!(1))),
        ),
        case(
            "jsonrpc as a number",
            S11,
            r#"{"jsonrpc":2.0,"id":1,"method":"ping"}"#,
            Error(-32600, json!(1)),
            h400(Error(-32600, json!(1))),
        ),
        case(
            "jsonrpc null",
            S11,
            r#"{"jsonrpc":null,"id":1,"method":"ping"}"#,
            Error(-32600, json!(1)),
            h400(Error(-32600, json!(1))),
        ),
        // ---- notifications and responses: never answered
        case(
            "an unknown notification",
            S11,
            r#"{"jsonrpc":"2.0","method":"notifications/whatever","params":{"x":[1,2,3]}}"#,
            Nothing,
            h202(),
        ),
        case(
            "a notification with array params",
            S11,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized","params":[1]}"#,
            Nothing,
            h202(),
        ),
        case(
            "a notification with string params",
            S11,
            r#"{"jsonrpc":"2.0","method":"notifications/x","params":"s"}"#,
            Error(-32600, null()),
            h400(Error(-32600, null())),
        ),
        case(
            "a response to a request never sent",
            S11,
            r#"{"jsonrpc":"2.0","id":99,"result":{"x":1}}"#,
            Nothing,
            h202(),
        ),
        case(
            "an error response to a request never sent",
            S11,
            r#"{"jsonrpc":"2.0","id":99,"error":{"code":-1,"message":"no"}}"#,
            Nothing,
            h202(),
        ),
        case(
            "an error response with a null id",
            S11,
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-1,"message":"no"}}"#,
            Nothing,
            h202(),
        ),
        case(
            "a malformed error response",
            S11,
            r#"{"jsonrpc":"2.0","id":99,"error":"bad"}"#,
            Error(-32600, json!(99)),
            h400(Error(-32600, json!(99))),
        ),
        case(
            "a response with a null id",
            S11,
            r#"{"jsonrpc":"2.0","id":null,"result":{}}"#,
            Error(-32600, null()),
            h400(Error(-32600, null())),
        ),
        // ---- batches
        case(
            "a batch outside 2025-03-26",
            S11,
            format!("[{}]", req(&json!(1), "ping", &json!({}))),
            Error(-32600, null()),
            h400(Error(-32600, null())),
        ),
        case(
            "an empty batch",
            S03,
            "[]",
            Error(-32600, null()),
            h400(Error(-32600, null())),
        ),
        case(
            "an unclosed batch",
            S03,
            format!("[{},", req(&json!(1), "ping", &json!({}))),
            Error(-32700, null()),
            h400(Error(-32700, null())),
        ),
        case(
            "a nested batch",
            S03,
            format!("[[{}]]", req(&json!(1), "ping", &json!({}))),
            Batch(1),
            h200(Batch(1)),
        ),
        case(
            "a batch of only notifications",
            S03,
            format!(
                "[{},{}]",
                support::initialized(),
                support::cancel(&json!(5))
            ),
            Nothing,
            h202(),
        ),
        case(
            "a mixed batch",
            S03,
            format!(
                "[{},{},{},{{}},{},5]",
                req(&json!(1), "ping", &json!({})),
                support::initialized(),
                r#"{"jsonrpc":"2.0","id":7,"result":{}}"#,
                add_req(2, &json!({"a": 1, "b": 2}))
            ),
            Lines(1, |got| {
                let items = got[0].as_array().ok_or("a batch reply")?;
                items.iter().try_for_each(support::check_response)?;
                let ids: Vec<&Value> = items.iter().map(|i| &i["id"]).collect();
                let ok = items.len() == 4
                    && items
                        .iter()
                        .any(|i| i["id"] == 1 && i["result"] == json!({}))
                    && items
                        .iter()
                        .any(|i| i["id"] == 2 && result_text(i) == Some("3"))
                    && items
                        .iter()
                        .filter(|i| i["error"]["code"] == -32600)
                        .count()
                        == 2;
                if ok {
                    std::result::Result::Ok(())
                } else {
                    Err(format!("ids {ids:?}"))
                }
            }),
            HttpExpect::Skip,
        ),
        case(
            "a batch with duplicate ids",
            S03,
            format!("[{0},{0}]", req(&json!(1), "ping", &json!({}))),
            Batch(2),
            h200(Batch(2)),
        ),
        case(
            "a batch of 10k requests",
            S03,
            format!(
                "[{}]",
                (0..10_000)
                    .map(|i| req(&json!(i), "ping", &json!({})))
                    .collect::<Vec<_>>()
                    .join(",")
            ),
            Lines(1, |got| {
                let items = got[0].as_array().ok_or("a batch reply")?;
                items.iter().try_for_each(support::check_response)?;
                let mut ids: Vec<i64> = items.iter().filter_map(|i| i["id"].as_i64()).collect();
                ids.sort_unstable();
                if ids == (0..10_000).collect::<Vec<_>>() {
                    std::result::Result::Ok(())
                } else {
                    Err(format!("{} distinct replies", ids.len()))
                }
            }),
            HttpExpect::Skip,
        ),
        // ---- lifecycle
        case(
            "tools/list before initialize",
            Setup::Fresh,
            req(&json!(1), "tools/list", &json!({})),
            Error(-32600, json!(1)),
            h400(Error(-32600, null())),
        ),
        case(
            "tools/call before initialize",
            Setup::Fresh,
            add_req(1, &json!({"a": 1, "b": 2})),
            Error(-32600, json!(1)),
            h400(Error(-32600, null())),
        ),
        case(
            "logging/setLevel before initialize",
            Setup::Fresh,
            req(&json!(1), "logging/setLevel", &json!({"level":"debug"})),
            Error(-32600, json!(1)),
            h400(Error(-32600, null())),
        ),
        case(
            "initialized before initialize",
            Setup::Fresh,
            support::initialized().to_string(),
            Nothing,
            h400(Error(-32600, null())),
        ),
        case(
            "a second initialize",
            S11,
            support::initialize_request(&json!(1), LATEST_LEGACY).to_string(),
            Lines(1, |got| support::check_response(&got[0])),
            HttpExpect::Skip,
        ),
        case(
            "initialize with an unknown version",
            Setup::Fresh,
            support::initialize_request(&json!(1), "1999-01-01").to_string(),
            Lines(1, |got| {
                if got[0]["result"]["protocolVersion"] == LATEST_LEGACY {
                    std::result::Result::Ok(())
                } else {
                    Err("the latest legacy version offered".into())
                }
            }),
            HttpExpect::Skip,
        ),
        // ---- cancellation
        case(
            "cancel an unknown id",
            S11,
            support::cancel(&json!(12345)).to_string(),
            Nothing,
            h202(),
        ),
        case(
            "cancel an object id",
            S11,
            support::cancel(&json!({"a": 1})).to_string(),
            Nothing,
            h202(),
        ),
        case(
            "cancel without params",
            S11,
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled"}"#,
            Nothing,
            h202(),
        ),
        case(
            "cancel with array params",
            S11,
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":[1]}"#,
            Nothing,
            h202(),
        ),
        case(
            "cancel the initialize request",
            S11,
            support::cancel(&json!("init")).to_string(),
            Nothing,
            h202(),
        ),
        // ---- progress tokens of odd types
        case(
            "a string progress token",
            S11,
            count_to(1, &json!("tok")),
            Lines(3, |got| progress_then_result(got, Some(&json!("tok")))),
            h200(Lines(3, |got| {
                progress_then_result(got, Some(&json!("tok")))
            })),
        ),
        case(
            "a float progress token",
            S11,
            count_to(1, &json!(1.5)),
            Lines(3, |got| progress_then_result(got, Some(&json!(1.5)))),
            h200(Lines(3, |got| progress_then_result(got, Some(&json!(1.5))))),
        ),
        case(
            "a negative progress token",
            S11,
            count_to(1, &json!(-7)),
            Lines(3, |got| progress_then_result(got, Some(&json!(-7)))),
            h200(Lines(3, |got| progress_then_result(got, Some(&json!(-7))))),
        ),
        case(
            "a 100 KB progress token",
            S11,
            count_to(1, &json!(long_token)),
            Lines(3, |got| {
                progress_then_result(got, Some(&json!("t".repeat(100_000))))
            }),
            HttpExpect::Skip,
        ),
        case(
            "an object progress token",
            S11,
            count_to(1, &json!({"a": 1})),
            Lines(1, |got| progress_then_result(got, None)),
            h200(Lines(1, |got| progress_then_result(got, None))),
        ),
        case(
            "an array progress token",
            S11,
            count_to(1, &json!([1])),
            Lines(1, |got| progress_then_result(got, None)),
            h200(Lines(1, |got| progress_then_result(got, None))),
        ),
        case(
            "a boolean progress token",
            S11,
            count_to(1, &json!(true)),
            Lines(1, |got| progress_then_result(got, None)),
            h200(Lines(1, |got| progress_then_result(got, None))),
        ),
        case(
            "a null progress token",
            S11,
            count_to(1, &json!(null)),
            Lines(1, |got| progress_then_result(got, None)),
            h200(Lines(1, |got| progress_then_result(got, None))),
        ),
        // ---- tools/call arguments
        case(
            "arguments an array",
            S11,
            add_req(1, &json!([1, 2])),
            Error(-32602, json!(1)),
            h200(Error(-32602, json!(1))),
        ),
        case(
            "arguments a string",
            S11,
            add_req(1, &json!("a=1")),
            Error(-32602, json!(1)),
            h200(Error(-32602, json!(1))),
        ),
        case(
            "arguments a number",
            S11,
            add_req(1, &json!(5)),
            Error(-32602, json!(1)),
            h200(Error(-32602, json!(1))),
        ),
        case(
            "arguments null",
            S11,
            add_req(1, &json!(null)),
            ToolError(json!(1)),
            h200(ToolError(json!(1))),
        ),
        case(
            "arguments of the wrong types",
            S11,
            add_req(1, &json!({"a": "1", "b": [2]})),
            ToolError(json!(1)),
            h200(ToolError(json!(1))),
        ),
        case(
            "50k extra arguments",
            S11,
            add_req(
                1,
                &json!((0..50_000)
                    .map(|i| (format!("k{i}"), json!(i)))
                    .chain([("a".to_owned(), json!(2)), ("b".to_owned(), json!(3))])
                    .collect::<serde_json::Map<_, _>>()),
            ),
            // Refused as unknown, in a message of bounded length.
            Lines(1, fifty_thousand_unknown),
            h200(Lines(1, fifty_thousand_unknown)),
        ),
        case(
            "a tool name that is a number",
            S11,
            req(&json!(1), "tools/call", &json!({"name": 5})),
            Error(-32602, json!(1)),
            h200(Error(-32602, json!(1))),
        ),
        case(
            "no tool name",
            S11,
            req(&json!(1), "tools/call", &json!({"arguments": {}})),
            Error(-32602, json!(1)),
            h200(Error(-32602, json!(1))),
        ),
        case(
            "an empty tool name",
            S11,
            req(&json!(1), "tools/call", &json!({"name": ""})),
            Error(-32602, json!(1)),
            h200(Error(-32602, json!(1))),
        ),
        case(
            "a 1 MiB tool name",
            S11,
            req(
                &json!(1),
                "tools/call",
                &json!({"name": "n".repeat(1 << 20)}),
            ),
            Error(-32602, json!(1)),
            h200(Error(-32602, json!(1))),
        ),
        case(
            "a bad cursor",
            S11,
            req(
                &json!(1),
                "tools/list",
                &json!({"cursor": "\u{0}not-a-cursor"}),
            ),
            Error(-32602, json!(1)),
            h200(Error(-32602, json!(1))),
        ),
        // ---- the size limit
        case(
            "a message of exactly 4 MiB",
            S11,
            padded_ping(1, MAX),
            Ok(json!(1), None),
            h200(Ok(json!(1), None)),
        ),
        case(
            "a message of 4 MiB + 1",
            S11,
            padded_ping(1, MAX + 1),
            Error(-32600, null()),
            HttpExpect::Status(413, Expect::Lines(1, |got| check_code(&got[0], -32600))),
        ),
    ]
}

fn check_code(v: &Value, code: i64) -> Result<(), String> {
    if v["error"]["code"] == code {
        Ok(())
    } else {
        Err(format!("expected the code {code}"))
    }
}

/// A ping of exactly `len` bytes.
fn padded_ping(id: i64, len: usize) -> String {
    let head = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping","params":{{"pad":""#);
    let tail = r#""}}"#;
    format!("{head}{}{tail}", "p".repeat(len - head.len() - tail.len()))
}

// ------------------------------------------------------------------ stdio

/// A request that must succeed after each case.
fn follow_up(setup: Setup, id: &Value) -> Value {
    match setup {
        Setup::Fresh => modern_add(id, 2.0, 3.0),
        Setup::Legacy(_) => support::legacy_add(id, 2.0, 3.0),
    }
}

async fn next_line(conn: &mut Client) -> Result<Value, String> {
    let line = tokio::time::timeout(Duration::from_secs(20), conn.lines.next_line())
        .await
        .map_err(|_| "timed out waiting for the server".to_owned())?
        .map_err(|e| format!("reading: {e}"))?
        .ok_or("the server closed its output")?;
    serde_json::from_str(&line)
        .map_err(|e| format!("a non-JSON line ({e}): {}", support::truncate(&line)))
}

/// Sends a case, its follow-up and a final sync request; checks everything
/// in between.
async fn run_stdio_case(conn: &mut Client, c: &Case, setup: bool) -> Result<(), String> {
    if setup {
        if let Setup::Legacy(v) = c.setup {
            conn.initialize(v).await;
        }
    }
    conn.write_bytes(&c.input).await;
    let follow_id = json!("follow-up");
    conn.send(follow_up(c.setup, &follow_id)).await;
    let mut got = Vec::new();
    let mut follow = None;
    while follow.is_none() || got.len() < c.stdio.lines() {
        let v = next_line(conn)
            .await
            .map_err(|e| format!("{e}; so far {} line(s)", got.len()))?;
        if follow.is_none() && v.get("id") == Some(&follow_id) && v.get("method").is_none() {
            follow = Some(v);
        } else {
            got.push(v);
        }
    }
    // Anything still on its way arrives before the answer to this.
    let sync_id = json!("sync");
    conn.send(json!({"jsonrpc":"2.0","id":sync_id,"method":"ping"}))
        .await;
    loop {
        let v = next_line(conn).await?;
        if v.get("id") == Some(&sync_id) {
            break;
        }
        got.push(v);
    }
    let follow = follow.unwrap();
    if result_text(&follow) != Some("5") {
        return Err(format!("the follow-up failed: {follow}"));
    }
    c.stdio.check(&got).map_err(|e| {
        let shown: Vec<String> = got
            .iter()
            .map(|g| support::truncate(&g.to_string()))
            .collect();
        format!("{e}; got {shown:?}")
    })
}

fn report(failures: &[String]) {
    assert!(
        failures.is_empty(),
        "{} case(s) failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stdio_in_memory_each_case_on_a_new_connection() {
    let mut failures = Vec::new();
    for c in cases() {
        let (server, _) = support::probed_server();
        let mut conn = Client::start(server);
        if let Err(e) = run_stdio_case(&mut conn, &c, true).await {
            failures.push(format!("{}: {e}", c.name));
        }
        let rest = conn.finish().await;
        if !rest.is_empty() {
            failures.push(format!("{}: more output after the end: {rest:?}", c.name));
        }
    }
    report(&failures);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stdio_in_memory_every_case_in_one_session() {
    let (server, _) = support::probed_server();
    let mut conn = Client::start(server);
    conn.initialize(LATEST_LEGACY).await;
    let mut failures = Vec::new();
    for c in cases().into_iter().filter(|c| c.setup == S11) {
        if let Err(e) = run_stdio_case(&mut conn, &c, false).await {
            failures.push(format!("{}: {e}", c.name));
        }
    }
    report(&failures);
    assert!(conn.finish().await.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stdio_real_calculator_process() {
    let mut failures = Vec::new();
    for c in cases() {
        let mut conn = Client::calculator();
        if let Err(e) = run_stdio_case(&mut conn, &c, true).await {
            failures.push(format!("{}: {e}", c.name));
        }
        let rest = conn.finish().await;
        if !rest.is_empty() {
            failures.push(format!("{}: more output after the end: {rest:?}", c.name));
        }
    }
    report(&failures);
}

// ------------------------------------------------------------------ HTTP: the JSON-RPC rows

fn messages_of(r: &Response) -> Result<Vec<Value>, String> {
    if r.is_sse() {
        return Ok(r.messages());
    }
    if r.body.is_empty() {
        return Ok(Vec::new());
    }
    let mut v: Value = serde_json::from_slice(&r.body).map_err(|e| {
        format!(
            "a body that is not JSON ({e}): {:?}",
            support::truncate(&r.text())
        )
    })?;
    // Transport-level errors carry no `id` at all; that bug has its own
    // (ignored) test, `transport_errors_are_json_rpc_responses`.
    if let Some(obj) = v.as_object_mut() {
        if obj.contains_key("error") && !obj.contains_key("id") {
            obj.insert("id".into(), Value::Null);
        }
    }
    Ok(vec![v])
}

/// A transport-level error body: a JSON-RPC error object with this code.
/// (Its `id` is checked by `transport_errors_are_json_rpc_responses`.)
fn check_transport_error(r: &Response, code: i64) -> Result<(), String> {
    let v: Value = serde_json::from_slice(&r.body).map_err(|e| format!("not JSON: {e}"))?;
    if v["jsonrpc"] == "2.0" && v["error"]["code"] == code && v["error"]["message"].is_string() {
        Ok(())
    } else {
        Err(format!("expected a JSON-RPC error {code}, got {v}"))
    }
}

async fn run_http_case(s: &HttpServer, c: &Case) -> Result<(), String> {
    let HttpExpect::Status(status, expect) = &c.http else {
        return Ok(());
    };
    let (headers, version) = match c.setup {
        Setup::Fresh => (
            vec![
                (JSON.0, JSON.1.to_owned()),
                (ACCEPT_BOTH.0, ACCEPT_BOTH.1.to_owned()),
            ],
            None,
        ),
        Setup::Legacy(v) => (legacy_headers(&s.session(v).await, v), Some(v)),
    };
    let body = c.input.strip_suffix(b"\n").unwrap_or(&c.input);
    let mut conn = HttpConn::connect(s.addr).await;
    conn.write(&http_request(
        "POST",
        "/mcp",
        s.port(),
        &as_refs(&headers),
        body,
    ))
    .await;
    let r = conn
        .read_response()
        .await
        .ok_or("the connection closed without a response")?;
    if r.status != *status {
        return Err(format!(
            "expected HTTP {status}, got {} {:?}",
            r.status,
            support::truncate(&r.text())
        ));
    }
    let transport_level = c.setup == Setup::Fresh && *status == 400;
    if transport_level {
        check_transport_error(&r, -32600)?;
    } else if let Expect::Lines(1, f) = expect {
        if r.status == 413 {
            f(&[serde_json::from_slice(&r.body).map_err(|e| e.to_string())?])?;
        } else {
            expect.check(&messages_of(&r)?)?;
        }
    } else {
        expect
            .check(&messages_of(&r)?)
            .map_err(|e| format!("{e}; got {:?}", support::truncate(&r.text())))?;
    }
    // The same connection still serves (unless the server closed it).
    if !conn.closed && r.header("connection") != Some("close") && r.status < 413 {
        let follow = match version {
            Some(v) => (
                legacy_headers(&headers[2].1, v),
                support::legacy_add(&json!("same-conn"), 2.0, 3.0),
            ),
            None => (
                modern_call_headers("add"),
                modern_add(&json!("same-conn"), 2.0, 3.0),
            ),
        };
        conn.write(&http_request(
            "POST",
            "/mcp",
            s.port(),
            &as_refs(&follow.0),
            follow.1.to_string().as_bytes(),
        ))
        .await;
        let again = conn
            .read_response()
            .await
            .ok_or("the kept-alive connection closed")?;
        if result_text(&again.last()) != Some("5") {
            return Err(format!(
                "the follow-up on the same connection failed: {again:?}"
            ));
        }
    }
    // And in the same session, on a new connection.
    if let Some(v) = version {
        let again = s
            .post_json(
                &as_refs(&legacy_headers(&headers[2].1, v)),
                &support::legacy_add(&json!("same-session"), 2.0, 3.0),
            )
            .await;
        if result_text(&again.last()) != Some("5") {
            return Err(format!("the session's follow-up failed: {again:?}"));
        }
    }
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_json_rpc_rows() {
    let (server, _) = support::probed_server();
    let s = HttpServer::start(server, HttpConfig::default()).await;
    let mut failures = Vec::new();
    for c in cases() {
        if let Err(e) = run_http_case(&s, &c).await {
            failures.push(format!("{}: {e}", c.name));
        }
    }
    s.assert_serving().await;
    report(&failures);
    s.shutdown().await;
}

// ------------------------------------------------------------------ HTTP: transport rows

/// What an HTTP-only row must get back.
enum Want {
    /// This status; for >= 400 a JSON-RPC error body with this code.
    Status(u16, Option<i64>),
    /// A modern `add(20, 22)` answered with 42.
    Answered,
    /// Some 4xx, or the connection closed without a response (hyper refuses
    /// malformed HTTP before the service sees it).
    Refused,
    /// Either of the above: lenient parsing is allowed, smuggling is not.
    AnsweredOrRefused,
}

struct Row {
    name: &'static str,
    raw: Vec<u8>,
    want: Want,
}

fn modern_add_body() -> String {
    modern_add(&json!("row"), 20.0, 22.0).to_string()
}

fn modern_add_request(port: u16, extra: &[(&str, &str)]) -> Vec<u8> {
    let body = modern_add_body();
    let owned = modern_call_headers("add");
    let mut headers = as_refs(&owned);
    headers.extend_from_slice(extra);
    http_request("POST", "/mcp", port, &headers, body.as_bytes())
}

/// A modern `add` request with the head written by hand (after the request line).
fn raw_modern_add(request_line: &str, headers: &str, body: &str) -> Vec<u8> {
    format!(
        "{request_line}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: add\r\n{headers}\r\n{body}"
    )
    .into_bytes()
}

fn rows(port: u16) -> Vec<Row> {
    let body = modern_add_body();
    let len = body.len();
    let host = format!("Host: 127.0.0.1:{port}\r\n");
    let with_host = |h: &str| {
        raw_modern_add(
            "POST /mcp HTTP/1.1",
            &format!("Host: {h}\r\nContent-Length: {len}\r\n"),
            &body,
        )
    };
    let chunked = |chunks: &[&str]| {
        let mut b = String::new();
        for c in chunks {
            let _ = write!(b, "{:x}\r\n{c}\r\n", c.len());
        }
        b.push_str("0\r\n\r\n");
        b
    };
    let one_byte_chunks: Vec<String> = body.chars().map(String::from).collect();
    let one_byte_chunks: Vec<&str> = one_byte_chunks.iter().map(String::as_str).collect();
    let injected_name = format!("=?base64?{}?=", base64("add\r\nX-Injected: 1"));
    vec![
        // ---- Host
        Row {
            name: "a good request",
            raw: modern_add_request(port, &[]),
            want: Want::Answered,
        },
        Row {
            name: "Host [::1] with a port",
            raw: with_host(&format!("[::1]:{port}")),
            want: Want::Answered,
        },
        Row {
            name: "Host [::1] without a port",
            raw: with_host("[::1]"),
            want: Want::Answered,
        },
        Row {
            name: "Host LOCALHOST",
            raw: with_host("LOCALHOST"),
            want: Want::Answered,
        },
        Row {
            name: "Host [::2]",
            raw: with_host(&format!("[::2]:{port}")),
            want: Want::Status(403, Some(-32600)),
        },
        Row {
            name: "Host [::1 unclosed",
            raw: with_host("[::1"),
            want: Want::Status(403, Some(-32600)),
        },
        Row {
            name: "Host with userinfo",
            raw: with_host(&format!("user@localhost:{port}")),
            want: Want::Status(403, Some(-32600)),
        },
        Row {
            name: "Host with userinfo after the port",
            raw: with_host(&format!("localhost:{port}@evil.example")),
            want: Want::Status(403, Some(-32600)),
        },
        Row {
            name: "Host with a trailing dot",
            raw: with_host("localhost."),
            want: Want::Status(403, Some(-32600)),
        },
        Row {
            name: "Host with a bad port",
            raw: with_host("127.0.0.1:port"),
            want: Want::Status(403, Some(-32600)),
        },
        Row {
            name: "Host with two ports",
            raw: with_host("127.0.0.1:80:80"),
            want: Want::Status(403, Some(-32600)),
        },
        Row {
            name: "Host a list",
            raw: with_host("localhost, evil.example"),
            want: Want::Status(403, Some(-32600)),
        },
        Row {
            name: "Host empty",
            raw: with_host(""),
            want: Want::Status(403, Some(-32600)),
        },
        Row {
            name: "Host a subdomain of localhost",
            raw: with_host("localhost.evil.example"),
            want: Want::Status(403, Some(-32600)),
        },
        Row {
            name: "Host an IPv4-mapped IPv6 of elsewhere",
            raw: with_host("[::ffff:10.0.0.1]"),
            want: Want::Status(403, Some(-32600)),
        },
        // ---- Origin
        Row {
            name: "Origin null",
            raw: modern_add_request(port, &[("Origin", "null")]),
            want: Want::Status(403, Some(-32600)),
        },
        Row {
            name: "Origin localhost",
            raw: modern_add_request(port, &[("Origin", &format!("http://localhost:{port}"))]),
            want: Want::Answered,
        },
        Row {
            name: "Origin elsewhere",
            raw: modern_add_request(port, &[("Origin", "http://evil.example")]),
            want: Want::Status(403, Some(-32600)),
        },
        Row {
            name: "Origin with userinfo",
            raw: modern_add_request(
                port,
                &[("Origin", &format!("http://evil.example@localhost:{port}"))],
            ),
            want: Want::Status(403, Some(-32600)),
        },
        Row {
            name: "Origin with userinfo after the port",
            raw: modern_add_request(
                port,
                &[("Origin", &format!("http://localhost:{port}@evil.example"))],
            ),
            want: Want::Status(403, Some(-32600)),
        },
        Row {
            name: "Origin a subdomain of localhost",
            raw: modern_add_request(port, &[("Origin", "http://localhost.evil.example")]),
            want: Want::Status(403, Some(-32600)),
        },
        Row {
            name: "Origin file://",
            raw: modern_add_request(port, &[("Origin", "file://")]),
            want: Want::Status(403, Some(-32600)),
        },
        Row {
            name: "Origin not UTF-8",
            raw: raw_modern_add(
                "POST /mcp HTTP/1.1",
                &format!("{host}Origin: http://\u{e9}vil\r\nContent-Length: {len}\r\n"),
                &body,
            ),
            want: Want::Status(403, Some(-32600)),
        },
        // ---- header injection
        Row {
            name: "a bare CR in a header value",
            raw: raw_modern_add(
                "POST /mcp HTTP/1.1",
                &format!("{host}X-A: a\rInjected: b\r\nContent-Length: {len}\r\n"),
                &body,
            ),
            want: Want::Refused,
        },
        Row {
            name: "a bare LF in a header value",
            raw: raw_modern_add(
                "POST /mcp HTTP/1.1",
                &format!("{host}X-A: a\nInjected: b\r\nContent-Length: {len}\r\n"),
                &body,
            ),
            want: Want::AnsweredOrRefused,
        },
        Row {
            name: "a NUL in a header value",
            raw: raw_modern_add(
                "POST /mcp HTTP/1.1",
                &format!("{host}X-A: a\0b\r\nContent-Length: {len}\r\n"),
                &body,
            ),
            want: Want::Refused,
        },
        Row {
            name: "a space in a header name",
            raw: raw_modern_add(
                "POST /mcp HTTP/1.1",
                &format!("{host}Bad Header: x\r\nContent-Length: {len}\r\n"),
                &body,
            ),
            want: Want::Refused,
        },
        Row {
            name: "an obs-folded header",
            raw: raw_modern_add(
                "POST /mcp HTTP/1.1",
                &format!("{host}X-A: a\r\n b\r\nContent-Length: {len}\r\n"),
                &body,
            ),
            want: Want::Refused,
        },
        Row {
            name: "a CRLF smuggled in a base64 Mcp-Name",
            raw: http_request(
                "POST",
                "/mcp",
                port,
                &[
                    JSON,
                    ACCEPT_BOTH,
                    ("MCP-Protocol-Version", "2026-07-28"),
                    ("Mcp-Method", "tools/call"),
                    ("Mcp-Name", &injected_name),
                ],
                body.as_bytes(),
            ),
            want: Want::Status(400, Some(-32020)),
        },
        Row {
            name: "a session id with path characters",
            raw: http_request(
                "POST",
                "/mcp",
                port,
                &[JSON, ACCEPT_BOTH, ("Mcp-Session-Id", "../../etc/passwd")],
                support::legacy_add(&json!(1), 1.0, 1.0)
                    .to_string()
                    .as_bytes(),
            ),
            want: Want::Status(404, Some(-32600)),
        },
        Row {
            name: "a 64 KiB header",
            raw: modern_add_request(port, &[("X-Big", &"b".repeat(64 * 1024))]),
            want: Want::Answered,
        },
        Row {
            name: "a 1 MiB header",
            raw: modern_add_request(port, &[("X-Big", &"b".repeat(1 << 20))]),
            want: Want::Refused,
        },
        Row {
            name: "500 headers",
            raw: raw_modern_add(
                "POST /mcp HTTP/1.1",
                &format!(
                    "{host}{}Content-Length: {len}\r\n",
                    (0..500).fold(String::new(), |mut h, i| {
                        let _ = write!(h, "X-H{i}: v\r\n");
                        h
                    })
                ),
                &body,
            ),
            want: Want::Refused,
        },
        // ---- Content-Length and Transfer-Encoding
        Row {
            name: "Content-Length shorter than the body",
            raw: raw_modern_add(
                "POST /mcp HTTP/1.1",
                &format!("{host}Content-Length: {}\r\n", len - 10),
                &body,
            ),
            want: Want::Status(400, Some(-32700)),
        },
        Row {
            name: "two different Content-Lengths",
            raw: raw_modern_add(
                "POST /mcp HTTP/1.1",
                &format!(
                    "{host}Content-Length: {len}\r\nContent-Length: {}\r\n",
                    len + 1
                ),
                &body,
            ),
            want: Want::Refused,
        },
        Row {
            name: "a non-numeric Content-Length",
            raw: raw_modern_add(
                "POST /mcp HTTP/1.1",
                &format!("{host}Content-Length: ten\r\n"),
                &body,
            ),
            want: Want::Refused,
        },
        Row {
            name: "a negative Content-Length",
            raw: raw_modern_add(
                "POST /mcp HTTP/1.1",
                &format!("{host}Content-Length: -1\r\n"),
                &body,
            ),
            want: Want::Refused,
        },
        Row {
            name: "a huge Content-Length",
            raw: raw_modern_add(
                "POST /mcp HTTP/1.1",
                &format!("{host}Content-Length: 99999999999999999999\r\n"),
                &body,
            ),
            want: Want::Refused,
        },
        Row {
            name: "a declared Content-Length over the limit",
            raw: raw_modern_add(
                "POST /mcp HTTP/1.1",
                &format!("{host}Content-Length: {}\r\n", MAX + 1),
                &body,
            ),
            want: Want::Status(413, Some(-32600)),
        },
        Row {
            name: "a chunked body in 1-byte chunks",
            raw: raw_modern_add(
                "POST /mcp HTTP/1.1",
                &format!("{host}Transfer-Encoding: chunked\r\n"),
                &chunked(&one_byte_chunks),
            ),
            want: Want::Answered,
        },
        Row {
            name: "chunk extensions",
            raw: raw_modern_add(
                "POST /mcp HTTP/1.1",
                &format!("{host}Transfer-Encoding: chunked\r\n"),
                &format!("{len:x};ext=1\r\n{body}\r\n0\r\n\r\n"),
            ),
            want: Want::Answered,
        },
        Row {
            name: "a bad chunk size",
            raw: raw_modern_add(
                "POST /mcp HTTP/1.1",
                &format!("{host}Transfer-Encoding: chunked\r\n"),
                &format!("zz\r\n{body}\r\n0\r\n\r\n"),
            ),
            want: Want::Refused,
        },
        Row {
            name: "a chunk longer than declared",
            raw: raw_modern_add(
                "POST /mcp HTTP/1.1",
                &format!("{host}Transfer-Encoding: chunked\r\n"),
                &format!("2\r\n{body}\r\n0\r\n\r\n"),
            ),
            want: Want::Refused,
        },
        Row {
            name: "Content-Length and chunked together",
            raw: raw_modern_add(
                "POST /mcp HTTP/1.1",
                &format!("{host}Content-Length: 5\r\nTransfer-Encoding: chunked\r\n"),
                &chunked(&[&body]),
            ),
            want: Want::AnsweredOrRefused,
        },
        Row {
            name: "Transfer-Encoding gzip",
            raw: raw_modern_add(
                "POST /mcp HTTP/1.1",
                &format!("{host}Transfer-Encoding: gzip\r\n"),
                &body,
            ),
            want: Want::Refused,
        },
        Row {
            name: "a chunked body over the limit",
            raw: raw_modern_add(
                "POST /mcp HTTP/1.1",
                &format!("{host}Transfer-Encoding: chunked\r\n"),
                &{
                    let chunk = "x".repeat(64 * 1024);
                    let chunks: Vec<&str> =
                        std::iter::repeat_n(chunk.as_str(), MAX / chunk.len() + 1).collect();
                    chunked(&chunks)
                },
            ),
            want: Want::Status(413, Some(-32600)),
        },
        Row {
            name: "a body that is not UTF-8",
            raw: http_request(
                "POST",
                "/mcp",
                port,
                &as_refs(&modern_call_headers("add")),
                b"{\"a\":\"\xff\"}",
            ),
            want: Want::Status(400, Some(-32700)),
        },
        Row {
            name: "an empty body",
            raw: http_request(
                "POST",
                "/mcp",
                port,
                &as_refs(&modern_call_headers("add")),
                b"",
            ),
            want: Want::Status(400, Some(-32700)),
        },
        // ---- methods, paths, versions
        Row {
            name: "PUT",
            raw: http_request("PUT", "/mcp", port, &[JSON], body.as_bytes()),
            want: Want::Status(405, Some(-32600)),
        },
        Row {
            name: "OPTIONS",
            raw: http_request("OPTIONS", "/mcp", port, &[], b""),
            want: Want::Status(405, Some(-32600)),
        },
        Row {
            name: "a path with a trailing slash",
            raw: http_request(
                "POST",
                "/mcp/",
                port,
                &as_refs(&modern_call_headers("add")),
                body.as_bytes(),
            ),
            want: Want::Status(404, Some(-32600)),
        },
        Row {
            name: "a path in upper case",
            raw: http_request(
                "POST",
                "/MCP",
                port,
                &as_refs(&modern_call_headers("add")),
                body.as_bytes(),
            ),
            want: Want::Status(404, Some(-32600)),
        },
        Row {
            name: "a query string",
            raw: http_request(
                "POST",
                "/mcp?x=1",
                port,
                &as_refs(&modern_call_headers("add")),
                body.as_bytes(),
            ),
            want: Want::Answered,
        },
        Row {
            name: "a path with ..",
            raw: http_request(
                "POST",
                "/x/../mcp",
                port,
                &as_refs(&modern_call_headers("add")),
                body.as_bytes(),
            ),
            want: Want::Status(404, Some(-32600)),
        },
        Row {
            name: "HTTP/1.0 without Host",
            raw: raw_modern_add(
                "POST /mcp HTTP/1.0",
                &format!("Content-Length: {len}\r\n"),
                &body,
            ),
            want: Want::Answered,
        },
        Row {
            name: "HTTP/1.0 with Host",
            raw: raw_modern_add(
                "POST /mcp HTTP/1.0",
                &format!("{host}Content-Length: {len}\r\n"),
                &body,
            ),
            want: Want::Answered,
        },
        Row {
            name: "HTTP/0.9",
            raw: b"GET /mcp\r\n\r\n".to_vec(),
            want: Want::Refused,
        },
        Row {
            name: "HTTP/2.0 in an HTTP/1 request line",
            raw: raw_modern_add(
                "POST /mcp HTTP/2.0",
                &format!("{host}Content-Length: {len}\r\n"),
                &body,
            ),
            want: Want::Refused,
        },
        Row {
            name: "HTTP/1.1 with absolute-form for this server",
            raw: raw_modern_add(
                &format!("POST http://127.0.0.1:{port}/mcp HTTP/1.1"),
                &format!("{host}Content-Length: {len}\r\n"),
                &body,
            ),
            want: Want::Answered,
        },
        Row {
            name: "a garbage request line",
            raw: b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n".to_vec(),
            want: Want::Refused,
        },
    ]
}

fn base64(input: &str) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let bytes = input.as_bytes();
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

async fn run_row(s: &HttpServer, row: &Row) -> Result<(), String> {
    let mut conn = HttpConn::connect(s.addr).await;
    conn.write(&row.raw).await;
    let r = tokio::time::timeout(Duration::from_secs(5), conn.read_response())
        .await
        .map_err(|_| "no response and no close within 5 s".to_owned())?;
    match (&row.want, r) {
        (Want::Answered | Want::AnsweredOrRefused, Some(r)) if r.status == 200 => {
            if r.status != 200 || result_text(&r.last()) != Some("42") {
                return Err(format!(
                    "expected 42, got {} {:?}",
                    r.status,
                    support::truncate(&r.text())
                ));
            }
            if r.header("x-injected").is_some() {
                return Err("a header was injected".into());
            }
        }
        (Want::Status(status, code), Some(r)) => {
            if r.status != *status {
                return Err(format!(
                    "expected HTTP {status}, got {} {:?}",
                    r.status,
                    support::truncate(&r.text())
                ));
            }
            if r.header("x-injected").is_some() {
                return Err("a header was injected".into());
            }
            if let Some(code) = code {
                check_transport_error(&r, *code)?;
            }
        }
        (Want::Refused | Want::AnsweredOrRefused, Some(r))
            if (400..500).contains(&r.status) || r.status == 501 => {}
        (Want::Refused | Want::AnsweredOrRefused, None) => {}
        (_, Some(r)) => {
            return Err(format!(
                "unexpected HTTP {} {:?}",
                r.status,
                support::truncate(&r.text())
            ))
        }
        (_, None) => return Err("the connection closed without a response".into()),
    }
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_transport_rows() {
    let (server, _) = support::probed_server();
    let s = HttpServer::start(server, HttpConfig::default()).await;
    let mut failures = Vec::new();
    for row in rows(s.port()) {
        if let Err(e) = run_row(&s, &row).await {
            failures.push(format!("{}: {e}", row.name));
        }
        // A new client is served after every row.
        let m = s
            .post_json(
                &as_refs(&modern_call_headers("add")),
                &modern_add(&json!("next"), 1.0, 2.0),
            )
            .await;
        if result_text(&m.last()) != Some("3") {
            failures.push(format!("{}: the next request failed: {m:?}", row.name));
        }
    }
    s.assert_serving().await;
    report(&failures);
    s.shutdown().await;
}

// ------------------------------------------------------------------ HTTP: connections

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pipelined_requests_on_one_connection_are_answered_in_order() {
    let (server, _) = support::probed_server();
    let s = HttpServer::start(server, HttpConfig::default()).await;
    let sid = s.session(LATEST_LEGACY).await;
    let legacy = legacy_headers(&sid, LATEST_LEGACY);
    let modern = modern_call_headers("add");
    let mut batch = Vec::new();
    for i in 0..20_i64 {
        // Modern and legacy, JSON and SSE (count_to streams progress) responses, interleaved.
        let f = i as f64;
        let (headers, body) = match i % 3 {
            0 => (&modern, modern_add(&json!(i), f, f)),
            1 => (&legacy, support::legacy_add(&json!(i), f, f)),
            _ => (
                &legacy,
                json!({"jsonrpc":"2.0","id":i,"method":"tools/call","params":{"name":"count_to","arguments":{"n":3},"_meta":{"progressToken":i}}}),
            ),
        };
        batch.extend(http_request(
            "POST",
            "/mcp",
            s.port(),
            &as_refs(headers),
            body.to_string().as_bytes(),
        ));
    }
    let mut conn = HttpConn::connect(s.addr).await;
    conn.write(&batch).await;
    for i in 0..20_i64 {
        let r = conn
            .read_response()
            .await
            .expect("a response for every pipelined request");
        assert_eq!(r.status, 200, "{r:?}");
        let last = r.last();
        assert_eq!(last["id"], i, "responses in request order: {r:?}");
        let want = if i % 3 == 2 {
            "counted to 3".to_owned()
        } else {
            support::sum_text(i as f64, i as f64)
        };
        assert_eq!(result_text(&last), Some(want.as_str()), "{r:?}");
        if i % 3 == 2 {
            assert_eq!(
                r.messages().len(),
                4,
                "three progress events, then the result: {r:?}"
            );
        }
    }
    s.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_body_times_out_with_408() {
    let (server, _) = support::probed_server();
    let config = HttpConfig::default().body_timeout(Duration::from_millis(300));
    let s = HttpServer::start(server, config).await;
    let body = modern_add_body();
    let head = raw_modern_add(
        "POST /mcp HTTP/1.1",
        &format!(
            "Host: 127.0.0.1:{}\r\nContent-Length: {}\r\n",
            s.port(),
            body.len()
        ),
        "",
    );
    // Slowloris: one byte every 50 ms, far slower than the 300 ms allowed.
    let mut conn = HttpConn::connect(s.addr).await;
    conn.write(&head).await;
    let started = Instant::now();
    let (mut read_half, mut write_half) = conn.stream.into_split();
    let dribble = tokio::spawn(async move {
        for b in body.into_bytes() {
            if write_half.write_all(&[b]).await.is_err() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    });
    let mut raw = Vec::new();
    let mut buf = [0u8; 4096];
    while !raw.windows(2).any(|w| w == b"\r\n") {
        use tokio::io::AsyncReadExt as _;
        let n = tokio::time::timeout(Duration::from_secs(10), read_half.read(&mut buf))
            .await
            .expect("the server answers a slow body within its timeout")
            .unwrap_or(0);
        assert!(n > 0, "closed without a response");
        raw.extend_from_slice(&buf[..n]);
    }
    dribble.abort();
    let elapsed = started.elapsed();
    let text = String::from_utf8_lossy(&raw);
    assert!(text.starts_with("HTTP/1.1 408"), "{text}");
    assert!(
        elapsed < Duration::from_secs(3),
        "answered after {elapsed:?}"
    );
    // A body that never comes at all: the same.
    let mut idle = HttpConn::connect(s.addr).await;
    idle.write(&head).await;
    let r = idle.read_response().await.expect("a 408");
    assert_eq!(r.status, 408, "{r:?}");
    check_transport_error(&r, -32600).unwrap();
    s.assert_serving().await;
    s.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_cut_short_is_refused_and_the_server_lives_on() {
    let (server, _) = support::probed_server();
    let s = HttpServer::start(server, HttpConfig::default()).await;
    let body = modern_add_body();
    let head = raw_modern_add(
        "POST /mcp HTTP/1.1",
        &format!(
            "Host: 127.0.0.1:{}\r\nContent-Length: {}\r\n",
            s.port(),
            body.len() + 100
        ),
        &body,
    );
    let mut conn = HttpConn::connect(s.addr).await;
    conn.write(&head).await;
    conn.stream.shutdown().await.unwrap();
    // Either a 400 or the connection closes; never a hang, never a call.
    if let Some(r) = conn.read_response().await {
        assert_eq!(r.status, 400, "{r:?}");
    }
    s.assert_serving().await;
    s.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_1_0_gets_a_close_delimited_sse_stream() {
    let (server, _) = support::probed_server();
    let s = HttpServer::start(server, HttpConfig::default()).await;
    let sid = s.session(LATEST_LEGACY).await;
    let body = json!({"jsonrpc":"2.0","id":"c","method":"tools/call","params":{"name":"count_to","arguments":{"n":3},"_meta":{"progressToken":"p"}}}).to_string();
    let raw = format!(
        "POST /mcp HTTP/1.0\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMcp-Session-Id: {sid}\r\nMCP-Protocol-Version: {LATEST_LEGACY}\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let r = s.send(raw.as_bytes()).await;
    assert_eq!(r.status, 200, "{r:?}");
    assert!(
        r.header("transfer-encoding").is_none(),
        "no chunked encoding in HTTP/1.0: {r:?}"
    );
    let msgs = r.messages();
    assert_eq!(msgs.len(), 4, "{r:?}");
    assert_eq!(result_text(msgs.last().unwrap()), Some("counted to 3"));
    s.assert_serving().await;
    s.shutdown().await;
}

// ------------------------------------------------------------------ found bugs (ignored until fixed)

/// JSON-RPC 2.0: an error response MUST carry `id` (null when the request's
/// id could not be read). The HTTP transport's own errors (403, 404, 405,
/// 406, 408, 413, 415, 400 for a missing session...) are JSON-RPC error
/// responses too, with `"id": null`, so strict clients can parse them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn transport_errors_are_json_rpc_responses() {
    let (server, _) = support::probed_server();
    let s = HttpServer::start(server, HttpConfig::default()).await;
    let r = s
        .post(
            &[JSON, ACCEPT_BOTH, ("Origin", "null")],
            modern_add_body().as_bytes(),
        )
        .await;
    assert_eq!(r.status, 403);
    support::check_response(&r.json()).unwrap();
    let r = s
        .post(
            &[JSON, ACCEPT_BOTH],
            support::legacy_add(&json!(1), 1.0, 1.0)
                .to_string()
                .as_bytes(),
        )
        .await;
    assert_eq!(r.status, 400);
    support::check_response(&r.json()).unwrap();
    let sid = s.session(LATEST_LEGACY).await;
    let r = s
        .post(&as_refs(&legacy_headers(&sid, LATEST_LEGACY)), b"[]")
        .await;
    assert_eq!(r.status, 400);
    support::check_response(&r.json()).unwrap();
    s.shutdown().await;
}

/// MCP lifecycle: before `initialize` is answered, the client may still send
/// `ping` ("The client SHOULD NOT send requests other than pings before the
/// server has responded to the initialize request"). It gets its empty result.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ping_before_initialize_is_answered() {
    let (server, _) = support::probed_server();
    let mut conn = Client::start(server);
    let r = conn
        .send_request(json!({"jsonrpc":"2.0","id":1,"method":"ping"}))
        .await;
    assert_eq!(r["result"], json!({}), "{r}");
    conn.finish().await;
}

/// RFC 9112 §3.2: "A server MUST respond with a 400 (Bad Request) status code
/// to any HTTP/1.1 request message that lacks a Host header field and to any
/// request message that contains more than one Host header field".
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_1_1_without_host_is_refused() {
    let (server, _) = support::probed_server();
    let s = HttpServer::start(server, HttpConfig::default()).await;
    let body = modern_add_body();
    let no_host = raw_modern_add(
        "POST /mcp HTTP/1.1",
        &format!("Content-Length: {}\r\n", body.len()),
        &body,
    );
    assert_eq!(s.send(&no_host).await.status, 400, "HTTP/1.1 without Host");
    s.shutdown().await;
}

/// The same rule for two `Host` headers: `Host: localhost` + `Host:
/// evil.example` is refused (a proxy in front may route on the other one).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_host_headers_are_refused() {
    let (server, _) = support::probed_server();
    let s = HttpServer::start(server, HttpConfig::default()).await;
    let body = modern_add_body();
    let two = raw_modern_add(
        "POST /mcp HTTP/1.1",
        &format!(
            "Host: localhost\r\nHost: evil.example\r\nContent-Length: {}\r\n",
            body.len()
        ),
        &body,
    );
    let r = s.send(&two).await;
    assert!(
        r.status == 400 || r.status == 403,
        "two Host headers: {r:?}"
    );
    s.shutdown().await;
}

/// RFC 9112 §6.1: a request with both `Content-Length` and
/// `Transfer-Encoding: chunked` is read as chunked, and then "the server MUST
/// close the connection after responding" (request smuggling).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn content_length_with_chunked_closes_the_connection() {
    let (server, _) = support::probed_server();
    let s = HttpServer::start(server, HttpConfig::default()).await;
    let body = modern_add_body();
    let raw = raw_modern_add(
        "POST /mcp HTTP/1.1",
        &format!(
            "Host: 127.0.0.1:{}\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n",
            s.port()
        ),
        &format!("{:x}\r\n{body}\r\n0\r\n\r\n", body.len()),
    );
    let mut conn = HttpConn::connect(s.addr).await;
    conn.write(&raw).await;
    let r = conn.read_response().await.expect("a response");
    if r.status == 200 {
        assert_eq!(result_text(&r.last()), Some("42"));
        assert!(
            conn.is_closed_within(Duration::from_secs(2)).await,
            "the connection stays open after an ambiguous request"
        );
    } else {
        assert_eq!(r.status, 400, "{r:?}");
    }
    s.shutdown().await;
}

/// RFC 9112 §3.2.2: with an absolute-form request target the server MUST
/// ignore `Host` and use the target's authority, which must be allowed too:
/// `POST http://evil.example/mcp` with `Host: localhost` is refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn absolute_form_naming_another_host_is_refused() {
    let (server, _) = support::probed_server();
    let s = HttpServer::start(server, HttpConfig::default()).await;
    let body = modern_add_body();
    let raw = raw_modern_add(
        "POST http://evil.example/mcp HTTP/1.1",
        &format!(
            "Host: 127.0.0.1:{}\r\nContent-Length: {}\r\n",
            s.port(),
            body.len()
        ),
        &body,
    );
    assert_eq!(s.send(&raw).await.status, 403);
    s.shutdown().await;
}

/// 2025-03-26: "the initialize request MUST NOT be part of a JSON-RPC batch".
/// Refused inside a batch on stdio as on HTTP (it would re-initialize the session).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn initialize_inside_a_stdio_batch_is_refused_as_on_http() {
    let (server, _) = support::probed_server();
    let mut conn = Client::start(server);
    conn.initialize("2025-03-26").await;
    conn.write_bytes(
        format!(
            "[{}]\n",
            support::initialize_request(&json!(5), "2025-11-25")
        )
        .as_bytes(),
    )
    .await;
    let r = conn.recv().await;
    assert_eq!(r[0]["error"]["code"], -32600, "{r}");
    conn.finish().await;
}

/// JSON-RPC: a batch element that is not an object is an Invalid Request.
/// A JSON *array* must not be read positionally into the envelope (serde's
/// derived `visit_seq` would), so `["2.0", 1, "ping"]` is no ping.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_array_inside_a_batch_is_not_a_request() {
    assert!(
        mcp_server::types::jsonrpc::RawMessage::parse(r#"["2.0", 1, "ping"]"#).is_err(),
        "an array parsed as a request"
    );
    let (server, _) = support::probed_server();
    let mut conn = Client::start(server);
    conn.initialize("2025-03-26").await;
    conn.write_bytes(b"[[\"2.0\", 1, \"tools/call\", {\"name\": \"add\", \"arguments\": {\"a\": 1, \"b\": 2}}]]\n").await;
    let r = conn.recv().await;
    assert_eq!(r[0]["error"]["code"], -32600, "{r}");
    conn.finish().await;
}
