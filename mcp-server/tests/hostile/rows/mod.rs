//! The HTTP-only rows: raw requests (Host, Origin, header injection and
//! size, framing, request lines) written byte by byte, each sent on a new
//! connection, and its runner.

mod framing;
mod headers;

use std::time::Duration;

use serde_json::json;

use crate::checks::check_transport_error;
use crate::raw::Add;
use crate::support::{
    self, as_refs, modern_add, modern_call_headers, result_text, HttpConn, HttpServer, Response,
};

/// What an HTTP-only row must get back.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Want {
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

/// Refused by the Host and Origin checks.
const FORBIDDEN: Want = Want::Status(403, Some(-32600));
/// A path that is not the endpoint's, or no session of that id.
const NOT_FOUND: Want = Want::Status(404, Some(-32600));
/// A body over the 4 MiB limit.
const TOO_LARGE: Want = Want::Status(413, Some(-32600));
/// A body that is no JSON.
const NOT_JSON: Want = Want::Status(400, Some(-32700));

/// One raw request and what it must get back.
#[derive(Debug)]
pub(crate) struct Row {
    pub(crate) name: &'static str,
    pub(crate) raw: Vec<u8>,
    pub(crate) want: Want,
}

fn row(name: &'static str, raw: Vec<u8>, want: Want) -> Row {
    Row { name, raw, want }
}

/// Every row, for a server on `port`.
pub(crate) fn all(port: u16) -> Vec<Row> {
    let add = Add::new(port);
    [
        headers::host(&add),
        headers::origin(&add),
        headers::injection(&add),
        framing::lengths(&add),
        framing::request_lines(&add),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// Runs every row on a new connection, then checks that a new client is
/// served; returns what failed, each line naming its row.
pub(crate) async fn run_all(s: &HttpServer) -> Vec<String> {
    let mut failures = Vec::new();
    for row in all(s.port()) {
        if let Err(e) = run(s, &row).await {
            failures.push(format!("{}: {e}", row.name));
        }
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
    failures
}

/// Sends one row and checks what comes back (or that nothing does).
pub(crate) async fn run(s: &HttpServer, row: &Row) -> Result<(), String> {
    let mut conn = HttpConn::connect(s.addr).await;
    conn.write(&row.raw).await;
    let r = tokio::time::timeout(Duration::from_secs(5), conn.read_response())
        .await
        .map_err(|_| "no response and no close within 5 s".to_owned())?;
    match (&row.want, r) {
        (Want::Answered | Want::AnsweredOrRefused, Some(r)) if r.status == 200 => answered(&r),
        (Want::Status(status, code), Some(r)) => with_status(&r, *status, *code),
        (Want::Refused | Want::AnsweredOrRefused, Some(r))
            if (400..500).contains(&r.status) || r.status == 501 =>
        {
            Ok(())
        }
        (Want::Refused | Want::AnsweredOrRefused, None) => Ok(()),
        (_, Some(r)) => Err(format!(
            "unexpected HTTP {} {:?}",
            r.status,
            support::truncate(&r.text())
        )),
        (_, None) => Err("the connection closed without a response".into()),
    }
}

/// `add(20, 22)` answered with 42, and no header injected.
fn answered(r: &Response) -> Result<(), String> {
    if r.status != 200 || result_text(&r.last()) != Some("42") {
        return Err(format!(
            "expected 42, got {} {:?}",
            r.status,
            support::truncate(&r.text())
        ));
    }
    no_injected_header(r)
}

/// This status, no header injected, and (when `code` is given) a JSON-RPC
/// error body with that code.
fn with_status(r: &Response, status: u16, code: Option<i64>) -> Result<(), String> {
    if r.status != status {
        return Err(format!(
            "expected HTTP {status}, got {} {:?}",
            r.status,
            support::truncate(&r.text())
        ));
    }
    no_injected_header(r)?;
    code.map_or(Ok(()), |code| check_transport_error(r, code))
}

fn no_injected_header(r: &Response) -> Result<(), String> {
    if r.header("x-injected").is_some() {
        return Err("a header was injected".into());
    }
    Ok(())
}
