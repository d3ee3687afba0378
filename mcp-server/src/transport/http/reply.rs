//! Building responses, and reading request headers.

use http::header::{self, HeaderMap, HeaderValue};
use http::{Response, StatusCode};
use mcp_types::jsonrpc::code;

use super::McpBody;

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

/// A transport-level error: the status, and a JSON-RPC error with no id.
/// An HTTP error whose body is a JSON-RPC error response (with `"id": null`:
/// the transport answers before reading any request id).
pub(super) fn transport_error(status: StatusCode, code: i32, message: &str) -> Response<McpBody> {
    json(
        status,
        crate::dispatch::error_reply(None, mcp_types::ErrorObject::new(code, message)),
    )
}

pub(super) fn json(status: StatusCode, bytes: Vec<u8>) -> Response<McpBody> {
    respond(
        base(status).header(header::CONTENT_TYPE, "application/json"),
        McpBody::full(bytes),
    )
}

pub(super) fn sse_builder() -> http::response::Builder {
    base(StatusCode::OK)
        .header(header::CONTENT_TYPE, "text/event-stream")
        .header(header::CACHE_CONTROL, "no-cache")
        .header("x-accel-buffering", "no")
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

pub(super) fn header_str<'h>(headers: &'h HeaderMap, name: &str) -> Option<&'h str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

pub(super) fn accepts(headers: &HeaderMap, mime: &str) -> bool {
    headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|part| part.split(';').next().unwrap_or("").trim())
        .any(|m| m.eq_ignore_ascii_case(mime) || m == "*/*")
}

pub(super) fn is_json_content(headers: &HeaderMap) -> bool {
    header_str(headers, header::CONTENT_TYPE.as_str()).is_some_and(|ct| {
        ct.split(';')
            .next()
            .is_some_and(|m| m.trim().eq_ignore_ascii_case("application/json"))
    })
}
