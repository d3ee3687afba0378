//! The server's duration histograms (the `otel` feature), read from
//! OpenTelemetry's in-memory metric exporter: `mcp.server.operation.duration`
//! per request and notification, `mcp.server.session.duration` per legacy
//! session, with the attributes of the MCP semantic conventions.
//!
//! One test in a file of its own: oxmcp-otel makes its instruments from the
//! global meter provider once per process, on first use, so the provider
//! below must be in place before any request of the process.
#![cfg(feature = "otel")]

use mcp_test_support::server as support;

use std::collections::BTreeMap;

use mcp_test_support::calculator::Calculator;
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_sdk::metrics::data::{
    AggregatedMetrics, HistogramDataPoint, MetricData, ScopeMetrics,
};
use opentelemetry_sdk::metrics::{InMemoryMetricExporter, PeriodicReader, SdkMeterProvider};
use opentelemetry_sdk::trace::SdkTracerProvider;
use oxmcp_server::http::HttpConfig;
use oxmcp_server::Server;
use serde_json::{json, Value};
use support::{
    as_refs, legacy_headers, modern_add, modern_call_headers, modern_meta, result_text, Client,
    HttpServer, LATEST_LEGACY,
};
use tracing_subscriber::layer::SubscriberExt as _;

fn server() -> Server {
    Server::builder("metered-server", "0.0.1")
        .toolbox(Calculator)
        .build()
}

/// A point's attributes, sorted.
type Attributes = Vec<(String, String)>;

/// A histogram's points: attributes → (count, bucket bounds).
type Points = BTreeMap<Attributes, (u64, Vec<f64>)>;

fn point(p: &HistogramDataPoint<f64>) -> (Attributes, (u64, Vec<f64>)) {
    let mut attributes: Attributes = p
        .attributes()
        .map(|kv| (kv.key.to_string(), kv.value.as_str().into_owned()))
        .collect();
    attributes.sort();
    (attributes, (p.count(), p.bounds().collect()))
}

/// The metrics of this process, read from an in-memory exporter.
struct Metrics {
    exporter: InMemoryMetricExporter,
    meters: SdkMeterProvider,
}

impl Metrics {
    /// Installed as the global meter provider.
    fn install() -> Metrics {
        let exporter = InMemoryMetricExporter::default();
        let meters = SdkMeterProvider::builder()
            .with_reader(PeriodicReader::builder(exporter.clone()).build())
            .build();
        opentelemetry::global::set_meter_provider(meters.clone());
        Metrics { exporter, meters }
    }

    /// The points of the histogram `name` now (its unit checked: `s`);
    /// none when it has none (it is not exported at all then).
    fn histogram(&self, name: &str) -> Points {
        self.meters.force_flush().unwrap();
        let exports = self.exporter.get_finished_metrics().unwrap();
        let latest = exports.last().expect("an export");
        let mut found = None;
        for metric in latest.scope_metrics().flat_map(ScopeMetrics::metrics) {
            if metric.name() != name {
                continue;
            }
            assert_eq!(metric.unit(), "s", "{name}'s unit");
            let AggregatedMetrics::F64(MetricData::Histogram(h)) = metric.data() else {
                panic!("{name} is not an f64 histogram: {:?}", metric.data());
            };
            found = Some(h.data_points().map(point).collect());
        }
        found.unwrap_or_default()
    }
}

fn attributes(pairs: &[(&str, &str)]) -> Attributes {
    let mut v: Attributes = pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    v.sort();
    v
}

/// The count of the point with exactly `pairs` as attributes.
fn count(points: &Points, pairs: &[(&str, &str)]) -> u64 {
    let key = attributes(pairs);
    points
        .get(&key)
        .unwrap_or_else(|| panic!("no point {key:?} among {:#?}", points.keys()))
        .0
}

fn add(id: i64) -> Value {
    json!({"jsonrpc":"2.0","id":id,"method":"tools/call",
        "params":{"name":"add","arguments":{"a":1,"b":2}}})
}

/// A legacy session on stdio: two calls, a tool error, an unknown tool;
/// no session has ended before its input closes.
async fn stdio_session(metrics: &Metrics) {
    let mut c = Client::start(server());
    c.initialize(LATEST_LEGACY).await;
    for id in [1, 2] {
        assert_eq!(result_text(&c.send_request(add(id)).await), Some("3"));
    }
    let r = c
        .request(
            3,
            "tools/call",
            json!({"name":"divide","arguments":{"a":1,"b":0}}),
        )
        .await;
    assert_eq!(r["result"]["isError"], true, "{r}");
    let r = c.request(4, "tools/call", json!({"name":"nope"})).await;
    assert_eq!(r["error"]["code"], -32602, "{r}");
    let sessions = metrics.histogram("mcp.server.session.duration");
    assert!(
        sessions.is_empty(),
        "no session has ended yet: {sessions:?}"
    );
    c.finish().await;
}

/// A 2026-07-28 request on stdio: no session.
async fn stdio_stateless() {
    let mut c = Client::start(server());
    let r = c.send_request(modern_add(&json!(1), 20.0, 22.0)).await;
    assert_eq!(result_text(&r), Some("42"), "{r}");
    c.finish().await;
}

/// Over HTTP: a legacy session (ended by DELETE) and a stateless call.
async fn over_http() {
    let http = HttpServer::start(server(), HttpConfig::default()).await;
    let sid = http.session(LATEST_LEGACY).await;
    let r = http
        .post_json(&as_refs(&legacy_headers(&sid, LATEST_LEGACY)), &add(1))
        .await;
    assert_eq!(result_text(&r.last()), Some("3"), "{r:?}");
    http.delete_session(&sid).await;
    let r = http
        .post_json(
            &as_refs(&modern_call_headers("add")),
            &json!({"jsonrpc":"2.0","id":2,"method":"tools/call",
                "params":{"name":"add","arguments":{"a":1,"b":1},"_meta":modern_meta()}}),
        )
        .await;
    assert_eq!(result_text(&r.last()), Some("2"), "{r:?}");
    http.shutdown().await;
}

/// The attributes of a `tools/call add` on `transport` at `version`.
fn add_on(transport: &'static str, version: &'static str) -> Vec<(&'static str, &'static str)> {
    let mut attributes = vec![
        ("mcp.method.name", "tools/call"),
        ("gen_ai.tool.name", "add"),
        ("gen_ai.operation.name", "execute_tool"),
        ("mcp.protocol.version", version),
        ("network.transport", transport),
    ];
    if transport == "tcp" {
        attributes.push(("network.protocol.name", "http"));
    }
    attributes
}

fn assert_operations(operations: &Points) {
    assert_eq!(count(operations, &add_on("pipe", LATEST_LEGACY)), 2);
    assert_eq!(count(operations, &add_on("pipe", "2026-07-28")), 1);
    assert_eq!(count(operations, &add_on("tcp", LATEST_LEGACY)), 1);
    assert_eq!(count(operations, &add_on("tcp", "2026-07-28")), 1);
    let mut divide = add_on("pipe", LATEST_LEGACY);
    divide[1].1 = "divide";
    divide.push(("error.type", "tool_error"));
    assert_eq!(count(operations, &divide), 1);
    // A tool the server does not serve is one value, whatever its name
    // (tests/otel_prometheus.rs calls a thousand).
    let mut nope = add_on("pipe", LATEST_LEGACY);
    nope[1].1 = "_OTHER";
    nope.push(("error.type", "-32602"));
    nope.push(("rpc.response.status_code", "-32602"));
    assert_eq!(count(operations, &nope), 1);
    assert_eq!(
        count(
            operations,
            &[
                ("mcp.method.name", "notifications/initialized"),
                ("mcp.protocol.version", LATEST_LEGACY),
                ("network.transport", "pipe"),
            ]
        ),
        1
    );
    let initializes: u64 = operations
        .iter()
        .filter(|(k, _)| k.contains(&("mcp.method.name".into(), "initialize".into())))
        .map(|(_, (n, _))| n)
        .sum();
    assert_eq!(initializes, 2, "one initialize on stdio, one over HTTP");
    for (keys, (_, bounds)) in operations {
        assert_eq!(
            bounds,
            &oxmcp_otel::conventions::DURATION_BUCKETS,
            "{keys:?}"
        );
        for (key, _) in keys {
            assert!(
                !["jsonrpc.request.id", "mcp.session.id"].contains(&key.as_str()),
                "a metric attribute of high cardinality: {keys:?}"
            );
        }
    }
}

fn assert_sessions(sessions: &Points) {
    let session_on = |transport| {
        let mut attributes = vec![
            ("mcp.protocol.version", LATEST_LEGACY),
            ("network.transport", transport),
        ];
        if transport == "tcp" {
            attributes.push(("network.protocol.name", "http"));
        }
        attributes
    };
    assert_eq!(count(sessions, &session_on("pipe")), 1);
    assert_eq!(count(sessions, &session_on("tcp")), 1);
    assert_eq!(
        sessions.len(),
        2,
        "stateless requests open no session: {sessions:?}"
    );
    for (keys, (_, bounds)) in sessions {
        assert_eq!(
            bounds,
            &oxmcp_otel::conventions::DURATION_BUCKETS,
            "{keys:?}"
        );
    }
}

#[tokio::test]
async fn operation_and_session_durations_are_recorded_with_their_attributes() {
    // Before anything is recorded: the instruments are made once, from the
    // global provider of that moment.
    let metrics = Metrics::install();
    // Durations are recorded while something takes the spans.
    let tracer = SdkTracerProvider::builder().build();
    let _guard = tracing::subscriber::set_default(
        tracing_subscriber::registry()
            .with(tracing_opentelemetry::layer().with_tracer(tracer.tracer("test"))),
    );

    stdio_session(&metrics).await;
    stdio_stateless().await;
    over_http().await;

    assert_operations(&metrics.histogram("mcp.server.operation.duration"));
    assert_sessions(&metrics.histogram("mcp.server.session.duration"));
}
