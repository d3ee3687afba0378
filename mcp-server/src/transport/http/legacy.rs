//! The legacy era over Streamable HTTP: sessions opened by `initialize`
//! (`Mcp-Session-Id`), POSTs answered with JSON or an SSE stream, the GET
//! stream for server-initiated messages with resumption, DELETE.

use std::sync::Arc;

use super::reply::names::{LAST_EVENT_ID, PROTOCOL_VERSION, SESSION_ID};
use http::header::{self, HeaderMap};
use http::{Response, StatusCode};
use oxmcp_types::jsonrpc::{code, RawMessage};
use oxmcp_types::ProtocolVersion;

use super::reply::{
    accepts, base, header_str, json, method_not_allowed, request_id, respond, sse_builder,
    transport_error, Turned,
};
use super::session_table::{HttpSession, Owner, Refused};
use super::sse;
use super::sse::{EventStream, RequestSink};
use super::{Inner, McpBody};
use crate::common::Outbound;
use crate::dispatch::Outcome;
use crate::policy::TransportKind;
use serde_json::value::RawValue;

/// The outbound of a legacy batch's calls: buffers like a [`RequestSink`]
/// until the response is chosen, and wakes the batch when a call sends
/// something, so that it can answer with a stream instead of waiting for
/// the calls (a question to the client would otherwise never reach it).
struct BatchOut {
    sink: Arc<RequestSink>,
    sent: tokio::sync::Notify,
}

impl Outbound for BatchOut {
    fn send(&self, message: Vec<u8>) {
        self.sink.send(message);
        self.sent.notify_one();
    }

    fn close_stream(&self) {
        self.sink.close_stream();
        self.sent.notify_one();
    }
}

impl Inner {
    /// Checks `MCP-Protocol-Version` on a legacy request: any supported value
    /// is accepted, a missing one means 2025-03-26, anything else is a 400.
    fn legacy_version(headers: &HeaderMap) -> Result<ProtocolVersion, Turned> {
        match header_str(headers, PROTOCOL_VERSION) {
            None => Ok(ProtocolVersion::V2025_03_26),
            Some(v) => match ProtocolVersion::parse(v) {
                Some(v) => Ok(v),
                None => Err(Turned::new(
                    StatusCode::BAD_REQUEST,
                    code::INVALID_REQUEST,
                    &format!("unsupported MCP-Protocol-Version: {v}"),
                )),
            },
        }
    }

    /// The session a request names, if it exists and (with authorization)
    /// the request's token speaks for whoever opened it.
    pub(super) async fn session_of(
        self: &Arc<Self>,
        headers: &HeaderMap,
        extensions: &http::Extensions,
    ) -> Result<Arc<HttpSession>, Turned> {
        let found = self.any_session_of(headers).await?;
        if !found.owned_by(extensions) {
            tracing::warn!(session = %found.id, "a session was used with another identity's token");
            return Err(unknown_session());
        }
        Ok(found)
    }

    async fn any_session_of(
        self: &Arc<Self>,
        headers: &HeaderMap,
    ) -> Result<Arc<HttpSession>, Turned> {
        let Some(id) = header_str(headers, SESSION_ID) else {
            return Err(Turned::new(
                StatusCode::BAD_REQUEST,
                code::INVALID_REQUEST,
                "missing Mcp-Session-Id header: send initialize first",
            ));
        };
        self.find_session(id).await?.ok_or_else(unknown_session)
    }

    pub(super) async fn legacy_post(
        self: &Arc<Self>,
        parts: &http::request::Parts,
        msg: RawMessage<'_>,
    ) -> Response<McpBody> {
        let headers = &parts.headers;
        let id = request_id(&msg).cloned();
        if let Err(turned) = Self::legacy_version(headers) {
            return turned.answer(id.as_ref());
        }
        if crate::dispatch::opens_session(&msg) {
            return self.initialize(msg, parts).await;
        }
        let http_session = match self.session_of(headers, &parts.extensions).await {
            Ok(s) => s,
            Err(turned) => return turned.answer(id.as_ref()),
        };
        if let Err(unavailable) = self.forward(&http_session, &msg).await {
            return unavailable.answer(id.as_ref());
        }
        let is_request = matches!(msg, RawMessage::Request { .. });
        let sink = RequestSink::new();
        let out: Arc<dyn Outbound> = Arc::clone(&sink) as Arc<dyn Outbound>;
        let outcome = self.core.handle(
            &http_session.session,
            msg,
            &out,
            &self.request_info(headers, &parts.extensions),
        );
        if !is_request {
            return respond(base(StatusCode::ACCEPTED), McpBody::empty());
        }
        // What the client changed in its session, the other instances must see.
        if http_session.session.take_changed() {
            if let Err(unavailable) = self.store_session(&http_session, true).await {
                return unavailable.answer(id.as_ref());
            }
        }
        match outcome {
            Outcome::Reply(bytes) | Outcome::Failed { bytes, .. } if sink.is_quiet() => {
                json(StatusCode::OK, bytes)
            }
            Outcome::Nothing => respond(base(StatusCode::ACCEPTED), McpBody::empty()),
            outcome => {
                let stream =
                    http_session.open_stream(self.config.replay, self.config.retry_ms(), false);
                let rx = stream.attach(None);
                http_session.prime(&stream);
                sink.stream_into(&stream);
                match outcome {
                    Outcome::Spawn(fut) => {
                        // A legacy client's disconnect is not a cancellation: the
                        // call runs on, and its events wait for a resumption.
                        tokio::spawn(async move {
                            if let Some(bytes) = fut.await {
                                stream.push(&bytes);
                            }
                            stream.finish();
                        });
                    }
                    Outcome::Reply(bytes) | Outcome::Failed { bytes, .. } => {
                        stream.push(&bytes);
                        stream.finish();
                    }
                    Outcome::Nothing => stream.finish(),
                }
                respond(sse_builder(), McpBody::stream(rx, None))
            }
        }
    }

    /// A new legacy session for whoever the request speaks for, or the
    /// answer when none can be opened (the server's or the owner's session
    /// cap is reached, or no randomness for its id).
    pub(super) fn new_session(
        &self,
        kind: TransportKind,
        extensions: &http::Extensions,
    ) -> Result<Arc<HttpSession>, Turned> {
        match self.sessions.create(kind, Owner::of(extensions)) {
            Ok(s) => Ok(s),
            Err(Refused::Full) => Err(Turned::new(
                StatusCode::SERVICE_UNAVAILABLE,
                code::INTERNAL_ERROR,
                "too many sessions; try again later",
            )),
            Err(Refused::OwnerFull) => Err(Turned::new(
                StatusCode::TOO_MANY_REQUESTS,
                code::INTERNAL_ERROR,
                "too many sessions for this identity: end one (DELETE) or let one expire",
            )),
            Err(Refused::Random(e)) => {
                tracing::error!(error = %e, "no randomness for a session id");
                Err(Turned::new(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    code::INTERNAL_ERROR,
                    "cannot create a session",
                ))
            }
        }
    }

    async fn initialize(
        self: &Arc<Self>,
        msg: RawMessage<'_>,
        parts: &http::request::Parts,
    ) -> Response<McpBody> {
        let id = request_id(&msg).cloned();
        let http_session = match self.new_session(TransportKind::StreamableHttp, &parts.extensions)
        {
            Ok(s) => s,
            Err(turned) => return turned.answer(id.as_ref()),
        };
        let sink: Arc<dyn Outbound> = RequestSink::new();
        match self.core.handle(
            &http_session.session,
            msg,
            &sink,
            &self.request_info(&parts.headers, &parts.extensions),
        ) {
            Outcome::Reply(bytes) => {
                if let Err(unavailable) = self.store_session(&http_session, false).await {
                    self.sessions.remove(&http_session.id);
                    return unavailable.answer(id.as_ref());
                }
                tracing::debug!(session = %http_session.id, "session created");
                let b = base(StatusCode::OK)
                    .header(header::CONTENT_TYPE, super::reply::JSON)
                    .header(SESSION_ID, http_session.id.as_ref());
                respond(b, McpBody::full(bytes))
            }
            Outcome::Failed { bytes, .. } => {
                self.sessions.remove(&http_session.id);
                json(StatusCode::OK, bytes)
            }
            Outcome::Spawn(_) | Outcome::Nothing => {
                self.sessions.remove(&http_session.id);
                transport_error(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    code::INTERNAL_ERROR,
                    "initialize failed",
                )
            }
        }
    }

    pub(super) async fn legacy_batch(
        self: &Arc<Self>,
        parts: &http::request::Parts,
        batch: Result<Vec<&RawValue>, oxmcp_types::jsonrpc::DecodeError>,
    ) -> Response<McpBody> {
        let headers = &parts.headers;
        let items = match crate::dispatch::batch_items(batch) {
            Ok(items) => items,
            Err(reply) => return json(StatusCode::BAD_REQUEST, reply),
        };
        for item in &items {
            if let Ok(msg) = RawMessage::parse(item.get()) {
                if let Err(refused) = self.core.admit(&msg, parts.extensions.get()).await {
                    return super::refusal(refused, None);
                }
            }
        }
        // A batch has no one id: its refusals say `null`.
        let http_session = match self.session_of(headers, &parts.extensions).await {
            Ok(s) => s,
            Err(turned) => return turned.answer(None),
        };
        let out = Arc::new(BatchOut {
            sink: RequestSink::new(),
            sent: tokio::sync::Notify::new(),
        });
        let dyn_out: Arc<dyn Outbound> = Arc::clone(&out) as Arc<dyn Outbound>;
        let info = self.request_info(headers, &parts.extensions);
        let batch = match crate::dispatch::start_batch(
            &self.core,
            &http_session.session,
            &items,
            &dyn_out,
            &info,
        ) {
            Ok(batch) => batch,
            Err(reply) => return json(StatusCode::BAD_REQUEST, reply),
        };
        if !batch.any_request && batch.is_silent() {
            return respond(base(StatusCode::ACCEPTED), McpBody::empty());
        }
        // One JSON array when the calls finish without sending anything;
        // once one sends something (progress, a log message, a question to
        // the client, which it must see to answer), an SSE stream that
        // carries it, then the array.
        let mut replies = Box::pin(batch.finish());
        let finished = tokio::select! {
            biased;
            body = &mut replies => Some(body),
            () = out.sent.notified() => None,
        };
        match finished {
            Some(Some(body)) if out.sink.is_quiet() => json(StatusCode::OK, body),
            Some(None) if out.sink.is_quiet() => {
                respond(base(StatusCode::ACCEPTED), McpBody::empty())
            }
            finished => {
                let stream =
                    http_session.open_stream(self.config.replay, self.config.retry_ms(), false);
                let rx = stream.attach(None);
                http_session.prime(&stream);
                out.sink.stream_into(&stream);
                // As for a single request: the client's disconnect is not a
                // cancellation; the calls run on and their events wait for a
                // resumption.
                tokio::spawn(async move {
                    let body = match finished {
                        Some(body) => body,
                        None => replies.await,
                    };
                    if let Some(body) = body {
                        stream.push(&body);
                    }
                    stream.finish();
                });
                respond(sse_builder(), McpBody::stream(rx, None))
            }
        }
    }

    /// GET on the endpoint: a legacy session's standalone stream, or a resumption.
    pub(super) async fn get(
        self: &Arc<Self>,
        headers: &HeaderMap,
        extensions: &http::Extensions,
    ) -> Response<McpBody> {
        if !headers.contains_key(SESSION_ID) {
            // 2026-07-28 has no GET stream; a legacy client always names its session.
            return method_not_allowed("POST");
        }
        let http_session = match self.session_of(headers, extensions).await {
            Ok(s) => s,
            Err(turned) => return turned.answer(None),
        };
        if !accepts(headers, "text/event-stream") {
            return transport_error(
                StatusCode::NOT_ACCEPTABLE,
                code::INVALID_REQUEST,
                "Accept must list text/event-stream",
            );
        }
        if let Some(last) = header_str(headers, LAST_EVENT_ID) {
            let Some((stream_id, seq)) = sse::parse_event_id(last) else {
                return transport_error(
                    StatusCode::BAD_REQUEST,
                    code::INVALID_REQUEST,
                    "malformed Last-Event-ID",
                );
            };
            let Some(stream) = http_session.stream(stream_id) else {
                // Another instance's, if the store knows it.
                return self.resume_elsewhere(&http_session, stream_id, seq).await;
            };
            let rx = stream.attach(Some(seq));
            return respond(sse_builder(), McpBody::stream(rx, None));
        }
        let stream = http_session.open_stream(self.config.replay, self.config.retry_ms(), true);
        let rx = stream.attach(None);
        http_session.prime(&stream);
        http_session.replace_standalone(&stream);
        self.keep_alive(&stream, &http_session);
        respond(sse_builder(), McpBody::stream(rx, None))
    }

    /// Keeps a standalone stream open (with comment pings) until shutdown or
    /// the session ends, and carries server-initiated messages: tool-list
    /// changes.
    pub(super) fn keep_alive(
        self: &Arc<Self>,
        stream: &Arc<EventStream>,
        http_session: &Arc<HttpSession>,
    ) {
        let stream = Arc::clone(stream);
        let session = Arc::downgrade(http_session);
        let shutdown = self.shutdown.clone();
        let every = self.config.keep_alive;
        let ended = http_session.ended.clone();
        let mut changes = self.core.changes(&http_session.session);
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    () = shutdown.cancelled() => break,
                    () = ended.cancelled() => break,
                    () = tokio::time::sleep(every) => {
                        if session.upgrade().is_none() || !stream.ping() {
                            break;
                        }
                    }
                    notices = changes.next_notices() => {
                        let (Some(notices), Some(_)) = (notices, session.upgrade()) else {
                            break;
                        };
                        if stream.is_done() {
                            // Replaced by a newer GET.
                            break;
                        }
                        for notice in notices {
                            stream.push(&notice);
                        }
                    }
                }
            }
            stream.finish();
        });
    }

    pub(super) async fn delete(
        self: &Arc<Self>,
        headers: &HeaderMap,
        extensions: &http::Extensions,
    ) -> Response<McpBody> {
        let Some(id) = header_str(headers, SESSION_ID) else {
            return method_not_allowed("POST");
        };
        if let Err(turned) = self.session_of(headers, extensions).await {
            return turned.answer(None);
        }
        match self.end_session(id).await {
            Err(unavailable) => unavailable.answer(None),
            Ok(true) => {
                tracing::debug!(session = id, "session terminated by the client");
                respond(base(StatusCode::OK), McpBody::empty())
            }
            Ok(false) => transport_error(
                StatusCode::NOT_FOUND,
                code::INVALID_REQUEST,
                "unknown or terminated session",
            ),
        }
    }

    /// A `Last-Event-ID` naming a stream this instance does not hold:
    /// replays it from the store, then goes on as the session's standalone
    /// stream (a GET stream resumed here), follows the stream while the
    /// instance that runs its call writes it (a POST's), or closes (it
    /// ended).
    pub(in crate::transport::http) async fn resume_elsewhere(
        self: &Arc<Self>,
        held: &Arc<HttpSession>,
        stream: u64,
        after: u64,
    ) -> Response<McpBody> {
        let Some(shared) = &self.shared else {
            return super::shared::unknown_stream();
        };
        let read = shared.store.read_events(&held.id, stream, after);
        let log = match crate::state::within(&*shared.store, read).await {
            Ok(Some(log)) => log,
            Ok(None) => return super::shared::unknown_stream(),
            Err(e) => return super::shared::unavailable(&e).answer(None),
        };
        let last = log.events.last().map_or(after, |(seq, _)| *seq);
        let replay: Vec<bytes::Bytes> = log.events.into_iter().map(|(_, ev)| ev).collect();
        if !log.ended && HttpSession::is_standalone(stream) {
            let next = held.open_stream(self.config.replay, self.config.retry_ms(), true);
            let rx = next.attach_after(replay, None);
            held.prime(&next);
            held.replace_standalone(&next);
            self.keep_alive(&next, held);
            return respond(sse_builder(), McpBody::stream(rx, None));
        }
        let (tx, rx) = tokio::sync::mpsc::channel(super::sse::SINK_CAPACITY.max(replay.len() + 16));
        for ev in replay {
            let _ = tx.try_send(ev);
        }
        if !log.ended {
            tokio::spawn(super::shared::follow(
                Arc::clone(&shared.store),
                Arc::clone(&held.id),
                stream,
                last,
                tx,
                held.ended.clone(),
            ));
        }
        respond(sse_builder(), McpBody::stream(rx, None))
    }
}

/// The 404 of a session this service does not know (never opened, ended,
/// expired, or opened by another identity: the same answer, so that a
/// session id reveals nothing to whoever does not own it).
fn unknown_session() -> Turned {
    Turned::new(
        StatusCode::NOT_FOUND,
        code::INVALID_REQUEST,
        "unknown or terminated session: initialize a new one",
    )
}
