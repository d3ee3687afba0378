//! The 2026-07-28 era over Streamable HTTP: stateless POSTs, checked
//! against their `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` headers,
//! answered with JSON or an SSE stream of the request's own messages.

use std::sync::Arc;

use super::reply::names::{MCP_METHOD, MCP_NAME, PROTOCOL_VERSION};
use http::header::HeaderMap;
use http::{Response, StatusCode};
use oxmcp_types::jsonrpc::{code, RawMessage};
use oxmcp_wire::route::{json_str, Peek};

use super::body::OnDrop;
use super::reply::{base, header_str, json, modern_status, respond, sse_builder, transport_error};
use super::sse::{EventStream, RequestSink};
use super::{HttpConfig, McpBody};
use crate::common::Outbound;
use crate::dispatch::{Outcome, RequestInfo, ServerCore, Session};
use crate::policy::TransportKind;
use tokio_util::sync::CancellationToken;

/// The 2026-07-28 header rules: `MCP-Protocol-Version`, `Mcp-Method` and
/// `Mcp-Name` must be present and match the body (-32020, HTTP 400).
fn check_modern_headers(
    headers: &HeaderMap,
    id: &oxmcp_types::RequestId,
    method_name: &str,
    peeked: &Peek<'_>,
) -> Result<(), Box<Response<McpBody>>> {
    let mismatch = |message: String| {
        let e = oxmcp_types::ErrorObject::new(code::HEADER_MISMATCH, message);
        Box::new(json(
            StatusCode::BAD_REQUEST,
            crate::common::error_reply(Some(id.clone()), e),
        ))
    };
    let body_version = peeked.protocol_version().and_then(json_str);
    match (header_str(headers, PROTOCOL_VERSION), body_version) {
        (None, _) => return Err(mismatch("missing MCP-Protocol-Version header".into())),
        (Some(h), Some(b)) if h != b => {
            return Err(mismatch(format!(
                "header mismatch: MCP-Protocol-Version header value '{h}' does not match body value '{b}'"
            )))
        }
        // No body version: dispatch answers -32602 for the missing `_meta` field.
        _ => {}
    }
    match header_str(headers, MCP_METHOD) {
        None => return Err(mismatch("missing Mcp-Method header".into())),
        Some(h) if h != method_name => {
            return Err(mismatch(format!(
                "header mismatch: Mcp-Method header value '{h}' does not match body value '{method_name}'"
            )))
        }
        Some(_) => {}
    }
    if let Some(body_name) = peeked.name_for(method_name) {
        match header_str(headers, MCP_NAME).map(|v| oxmcp_wire::header::decode_value(v.trim())) {
            None => return Err(mismatch("missing Mcp-Name header".into())),
            Some(None) => return Err(mismatch("malformed Mcp-Name header".into())),
            Some(Some(h)) if h != body_name => {
                return Err(mismatch(format!(
                    "header mismatch: Mcp-Name header value '{h}' does not match body value '{body_name}'"
                )))
            }
            Some(Some(_)) => {}
        }
    }
    Ok(())
}

/// What a stateless POST needs of the service: the MCP core, the
/// configuration, and the shutdown every open stream ends with.
pub(super) struct Stateless<'a> {
    pub(super) core: &'a Arc<ServerCore>,
    pub(super) config: &'a HttpConfig,
    pub(super) shutdown: &'a CancellationToken,
}

impl Stateless<'_> {
    /// Answers a 2026-07-28 POST: a notification at once, a request (its
    /// headers checked) with JSON or an SSE stream of its own messages.
    pub(super) fn post(
        &self,
        headers: &HeaderMap,
        msg: RawMessage<'_>,
        peeked: &Peek<'_>,
        info: &RequestInfo,
    ) -> Response<McpBody> {
        let (id, method_name) = match &msg {
            RawMessage::Request { id, method, .. } => (Some(id.clone()), method.as_ref()),
            RawMessage::Notification { method, .. } => (None, method.as_ref()),
            RawMessage::Response { .. } | RawMessage::Error { .. } => {
                return transport_error(
                    StatusCode::BAD_REQUEST,
                    code::INVALID_REQUEST,
                    "clients send no JSON-RPC responses in protocol revision 2026-07-28",
                )
            }
        };
        let Some(id) = id else {
            // Notifications need no headers in this revision; accept them.
            let session = Session::new(TransportKind::StreamableHttp, None);
            let sink: Arc<dyn Outbound> = RequestSink::new();
            let _ = self.core.handle(&session, msg, &sink, info);
            return respond(base(StatusCode::ACCEPTED), McpBody::empty());
        };
        if let Err(response) = check_modern_headers(headers, &id, method_name, peeked) {
            return *response;
        }
        // Stateless: each request gets its own throwaway session state.
        let session = Session::new(TransportKind::StreamableHttp, None);
        let sink = RequestSink::new();
        let out: Arc<dyn Outbound> = Arc::clone(&sink) as Arc<dyn Outbound>;
        match self.core.handle(&session, msg, &out, info) {
            Outcome::Failed { bytes, code } if sink.is_quiet() => json(modern_status(code), bytes),
            Outcome::Reply(bytes) if sink.is_quiet() => json(StatusCode::OK, bytes),
            Outcome::Reply(bytes) | Outcome::Failed { bytes, .. } => {
                let stream = EventStream::new(0, false, self.config.replay, self.config.retry_ms());
                let rx = stream.attach(None);
                sink.stream_into(&stream);
                stream.push(&bytes);
                stream.finish();
                respond(sse_builder(), McpBody::stream(rx, None))
            }
            Outcome::Spawn(fut) => {
                let stream = EventStream::new(0, false, self.config.replay, self.config.retry_ms());
                let rx = stream.attach(None);
                sink.stream_into(&stream);
                let shutdown = self.shutdown.clone();
                let listens = Arc::clone(&session);
                let task = tokio::spawn(async move {
                    tokio::pin!(fut);
                    let reply = tokio::select! {
                        r = &mut fut => r,
                        () = shutdown.cancelled() => {
                            // Stopping: a `subscriptions/listen`, which never
                            // ends by itself, ends now; a call runs on to its
                            // answer, within the grace period (after it, the
                            // connection is dropped and the call with it).
                            listens.end_listens();
                            fut.await
                        }
                    };
                    if let Some(bytes) = reply {
                        stream.push(&bytes);
                    }
                    stream.finish();
                });
                // Closing the response stream cancels the request (2026-07-28).
                let abort = task.abort_handle();
                let guard = OnDrop::new(move || {
                    session.cancel_all();
                    abort.abort();
                });
                respond(sse_builder(), McpBody::stream(rx, Some(guard)))
            }
            Outcome::Nothing => respond(base(StatusCode::ACCEPTED), McpBody::empty()),
        }
    }
}
