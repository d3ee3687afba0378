//! The HTTP transports on a real socket: every bad input gets its status and
//! body, and the server keeps serving afterwards.
#![allow(
    clippy::format_push_string,
    clippy::too_many_lines,
    clippy::type_complexity
)]

use mcp_test_support::server as support;

use std::time::Duration;

use oxmcp_server::http::HttpConfig;
use serde_json::{json, Value};
use support::{http_request, modern_meta, HttpConn, HttpServer, Response, ACCEPT_BOTH, JSON};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// The [`support::TestTools`] on a real socket.
async fn start(config: HttpConfig) -> HttpServer {
    HttpServer::start(support::server(), config).await
}

async fn modern_call(s: &HttpServer, tool: &str, args: &Value) -> Response {
    s.post_json(
        &[("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", "tools/call"), ("Mcp-Name", tool)],
        &json!({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":tool,"arguments":args,"_meta":modern_meta()}}),
    )
    .await
}

#[tokio::test]
async fn legacy_session_flow_json_and_sse() {
    let s = start(HttpConfig::default()).await;
    let sid = s.session("2025-11-25").await;
    assert_eq!(sid.len(), 32);
    let h = [
        ("mcp-session-id", sid.as_str()),
        ("mcp-protocol-version", "2025-11-25"),
    ];
    // A call that notifies: an SSE stream with the priming event, progress, then the result.
    let r = s
        .post_json(&h, &json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"chatty","_meta":{"progressToken":"p"}}}))
        .await;
    assert_eq!(r.header("content-type"), Some("text/event-stream"));
    assert!(r.text().starts_with("id: "), "priming event first: {r:?}");
    assert!(r.text().contains("retry: "));
    let msgs = r.messages();
    assert_eq!(
        msgs.iter()
            .filter(|m| m["method"] == "notifications/progress")
            .count(),
        3
    );
    assert_eq!(msgs.last().unwrap()["result"]["content"][0]["text"], "done");
    // Any supported version is accepted in the header, even if not negotiated.
    let r = s
        .post_json(
            &[
                ("mcp-session-id", &sid),
                ("mcp-protocol-version", "2025-03-26"),
            ],
            &json!({"jsonrpc":"2.0","id":3,"method":"tools/list"}),
        )
        .await;
    assert_eq!(r.status, 200);
    // DELETE ends the session; it is then unknown.
    let d = s
        .request("DELETE", "/mcp", &[("mcp-session-id", &sid)], "")
        .await;
    assert_eq!(d.status, 200);
    let r = s
        .post_json(&h, &json!({"jsonrpc":"2.0","id":4,"method":"tools/list"}))
        .await;
    assert_eq!(r.status, 404);
    s.shutdown().await;
}

#[tokio::test]
async fn bad_http_input_gets_its_status_and_the_server_lives_on() {
    let s = start(HttpConfig::default().max_body_size(2048)).await;
    let init = json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}).to_string();
    let port = s.addr.port().to_string();
    let cases: Vec<(&str, Vec<(&str, String)>, String, u16)> = vec![
        (
            "missing Accept",
            vec![(JSON.0, JSON.1.into())],
            init.clone(),
            406,
        ),
        (
            "Accept without SSE",
            vec![
                (JSON.0, JSON.1.into()),
                ("Accept", "application/json".into()),
            ],
            init.clone(),
            406,
        ),
        (
            "wrong Content-Type",
            vec![
                ("Content-Type", "text/plain".into()),
                (ACCEPT_BOTH.0, ACCEPT_BOTH.1.into()),
            ],
            init.clone(),
            415,
        ),
        (
            "malformed JSON",
            vec![
                (JSON.0, JSON.1.into()),
                (ACCEPT_BOTH.0, ACCEPT_BOTH.1.into()),
            ],
            "{nope".into(),
            400,
        ),
        (
            "oversized body",
            vec![
                (JSON.0, JSON.1.into()),
                (ACCEPT_BOTH.0, ACCEPT_BOTH.1.into()),
            ],
            format!(r#"{{"x":"{}"}}"#, "y".repeat(4000)),
            413,
        ),
        (
            "bad Host",
            vec![
                ("Host", "evil.example.com".into()),
                (JSON.0, JSON.1.into()),
                (ACCEPT_BOTH.0, ACCEPT_BOTH.1.into()),
            ],
            init.clone(),
            403,
        ),
        (
            "bad Origin",
            vec![
                ("Origin", "http://evil.example.com".into()),
                (JSON.0, JSON.1.into()),
                (ACCEPT_BOTH.0, ACCEPT_BOTH.1.into()),
            ],
            init.clone(),
            403,
        ),
        (
            "good Origin",
            vec![
                ("Origin", format!("http://localhost:{port}")),
                (JSON.0, JSON.1.into()),
                (ACCEPT_BOTH.0, ACCEPT_BOTH.1.into()),
            ],
            init.clone(),
            200,
        ),
        (
            "missing session",
            vec![
                (JSON.0, JSON.1.into()),
                (ACCEPT_BOTH.0, ACCEPT_BOTH.1.into()),
            ],
            json!({"jsonrpc":"2.0","id":1,"method":"tools/list"}).to_string(),
            400,
        ),
        (
            "unknown session",
            vec![
                (JSON.0, JSON.1.into()),
                (ACCEPT_BOTH.0, ACCEPT_BOTH.1.into()),
                ("mcp-session-id", "0123456789abcdef0123456789abcdef".into()),
            ],
            json!({"jsonrpc":"2.0","id":1,"method":"tools/list"}).to_string(),
            404,
        ),
        (
            "unsupported legacy version header",
            vec![
                (JSON.0, JSON.1.into()),
                (ACCEPT_BOTH.0, ACCEPT_BOTH.1.into()),
                ("mcp-protocol-version", "1999-01-01".into()),
            ],
            init.clone(),
            400,
        ),
    ];
    for (name, headers, body, status) in cases {
        let headers: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let r = s.request("POST", "/mcp", &headers, &body).await;
        assert_eq!(r.status, status, "{name}: {r:?}");
        if status >= 400 {
            let v = r.json();
            assert!(
                v["error"]["code"].is_i64(),
                "{name}: a JSON-RPC error body: {v}"
            );
        }
    }
    // GET and DELETE without a session (the modern era has neither).
    let g = s
        .request("GET", "/mcp", &[("Accept", "text/event-stream")], "")
        .await;
    assert_eq!(g.status, 405);
    assert!(g.header("allow").is_some());
    let d = s.request("DELETE", "/mcp", &[], "").await;
    assert_eq!(d.status, 405);
    // A batch outside 2025-03-26.
    let sid = s.session("2025-11-25").await;
    let b = s
        .request(
            "POST",
            "/mcp",
            &[JSON, ACCEPT_BOTH, ("mcp-session-id", &sid)],
            r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#,
        )
        .await;
    assert_eq!(b.status, 400);
    // ...and inside it.
    let sid = s.session("2025-03-26").await;
    let b = s
        .request("POST", "/mcp", &[JSON, ACCEPT_BOTH, ("mcp-session-id", &sid)], r#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}]"#)
        .await;
    assert_eq!(b.status, 200);
    assert_eq!(b.json().as_array().unwrap().len(), 2);
    s.assert_serving().await;
    s.shutdown().await;
}

#[tokio::test]
async fn modern_header_validation_and_errors() {
    let s = start(HttpConfig::default()).await;
    let call = |meta: Value| json!({"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2},"_meta":meta}});
    let h = |v: &'static str, m: &'static str, n: &'static str| {
        vec![
            ("MCP-Protocol-Version", v),
            ("Mcp-Method", m),
            ("Mcp-Name", n),
        ]
    };
    // Header/body mismatches: -32020, HTTP 400.
    for (headers, why) in [
        (h("2026-07-28", "tools/call", "subtract"), "name"),
        (h("2026-07-28", "tools/list", "add"), "method"),
        (
            vec![
                ("MCP-Protocol-Version", "2026-07-28"),
                ("Mcp-Method", "tools/call"),
            ],
            "missing name",
        ),
        (
            vec![
                ("Mcp-Method", "tools/call"),
                ("Mcp-Name", "add"),
                ("MCP-Protocol-Version", "2099-01-01"),
            ],
            "version",
        ),
    ] {
        let r = s.post_json(&headers, &call(modern_meta())).await;
        assert_eq!(r.status, 400, "{why}: {r:?}");
        assert_eq!(r.json()["error"]["code"], -32020, "{why}");
        assert_eq!(r.json()["id"], 9, "{why}: errors keep the id");
    }
    // A base64-encoded Mcp-Name is decoded before comparing ("add" = YWRk).
    let r = s
        .post_json(
            &h("2026-07-28", "tools/call", "=?base64?YWRk?="),
            &call(modern_meta()),
        )
        .await;
    assert_eq!(r.status, 200, "{r:?}");
    // Unsupported version: -32022 with the supported list, HTTP 400.
    let mut meta = modern_meta();
    meta["io.modelcontextprotocol/protocolVersion"] = json!("2099-01-01");
    let r = s
        .post_json(&h("2099-01-01", "tools/call", "add"), &call(meta))
        .await;
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["error"]["code"], -32022);
    assert_eq!(r.json()["error"]["data"]["requested"], "2099-01-01");
    // Missing _meta fields: -32602, HTTP 400.
    let r = s
        .post_json(
            &h("2026-07-28", "tools/call", "add"),
            &call(json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28"})),
        )
        .await;
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["error"]["code"], -32602);
    // Unknown and removed methods: 404, -32601.
    for m in ["no/such", "ping", "initialize"] {
        let r = s
            .post_json(
                &[("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", m)],
                &json!({"jsonrpc":"2.0","id":3,"method":m,"params":{"_meta":modern_meta()}}),
            )
            .await;
        assert_eq!(r.status, 404, "{m}: {r:?}");
        assert_eq!(r.json()["error"]["code"], -32601, "{m}");
    }
    // A result carries resultType and no session id is minted.
    let r = modern_call(&s, "add", &json!({"a": 2, "b": 5})).await;
    assert_eq!(r.json()["result"]["resultType"], "complete");
    assert!(r.header("mcp-session-id").is_none());
    s.assert_serving().await;
    s.shutdown().await;
}

#[tokio::test]
async fn legacy_stream_resumes_with_last_event_id() {
    let s = start(HttpConfig::default().sse_retry(Duration::from_millis(50))).await;
    let sid = s.session("2025-11-25").await;
    let h = [
        ("mcp-session-id", sid.as_str()),
        ("mcp-protocol-version", "2025-11-25"),
    ];
    let r = s
        .post_json(
            &h,
            &json!({"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"reconnect"}}),
        )
        .await;
    // The stream was closed mid-call: a priming id, a retry hint, and no result yet.
    assert!(
        r.messages().iter().all(|m| m.get("result").is_none()),
        "{r:?}"
    );
    let body = r.text();
    let last_id = body
        .lines()
        .filter_map(|l| l.strip_prefix("id: "))
        .next_back()
        .unwrap_or_else(|| panic!("an event id in {body:?}"))
        .to_owned();
    assert!(body.contains("retry: 50"));
    let g = s
        .request(
            "GET",
            "/mcp",
            &[
                ("Accept", "text/event-stream"),
                ("mcp-session-id", &sid),
                ("Last-Event-ID", &last_id),
            ],
            "",
        )
        .await;
    assert_eq!(g.status, 200);
    let msgs = g.messages();
    assert_eq!(msgs.last().unwrap()["id"], 5);
    assert_eq!(
        msgs.last().unwrap()["result"]["content"][0]["text"],
        "resumed"
    );
    s.shutdown().await;
}

#[tokio::test]
async fn legacy_http_sse_transport() {
    let s = start(HttpConfig::default()).await;
    let (mut stream, path) = s.open_sse().await;
    assert!(path.starts_with("/messages?session_id="));
    let post = |body: Value| {
        let path = path.clone();
        let s = &s;
        async move { s.request("POST", &path, &[JSON], &body.to_string()).await }
    };
    let r = post(json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})).await;
    assert_eq!(r.status, 202);
    let r = post(json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"a":20,"b":22}}})).await;
    assert_eq!(r.status, 202);
    let seen = stream
        .read_until("\"42\"", Duration::from_secs(10))
        .await
        .expect("the answer on the stream");
    assert!(seen.contains("event: message"));
    assert!(seen.contains(r#""protocolVersion":"2024-11-05""#));
    let unknown = s
        .request("POST", "/messages?session_id=nope", &[JSON], "{}")
        .await;
    assert_eq!(unknown.status, 404);
    drop(stream);
    s.assert_serving().await;
    s.shutdown().await;
}

#[tokio::test]
async fn closing_a_modern_stream_cancels_the_call() {
    let s = start(HttpConfig::default()).await;
    // `wait` runs until cancelled; its response is an SSE stream. Read the
    // head, then hang up: the call must be cancelled (observed through `meet`'s
    // partner below never being needed).
    let body = json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"wait","_meta":modern_meta()}}).to_string();
    let headers = [
        JSON,
        ACCEPT_BOTH,
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", "wait"),
    ];
    let stream = s
        .open(&http_request(
            "POST",
            "/mcp",
            s.port(),
            &headers,
            body.as_bytes(),
        ))
        .await;
    assert!(stream.head.is_sse(), "{:?}", stream.head);
    drop(stream);
    // Shutdown finishes promptly only if the call was cancelled (it never returns otherwise).
    s.shutdown().await;
}

#[tokio::test]
async fn shutdown_lets_calls_in_flight_finish() {
    let s = start(HttpConfig::default()).await;
    let sid = s.session("2025-11-25").await;
    let addr = s.addr;
    let call = tokio::spawn(async move {
        let body = json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow"}})
            .to_string();
        let headers = [JSON, ACCEPT_BOTH, ("mcp-session-id", &sid)];
        let mut conn = HttpConn::connect(addr).await;
        conn.write(&http_request(
            "POST",
            "/mcp",
            addr.port(),
            &headers,
            body.as_bytes(),
        ))
        .await;
        conn.read_response().await.expect("a response")
    });
    tokio::time::sleep(Duration::from_millis(50)).await;
    s.shutdown().await;
    let r = call.await.unwrap();
    assert_eq!(
        r.messages().last().unwrap()["result"]["content"][0]["text"],
        "slow done",
        "{r:?}"
    );
}

#[tokio::test]
async fn mounts_inside_an_axum_router() {
    let s = HttpServer::start_in_axum(&support::server()).await;
    let health = s.request("GET", "/health", &[], "").await;
    assert_eq!(health.text(), "ok");
    s.assert_serving().await;
    // The MCP service's own checks still apply under axum.
    let r = s
        .request(
            "POST",
            "/mcp",
            &[("Host", "evil.example.com"), JSON, ACCEPT_BOTH],
            "{}",
        )
        .await;
    assert_eq!(r.status, 403);
    s.shutdown().await;
}

#[tokio::test]
async fn list_changed_reaches_legacy_get_streams_and_modern_listeners() {
    let server = support::server();
    let handle = server.handle();
    let s = HttpServer::start(server, HttpConfig::default()).await;
    let sid = s.session("2025-11-25").await;
    let mut get = s
        .open(&http_request(
            "GET",
            "/mcp",
            s.port(),
            &[("Accept", "text/event-stream"), ("mcp-session-id", &sid)],
            b"",
        ))
        .await;
    let listen = json!({"jsonrpc":"2.0","id":"sub-1","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},"_meta":modern_meta()}}).to_string();
    let headers = [
        JSON,
        ACCEPT_BOTH,
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "subscriptions/listen"),
    ];
    let mut sub = s
        .open(&http_request(
            "POST",
            "/mcp",
            s.port(),
            &headers,
            listen.as_bytes(),
        ))
        .await;
    sub.until("notifications/subscriptions/acknowledged").await;
    handle.disable_tool("add");
    get.until("notifications/tools/list_changed").await;
    sub.until("notifications/tools/list_changed").await;
    let sub_seen = sub.seen();
    assert!(
        sub_seen.contains(r#""io.modelcontextprotocol/subscriptionId":"sub-1""#),
        "{sub_seen}"
    );
    drop((get, sub));
    s.shutdown().await;
}

/// A client still sending a body over the limit reads the 413, not a reset
/// connection: the server answers at once and reads (and discards) a
/// bounded amount of what follows before it closes, as mature HTTP servers
/// do. Both ways of sending a body: a declared length and chunks.
#[tokio::test]
async fn an_oversized_body_is_answered_413_while_the_client_still_sends() {
    const TOTAL: usize = 8 * 1024 * 1024;
    let s = start(HttpConfig::default().max_body_size(64 * 1024)).await;
    for chunked in [false, true] {
        let mut stream = TcpStream::connect(s.addr).await.unwrap();
        let framing = if chunked {
            "Transfer-Encoding: chunked".to_owned()
        } else {
            format!("Content-Length: {TOTAL}")
        };
        let head = format!(
            "POST /mcp HTTP/1.1\r\nHost: localhost:{}\r\nConnection: close\r\n\
             Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
             {framing}\r\n\r\n",
            s.addr.port()
        );
        stream.write_all(head.as_bytes()).await.unwrap();
        let (mut rd, mut wr) = stream.into_split();
        let writer = tokio::spawn(async move {
            let chunk = vec![b'x'; 64 * 1024];
            let mut sent = 0;
            while sent < TOTAL {
                let piece = if chunked {
                    [format!("{:x}\r\n", chunk.len()).as_bytes(), &chunk, b"\r\n"].concat()
                } else {
                    chunk.clone()
                };
                if wr.write_all(&piece).await.is_err() {
                    break;
                }
                sent += chunk.len();
            }
            if chunked {
                let _ = wr.write_all(b"0\r\n\r\n").await;
            }
            sent
        });
        let mut raw = Vec::new();
        let read = tokio::time::timeout(Duration::from_secs(30), rd.read_to_end(&mut raw))
            .await
            .expect("no answer to an oversized body");
        assert!(
            read.is_ok(),
            "chunked: {chunked}: the connection broke instead of carrying the answer: {read:?} after {} bytes",
            raw.len()
        );
        let reply = support::parse(&raw).unwrap();
        assert_eq!(reply.status, 413, "chunked: {chunked}: {reply:?}");
        assert_eq!(reply.json()["error"]["code"], -32600);
        assert_eq!(
            writer.await.unwrap(),
            TOTAL,
            "chunked: {chunked}: the whole body was taken"
        );
    }
    s.assert_serving().await;
    s.shutdown().await;
}
