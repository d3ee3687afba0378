//! One MCP request or notification as a span and a duration, on either side.

use std::fmt;
use std::sync::OnceLock;
use std::time::Instant;

use opentelemetry::metrics::Histogram;
use opentelemetry::trace::SpanContext;
use opentelemetry::{Context, KeyValue};
use tracing::field::Empty;
use tracing_opentelemetry::OpenTelemetrySpanExt;

use super::text::{cap, cap_owned, session_digest, span_name};
use crate::conventions as cv;

/// Which end of the exchange records the operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// The end that sent the request: a CLIENT span, `mcp.client.*` metrics.
    Client,
    /// The end that handles it: a SERVER span, `mcp.server.*` metrics.
    Server,
}

/// The transport a session runs on (`network.transport`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    /// stdio: `pipe`.
    Pipe,
    /// HTTP: `tcp` (and `network.protocol.name` `http`).
    Http,
}

impl Transport {
    fn name(self) -> &'static str {
        match self {
            Transport::Pipe => "pipe",
            Transport::Http => "tcp",
        }
    }
}

/// What is known of a request or notification when it starts, given to
/// [`Operation::start`] (how it ended is [`Ended`]). Not a request: the
/// JSON-RPC request is `oxmcp_types::jsonrpc::Request`.
///
/// Every text is recorded at most [`MAX_TEXT_LEN`](super::MAX_TEXT_LEN)
/// bytes long, and the session id as its digest
/// ([`session_digest`](super::session_digest)). The method,
/// tool, prompt and protocol version also become metric attributes, kept
/// for the life of the process: give only values the recording side knows
/// (a method it speaks, a tool it serves, a version it supports), and
/// [`cv::OTHER`] for anything else a peer sent.
#[derive(Clone, Copy)]
pub struct Started<'a> {
    /// Client or server.
    pub side: Side,
    /// The method (`tools/call`).
    pub method: &'a str,
    /// The tool a `tools/call` names.
    pub tool: Option<&'a str>,
    /// The prompt a `prompts/get` names.
    pub prompt: Option<&'a str>,
    /// The resource a request names.
    pub resource_uri: Option<&'a str>,
    /// The JSON-RPC id (none for a notification).
    pub id: Option<&'a dyn fmt::Display>,
    /// The protocol revision in use.
    pub protocol_version: Option<&'a str>,
    /// The session the request belongs to (recorded as its digest).
    pub session_id: Option<&'a str>,
    /// The transport.
    pub transport: Option<Transport>,
}

impl<'a> Started<'a> {
    /// A request of `method`, nothing else known yet.
    pub fn new(side: Side, method: &'a str) -> Started<'a> {
        Started {
            side,
            method,
            tool: None,
            prompt: None,
            resource_uri: None,
            id: None,
            protocol_version: None,
            session_id: None,
            transport: None,
        }
    }

    /// The low-cardinality target the span name carries: the tool or prompt.
    fn target(&self) -> Option<&'a str> {
        self.tool.or(self.prompt)
    }
}

impl fmt::Debug for Started<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Started")
            .field("side", &self.side)
            .field("method", &self.method)
            .field("target", &self.target())
            .field("id", &self.id.map(ToString::to_string))
            .finish_non_exhaustive()
    }
}

/// How an operation ended.
#[derive(Debug, Clone, Copy)]
pub enum Ended<'a> {
    /// A result (or, for a notification, sent or handled).
    Ok,
    /// A tool result with `isError: true`.
    ToolError,
    /// A JSON-RPC error response.
    RpcError {
        /// Its code.
        code: i64,
        /// Its message.
        message: &'a str,
    },
    /// No response: the transport failed, the wait timed out, the request
    /// was cancelled.
    Failed {
        /// A low-cardinality name for what happened (`timeout`, `cancelled`).
        kind: &'a str,
        /// What happened.
        message: &'a str,
    },
}

/// One request or notification in flight: its span and its clock. Ended by
/// [`Operation::end`]; dropped without it, the span closes with no outcome
/// and no duration is recorded.
#[derive(Debug)]
pub struct Operation {
    span: tracing::Span,
    started: Instant,
    side: Side,
    attributes: Vec<KeyValue>,
}

/// Whether anything takes MCP spans now (a subscriber with the OpenTelemetry
/// layer, or any other that enables target `oxmcp_otel` at INFO). When not,
/// instrumentation skips all of its work.
pub fn enabled() -> bool {
    tracing::enabled!(target: "oxmcp_otel", tracing::Level::INFO)
}

impl Operation {
    /// Starts the span of `request`, or `None` when nothing takes MCP spans
    /// (then nothing is recorded and nearly nothing paid).
    pub fn start(request: &Started<'_>) -> Option<Operation> {
        if !enabled() {
            return None;
        }
        let kind = match request.side {
            Side::Client => "client",
            Side::Server => "server",
        };
        let method = cap(request.method);
        let tool = request.tool.map(cap);
        let prompt = request.prompt.map(cap);
        let protocol_version = request.protocol_version.map(cap);
        let id = request.id.map(|id| cap_owned(id.to_string()));
        let session = request.session_id.map(session_digest);
        let name = span_name(method, request.target());
        let span = tracing::info_span!(
            target: "oxmcp_otel",
            "mcp",
            otel.name = name.as_str(),
            otel.kind = kind,
            otel.status_code = Empty,
            otel.status_description = Empty,
            mcp.method.name = method,
            gen_ai.tool.name = tool,
            gen_ai.prompt.name = prompt,
            gen_ai.operation.name = tool.map(|_| "execute_tool"),
            mcp.resource.uri = request.resource_uri.map(cap),
            jsonrpc.request.id = id.as_deref(),
            mcp.protocol.version = protocol_version,
            mcp.session.id = session.as_deref(),
            network.transport = request.transport.map(Transport::name),
            network.protocol.name = request.transport.filter(|t| *t == Transport::Http).map(|_| "http"),
            error.type = Empty,
            rpc.response.status_code = Empty,
        );
        if span.is_disabled() {
            return None;
        }
        let mut attributes = Vec::with_capacity(8);
        attributes.push(KeyValue::new(cv::MCP_METHOD_NAME, method.to_owned()));
        if let Some(tool) = tool {
            attributes.push(KeyValue::new(cv::GEN_AI_TOOL_NAME, tool.to_owned()));
            attributes.push(KeyValue::new(cv::GEN_AI_OPERATION_NAME, "execute_tool"));
        }
        if let Some(prompt) = prompt {
            attributes.push(KeyValue::new(cv::GEN_AI_PROMPT_NAME, prompt.to_owned()));
        }
        if let Some(version) = protocol_version {
            attributes.push(KeyValue::new(cv::MCP_PROTOCOL_VERSION, version.to_owned()));
        }
        if let Some(transport) = request.transport {
            attributes.push(KeyValue::new(cv::NETWORK_TRANSPORT, transport.name()));
            if transport == Transport::Http {
                attributes.push(KeyValue::new(cv::NETWORK_PROTOCOL_NAME, "http"));
            }
        }
        Some(Operation {
            span,
            started: Instant::now(),
            side: request.side,
            attributes,
        })
    }

    /// The span: enter it, or instrument a future with it, so that what the
    /// operation does is its child.
    pub fn span(&self) -> &tracing::Span {
        &self.span
    }

    /// Continues the remote trace `parent` (read from `_meta` or headers).
    pub fn set_parent(&self, parent: Context) {
        // Fails only once the span has started, which the caller has not let happen.
        let _ = self.span.set_parent(parent);
    }

    /// Links the span to another context (the HTTP request's, when the
    /// parent came from `_meta`).
    pub fn add_link(&self, linked: SpanContext) {
        self.span.add_link(linked);
    }

    /// Records the protocol version once it is known (after `initialize`):
    /// one the recording side supports, else [`cv::OTHER`].
    pub fn set_protocol_version(&mut self, version: &str) {
        let version = cap(version);
        self.span.record(cv::MCP_PROTOCOL_VERSION, version);
        self.attributes
            .push(KeyValue::new(cv::MCP_PROTOCOL_VERSION, version.to_owned()));
    }

    /// Ends the operation: its outcome on the span, its duration in the histogram.
    pub fn end(mut self, ended: Ended<'_>) {
        match ended {
            Ended::Ok => {}
            Ended::ToolError => {
                self.span.record(cv::ERROR_TYPE, cv::TOOL_ERROR);
                self.span.record("otel.status_code", "error");
                self.attributes
                    .push(KeyValue::new(cv::ERROR_TYPE, cv::TOOL_ERROR));
            }
            Ended::RpcError { code, message } => {
                let message = cap(message);
                let code = code.to_string();
                self.span.record(cv::ERROR_TYPE, code.as_str());
                self.span
                    .record(cv::RPC_RESPONSE_STATUS_CODE, code.as_str());
                self.span.record("otel.status_code", "error");
                self.span.record("otel.status_description", message);
                self.attributes
                    .push(KeyValue::new(cv::RPC_RESPONSE_STATUS_CODE, code.clone()));
                self.attributes.push(KeyValue::new(cv::ERROR_TYPE, code));
            }
            Ended::Failed { kind, message } => {
                let (kind, message) = (cap(kind), cap(message));
                self.span.record(cv::ERROR_TYPE, kind);
                self.span.record("otel.status_code", "error");
                self.span.record("otel.status_description", message);
                self.attributes
                    .push(KeyValue::new(cv::ERROR_TYPE, kind.to_owned()));
            }
        }
        let seconds = self.started.elapsed().as_secs_f64();
        let instruments = instruments();
        let histogram = match self.side {
            Side::Client => &instruments.client_operation,
            Side::Server => &instruments.server_operation,
        };
        histogram.record(seconds, &self.attributes);
    }
}

/// Records a session's duration (`mcp.{side}.session.duration`) when it
/// ends; `error_type` when it ended in failure. Nothing when nothing takes
/// MCP spans.
pub fn record_session(
    side: Side,
    started: Instant,
    transport: Transport,
    protocol_version: Option<&str>,
    error_type: Option<&str>,
) {
    if !enabled() {
        return;
    }
    let mut attributes = vec![KeyValue::new(cv::NETWORK_TRANSPORT, transport.name())];
    if transport == Transport::Http {
        attributes.push(KeyValue::new(cv::NETWORK_PROTOCOL_NAME, "http"));
    }
    if let Some(version) = protocol_version {
        attributes.push(KeyValue::new(
            cv::MCP_PROTOCOL_VERSION,
            cap(version).to_owned(),
        ));
    }
    if let Some(kind) = error_type {
        attributes.push(KeyValue::new(cv::ERROR_TYPE, cap(kind).to_owned()));
    }
    let instruments = instruments();
    let histogram = match side {
        Side::Client => &instruments.client_session,
        Side::Server => &instruments.server_session,
    };
    histogram.record(started.elapsed().as_secs_f64(), &attributes);
}

struct Instruments {
    server_operation: Histogram<f64>,
    client_operation: Histogram<f64>,
    server_session: Histogram<f64>,
    client_session: Histogram<f64>,
}

/// The four histograms, made from the global meter provider on first use
/// (so set the provider up before serving: `Telemetry::from_env` does).
fn instruments() -> &'static Instruments {
    static INSTRUMENTS: OnceLock<Instruments> = OnceLock::new();
    INSTRUMENTS.get_or_init(|| {
        let meter = opentelemetry::global::meter_with_scope(
            opentelemetry::InstrumentationScope::builder("oxmcp-otel")
                .with_version(env!("CARGO_PKG_VERSION"))
                .build(),
        );
        let histogram = |name: &'static str, description: &'static str| {
            meter
                .f64_histogram(name)
                .with_unit("s")
                .with_description(description)
                .with_boundaries(cv::DURATION_BUCKETS.to_vec())
                .build()
        };
        Instruments {
            server_operation: histogram(
                cv::MCP_SERVER_OPERATION_DURATION,
                "MCP request or notification duration as observed on the receiver",
            ),
            client_operation: histogram(
                cv::MCP_CLIENT_OPERATION_DURATION,
                "MCP request or notification duration as observed on the sender",
            ),
            server_session: histogram(
                cv::MCP_SERVER_SESSION_DURATION,
                "The duration of the MCP session as observed on the MCP server",
            ),
            client_session: histogram(
                cv::MCP_CLIENT_SESSION_DURATION,
                "The duration of the MCP session as observed on the MCP client",
            ),
        }
    })
}
