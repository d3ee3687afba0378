//! Bugs the table found, each kept as a test of its own: the rule it
//! broke, cited, above it.

use std::time::Duration;

use oxmcp_server::http::HttpConfig;
use serde_json::json;

use crate::http;
use crate::raw::{modern_add_body, raw_modern_add, Add};
use crate::support::{
    self, as_refs, legacy_headers, result_text, Client, HttpConn, ACCEPT_BOTH, JSON, LATEST_LEGACY,
};
/// JSON-RPC 2.0: an error response MUST carry `id` (null when the request's
/// id could not be read). The HTTP transport's own errors (403, 404, 405,
/// 406, 408, 413, 415, 400 for a missing session...) are JSON-RPC error
/// responses too, with `"id": null`, so strict clients can parse them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn transport_errors_are_json_rpc_responses() {
    let s = http::start(HttpConfig::default()).await;
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
    let s = http::start(HttpConfig::default()).await;
    let no_host = Add::new(s.port()).line("POST /mcp HTTP/1.1", false);
    assert_eq!(s.send(&no_host).await.status, 400, "HTTP/1.1 without Host");
    s.shutdown().await;
}

/// The same rule for two `Host` headers: `Host: localhost` + `Host:
/// evil.example` is refused (a proxy in front may route on the other one).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_host_headers_are_refused() {
    let s = http::start(HttpConfig::default()).await;
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
    let s = http::start(HttpConfig::default()).await;
    let raw = Add::new(s.port()).length_and_chunked();
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
    let s = http::start(HttpConfig::default()).await;
    let raw = Add::new(s.port()).line("POST http://evil.example/mcp HTTP/1.1", true);
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
        oxmcp_server::types::jsonrpc::RawMessage::parse(r#"["2.0", 1, "ping"]"#).is_err(),
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
