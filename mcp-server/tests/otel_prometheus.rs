//! `/metrics` (the `otel` feature, the Prometheus exporter set up by
//! `oxmcp_otel::Telemetry::from_env`) stays the same size whatever a client
//! makes up: tool and prompt names the server does not serve, methods it
//! does not speak and protocol versions it does not support are each one
//! value, `_OTHER`, in the metrics, so that a client cannot grow the
//! server's memory (the metrics' points live as long as the process) or
//! what Prometheus scrapes.
//!
//! One test in a file of its own: the exporter is the process's global
//! meter provider, which oxmcp-otel's instruments are made from once, on
//! first use.
#![cfg(feature = "otel")]

use mcp_test_support::server as support;

use oxmcp_server::http::HttpConfig;
use serde_json::{json, Value};
use support::{as_refs, legacy_headers, result_text, server, HttpServer, LATEST_LEGACY};
use tracing_subscriber::layer::SubscriberExt as _;

/// The four kinds of made-up request, naming `name`, in legacy session `sid`.
async fn made_up(http: &HttpServer, sid: &str, id: i64, name: &str) {
    let headers = legacy_headers(sid, LATEST_LEGACY);
    let requests = [
        json!({"jsonrpc":"2.0","id":id,"method":"tools/call",
            "params":{"name":name,"arguments":{}}}),
        json!({"jsonrpc":"2.0","id":id,"method":"prompts/get","params":{"name":name}}),
        json!({"jsonrpc":"2.0","id":id,"method":name,"params":{}}),
        json!({"jsonrpc":"2.0","id":id,"method":"tools/call",
            "params":{"name":"add","arguments":{"a":1,"b":2},
                "_meta":{"io.modelcontextprotocol/protocolVersion":name}}}),
    ];
    for request in &requests {
        let r = http.post_json(&as_refs(&headers), request).await;
        let reply: Value = r.last();
        assert!(reply.get("error").is_some(), "{name:.40}: {reply}");
    }
}

async fn metrics(http: &HttpServer) -> String {
    let r = http.request("GET", "/metrics", &[], b"").await;
    assert_eq!(r.status, 200, "{r:?}");
    r.text()
}

#[tokio::test]
async fn made_up_names_do_not_grow_the_metrics() {
    // The process's own environment: spans taken (so metrics recorded),
    // none exported; metrics served for Prometheus.
    std::env::remove_var("OTEL_SDK_DISABLED");
    std::env::set_var("OTEL_TRACES_EXPORTER", "none");
    std::env::set_var("OTEL_METRICS_EXPORTER", "prometheus");
    let telemetry = oxmcp_otel::Telemetry::from_env("metered-server").unwrap();
    let _guard =
        tracing::subscriber::set_default(tracing_subscriber::registry().with(telemetry.layer()));
    let prometheus = telemetry.prometheus().expect("the Prometheus exporter");
    let config = HttpConfig::default().page(
        "/metrics",
        oxmcp_otel::Prometheus::CONTENT_TYPE,
        move || prometheus.encode(),
    );
    let http = HttpServer::start(server(), config).await;
    let sid = http.session(LATEST_LEGACY).await;
    let r = http
        .post_json(
            &as_refs(&legacy_headers(&sid, LATEST_LEGACY)),
            &json!({"jsonrpc":"2.0","id":1,"method":"tools/call",
                "params":{"name":"add","arguments":{"a":1,"b":2}}}),
        )
        .await;
    assert_eq!(result_text(&r.last()), Some("3"), "{r:?}");

    made_up(&http, &sid, 2, "made-up-0").await;
    let after_one = metrics(&http).await;
    assert!(
        after_one.contains(r#"gen_ai_tool_name="add""#),
        "a served tool is recorded by name: {after_one}"
    );
    assert!(
        after_one.contains(r#"gen_ai_tool_name="_OTHER""#),
        "{after_one}"
    );

    for i in 1..1_000 {
        made_up(&http, &sid, i + 2, &format!("made-up-{i}")).await;
    }
    let huge = "x".repeat(200_000);
    made_up(&http, &sid, 1_002, &huge).await;
    let after_all = metrics(&http).await;

    assert!(
        !after_all.contains("made-up"),
        "a made-up name in /metrics: {after_all:.2000}"
    );
    assert!(
        !after_all.contains(&huge[..256]),
        "the 200 kB name in /metrics"
    );
    // The counts and sums have more digits now; nothing else may grow.
    assert!(
        after_all.len() < after_one.len() + after_one.len() / 4,
        "/metrics grew from {} to {} bytes",
        after_one.len(),
        after_all.len()
    );
    http.shutdown().await;
}
