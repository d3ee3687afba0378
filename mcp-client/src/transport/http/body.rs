//! Reading responses: what a body holds, error statuses, SSE bodies fed
//! through the parser, and draining what is not read.

use std::ops::ControlFlow;
use std::sync::Arc;

use bytes::Bytes;
use http::header::{self, HeaderMap, HeaderValue};
use std::time::Duration;

use http::{Request, Uri};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use oxmcp_types::call::CallError;
use oxmcp_types::jsonrpc::Message;
use oxmcp_types::RequestId;
use oxmcp_wire::sse::{SseEvent, SseParser};

use super::connector::{request_failed, HttpClient};
use super::ERROR_BODY_MAX;
use crate::connection::Shared;
use crate::error::{is_modern_code, transport, HttpStatusError};

/// What a response body holds.
pub(super) enum Kind {
    Json,
    Sse,
    Other(String),
}

pub(super) fn kind_of(headers: &HeaderMap) -> Kind {
    let ct = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let mime = ct.split(';').next().unwrap_or("").trim();
    if mime.eq_ignore_ascii_case("text/event-stream") {
        Kind::Sse
    } else if mime.eq_ignore_ascii_case("application/json") {
        Kind::Json
    } else {
        Kind::Other(ct.to_owned())
    }
}

/// Reads a whole body, refusing more than `max` bytes.
pub(super) async fn read_body(body: Incoming, max: usize) -> Result<Bytes, CallError> {
    match http_body_util::Limited::new(body, max).collect().await {
        Ok(collected) => Ok(collected.to_bytes()),
        Err(e) => Err(transport(format!(
            "reading the HTTP response failed: {}",
            oxmcp_types::error::Chain(&*e)
        ))),
    }
}

/// Turns an error status into the error of the call: the JSON-RPC error when
/// the body answers request `id`, an [`HttpStatusError`] otherwise.
pub(super) async fn error_status(
    response: http::Response<Incoming>,
    id: Option<&RequestId>,
) -> CallError {
    let status = response.status();
    let text = match read_body(response.into_body(), ERROR_BODY_MAX).await {
        Ok(bytes) => String::from_utf8_lossy(&bytes).trim().to_owned(),
        Err(_) => String::new(),
    };
    let parsed = Message::parse(&text).ok();
    if let Some(Message::Error(e)) = &parsed {
        if e.id.is_some() && e.id.as_ref() == id {
            return CallError::Protocol(e.error.clone());
        }
    }
    let modern_error = matches!(&parsed, Some(Message::Error(e)) if is_modern_code(e.error.code));
    CallError::Transport(Box::new(HttpStatusError {
        status,
        body: text.chars().take(500).collect(),
        modern_error,
    }))
}

/// Feeds a body through `parser`, calling `on_event` for each event until it
/// breaks (`Ok(true)`) or the body ends (`Ok(false)`); `Err` on a broken
/// connection or an oversized event.
pub(super) async fn pump(
    body: &mut Incoming,
    parser: &mut SseParser,
    mut on_event: impl FnMut(SseEvent) -> ControlFlow<()>,
) -> Result<bool, String> {
    loop {
        match body.frame().await {
            None => return Ok(false),
            Some(Err(e)) => return Err(oxmcp_types::error::Chain(&e).to_string()),
            Some(Ok(frame)) => {
                let Ok(data) = frame.into_data() else {
                    continue;
                };
                let events = parser
                    .feed(&data)
                    .map_err(|_| "an SSE event exceeds the message size limit".to_owned())?;
                for event in events {
                    if on_event(event).is_break() {
                        return Ok(true);
                    }
                }
            }
        }
    }
}

/// Dispatches one SSE `message` event; whether it answered `want`.
pub(super) fn on_message(shared: &Arc<Shared>, event: &SseEvent, want: Option<&RequestId>) -> bool {
    if !(event.event.is_empty() || event.event == "message") || event.data.trim().is_empty() {
        return false;
    }
    match Message::parse(&event.data) {
        Ok(msg) => {
            let answered = want.is_some_and(|id| match &msg {
                Message::Response(r) => &r.id == id,
                Message::Error(e) => e.id.as_ref() == Some(id),
                _ => false,
            });
            shared.dispatch(msg);
            answered
        }
        Err(e) => {
            tracing::warn!(error = %e, "skipping an SSE event that is not a JSON-RPC message");
            false
        }
    }
}

/// Reads the rest of a body in the background, so the connection can be reused.
pub(super) fn drain(mut body: Incoming) {
    tokio::spawn(async move {
        let _ = tokio::time::timeout(Duration::from_secs(5), async {
            while let Some(Ok(_)) = body.frame().await {}
        })
        .await;
    });
}

/// Sends a request whose answer carries no message (a notification or
/// response the client posts): a success status is all it needs, and the
/// body is drained; any other status is an error.
pub(super) async fn send_for_status(
    client: &HttpClient,
    request: Request<Full<Bytes>>,
    url: &Uri,
) -> Result<(), CallError> {
    let response = client
        .request(request)
        .await
        .map_err(|e| request_failed(url, &e))?;
    if response.status().is_success() {
        drain(response.into_body());
        Ok(())
    } else {
        Err(error_status(response, None).await)
    }
}

pub(super) fn header_value(value: &str) -> Result<HeaderValue, CallError> {
    HeaderValue::from_str(value)
        .map_err(|_| transport(format!("`{value}` cannot be sent as an HTTP header value")))
}
