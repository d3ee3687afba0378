//! Spans and durations of what the client sends (the `otel` feature), by
//! the MCP semantic conventions: a CLIENT span per request, its context
//! written into `params._meta` (and, over HTTP, the `traceparent` header)
//! so that the server continues the trace, whatever SDK it is built with;
//! the `mcp.client.*.duration` histograms.
//!
//! Nothing here runs while no subscriber takes the spans
//! ([`oxmcp_otel::instrumentation::enabled`]).
//!
//! What the server answers feeds the spans and metrics only as far as the
//! client knows it: the protocol version it agreed on, when one this client
//! speaks, else [`OTHER`] (a metric attribute lives as long as the process);
//! oxmcp-otel cuts the rest (an error message) to its cap.

use std::sync::OnceLock;
use std::time::Instant;

use oxmcp_otel::conventions::OTHER;
use oxmcp_otel::instrumentation::{Ended, Operation, Side, Transport};
use oxmcp_types::call::CallError;
use oxmcp_types::{method, Meta, ProtocolVersion, RequestId};
use serde_json::Value;

use super::{Conn, Req};

/// What the client's telemetry keeps of a connection: when its legacy
/// session opened, on what revision and transport. Dropped with the
/// connection's last handle, it records the session's duration.
#[derive(Default)]
pub(crate) struct SessionClock {
    opened: OnceLock<(Instant, ProtocolVersion, Transport)>,
}

impl SessionClock {
    /// `initialize` agreed on `version`.
    pub(crate) fn opened(&self, version: ProtocolVersion, transport: Transport) {
        let _ = self.opened.set((Instant::now(), version, transport));
    }

    fn version(&self) -> Option<ProtocolVersion> {
        self.opened.get().map(|(_, v, _)| *v)
    }
}

impl Drop for SessionClock {
    fn drop(&mut self) {
        if let Some((opened, version, transport)) = self.opened.get() {
            oxmcp_otel::instrumentation::record_session(
                Side::Client,
                *opened,
                *transport,
                Some(version.as_str()),
                None,
            );
        }
    }
}

/// Starts the span of `req`, sent with `id`.
pub(crate) fn start(conn: &Conn, req: &Req, id: &RequestId) -> Option<Operation> {
    if !oxmcp_otel::instrumentation::enabled() {
        return None;
    }
    let name = || req.params.get("name").and_then(Value::as_str);
    let mut request = oxmcp_otel::instrumentation::Started::new(Side::Client, &req.method);
    match req.method.as_str() {
        method::TOOLS_CALL => request.tool = name(),
        method::PROMPTS_GET => request.prompt = name(),
        method::RESOURCES_READ | method::RESOURCES_SUBSCRIBE | method::RESOURCES_UNSUBSCRIBE => {
            request.resource_uri = req.params.get("uri").and_then(Value::as_str);
        }
        _ => {}
    }
    let version = if req.modern {
        Some(ProtocolVersion::V2026_07_28)
    } else {
        conn.clock.version()
    };
    // The conventions want the id's own text (`request-7`, not `"request-7"`).
    let id_text = id.as_text();
    request.id = Some(&id_text);
    request.protocol_version = version.as_ref().map(|v| v.as_str());
    request.transport = Some(conn.transport.network());
    Operation::start(&request)
}

/// Writes the current span's context into `_meta`, when spans are taken.
pub(crate) fn inject(meta: &mut Meta) {
    if oxmcp_otel::instrumentation::enabled() {
        oxmcp_otel::propagation::inject_meta(&tracing::Span::current(), meta);
    }
}

/// Ends the span with what came back.
pub(crate) fn end(mut op: Operation, method_name: &str, result: &Result<Value, CallError>) {
    if method_name == method::INITIALIZE {
        // The revision is known once the server answered.
        if let Some(version) = result
            .as_ref()
            .ok()
            .and_then(|v| v.get("protocolVersion"))
            .and_then(Value::as_str)
        {
            op.set_protocol_version(
                ProtocolVersion::parse(version).map_or(OTHER, ProtocolVersion::as_str),
            );
        }
    }
    match result {
        Ok(value)
            if method_name == method::TOOLS_CALL
                && value.get("isError").and_then(Value::as_bool) == Some(true) =>
        {
            op.end(Ended::ToolError);
        }
        Ok(_) => op.end(Ended::Ok),
        Err(CallError::Protocol(error)) => op.end(Ended::RpcError {
            code: i64::from(error.code),
            message: &error.message,
        }),
        Err(CallError::Tool(_)) => op.end(Ended::ToolError),
        Err(e) => {
            let kind = match e {
                CallError::Timeout(_) => "timeout",
                CallError::Cancelled => "cancelled",
                _ => "transport",
            };
            op.end(Ended::Failed {
                kind,
                message: &e.to_string(),
            });
        }
    }
}
