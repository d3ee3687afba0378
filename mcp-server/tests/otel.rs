//! The server's spans (the `otel` feature), caught by OpenTelemetry's
//! in-memory exporter: a SERVER span per request and notification, named
//! and attributed by the MCP semantic conventions, the parent of what the
//! tool does, continuing the caller's trace from `params._meta` (both eras)
//! or the HTTP `traceparent` header, and ending with the reply's outcome.
//!
//! The metrics are in `otel_metrics.rs` (the global meter provider must be
//! in place before the first request of the process), a server with no
//! subscriber at all in `otel_off.rs`.
#![cfg(feature = "otel")]

use mcp_test_support::calculator::Calculator;
use mcp_test_support::otel_capture;

use mcp_test_support::server as support;

use std::time::Duration;

use opentelemetry::trace::{SpanId, SpanKind, Status, TraceId};
use opentelemetry_sdk::trace::SpanData;
use otel_capture::*;
use oxmcp_server::{tool, Context, Server};
use serde_json::{json, Value as Json};
use sha2::Digest as _;
use support::{cancel, modern_meta, result_text, Client, LATEST_LEGACY};
use tracing::Instrument as _;

/// A remote caller's span: its trace, its span, and its `traceparent`.
struct Remote {
    trace: &'static str,
    span: &'static str,
}

impl Remote {
    const META: Remote = Remote {
        trace: "4bf92f3577b34da6a3ce929d0e0e4736",
        span: "00f067aa0ba902b7",
    };
    const HEADER: Remote = Remote {
        trace: "0af7651916cd43dd8448eb211c80319c",
        span: "b7ad6b7169203331",
    };

    fn traceparent(&self) -> String {
        format!("00-{}-{}-01", self.trace, self.span)
    }

    fn trace_id(&self) -> TraceId {
        TraceId::from_hex(self.trace).unwrap()
    }

    fn span_id(&self) -> SpanId {
        SpanId::from_hex(self.span).unwrap()
    }

    /// Whether `span` continues this caller's trace, as its direct child.
    fn assert_parent_of(&self, span: &SpanData) {
        assert_eq!(
            span.span_context.trace_id(),
            self.trace_id(),
            "{} continues the caller's trace",
            span.name
        );
        assert_eq!(
            span.parent_span_id,
            self.span_id(),
            "{} is the caller's span's child",
            span.name
        );
        assert!(span.parent_span_is_remote, "{}: a remote parent", span.name);
    }
}

const TRACESTATE: &str = "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE";

// ------------------------------------------------------------------ tools

/// The tests' calculator (`add` in a span of its own, `adding`; `divide`)
/// serves beside these.
#[derive(Debug)]
pub struct Traces;

#[tool(description = "Tools that make spans of their own", client = false)]
impl Traces {
    #[describe("Add two numbers after a wait")]
    pub async fn add_later(&self, #[param("First")] a: f64, #[param("Second")] b: f64) -> f64 {
        // The wait is in a span of the tool's own...
        let sum = async {
            tokio::time::sleep(Duration::from_millis(5)).await;
            a + b
        }
        .instrument(tracing::info_span!("waiting"))
        .await;
        // ... and this runs after it, when the call is a spawned future:
        // still inside the request's span.
        tracing::info_span!("after the wait").in_scope(|| sum)
    }

    #[describe("Wait until cancelled")]
    pub async fn wait(&self, ctx: Context) -> &'static str {
        ctx.cancelled().await;
        "cancelled"
    }
}

fn server() -> Server {
    Server::builder("traced-server", "0.0.1")
        .toolbox(Calculator)
        .toolbox(Traces)
        .build()
}

fn call(id: impl Into<Json>, name: &str, arguments: &Json) -> Json {
    json!({"jsonrpc":"2.0","id":id.into(),"method":"tools/call","params":{"name":name,"arguments":arguments}})
}

/// `call`, with `meta` as the params' `_meta`.
fn call_with_meta(id: impl Into<Json>, name: &str, arguments: &Json, meta: &Json) -> Json {
    let mut request = call(id, name, arguments);
    request["params"]["_meta"] = meta.clone();
    request
}

/// `modern_meta()` and the trace context of `remote`.
fn modern_meta_from(remote: &Remote) -> Json {
    let mut meta = modern_meta();
    meta["traceparent"] = json!(remote.traceparent());
    meta["tracestate"] = json!(TRACESTATE);
    meta
}

// ------------------------------------------------------------------ tests

#[tokio::test]
async fn a_tools_spans_are_children_of_the_server_span_with_its_attributes() {
    let traced = Traced::start();
    let mut c = Client::start(server());
    c.initialize(LATEST_LEGACY).await;
    let r = c
        .send_request(call(1, "add", &json!({"a": 2, "b": 3})))
        .await;
    assert_eq!(result_text(&r), Some("5"), "{r}");
    let r = c
        .send_request(call(2, "add_later", &json!({"a": 4, "b": 5})))
        .await;
    assert_eq!(result_text(&r), Some("9"), "{r}");
    // Every call has ended (spawned ones too) once serve_io returns.
    c.finish().await;
    let spans = traced.spans();

    let add = spans.one("tools/call add");
    assert_eq!(add.span_kind, SpanKind::Server);
    assert_eq!(add.status, Status::Unset);
    assert_eq!(
        add.parent_span_id,
        SpanId::INVALID,
        "no trace context: a root"
    );
    assert_strings(
        add,
        &[
            ("mcp.method.name", "tools/call"),
            ("gen_ai.tool.name", "add"),
            ("gen_ai.operation.name", "execute_tool"),
            ("jsonrpc.request.id", "1"),
            ("mcp.protocol.version", LATEST_LEGACY),
            ("network.transport", "pipe"),
        ],
    );
    for absent in [
        "error.type",
        "rpc.response.status_code",
        "network.protocol.name",
        "mcp.session.id",
    ] {
        assert!(attribute(add, absent).is_none(), "{absent} of {}", add.name);
    }
    assert!(
        is_child(spans.one("adding"), add),
        "a sync tool runs inside its request's span"
    );

    let later = spans.one("tools/call add_later");
    assert_eq!(later.span_kind, SpanKind::Server);
    assert_strings(
        later,
        &[
            ("gen_ai.tool.name", "add_later"),
            ("jsonrpc.request.id", "2"),
        ],
    );
    assert!(
        is_child(spans.one("waiting"), later),
        "an async tool's span is its request's span's child"
    );
    assert!(
        is_child(spans.one("after the wait"), later),
        "the spawned rest of the call runs inside its request's span"
    );
    assert!(
        later.end_time >= spans.one("after the wait").end_time,
        "the request's span ends with the call"
    );
    assert_ne!(
        later.span_context.trace_id(),
        add.span_context.trace_id(),
        "each request without trace context is a trace of its own"
    );

    // The handshake's spans.
    let initialize = spans.one("initialize");
    assert_eq!(initialize.span_kind, SpanKind::Server);
    assert_strings(
        initialize,
        &[
            ("mcp.method.name", "initialize"),
            ("jsonrpc.request.id", "0"),
        ],
    );
    assert!(attribute(initialize, "gen_ai.operation.name").is_none());
}

#[tokio::test]
async fn a_traceparent_in_meta_is_the_parent_in_a_legacy_session() {
    let traced = Traced::start();
    let mut c = Client::start(server());
    c.initialize(LATEST_LEGACY).await;
    let meta = json!({"traceparent": Remote::META.traceparent(), "tracestate": TRACESTATE});
    let r = c
        .send_request(call_with_meta(1, "add", &json!({"a": 1, "b": 2}), &meta))
        .await;
    assert_eq!(result_text(&r), Some("3"), "{r}");
    c.finish().await;
    let spans = traced.spans();

    let add = spans.one("tools/call add");
    Remote::META.assert_parent_of(add);
    assert_eq!(
        add.span_context.trace_state().header(),
        TRACESTATE,
        "tracestate is passed through"
    );
    assert!(add.links.is_empty(), "no header, no link");
    assert_strings(add, &[("mcp.protocol.version", LATEST_LEGACY)]);
    let adding = spans.one("adding");
    assert!(is_child(adding, add));
    assert_eq!(adding.span_context.trace_id(), Remote::META.trace_id());
}

#[tokio::test]
async fn a_traceparent_in_meta_is_the_parent_of_a_2026_07_28_request() {
    let traced = Traced::start();
    let mut c = Client::start(server());
    let r = c
        .send_request(call_with_meta(
            "modern-1",
            "add_later",
            &json!({"a": 1, "b": 2}),
            &modern_meta_from(&Remote::META),
        ))
        .await;
    assert_eq!(result_text(&r), Some("3"), "{r}");
    c.finish().await;
    let spans = traced.spans();

    let call = spans.one("tools/call add_later");
    assert_eq!(call.span_kind, SpanKind::Server);
    Remote::META.assert_parent_of(call);
    assert_eq!(call.span_context.trace_state().header(), TRACESTATE);
    assert_strings(
        call,
        &[
            ("mcp.protocol.version", "2026-07-28"),
            ("gen_ai.tool.name", "add_later"),
            ("network.transport", "pipe"),
        ],
    );
    assert!(is_child(spans.one("waiting"), call));
    assert!(is_child(spans.one("after the wait"), call));
}

#[tokio::test]
async fn a_malformed_traceparent_starts_a_new_trace_and_the_call_is_answered() {
    let traced = Traced::start();
    let mut c = Client::start(server());
    let mut meta = modern_meta();
    meta["traceparent"] = json!("00-not-a-trace-01");
    let r = c
        .send_request(call_with_meta(1, "add", &json!({"a": 1, "b": 2}), &meta))
        .await;
    assert_eq!(result_text(&r), Some("3"), "{r}");
    c.finish().await;
    let add = traced.spans().one("tools/call add").clone();
    assert_eq!(add.parent_span_id, SpanId::INVALID);
    assert!(add.span_context.is_valid());
}

/// The JSON-RPC id of a request, as the conventions record it: the id's
/// string representation, the string itself for a string id.
#[tokio::test]
async fn a_string_request_id_is_recorded_without_quotes() {
    let traced = Traced::start();
    let mut c = Client::start(server());
    let mut request = call("req-7", "add", &json!({"a": 1, "b": 2}));
    request["params"]["_meta"] = modern_meta();
    c.send_request(request).await;
    c.finish().await;
    assert_strings(
        traced.spans().one("tools/call add"),
        &[("jsonrpc.request.id", "req-7")],
    );
}

/// What a client names is recorded by name only when the server knows it:
/// a tool or prompt it serves now, a method it speaks, a protocol version
/// it supports; anything else is `_OTHER`. What else a client sends (a
/// request id, a resource URI) is cut to 256 bytes, span names too.
#[tokio::test]
async fn what_a_client_makes_up_is_recorded_as_other_and_capped() {
    let traced = Traced::start();
    let server = server();
    let handle = server.handle();
    let mut c = Client::start(server);
    c.initialize(LATEST_LEGACY).await;
    let huge = "é".repeat(100_000); // 200 kB, two bytes a char
    let r = c.send_request(call(1, &huge, &json!({}))).await;
    assert_eq!(r["error"]["code"], -32602, "an unknown tool");
    let r = c.request(2, "prompts/get", json!({"name": huge})).await;
    assert!(r.get("error").is_some(), "{r}");
    let r = c.request(3, &huge, json!({})).await;
    assert_eq!(r["error"]["code"], -32601, "an unknown method");
    let r = c
        .request(
            4,
            "resources/read",
            json!({"uri": format!("file:///a{huge}")}),
        )
        .await;
    assert!(r.get("error").is_some(), "{r}");
    let mut request = call(json!(huge), "add", &json!({"a": 1, "b": 2}));
    request["params"]["_meta"] = modern_meta();
    assert_eq!(result_text(&c.send_request(request).await), Some("3"));
    let mut meta = modern_meta();
    meta["io.modelcontextprotocol/protocolVersion"] = json!(huge);
    let r = c
        .send_request(call_with_meta(6, "add", &json!({"a": 1, "b": 2}), &meta))
        .await;
    assert!(r.get("error").is_some(), "an unsupported version: {r}");
    // A tool removed at run time, then called, is not served.
    assert!(handle.remove_tool("divide"));
    let r = c
        .send_request(call(7, "divide", &json!({"a": 1, "b": 1})))
        .await;
    assert_eq!(r["error"]["code"], -32602, "{r}");
    c.finish().await;
    let spans = traced.spans();
    assert_all_capped(&spans, 256);

    let calls = spans.named("tools/call _OTHER");
    assert_eq!(calls.len(), 2, "the made-up tool and the removed one");
    for unknown in calls {
        assert_strings(unknown, &[("gen_ai.tool.name", "_OTHER")]);
    }
    assert_strings(
        spans.one("prompts/get _OTHER"),
        &[("gen_ai.prompt.name", "_OTHER")],
    );
    assert_strings(spans.one("_OTHER"), &[("mcp.method.name", "_OTHER")]);
    let read = spans.one("resources/read");
    let uri = string(read, "mcp.resource.uri").unwrap();
    assert_eq!(uri.len(), 255, "cut on a char boundary: {uri:?}");
    assert!(format!("file:///a{huge}").starts_with(&uri));
    let adds = spans.named("tools/call add");
    assert_eq!(adds.len(), 2);
    let id = string(adds[0], "jsonrpc.request.id").unwrap();
    assert!(id.len() <= 256 && huge.starts_with(&id), "{id:?}");
    assert_strings(adds[1], &[("mcp.protocol.version", "_OTHER")]);
}

#[tokio::test]
async fn errors_notifications_and_cancellation_end_their_spans_as_they_ended() {
    let traced = Traced::start();
    let mut c = Client::start(server());
    c.initialize(LATEST_LEGACY).await;

    let r = c
        .send_request(call(1, "divide", &json!({"a": 1, "b": 0})))
        .await;
    assert_eq!(r["result"]["isError"], true, "{r}");
    let r = c.send_request(call(2, "nope", &json!({}))).await;
    assert_eq!(r["error"]["code"], -32602, "{r}");
    let unknown_message = r["error"]["message"].as_str().unwrap().to_owned();
    let r = c.request(3, "no/such/method", json!({})).await;
    assert_eq!(r["error"]["code"], -32601, "{r}");

    // A long call, cancelled by the client: no reply, a cancelled span.
    c.send(call(4, "wait", &json!({}))).await;
    c.send(cancel(&json!(4))).await;
    let r = c.request(5, "ping", json!({})).await;
    assert_eq!(r["result"], json!({}));
    let rest = c.finish().await;
    assert!(
        rest.iter().all(|m| m.get("id") != Some(&json!(4))),
        "a cancelled call gets no reply: {rest:?}"
    );
    let spans = traced.spans();

    let divide = spans.one("tools/call divide");
    assert_strings(divide, &[("error.type", "tool_error")]);
    assert!(matches!(divide.status, Status::Error { .. }), "{divide:?}");
    assert!(attribute(divide, "rpc.response.status_code").is_none());

    // A tool the server does not serve: one value, not the client's name.
    let nope = spans.one("tools/call _OTHER");
    assert_strings(
        nope,
        &[
            ("gen_ai.tool.name", "_OTHER"),
            ("error.type", "-32602"),
            ("rpc.response.status_code", "-32602"),
        ],
    );
    assert_eq!(error_description(nope), unknown_message);

    let unknown = spans.one("_OTHER");
    assert_strings(
        unknown,
        &[
            ("mcp.method.name", "_OTHER"),
            ("error.type", "-32601"),
            ("rpc.response.status_code", "-32601"),
        ],
    );

    let wait = spans.one("tools/call wait");
    assert_strings(wait, &[("error.type", "cancelled")]);
    assert_eq!(error_description(wait), "the request was cancelled");

    // Notifications: a span each, no id, no outcome.
    for name in ["notifications/initialized", "notifications/cancelled"] {
        let notification = spans.one(name);
        assert_eq!(notification.span_kind, SpanKind::Server);
        assert_eq!(notification.status, Status::Unset);
        assert_strings(
            notification,
            &[("mcp.method.name", name), ("network.transport", "pipe")],
        );
        assert!(attribute(notification, "jsonrpc.request.id").is_none());
    }
    assert_eq!(spans.one("ping").status, Status::Unset);
}

#[tokio::test]
async fn a_notification_continues_the_trace_in_its_meta() {
    let traced = Traced::start();
    let mut c = Client::start(server());
    c.initialize(LATEST_LEGACY).await;
    c.send(
        json!({"jsonrpc":"2.0","method":"notifications/roots/list_changed",
        "params":{"_meta":{"traceparent": Remote::META.traceparent()}}}),
    )
    .await;
    c.finish().await;
    let spans = traced.spans();
    Remote::META.assert_parent_of(spans.one("notifications/roots/list_changed"));
}

#[cfg(feature = "http")]
mod over_http {
    use oxmcp_server::http::HttpConfig;

    use crate::support::{as_refs, legacy_headers, modern_call_headers, HttpServer};

    use super::*;

    /// A 2026-07-28 `tools/call add` over Streamable HTTP with `traceparent`
    /// headers `header` and `_meta` `meta`; its reply's text.
    async fn modern_add(
        http: &HttpServer,
        id: i64,
        header: Option<&Remote>,
        meta: Option<&Remote>,
    ) -> String {
        let mut headers = modern_call_headers("add");
        if let Some(remote) = header {
            headers.push(("traceparent", remote.traceparent()));
        }
        let meta = meta.map_or_else(modern_meta, modern_meta_from);
        let r = http
            .post_json(
                &as_refs(&headers),
                &call_with_meta(id, "add", &json!({"a": 2, "b": 2}), &meta),
            )
            .await;
        assert_eq!(r.status, 200, "{r:?}");
        result_text(&r.last()).unwrap().to_owned()
    }

    #[tokio::test]
    async fn over_http_the_traceparent_header_is_the_parent_unless_meta_has_one_then_linked() {
        let traced = Traced::start();
        let http = HttpServer::start(server(), HttpConfig::default()).await;
        assert_eq!(modern_add(&http, 1, Some(&Remote::HEADER), None).await, "4");
        assert_eq!(
            modern_add(&http, 2, Some(&Remote::HEADER), Some(&Remote::META)).await,
            "4"
        );
        assert_eq!(modern_add(&http, 3, None, None).await, "4");
        // Both naming the same span (as our client sends them).
        assert_eq!(
            modern_add(&http, 4, Some(&Remote::META), Some(&Remote::META)).await,
            "4"
        );
        http.shutdown().await;
        let spans = traced.spans();
        let calls = spans.named("tools/call add");
        assert_eq!(calls.len(), 4);

        let header_only = calls[0];
        assert_eq!(header_only.span_kind, SpanKind::Server);
        Remote::HEADER.assert_parent_of(header_only);
        assert!(header_only.links.is_empty(), "the parent is not linked too");
        assert_strings(
            header_only,
            &[
                ("jsonrpc.request.id", "1"),
                ("mcp.protocol.version", "2026-07-28"),
                ("network.transport", "tcp"),
                ("network.protocol.name", "http"),
            ],
        );

        let both = calls[1];
        Remote::META.assert_parent_of(both);
        assert_eq!(both.span_context.trace_state().header(), TRACESTATE);
        assert_eq!(both.links.len(), 1, "the header's context is linked");
        let link = &both.links.links[0].span_context;
        assert_eq!(link.trace_id(), Remote::HEADER.trace_id());
        assert_eq!(link.span_id(), Remote::HEADER.span_id());
        assert!(link.is_remote());

        let neither = calls[2];
        assert_eq!(neither.parent_span_id, SpanId::INVALID);
        assert!(neither.links.is_empty());

        let same = calls[3];
        Remote::META.assert_parent_of(same);
        assert!(
            same.links.is_empty(),
            "no link to the parent itself: {:?}",
            same.links
        );
        for call in calls {
            assert!(
                spans
                    .named("adding")
                    .iter()
                    .any(|adding| is_child(adding, call)),
                "the tool's span under {:?}",
                call.attributes
            );
        }
    }

    #[tokio::test]
    async fn over_http_a_legacy_sessions_call_continues_the_header_trace() {
        let traced = Traced::start();
        let http = HttpServer::start(server(), HttpConfig::default()).await;
        let sid = http.session(LATEST_LEGACY).await;
        let mut headers = legacy_headers(&sid, LATEST_LEGACY);
        headers.push(("traceparent", Remote::HEADER.traceparent()));
        headers.push(("tracestate", TRACESTATE.to_owned()));
        let r = http
            .post_json(
                &as_refs(&headers),
                &call(7, "add_later", &json!({"a": 1, "b": 1})),
            )
            .await;
        assert_eq!(result_text(&r.last()), Some("2"), "{r:?}");
        http.delete_session(&sid).await;
        http.shutdown().await;
        let spans = traced.spans();

        let call = spans.one("tools/call add_later");
        Remote::HEADER.assert_parent_of(call);
        assert_eq!(call.span_context.trace_state().header(), TRACESTATE);
        assert!(call.links.is_empty());
        // The session's id is its credential: the span carries a digest
        // (the hex of the first 16 bytes of its SHA-256), never the id.
        let digest: String = sha2::Sha256::digest(sid.as_bytes())[..16]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<Vec<_>>()
            .concat();
        assert_ne!(digest, sid);
        assert_strings(
            call,
            &[
                ("mcp.session.id", digest.as_str()),
                ("mcp.protocol.version", LATEST_LEGACY),
                ("network.transport", "tcp"),
            ],
        );
        assert!(is_child(spans.one("after the wait"), call));
    }
}

/// Tools that run as tasks when the client has the extension; each tells
/// the test when it has finished.
#[derive(Debug)]
pub struct Jobs {
    done: tokio::sync::mpsc::UnboundedSender<f64>,
}

#[tool(description = "Jobs that may run as tasks", client = false)]
impl Jobs {
    #[describe("Add two numbers after a wait; may run as a task")]
    #[tool(task = optional)]
    pub async fn add_as_task(&self, #[param("First")] a: f64, #[param("Second")] b: f64) -> f64 {
        tokio::time::sleep(Duration::from_millis(5)).await;
        let sum = tracing::info_span!("after the wait").in_scope(|| a + b);
        let _ = self.done.send(sum);
        sum
    }
}

/// The tool of a call run as a task (SEP-2663) works after its request's
/// span has ended (with the task's handle): what it does after its first
/// wait still belongs to the request's trace.
#[tokio::test]
async fn a_call_run_as_a_task_stays_in_its_requests_trace() {
    let traced = Traced::start();
    let (done, mut finished) = tokio::sync::mpsc::unbounded_channel();
    let server = Server::builder("jobs", "1").toolbox(Jobs { done }).build();
    let mut c = Client::start(server);
    let mut meta =
        support::modern_meta_with(&json!({"extensions": {"io.modelcontextprotocol/tasks": {}}}));
    meta["traceparent"] = json!(Remote::META.traceparent());
    let created = c
        .send_request(call_with_meta(
            1,
            "add_as_task",
            &json!({"a": 1, "b": 2}),
            &meta,
        ))
        .await;
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    assert_eq!(finished.recv().await, Some(3.0));
    c.finish().await;
    let spans = traced.spans();

    let call = spans.one("tools/call add_as_task");
    Remote::META.assert_parent_of(call);
    let after = spans.one("after the wait");
    assert_eq!(
        after.span_context.trace_id(),
        Remote::META.trace_id(),
        "the task's work is in the caller's trace"
    );
    assert_ne!(after.parent_span_id, SpanId::INVALID, "{after:?}");
}
