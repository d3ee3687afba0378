//! Connections over HTTP: pipelining, a slow or cut-short body, and
//! HTTP/1.0's close-delimited stream.

use std::time::{Duration, Instant};

use oxmcp_server::http::HttpConfig;
use serde_json::json;
use tokio::io::AsyncWriteExt as _;

use crate::checks::check_transport_error;
use crate::http;
use crate::raw::Add;
use crate::support::{
    self, as_refs, http_request, legacy_headers, modern_add, modern_call_headers, result_text,
    HttpConn, LATEST_LEGACY,
};
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pipelined_requests_on_one_connection_are_answered_in_order() {
    let s = http::start(HttpConfig::default()).await;
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
    let config = HttpConfig::default().body_timeout(Duration::from_millis(300));
    let s = http::start(config).await;
    let add = Add::new(s.port());
    let body = add.body.clone();
    let head = add.head(&format!("Content-Length: {}\r\n", add.len()), "");
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
    let s = http::start(HttpConfig::default()).await;
    let add = Add::new(s.port());
    let head = add.head(
        &format!("Content-Length: {}\r\n", add.len() + 100),
        &add.body,
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
    let s = http::start(HttpConfig::default()).await;
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
