//! The HTTP+SSE transport of revision 2024-11-05 (deprecated, still used by
//! older clients): `GET /sse` opens the stream and names, in an `endpoint`
//! event, where to POST; replies travel back as `message` events.

use std::sync::Arc;

use bytes::Bytes;
use http::header::{self, HeaderMap};
use http::{Request, Response, StatusCode};
use oxmcp_types::jsonrpc::{code, RawMessage};
use tokio::sync::mpsc;

use super::body::{McpBody, OnDrop};
use super::reply::{accepts, is_json_content, respond, sse_builder, transport_error};
use super::sse::SseOut;
use super::{BoxError, Inner};
use crate::common::Outbound;
use crate::dispatch::{encode, Outcome};

/// `GET /sse`: a new session and its stream.
pub(super) fn open(
    inner: &Arc<Inner>,
    headers: &HeaderMap,
    extensions: &http::Extensions,
) -> Response<McpBody> {
    if !accepts(headers, "text/event-stream") {
        return transport_error(
            StatusCode::NOT_ACCEPTABLE,
            code::INVALID_REQUEST,
            "Accept must list text/event-stream",
        );
    }
    let Some((_, messages)) = &inner.config.legacy_sse else {
        return transport_error(StatusCode::NOT_FOUND, code::INVALID_REQUEST, "not found");
    };
    let http_session = match inner.new_session(crate::policy::TransportKind::LegacySse, extensions)
    {
        Ok(s) => s,
        Err(turned) => return turned.answer(None),
    };
    oxmcp_wire::deprecated::used(oxmcp_wire::deprecated::Feature::HttpSse);
    let (tx, rx) = mpsc::channel(super::sse::SINK_CAPACITY);
    let _ = tx.try_send(Bytes::from(format!(
        "event: endpoint\ndata: {messages}?session_id={}\n\n",
        http_session.id
    )));
    let sse_out = Arc::new(SseOut {
        tx: tx.clone(),
        overflowed: std::sync::atomic::AtomicBool::new(false),
    });
    let out: Arc<dyn Outbound> = Arc::clone(&sse_out) as Arc<dyn Outbound>;
    let _ = http_session.legacy_out.set(out);
    // The session lives as long as its stream: when the client goes away (or
    // the server shuts down) it is removed, which drops the last sender.
    let id = Arc::clone(&http_session.id);
    let weak = Arc::downgrade(inner);
    let guard = OnDrop::new(move || {
        if let Some(inner) = weak.upgrade() {
            inner.sessions.remove(&id);
        }
    });
    let shutdown = inner.shutdown.clone();
    let every = inner.config.keep_alive;
    let weak = Arc::downgrade(inner);
    let id = Arc::clone(&http_session.id);
    let mut changes = inner.core.changes(&http_session.session);
    let session = Arc::clone(&http_session.session);
    let ended = http_session.ended.clone();
    tokio::spawn(async move {
        loop {
            tokio::select! {
                () = shutdown.cancelled() => break,
                () = ended.cancelled() => break,
                // The client went away (its body, the receiver, was dropped).
                () = tx.closed() => break,
                () = tokio::time::sleep(every) => {
                    if sse_out.overflowed.load(std::sync::atomic::Ordering::Acquire)
                        || !super::sse::offer(&tx, Bytes::from_static(oxmcp_wire::sse::KEEP_ALIVE))
                    {
                        break;
                    }
                }
                notices = changes.next_notices() => {
                    let Some(notices) = notices else { break };
                    if session.legacy_version().is_some()
                        && !notices.iter().all(|msg| {
                            super::sse::offer(&tx, super::sse::event(None, Some("message"), msg))
                        })
                    {
                        break;
                    }
                }
            }
        }
        if let Some(inner) = weak.upgrade() {
            inner.sessions.remove(&id);
        }
    });
    respond(sse_builder(), McpBody::stream(rx, Some(guard)))
}

/// `POST /messages?session_id=…`: one message; the reply goes to the stream.
pub(super) async fn post<B>(inner: &Arc<Inner>, req: Request<B>) -> Response<McpBody>
where
    B: http_body::Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<BoxError>,
{
    let session_id = req.uri().query().and_then(|q| {
        q.split('&').find_map(|pair| match pair.split_once('=') {
            Some(("session_id" | "sessionId", v)) => Some(v.to_owned()),
            _ => None,
        })
    });
    let Some(session_id) = session_id else {
        return transport_error(
            StatusCode::BAD_REQUEST,
            code::INVALID_REQUEST,
            "missing session_id",
        );
    };
    let Some(http_session) = inner
        .sessions
        .get(&session_id)
        .filter(|s| s.owned_by(req.extensions()))
    else {
        return transport_error(
            StatusCode::NOT_FOUND,
            code::INVALID_REQUEST,
            "unknown or closed session",
        );
    };
    let Some(out) = http_session.legacy_out.get().cloned() else {
        return transport_error(
            StatusCode::NOT_FOUND,
            code::INVALID_REQUEST,
            "not an HTTP+SSE session",
        );
    };
    if !is_json_content(req.headers()) {
        return transport_error(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            code::INVALID_REQUEST,
            "Content-Type must be application/json",
        );
    }
    let info = inner.request_info(req.headers(), req.extensions());
    let verified = req.extensions().get::<crate::auth::Verified>().cloned();
    let body = match inner.read_body(req).await {
        Ok((_, body)) => body,
        Err(r) => return r,
    };
    let text = String::from_utf8_lossy(&body);
    let msg = match RawMessage::parse(&text) {
        Ok(msg) => msg,
        Err(e) => {
            let bytes = encode(&e.to_response());
            out.send(bytes.clone());
            return respond(
                super::reply::base(StatusCode::BAD_REQUEST)
                    .header(header::CONTENT_TYPE, super::reply::JSON),
                McpBody::full(bytes),
            );
        }
    };
    if let Err(refused) = inner.core.admit(&msg, verified.as_ref()).await {
        return super::refusal(refused, super::reply::request_id(&msg));
    }
    match inner.core.handle(&http_session.session, msg, &out, &info) {
        Outcome::Reply(bytes) | Outcome::Failed { bytes, .. } => out.send(bytes),
        Outcome::Spawn(fut) => {
            let out = Arc::clone(&out);
            tokio::spawn(async move {
                if let Some(bytes) = fut.await {
                    out.send(bytes);
                }
            });
        }
        Outcome::Nothing => {}
    }
    respond(
        super::reply::base(StatusCode::ACCEPTED),
        McpBody::full("Accepted"),
    )
}
