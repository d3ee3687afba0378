//! The table's vocabulary: a case (the bytes sent, on what connection) and
//! what stdio and HTTP must answer, with the builders the groups in `cases/`
//! are written with.

use serde_json::{json, Value};

use crate::checks;
use crate::support::LATEST_LEGACY;

/// 4 MiB: the default limit on one message (a stdio line, an HTTP body).
pub(crate) const MAX: usize = 4 * 1024 * 1024;

/// What the connection looks like before a case's input.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Setup {
    /// Nothing sent yet (stdio); no session (HTTP).
    Fresh,
    /// A legacy session initialized at this revision.
    Legacy(&'static str),
}

/// A session at the latest legacy revision, where most cases run.
pub(crate) const S11: Setup = Setup::Legacy(LATEST_LEGACY);
/// A 2025-03-26 session: the one revision with JSON-RPC batches.
pub(crate) const S03: Setup = Setup::Legacy("2025-03-26");

/// What the server must answer.
#[derive(Clone, Debug)]
pub(crate) enum Expect {
    /// Nothing at all (notifications, responses, blank lines).
    Nothing,
    /// One error response with this code and id.
    Error(i64, Value),
    /// One error response with one of these codes and this id.
    ErrorOneOf(&'static [i64], Value),
    /// One successful response with this id (and this text, for a tool).
    Success(Value, Option<String>),
    /// One tool result with `isError: true`.
    ToolError(Value),
    /// One batch reply holding this many responses, every one well formed.
    Batch(usize),
    /// One message carrying an error with this code, whatever its id.
    Code(i64),
    /// `n` messages from `count_to`: progress notifications echoing this
    /// token (none when the token is not one), then its result.
    Progress(usize, Option<Value>),
    /// `n` messages, checked by a function.
    Lines(usize, fn(&[Value]) -> Result<(), String>),
}

impl Expect {
    /// How many messages the answer holds.
    pub(crate) fn lines(&self) -> usize {
        match self {
            Expect::Nothing => 0,
            Expect::Lines(n, _) | Expect::Progress(n, _) => *n,
            _ => 1,
        }
    }

    pub(crate) fn check(&self, got: &[Value]) -> Result<(), String> {
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
            Expect::Error(code, id) => checks::check_error(one(), &[*code], id),
            Expect::ErrorOneOf(codes, id) => checks::check_error(one(), codes, id),
            Expect::Success(id, text) => checks::check_success(one(), id, text.as_deref()),
            Expect::ToolError(id) => checks::check_tool_error(one(), id),
            Expect::Batch(n) => checks::check_batch(one(), *n),
            Expect::Code(code) => checks::check_code(one(), *code),
            Expect::Progress(_, token) => checks::progress_then_result(got, token.as_ref()),
            Expect::Lines(_, f) => f(got),
        }
    }
}

/// What HTTP must answer to the same message as a POST body.
#[derive(Clone, Debug)]
pub(crate) enum HttpExpect {
    /// This status, and this JSON-RPC content in the body.
    Status(u16, Expect),
    /// The case is about stdio framing only.
    Skip,
}

/// One row of the table.
#[derive(Debug)]
pub(crate) struct Case {
    pub(crate) name: String,
    pub(crate) setup: Setup,
    /// The bytes sent: one or more lines on stdio; the body (without the
    /// final newline) on HTTP.
    pub(crate) input: Vec<u8>,
    pub(crate) stdio: Expect,
    pub(crate) http: HttpExpect,
}

/// A case with its own answers on each transport; the input gets its final
/// newline if it has none.
pub(crate) fn case(
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

/// The same answer on both transports, HTTP's with this status.
pub(crate) fn both(
    name: &str,
    setup: Setup,
    input: impl Into<Vec<u8>>,
    status: u16,
    expect: Expect,
) -> Case {
    case(
        name,
        setup,
        input,
        expect.clone(),
        HttpExpect::Status(status, expect),
    )
}

/// A message refused before its id is read, in a session: this code with a
/// null id, and HTTP 400.
pub(crate) fn unparsed(name: &str, input: impl Into<Vec<u8>>, code: i64) -> Case {
    both(name, S11, input, 400, refused(code))
}

/// A request answered in a session (HTTP 200) with `expect`.
pub(crate) fn answered(name: &str, input: impl Into<Vec<u8>>, expect: Expect) -> Case {
    both(name, S11, input, 200, expect)
}

/// A message that gets no answer in a session (HTTP 202, empty).
pub(crate) fn unanswered(name: &str, input: impl Into<Vec<u8>>) -> Case {
    case(
        name,
        S11,
        input,
        Expect::Nothing,
        HttpExpect::Status(202, Expect::Nothing),
    )
}

/// A case about stdio only (framing, or answers HTTP has its own tests for).
pub(crate) fn stdio_only(
    name: &str,
    setup: Setup,
    input: impl Into<Vec<u8>>,
    expect: Expect,
) -> Case {
    case(name, setup, input, expect, HttpExpect::Skip)
}

/// An error with this code for a message whose id could not be read.
pub(crate) fn refused(code: i64) -> Expect {
    Expect::Error(code, Value::Null)
}

/// An error with this code for the request with id 1.
pub(crate) fn error1(code: i64) -> Expect {
    Expect::Error(code, json!(1))
}

/// A request with this id, method and params.
pub(crate) fn req(id: &Value, method: &str, params: &Value) -> String {
    json!({"jsonrpc":"2.0","id":id,"method":method,"params":params}).to_string()
}

/// A request with id 1.
pub(crate) fn req1(method: &str, params: &Value) -> String {
    req(&json!(1), method, params)
}

/// A ping with this id.
pub(crate) fn ping(id: &Value) -> String {
    req(id, "ping", &json!({}))
}

/// A call to `add` with these arguments.
pub(crate) fn add_req(id: i64, arguments: &Value) -> String {
    req(
        &json!(id),
        "tools/call",
        &json!({"name":"add","arguments":arguments}),
    )
}

/// A call to `add` (id 1) whose arguments are written by hand, for JSON
/// `json!` cannot make (duplicate keys, numbers out of range).
pub(crate) fn add_raw(arguments: &str) -> String {
    add_req(1, &json!({})).replace("{}", arguments)
}

/// A call to `count_to(2)` asking for progress with this token.
pub(crate) fn count_to(id: i64, token: &Value) -> String {
    req(
        &json!(id),
        "tools/call",
        &json!({"name":"count_to","arguments":{"n":2},"_meta":{"progressToken":token}}),
    )
}

/// A ping of exactly `len` bytes.
pub(crate) fn padded_ping(id: i64, len: usize) -> String {
    let head = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping","params":{{"pad":""#);
    let tail = r#""}}"#;
    format!("{head}{}{tail}", "p".repeat(len - head.len() - tail.len()))
}
