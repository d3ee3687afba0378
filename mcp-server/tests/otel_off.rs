//! The `otel` feature with nothing taking the spans: no subscriber at all
//! (the process never installs one), or one without the OpenTelemetry
//! layer. Requests carrying trace context are answered exactly as without
//! it, and nothing panics.
#![cfg(feature = "otel")]

use mcp_test_support::server as support;

use oxmcp_server::http::HttpConfig;
use serde_json::{json, Value};
use support::{
    as_refs, modern_call_headers, modern_meta, server, Client, HttpServer, LATEST_LEGACY,
};

const TRACEPARENT: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

/// A legacy session and a stateless call on stdio, each call sent with and
/// without trace context in `_meta`: the replies, which must not differ.
async fn round_trip() -> Vec<(Value, Value)> {
    let mut c = Client::start(server());
    c.initialize(LATEST_LEGACY).await;
    let call = |id: i64, meta: Value| {
        json!({"jsonrpc":"2.0","id":id,"method":"tools/call",
            "params":{"name":"add","arguments":{"a":2,"b":3},"_meta":meta}})
    };
    let traced_meta = |mut meta: Value| {
        meta["traceparent"] = json!(TRACEPARENT);
        meta["tracestate"] = json!("rojo=00f067aa0ba902b7");
        meta
    };
    let mut pairs = Vec::new();
    let plain = c.send_request(call(1, json!({}))).await;
    let traced = c.send_request(call(1, traced_meta(json!({})))).await;
    pairs.push((plain, traced));
    c.finish().await;

    let mut c = Client::start(server());
    let plain = c.send_request(call(2, modern_meta())).await;
    let traced = c.send_request(call(2, traced_meta(modern_meta()))).await;
    pairs.push((plain, traced));
    c.finish().await;

    // Over HTTP, with the `traceparent` header.
    let http = HttpServer::start(server(), HttpConfig::default()).await;
    let headers = modern_call_headers("add");
    let plain = http
        .post_json(&as_refs(&headers), &call(3, modern_meta()))
        .await;
    let mut traced_headers = headers.clone();
    traced_headers.push(("traceparent", TRACEPARENT.to_owned()));
    let traced = http
        .post_json(
            &as_refs(&traced_headers),
            &call(3, traced_meta(modern_meta())),
        )
        .await;
    pairs.push((plain.last(), traced.last()));
    http.shutdown().await;
    pairs
}

fn assert_unchanged(pairs: &[(Value, Value)]) {
    for (plain, traced) in pairs {
        assert_eq!(plain["result"]["content"][0]["text"], "5", "{plain}");
        assert_eq!(plain, traced, "trace context changes nothing in the reply");
    }
}

// One test, the two cases in turn: tracing caches per call site whether
// anything is interested, and a subscriber set on one test's thread while
// another test's first call registers the call site can leave that cache
// saying "no one" (the second case then failed now and then).
#[tokio::test]
async fn tracing_without_the_opentelemetry_layer_changes_no_reply() {
    assert!(
        !oxmcp_otel::instrumentation::enabled(),
        "this process installs no subscriber"
    );
    assert_unchanged(&round_trip().await);

    // A subscriber without the OpenTelemetry layer takes the spans (so the
    // instrumentation runs, and reads the trace context with the W3C
    // propagator) but has nowhere to put a parent, a link or a status.
    opentelemetry::global::set_text_map_propagator(
        opentelemetry_sdk::propagation::TraceContextPropagator::new(),
    );
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::INFO)
        .with_writer(std::io::sink)
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);
    assert!(oxmcp_otel::instrumentation::enabled());
    assert_unchanged(&round_trip().await);
}
