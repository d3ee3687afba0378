//! The client's spans (the `otel` feature), caught by OpenTelemetry's
//! in-memory exporter, against our server (`oxmcp-server/otel`) in the same
//! process: a CLIENT span per request, by the MCP semantic conventions,
//! whose context travels in `params._meta` and, over HTTP, in the
//! `traceparent` header, so that the server's SERVER span is its child.
#![cfg(feature = "otel")]

use mcp_test_support::otel_capture;

mod support;

use std::sync::{Arc, Mutex};

use opentelemetry::trace::{SpanKind, Status};
use opentelemetry_sdk::trace::SpanData;
use otel_capture::*;
use oxmcp_client::{Client, Era, Error};
use oxmcp_server::http::HttpConfig;
use serde_json::{json, Value as Json};
use support::{in_process, server, Fake};
use tracing::Instrument as _;

/// The CLIENT span named `name`.
fn client_span<'a>(spans: &'a Spans, name: &str) -> &'a SpanData {
    spans.one_of_kind(name, &SpanKind::Client)
}

/// The SERVER span named `name`.
fn server_span<'a>(spans: &'a Spans, name: &str) -> &'a SpanData {
    spans.one_of_kind(name, &SpanKind::Server)
}

/// Whether the server's span continues the client's: its remote child.
fn assert_continues(server: &SpanData, client: &SpanData) {
    assert!(
        is_child(server, client),
        "the server's {} is the child of the client's span",
        server.name
    );
    assert!(server.parent_span_is_remote, "{}", server.name);
}

/// The `traceparent` naming `span`.
fn traceparent(span: &SpanData) -> String {
    format!(
        "00-{}-{}-01",
        span.span_context.trace_id(),
        span.span_context.span_id()
    )
}

#[tokio::test]
async fn the_client_span_is_the_parent_of_the_servers_in_each_era() {
    for (era, version) in [(Era::Legacy, "2025-11-25"), (Era::Modern, "2026-07-28")] {
        let traced = Traced::start();
        let (server, _events) = server();
        let (client, _tap, serving) = in_process(server, Client::builder().protocol(era)).await;
        let caller = tracing::info_span!("caller");
        let unknown = async {
            let r = client
                .call_tool("add", json!({"a": 2, "b": 3}))
                .await
                .unwrap();
            assert_eq!(r.content[0].as_text(), Some("5"));
            let failed = client.call_tool("fail", ()).await;
            assert!(matches!(failed, Err(Error::Tool(_))), "{failed:?}");
            client.call_tool("no_such_tool", ()).await.unwrap_err()
        }
        .instrument(caller.clone())
        .await;
        drop(caller);
        client.close().await;
        serving.await.unwrap().unwrap();
        let spans = traced.spans();

        let caller = spans.one_of_kind("caller", &SpanKind::Internal);
        let add = client_span(&spans, "tools/call add");
        assert!(
            is_child(add, caller),
            "{era:?}: the call is the caller's span's child"
        );
        assert_eq!(add.status, Status::Unset);
        assert_strings(
            add,
            &[
                ("mcp.method.name", "tools/call"),
                ("gen_ai.tool.name", "add"),
                ("gen_ai.operation.name", "execute_tool"),
                ("mcp.protocol.version", version),
                ("network.transport", "pipe"),
            ],
        );
        assert!(attribute(add, "error.type").is_none());
        let server_add = server_span(&spans, "tools/call add");
        assert_continues(server_add, add);
        assert_eq!(
            string(add, "jsonrpc.request.id"),
            string(server_add, "jsonrpc.request.id"),
            "{era:?}: the request id the client sent is the one the server saw"
        );
        assert!(string(add, "jsonrpc.request.id").is_some());

        let fail = client_span(&spans, "tools/call fail");
        assert!(is_child(fail, caller));
        assert_strings(fail, &[("error.type", "tool_error")]);
        assert!(matches!(fail.status, Status::Error { .. }), "{fail:?}");
        let server_fail = server_span(&spans, "tools/call fail");
        assert_continues(server_fail, fail);
        assert_strings(server_fail, &[("error.type", "tool_error")]);

        let nope = client_span(&spans, "tools/call no_such_tool");
        assert_strings(
            nope,
            &[
                ("error.type", "-32602"),
                ("rpc.response.status_code", "-32602"),
            ],
        );
        let Error::Protocol(unknown) = unknown else {
            panic!("{era:?}: {unknown:?}")
        };
        assert_eq!(error_description(nope), unknown.message);
        // The server records a tool it does not serve as one value.
        assert_continues(server_span(&spans, "tools/call _OTHER"), nope);

        if era == Era::Legacy {
            // The handshake, outside any span of the caller's: a root, and
            // the server's initialize its child.
            let initialize = client_span(&spans, "initialize");
            assert_eq!(
                initialize.parent_span_id,
                opentelemetry::trace::SpanId::INVALID
            );
            assert_continues(server_span(&spans, "initialize"), initialize);
        }
    }
}

/// What a server answers feeds the client's spans only as far as the
/// client knows it: a protocol version it does not speak is `_OTHER`, and
/// an error message is cut to 256 bytes.
#[tokio::test]
async fn a_servers_made_up_version_and_long_message_are_not_recorded_as_sent() {
    let traced = Traced::start();
    let huge = "9".repeat(200_000);

    let (mut f, read, write) = Fake::new();
    let connecting = tokio::spawn(
        Client::builder()
            .protocol(Era::Legacy)
            .connect_io(read, write),
    );
    let init = f.recv_method("initialize").await;
    f.reply(
        &init,
        json!({"protocolVersion": huge, "capabilities": {},
            "serverInfo": {"name": "fake", "version": "0.1"}}),
    )
    .await;
    let refused = connecting.await.unwrap();
    assert!(refused.is_err(), "a version the client does not speak");

    let (mut f, read, write) = Fake::new();
    let connecting = tokio::spawn(
        Client::builder()
            .protocol(Era::Legacy)
            .connect_io(read, write),
    );
    f.legacy_handshake(json!({"tools": {}})).await;
    let client = connecting.await.unwrap().unwrap();
    let calling = tokio::spawn(async move { client.call_tool("add", ()).await });
    let call = f.recv_method("tools/call").await;
    f.send(json!({"jsonrpc": "2.0", "id": call["id"],
        "error": {"code": -32603, "message": huge}}))
        .await;
    assert!(calling.await.unwrap().is_err());
    let spans = traced.spans();

    let initializes = spans.named("initialize");
    assert_eq!(initializes.len(), 2, "{initializes:?}");
    assert_strings(initializes[0], &[("mcp.protocol.version", "_OTHER")]);
    assert_strings(initializes[1], &[("mcp.protocol.version", "2025-11-25")]);
    let add = client_span(&spans, "tools/call add");
    assert_eq!(error_description(add), huge[..256]);
    assert_all_capped(&spans, 256);
}

/// What the server was sent: each POST's headers and body.
type Seen = Arc<Mutex<Vec<(http::HeaderMap, Json)>>>;

/// Our server's Streamable HTTP endpoint at `/mcp` on 127.0.0.1, behind a
/// layer that keeps what each POST carried; its URL, what it saw, and how
/// to stop it.
async fn recording_server() -> (
    String,
    Seen,
    tokio::sync::oneshot::Sender<()>,
    tokio::task::JoinHandle<()>,
) {
    use axum::body::{to_bytes, Body};
    use axum::extract::Request;
    use axum::middleware::Next;

    let (server, _events) = server();
    let seen = Seen::default();
    let kept = Arc::clone(&seen);
    let record = move |request: Request, next: Next| {
        let kept = Arc::clone(&kept);
        async move {
            let (parts, body) = request.into_parts();
            let bytes = to_bytes(body, usize::MAX).await.unwrap();
            if parts.method == http::Method::POST {
                let body = serde_json::from_slice(&bytes).unwrap_or(Json::Null);
                kept.lock().unwrap().push((parts.headers.clone(), body));
            }
            next.run(Request::from_parts(parts, Body::from(bytes)))
                .await
        }
    };
    let app = axum::Router::new()
        .route_service("/mcp", server.http_service(HttpConfig::default()))
        .layer(axum::middleware::from_fn(record));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let task = tokio::spawn(async move {
        axum::serve(listener, app)
            .with_graceful_shutdown(async {
                let _ = stopped.await;
            })
            .await
            .unwrap();
    });
    (url, seen, stop, task)
}

#[tokio::test]
async fn over_http_the_request_carries_the_client_spans_traceparent() {
    for (era, version) in [(Era::Legacy, "2025-11-25"), (Era::Modern, "2026-07-28")] {
        let traced = Traced::start();
        let (url, seen, stop, served) = recording_server().await;
        let client = Client::builder()
            .protocol(era)
            .connect_http(&url)
            .await
            .unwrap();
        let r = client
            .call_tool("add", json!({"a": 1, "b": 2}))
            .instrument(tracing::info_span!("caller"))
            .await
            .unwrap();
        assert_eq!(r.content[0].as_text(), Some("3"));
        client.close().await;
        let _ = stop.send(());
        served.await.unwrap();
        let spans = traced.spans();

        let add = client_span(&spans, "tools/call add");
        assert_strings(
            add,
            &[
                ("mcp.protocol.version", version),
                ("network.transport", "tcp"),
                ("network.protocol.name", "http"),
            ],
        );
        let expected = traceparent(add);
        let seen = seen.lock().unwrap();
        let calls: Vec<&(http::HeaderMap, Json)> = seen
            .iter()
            .filter(|(_, body)| body["method"] == "tools/call")
            .collect();
        assert_eq!(calls.len(), 1, "{era:?}: {seen:?}");
        let (headers, body) = calls[0];
        assert_eq!(
            headers.get("traceparent").and_then(|v| v.to_str().ok()),
            Some(expected.as_str()),
            "{era:?}: the POST's traceparent names the CLIENT span"
        );
        assert_eq!(
            body["params"]["_meta"]["traceparent"], expected,
            "{era:?}: and so does its _meta"
        );

        // The server took its parent from `_meta`; the header named the
        // same span, which is not linked to again.
        let server_add = server_span(&spans, "tools/call add");
        assert_continues(server_add, add);
        assert!(
            server_add.links.is_empty(),
            "{era:?}: {:?}",
            server_add.links
        );
    }
}
