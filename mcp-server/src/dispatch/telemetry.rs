//! Spans and durations of what dispatch handles (the `otel` feature), by
//! the MCP semantic conventions: a SERVER span per request and
//! notification, continuing the caller's trace from `params._meta` or, when
//! `_meta` carries none, from the HTTP `traceparent` header (then linked),
//! and the `mcp.server.*.duration` histograms.
//!
//! Nothing here runs while no subscriber takes the spans
//! ([`oxmcp_otel::instrumentation::enabled`]): dispatch pays one interest check.
//!
//! A client chooses what it sends, and the method, tool, prompt and
//! protocol version become metric attributes kept for the life of the
//! process: each is recorded only when the server knows it (a method of
//! [`KNOWN_METHODS`], a tool or prompt it serves at that moment, a
//! protocol version it supports), else as [`OTHER`], so that no client
//! can grow the metrics (nor `/metrics`) by inventing names. oxmcp-otel caps
//! the rest of what a client sends (the request id, a resource URI, an
//! error message that quotes the request) and records the session id as
//! a digest.

use std::borrow::Cow;
use std::sync::Arc;
use std::time::Instant;

use oxmcp_otel::conventions::OTHER;
use oxmcp_otel::instrumentation::{Ended, Operation, Side, Transport};
use oxmcp_otel::propagation::MetaContext;
use oxmcp_types::jsonrpc::RawJson;
use oxmcp_types::{method, ProtocolVersion, RequestId};
use tracing::Instrument as _;

use super::layer::{DispatchLayer, Next, Notice};
use super::{Outcome, Request, RequestInfo, ServerCore, Session};
use crate::policy::TransportKind;
use crate::registry::Catalog;

/// The methods a client may send this server, recorded by name; any other
/// is [`OTHER`] (dispatch answers it -32601).
const KNOWN_METHODS: &[&str] = &[
    method::INITIALIZE,
    method::INITIALIZED,
    method::PING,
    method::SERVER_DISCOVER,
    method::TOOLS_LIST,
    method::TOOLS_CALL,
    method::PROMPTS_LIST,
    method::PROMPTS_GET,
    method::RESOURCES_LIST,
    method::RESOURCES_TEMPLATES_LIST,
    method::RESOURCES_READ,
    method::RESOURCES_SUBSCRIBE,
    method::RESOURCES_UNSUBSCRIBE,
    method::COMPLETION_COMPLETE,
    method::LOGGING_SET_LEVEL,
    method::SUBSCRIPTIONS_LISTEN,
    method::TASKS_GET,
    method::TASKS_UPDATE,
    method::TASKS_CANCEL,
    method::CANCELLED,
    method::PROGRESS,
    "notifications/roots/list_changed",
    "skills/list",
    "skills/get",
    "resources/directory/read",
];

/// `method_name` as recorded: itself when known, else [`OTHER`].
fn known_method(method_name: &str) -> &'static str {
    KNOWN_METHODS
        .iter()
        .find(|known| **known == method_name)
        .map_or(OTHER, |known| known)
}

/// A protocol version a client named, as recorded: a supported one, else [`OTHER`].
fn known_version(version: &str) -> &'static str {
    ProtocolVersion::parse(version).map_or(OTHER, ProtocolVersion::as_str)
}

/// What a request names, as recorded: the tool or prompt when the server
/// serves it now (a tool removed at run time is no longer served), else
/// [`OTHER`].
fn served<'a>(catalog: &Catalog, method_name: &str, name: &'a str) -> &'a str {
    let serves = match method_name {
        method::TOOLS_CALL => catalog.tools.snapshot().get(name).is_some(),
        method::PROMPTS_GET => catalog.prompts.snapshot().get(name).is_some(),
        _ => false,
    };
    if serves {
        name
    } else {
        OTHER
    }
}

/// What the span needs of a request's params: its target and `_meta`.
#[derive(Default, serde::Deserialize)]
struct Peek<'a> {
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    uri: Option<Cow<'a, str>>,
    #[serde(rename = "_meta", default)]
    meta: Option<MetaPeek<'a>>,
}

#[derive(Default, serde::Deserialize)]
struct MetaPeek<'a> {
    #[serde(default)]
    traceparent: Option<String>,
    #[serde(default)]
    tracestate: Option<String>,
    #[serde(default)]
    baggage: Option<String>,
    #[serde(rename = "io.modelcontextprotocol/protocolVersion", borrow, default)]
    protocol_version: Option<Cow<'a, str>>,
}

fn transport(kind: TransportKind) -> Transport {
    match kind {
        TransportKind::Stdio => Transport::Pipe,
        TransportKind::StreamableHttp | TransportKind::LegacySse => Transport::Http,
    }
}

/// Tracing as a dispatch layer: a span around every request and
/// notification, and the duration of each session `initialize` opens.
pub(super) struct Tracing;

impl DispatchLayer for Tracing {
    fn request(&self, core: &Arc<ServerCore>, req: Request<'_>, next: Next<'_>) -> Outcome {
        traced(&core.catalog, req, next)
    }

    fn notification(&self, core: &ServerCore, notice: Notice<'_>, next: &dyn Fn(Notice<'_>)) {
        match start(
            &core.catalog,
            notice.session,
            None,
            notice.method,
            notice.params,
            notice.info,
        ) {
            Some(op) => {
                op.span().in_scope(|| next(notice));
                op.end(Ended::Ok);
            }
            None => next(notice),
        }
    }

    /// The HTTP request's `traceparent`, while spans are taken.
    fn wants_headers(&self) -> bool {
        oxmcp_otel::instrumentation::enabled()
    }
}

/// Starts the span of a request (`id` set) or notification.
fn start(
    catalog: &Catalog,
    session: &Session,
    id: Option<&RequestId>,
    method_name: &str,
    params: Option<RawJson<'_>>,
    info: &RequestInfo,
) -> Option<Operation> {
    if !oxmcp_otel::instrumentation::enabled() {
        return None;
    }
    // Malformed params get no target: dispatch answers them as it would.
    let peek: Peek<'_> = params
        .and_then(|p| serde_json::from_str(p.get()).ok())
        .unwrap_or_default();
    let legacy_version = session.legacy_version();
    let meta = peek.meta.unwrap_or_default();
    let protocol_version = meta
        .protocol_version
        .as_deref()
        .map(known_version)
        .or(legacy_version.as_ref().map(|v| v.as_str()));
    let name = peek
        .name
        .as_deref()
        .map(|name| served(catalog, method_name, name));
    let mut request =
        oxmcp_otel::instrumentation::Started::new(Side::Server, known_method(method_name));
    match method_name {
        method::TOOLS_CALL => request.tool = name,
        method::PROMPTS_GET => request.prompt = name,
        method::RESOURCES_READ | method::RESOURCES_SUBSCRIBE | method::RESOURCES_UNSUBSCRIBE => {
            request.resource_uri = peek.uri.as_deref();
        }
        _ => {}
    }
    // The conventions want the id's own text (`request-7`, not `"request-7"`).
    let id_text = id.map(RequestId::as_text);
    request.id = id_text.as_ref().map(|id| id as &dyn std::fmt::Display);
    request.protocol_version = protocol_version;
    request.session_id = session.id.as_deref();
    request.transport = Some(transport(session.kind));
    let op = Operation::start(&request)?;

    let from_meta = MetaContext {
        traceparent: meta.traceparent,
        tracestate: meta.tracestate,
        baggage: meta.baggage,
    }
    .extract();
    let from_headers = info
        .headers
        .as_deref()
        .and_then(oxmcp_otel::propagation::extract_headers);
    match (from_meta, from_headers) {
        (Some(parent), from_headers) => {
            use oxmcp_otel::reexport::opentelemetry::trace::TraceContextExt as _;
            // The HTTP request's own context, when it is another span than
            // the parent (a proxy's, say), is linked: the conventions keep
            // the transport's context beside the MCP one.
            let link = from_headers
                .map(|http| http.span().span_context().clone())
                .filter(|http| http.span_id() != parent.span().span_context().span_id());
            op.set_parent(parent);
            if let Some(http) = link {
                op.add_link(http);
            }
        }
        (None, Some(http)) => op.set_parent(http),
        (None, None) => {}
    }
    Some(op)
}

/// What a reply says, for the span: a JSON-RPC error, or a tool's `isError`.
#[derive(serde::Deserialize)]
struct ReplyPeek<'a> {
    #[serde(default)]
    result: Option<ResultPeek>,
    #[serde(borrow, default)]
    error: Option<ErrorPeek<'a>>,
}

#[derive(serde::Deserialize)]
struct ResultPeek {
    #[serde(rename = "isError", default)]
    is_error: Option<bool>,
}

#[derive(serde::Deserialize)]
struct ErrorPeek<'a> {
    code: i64,
    #[serde(borrow)]
    message: Cow<'a, str>,
}

fn end(op: Operation, reply: &[u8]) {
    match serde_json::from_slice::<ReplyPeek<'_>>(reply) {
        Ok(ReplyPeek {
            error: Some(error), ..
        }) => op.end(Ended::RpcError {
            code: error.code,
            message: &error.message,
        }),
        Ok(ReplyPeek {
            result: Some(ResultPeek {
                is_error: Some(true),
            }),
            ..
        }) => op.end(Ended::ToolError),
        _ => op.end(Ended::Ok),
    }
}

/// Serves `req` inside its span, ending the span with the reply (for a
/// spawned call, when its future finishes); a session `initialize` opens
/// records its duration when it ends.
fn traced(catalog: &Catalog, req: Request<'_>, serve: Next<'_>) -> Outcome {
    let session = req.session;
    let initialize = req.method == method::INITIALIZE;
    if initialize {
        let opened = Instant::now();
        let outcome = traced_request(catalog, req, serve);
        if let Some(version) = session.legacy_version() {
            let kind = session.kind;
            session.on_end(move || {
                let version = Some(version.as_str());
                oxmcp_otel::instrumentation::record_session(
                    Side::Server,
                    opened,
                    transport(kind),
                    version,
                    None,
                );
            });
        }
        return outcome;
    }
    traced_request(catalog, req, serve)
}

fn traced_request(catalog: &Catalog, req: Request<'_>, serve: Next<'_>) -> Outcome {
    let Some(mut op) = start(
        catalog,
        req.session,
        Some(&req.id),
        req.method,
        req.params,
        req.info,
    ) else {
        return serve(req);
    };
    let session = req.session;
    let initialize = req.method == method::INITIALIZE;
    let outcome = op.span().in_scope(|| serve(req));
    if initialize {
        // The revision is known once `initialize` agreed on it.
        if let Some(version) = session.legacy_version() {
            op.set_protocol_version(version.as_str());
        }
    }
    match outcome {
        Outcome::Reply(bytes) => {
            end(op, &bytes);
            Outcome::Reply(bytes)
        }
        Outcome::Failed {
            bytes,
            #[cfg(feature = "http")]
            code,
        } => {
            end(op, &bytes);
            Outcome::Failed {
                bytes,
                #[cfg(feature = "http")]
                code,
            }
        }
        Outcome::Spawn(call) => {
            let span = op.span().clone();
            Outcome::Spawn(Box::pin(
                async move {
                    let reply = call.await;
                    match &reply {
                        Some(bytes) => end(op, bytes),
                        None => op.end(Ended::Failed {
                            kind: "cancelled",
                            message: "the request was cancelled",
                        }),
                    }
                    reply
                }
                .instrument(span),
            ))
        }
        Outcome::Nothing => {
            op.end(Ended::Ok);
            Outcome::Nothing
        }
    }
}
