//! Building responses, and reading request headers.

use http::header::{self, AsHeaderName, HeaderMap, HeaderName, HeaderValue};
use http::{Response, StatusCode};
use oxmcp_types::jsonrpc::{code, RawMessage};
use oxmcp_types::RequestId;

use super::McpBody;

/// The MCP header names, made once: a lookup by `&str` parses the name
/// each time.
pub(super) mod names {
    use http::header::HeaderName;
    use oxmcp_wire::header as wire;

    pub(in super::super) const SESSION_ID: HeaderName = HeaderName::from_static(wire::SESSION_ID);
    pub(in super::super) const PROTOCOL_VERSION: HeaderName =
        HeaderName::from_static(wire::PROTOCOL_VERSION);
    pub(in super::super) const MCP_METHOD: HeaderName = HeaderName::from_static(wire::MCP_METHOD);
    pub(in super::super) const MCP_NAME: HeaderName = HeaderName::from_static(wire::MCP_NAME);
    pub(in super::super) const LAST_EVENT_ID: HeaderName =
        HeaderName::from_static(wire::LAST_EVENT_ID);
}

/// `application/json`, as a header value made once.
pub(super) const JSON: HeaderValue = HeaderValue::from_static("application/json");

pub(super) fn base(status: StatusCode) -> http::response::Builder {
    Response::builder().status(status)
}

pub(super) fn respond(builder: http::response::Builder, body: McpBody) -> Response<McpBody> {
    builder.body(body).unwrap_or_else(|_| {
        let mut r = Response::new(McpBody::empty());
        *r.status_mut() = StatusCode::INTERNAL_SERVER_ERROR;
        r
    })
}

/// An HTTP error whose body is a JSON-RPC error response with `"id": null`:
/// the transport answers before it has read a request id (a GET, a DELETE,
/// a body refused unread). Once the id is read, answer with [`Turned`].
pub(super) fn transport_error(status: StatusCode, code: i32, message: &str) -> Response<McpBody> {
    Turned::new(status, code, message).answer(None)
}

/// A request the transport turns away (an unknown session, the store
/// down): the HTTP status and the JSON-RPC error, made a response by
/// [`answer`](Self::answer) where the caller knows which request it
/// answers. JSON-RPC 2.0 (section 5) wants the request's id in an error
/// response whenever the request could be read, `null` only when not.
#[derive(Debug)]
pub(super) struct Turned {
    status: StatusCode,
    error: oxmcp_types::ErrorObject,
    /// `Retry-After`, in seconds.
    retry_after: Option<u64>,
}

impl Turned {
    pub(super) fn new(status: StatusCode, code: i32, message: &str) -> Turned {
        Turned {
            status,
            error: oxmcp_types::ErrorObject::new(code, message),
            retry_after: None,
        }
    }

    /// The same, telling the client to try again in `seconds`.
    pub(super) fn retry_after(mut self, seconds: u64) -> Turned {
        self.retry_after = Some(seconds);
        self
    }

    /// The response to the request whose id is `id` (`None`: not read, or
    /// a batch, which has no one id).
    pub(super) fn answer(self, id: Option<&RequestId>) -> Response<McpBody> {
        let mut r = json(
            self.status,
            crate::common::error_reply(id.cloned(), self.error),
        );
        if let Some(seconds) = self.retry_after {
            r.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        }
        r
    }
}

/// The id of `msg` when it is a request: what its error response carries.
pub(super) fn request_id<'m>(msg: &'m RawMessage<'_>) -> Option<&'m RequestId> {
    match msg {
        RawMessage::Request { id, .. } => Some(id),
        _ => None,
    }
}

pub(super) fn json(status: StatusCode, bytes: Vec<u8>) -> Response<McpBody> {
    respond(
        base(status).header(header::CONTENT_TYPE, JSON),
        McpBody::full(bytes),
    )
}

pub(super) fn sse_builder() -> http::response::Builder {
    base(StatusCode::OK)
        .header(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/event-stream"),
        )
        .header(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"))
        .header(
            HeaderName::from_static("x-accel-buffering"),
            HeaderValue::from_static("no"),
        )
}

pub(super) fn method_not_allowed(allow: &'static str) -> Response<McpBody> {
    let mut r = transport_error(
        StatusCode::METHOD_NOT_ALLOWED,
        code::INVALID_REQUEST,
        "method not allowed",
    );
    r.headers_mut()
        .insert(header::ALLOW, HeaderValue::from_static(allow));
    r
}

/// The HTTP status of a modern-era JSON-RPC error.
pub(super) fn modern_status(code: i32) -> StatusCode {
    match code {
        code::METHOD_NOT_FOUND => StatusCode::NOT_FOUND,
        code::INTERNAL_ERROR => StatusCode::INTERNAL_SERVER_ERROR,
        _ => StatusCode::BAD_REQUEST,
    }
}

pub(super) fn header_str<K: AsHeaderName>(headers: &HeaderMap, name: K) -> Option<&str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// Whether an `Accept` header takes `mime` (or `*/*`).
pub(super) fn accepts(headers: &HeaderMap, mime: &str) -> bool {
    headers.get_all(header::ACCEPT).iter().any(|v| {
        v.as_bytes()
            .split(|&b| b == b',')
            .any(|range| media_type_is(range, mime) || media_type_is(range, "*/*"))
    })
}

/// Whether a header's media type (before any `;` parameters, without the
/// spaces around it) is `mime`, compared as media types are: ignoring case.
fn media_type_is(value: &[u8], mime: &str) -> bool {
    let media = value.split(|&b| b == b';').next().unwrap_or_default();
    media.trim_ascii().eq_ignore_ascii_case(mime.as_bytes())
}

pub(super) fn is_json_content(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .is_some_and(|ct| media_type_is(ct.as_bytes(), "application/json"))
}
