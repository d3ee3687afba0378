//! The HTTP runner for the JSON-RPC cases: a case's input is the body of
//! one POST (in a legacy session of its own, or without one); the status
//! and the JSON-RPC answer are checked, then a follow-up request must
//! succeed on the same connection and in the same session.

use oxmcp_server::http::HttpConfig;
use serde_json::{json, Value};

use crate::checks::check_transport_error;
use crate::support::{
    self, as_refs, http_request, legacy_add, legacy_headers, modern_add, modern_call_headers,
    result_text, HttpConn, HttpServer, Response, ACCEPT_BOTH, JSON,
};
use crate::table::{Case, Expect, HttpExpect, Setup};

/// A server with the probed test tools on a real 127.0.0.1 socket.
pub(crate) async fn start(config: HttpConfig) -> HttpServer {
    let (server, _) = support::probed_server();
    HttpServer::start(server, config).await
}

/// The headers of a POST (in a session, with its id and revision).
type Headers = Vec<(&'static str, String)>;

/// Sends one case to `s` on a new connection and checks the answer and the
/// follow-ups. A case about stdio only passes.
pub(crate) async fn run(s: &HttpServer, c: &Case) -> Result<(), String> {
    let HttpExpect::Status(status, expect) = &c.http else {
        return Ok(());
    };
    let (headers, session) = match c.setup {
        Setup::Fresh => (
            vec![
                (JSON.0, JSON.1.to_owned()),
                (ACCEPT_BOTH.0, ACCEPT_BOTH.1.to_owned()),
            ],
            None,
        ),
        Setup::Legacy(v) => {
            let sid = s.session(v).await;
            (legacy_headers(&sid, v), Some((sid, v)))
        }
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
    check_answer(&r, c.setup, *status, expect)?;
    // The same connection still serves (unless the server closed it).
    if !conn.closed && r.header("connection") != Some("close") && r.status < 413 {
        follow_up_on(s, &mut conn, session.as_ref()).await?;
    }
    // And in the same session, on a new connection.
    if let Some((sid, v)) = &session {
        let again = s
            .post_json(
                &as_refs(&legacy_headers(sid, v)),
                &legacy_add(&json!("same-session"), 2.0, 3.0),
            )
            .await;
        if result_text(&again.last()) != Some("5") {
            return Err(format!("the session's follow-up failed: {again:?}"));
        }
    }
    Ok(())
}

/// The status, then the body: without a session a 400 is the transport's
/// own error; a 413 body is one JSON object; anything else holds the
/// JSON-RPC answer `expect` describes.
fn check_answer(r: &Response, setup: Setup, status: u16, expect: &Expect) -> Result<(), String> {
    if r.status != status {
        return Err(format!(
            "expected HTTP {status}, got {} {:?}",
            r.status,
            support::truncate(&r.text())
        ));
    }
    if setup == Setup::Fresh && status == 400 {
        return check_transport_error(r, -32600);
    }
    if r.status == 413 {
        let v: Value = serde_json::from_slice(&r.body).map_err(|e| e.to_string())?;
        return expect.check(&[v]);
    }
    expect
        .check(&messages_of(r)?)
        .map_err(|e| format!("{e}; got {:?}", support::truncate(&r.text())))
}

/// `add(2, 3)` on a kept-alive connection, in the session if there is one.
async fn follow_up_on(
    s: &HttpServer,
    conn: &mut HttpConn,
    session: Option<&(String, &str)>,
) -> Result<(), String> {
    let (headers, body): (Headers, Value) = match session {
        Some((sid, v)) => (
            legacy_headers(sid, v),
            legacy_add(&json!("same-conn"), 2.0, 3.0),
        ),
        None => (
            modern_call_headers("add"),
            modern_add(&json!("same-conn"), 2.0, 3.0),
        ),
    };
    let body = body.to_string();
    conn.write(&http_request(
        "POST",
        "/mcp",
        s.port(),
        &as_refs(&headers),
        body.as_bytes(),
    ))
    .await;
    let again = conn
        .read_response()
        .await
        .ok_or("the kept-alive connection closed")?;
    if result_text(&again.last()) == Some("5") {
        Ok(())
    } else {
        Err(format!(
            "the follow-up on the same connection failed: {again:?}"
        ))
    }
}

/// The JSON-RPC messages of a response: the events of an SSE stream, or
/// the JSON body (none when it is empty).
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
    // test, `transport_errors_are_json_rpc_responses`.
    if let Some(obj) = v.as_object_mut() {
        if obj.contains_key("error") && !obj.contains_key("id") {
            obj.insert("id".into(), Value::Null);
        }
    }
    Ok(vec![v])
}
