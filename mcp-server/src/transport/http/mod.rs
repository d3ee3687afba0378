//! Streamable HTTP (legacy sessions and the stateless 2026-07-28 era on one
//! endpoint) and the legacy 2024-11-05 HTTP+SSE transport, on hyper 1.x.
//!
//! [`HttpService`] is a `tower::Service`, so it runs on its own
//! ([`Server::serve_http`]) or mounts inside an axum router.

mod body;
mod legacy_sse;
mod security;
mod session;
mod sse;

use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use http::header::{self, HeaderMap, HeaderValue};
use http::{Method, Request, Response, StatusCode};
use http_body_util::BodyExt;
use mcp_types::jsonrpc::{code, split_batch, RawMessage};
use mcp_types::{method, ProtocolVersion};
use mcp_wire::header::{LAST_EVENT_ID, MCP_METHOD, MCP_NAME, PROTOCOL_VERSION, SESSION_ID};
use mcp_wire::route::{json_str, Peek};
use serde_json::value::RawValue;
use tokio_util::sync::CancellationToken;

pub use body::McpBody;

use crate::context::Outbound;
use crate::dispatch::{encode, Outcome, RequestInfo, ServerCore, Session};
use crate::error::Error;
use crate::policy::TransportKind;
use crate::server::Server;
use body::OnDrop;
use security::HostPolicy;
use session::{HttpSession, Sessions};
use sse::{EventStream, ReplayLimits, RequestSink};

/// How the HTTP transports behave: paths, allowed hosts, limits.
///
/// ```
/// use std::time::Duration;
/// use mcp_server::http::HttpConfig;
///
/// let config = HttpConfig::default()
///     .endpoint("/mcp")
///     .allow_host("mcp.internal.example")
///     .allow_origin("https://app.example.com")
///     .max_body_size(1 << 20)
///     .session_idle_timeout(Duration::from_secs(600));
/// # let _ = config;
/// ```
#[derive(Debug, Clone)]
pub struct HttpConfig {
    endpoint: String,
    legacy_sse: Option<(String, String)>,
    hosts: HostPolicy,
    max_body: usize,
    body_timeout: Duration,
    max_sessions: usize,
    session_idle: Duration,
    replay: ReplayLimits,
    retry: Duration,
    keep_alive: Duration,
    shutdown_grace: Duration,
}

impl Default for HttpConfig {
    fn default() -> Self {
        HttpConfig {
            endpoint: "/mcp".into(),
            legacy_sse: Some(("/sse".into(), "/messages".into())),
            hosts: HostPolicy::default(),
            max_body: crate::server::DEFAULT_MAX_MESSAGE,
            body_timeout: Duration::from_secs(30),
            max_sessions: 10_000,
            session_idle: Duration::from_secs(30 * 60),
            replay: ReplayLimits {
                max_events: 256,
                max_bytes: 1024 * 1024,
            },
            retry: Duration::from_secs(1),
            keep_alive: Duration::from_secs(15),
            shutdown_grace: Duration::from_secs(10),
        }
    }
}

impl HttpConfig {
    /// The Streamable HTTP endpoint's path (default `/mcp`).
    #[must_use]
    pub fn endpoint(mut self, path: impl Into<String>) -> Self {
        self.endpoint = path.into();
        self
    }

    /// The legacy HTTP+SSE (2024-11-05) paths: the stream (default `/sse`) and
    /// where clients POST (default `/messages`).
    #[must_use]
    pub fn legacy_sse(mut self, sse: impl Into<String>, messages: impl Into<String>) -> Self {
        self.legacy_sse = Some((sse.into(), messages.into()));
        self
    }

    /// Serves no legacy HTTP+SSE transport.
    #[must_use]
    pub fn without_legacy_sse(mut self) -> Self {
        self.legacy_sse = None;
        self
    }

    /// Also accepts this host name in `Host` and `Origin` (`localhost`,
    /// `127.0.0.1` and `[::1]` are accepted by default, on any port).
    #[must_use]
    pub fn allow_host(mut self, host: impl Into<String>) -> Self {
        self.hosts.hosts.push(host.into());
        self
    }

    /// Also accepts this exact `Origin` (`scheme://host[:port]`).
    #[must_use]
    pub fn allow_origin(mut self, origin: impl Into<String>) -> Self {
        self.hosts.origins.push(origin.into());
        self
    }

    /// Accepts any `Host` (for a server behind a proxy that validates it).
    /// `Origin` is then still checked against the allowed origins and hosts.
    #[must_use]
    pub fn allow_any_host(mut self) -> Self {
        self.hosts.any_host = true;
        self
    }

    /// The largest request body accepted (default 4 MiB); larger gets 413.
    #[must_use]
    pub fn max_body_size(mut self, bytes: usize) -> Self {
        self.max_body = bytes;
        self
    }

    /// How long a client may take to send a request's body (default 30 s); then 408.
    #[must_use]
    pub fn body_timeout(mut self, timeout: Duration) -> Self {
        self.body_timeout = timeout;
        self
    }

    /// The most legacy sessions alive at once (default 10,000); then 503.
    #[must_use]
    pub fn max_sessions(mut self, n: usize) -> Self {
        self.max_sessions = n;
        self
    }

    /// How long an unused legacy session lives (default 30 min).
    #[must_use]
    pub fn session_idle_timeout(mut self, timeout: Duration) -> Self {
        self.session_idle = timeout;
        self
    }

    /// The `retry` hint sent on resumable SSE streams (default 1 s).
    #[must_use]
    pub fn sse_retry(mut self, retry: Duration) -> Self {
        self.retry = retry;
        self
    }

    /// How many events (and bytes) each resumable stream keeps for
    /// `Last-Event-ID` replay (default 256 events, 1 MiB).
    #[must_use]
    pub fn replay_buffer(mut self, events: usize, bytes: usize) -> Self {
        self.replay = ReplayLimits {
            max_events: events,
            max_bytes: bytes,
        };
        self
    }

    /// How long in-flight requests may finish after shutdown starts (default 10 s).
    #[must_use]
    pub fn shutdown_grace(mut self, grace: Duration) -> Self {
        self.shutdown_grace = grace;
        self
    }

    fn retry_ms(&self) -> u64 {
        u64::try_from(self.retry.as_millis()).unwrap_or(u64::MAX)
    }
}

/// The MCP HTTP endpoints as a `tower::Service` (and, through hyper-util's
/// adapter, a hyper service). Clone it freely: clones share sessions.
///
/// Mount it in axum with `Router::new().route_service("/mcp", service.clone())`
/// (and the legacy `/sse` and `/messages` paths, if wanted).
#[derive(Clone)]
pub struct HttpService {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for HttpService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpService")
            .field("endpoint", &self.inner.config.endpoint)
            .field("sessions", &self.inner.sessions.len())
            .finish_non_exhaustive()
    }
}

struct Inner {
    core: Arc<ServerCore>,
    config: HttpConfig,
    sessions: Sessions,
    /// Ends long-lived streams (listen, GET) when the server shuts down.
    shutdown: CancellationToken,
}

type BoxError = Box<dyn std::error::Error + Send + Sync>;

impl<B> tower_service::Service<Request<B>> for HttpService
where
    B: http_body::Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<BoxError>,
{
    type Response = Response<McpBody>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response<McpBody>, Infallible>> + Send>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: Request<B>) -> Self::Future {
        let inner = Arc::clone(&self.inner);
        Box::pin(async move { Ok(inner.handle(req).await) })
    }
}

impl HttpService {
    /// Starts shutting down: long-lived streams end and legacy sessions'
    /// calls are cancelled. [`Server::serve_http_on`] calls this itself.
    pub fn shutdown(&self) {
        self.inner.shutdown.cancel();
    }

    /// How many legacy sessions are alive.
    pub fn session_count(&self) -> usize {
        self.inner.sessions.len()
    }
}

// ---------------------------------------------------------------- responses

fn base(status: StatusCode) -> http::response::Builder {
    Response::builder().status(status)
}

fn respond(builder: http::response::Builder, body: McpBody) -> Response<McpBody> {
    builder.body(body).unwrap_or_else(|_| {
        let mut r = Response::new(McpBody::empty());
        *r.status_mut() = StatusCode::INTERNAL_SERVER_ERROR;
        r
    })
}

/// A transport-level error: the status, and a JSON-RPC error with no id.
/// An HTTP error whose body is a JSON-RPC error response (with `"id": null`:
/// the transport answers before reading any request id).
fn transport_error(status: StatusCode, code: i32, message: &str) -> Response<McpBody> {
    json(
        status,
        crate::dispatch::error_reply(None, mcp_types::ErrorObject::new(code, message)),
    )
}

fn json(status: StatusCode, bytes: Vec<u8>) -> Response<McpBody> {
    respond(
        base(status).header(header::CONTENT_TYPE, "application/json"),
        McpBody::full(bytes),
    )
}

fn sse_builder() -> http::response::Builder {
    base(StatusCode::OK)
        .header(header::CONTENT_TYPE, "text/event-stream")
        .header(header::CACHE_CONTROL, "no-cache")
        .header("x-accel-buffering", "no")
}

fn method_not_allowed(allow: &'static str) -> Response<McpBody> {
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
fn modern_status(code: i32) -> StatusCode {
    match code {
        code::METHOD_NOT_FOUND => StatusCode::NOT_FOUND,
        code::INTERNAL_ERROR => StatusCode::INTERNAL_SERVER_ERROR,
        _ => StatusCode::BAD_REQUEST,
    }
}

// ---------------------------------------------------------------- headers

fn header_str<'h>(headers: &'h HeaderMap, name: &str) -> Option<&'h str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

fn accepts(headers: &HeaderMap, mime: &str) -> bool {
    headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|part| part.split(';').next().unwrap_or("").trim())
        .any(|m| m.eq_ignore_ascii_case(mime) || m == "*/*")
}

fn is_json_content(headers: &HeaderMap) -> bool {
    header_str(headers, header::CONTENT_TYPE.as_str()).is_some_and(|ct| {
        ct.split(';')
            .next()
            .is_some_and(|m| m.trim().eq_ignore_ascii_case("application/json"))
    })
}

/// The 2026-07-28 header rules: `MCP-Protocol-Version`, `Mcp-Method` and
/// `Mcp-Name` must be present and match the body (-32020, HTTP 400).
fn check_modern_headers(
    headers: &HeaderMap,
    id: &mcp_types::RequestId,
    method_name: &str,
    peeked: &Peek<'_>,
) -> Result<(), Box<Response<McpBody>>> {
    let mismatch = |message: String| {
        let e = mcp_types::ErrorObject::new(code::HEADER_MISMATCH, message);
        Box::new(json(
            StatusCode::BAD_REQUEST,
            crate::dispatch::error_reply(Some(id.clone()), e),
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
        match header_str(headers, MCP_NAME).map(|v| mcp_wire::header::decode_value(v.trim())) {
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

// ---------------------------------------------------------------- handling

impl Inner {
    /// What hooks may know of a request: its headers, when any hook looks.
    pub(super) fn request_info(&self, headers: &HeaderMap) -> RequestInfo {
        RequestInfo {
            headers: self
                .core
                .policy
                .wants_caller()
                .then(|| Arc::new(headers.clone())),
        }
    }

    async fn handle<B>(self: Arc<Self>, req: Request<B>) -> Response<McpBody>
    where
        B: http_body::Body + Send + 'static,
        B::Data: Send,
        B::Error: Into<BoxError>,
    {
        if let Err((status, reason)) =
            self.config
                .hosts
                .check(req.version(), req.uri(), req.headers())
        {
            tracing::warn!(%reason, %status, "request refused (Host / Origin)");
            return transport_error(status, code::INVALID_REQUEST, &reason);
        }
        let path = req.uri().path();
        if path == self.config.endpoint {
            return match *req.method() {
                Method::POST => self.post(req).await,
                Method::GET => self.get(req.headers()),
                Method::DELETE => self.delete(req.headers()),
                _ => method_not_allowed("GET, POST, DELETE"),
            };
        }
        if let Some((sse, messages)) = &self.config.legacy_sse {
            if path == sse {
                return match *req.method() {
                    Method::GET => legacy_sse::open(&self, req.headers()),
                    _ => method_not_allowed("GET"),
                };
            }
            if path == messages {
                return match *req.method() {
                    Method::POST => legacy_sse::post(&self, req).await,
                    _ => method_not_allowed("POST"),
                };
            }
        }
        transport_error(StatusCode::NOT_FOUND, code::INVALID_REQUEST, "not found")
    }

    /// Reads a request body within the size and time limits.
    async fn read_body<B>(
        &self,
        req: Request<B>,
    ) -> Result<(http::request::Parts, Bytes), Response<McpBody>>
    where
        B: http_body::Body + Send + 'static,
        B::Data: Send,
        B::Error: Into<BoxError>,
    {
        let (parts, body) = req.into_parts();
        let too_large = || {
            transport_error(
                StatusCode::PAYLOAD_TOO_LARGE,
                code::INVALID_REQUEST,
                &format!("request body exceeds {} bytes", self.config.max_body),
            )
        };
        let declared = header_str(&parts.headers, header::CONTENT_LENGTH.as_str())
            .and_then(|v| v.parse::<u64>().ok());
        if declared.is_some_and(|n| n > self.config.max_body as u64) {
            return Err(too_large());
        }
        let limited = http_body_util::Limited::new(body, self.config.max_body);
        match tokio::time::timeout(self.config.body_timeout, limited.collect()).await {
            Err(_) => Err(transport_error(
                StatusCode::REQUEST_TIMEOUT,
                code::INVALID_REQUEST,
                "timed out reading the request body",
            )),
            Ok(Err(e)) if e.is::<http_body_util::LengthLimitError>() => Err(too_large()),
            Ok(Err(e)) => Err(transport_error(
                StatusCode::BAD_REQUEST,
                code::INVALID_REQUEST,
                &format!("failed to read the request body: {e}"),
            )),
            Ok(Ok(collected)) => Ok((parts, collected.to_bytes())),
        }
    }

    async fn post<B>(self: &Arc<Self>, req: Request<B>) -> Response<McpBody>
    where
        B: http_body::Body + Send + 'static,
        B::Data: Send,
        B::Error: Into<BoxError>,
    {
        if !is_json_content(req.headers()) {
            return transport_error(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                code::INVALID_REQUEST,
                "Content-Type must be application/json",
            );
        }
        if !(accepts(req.headers(), "application/json")
            && accepts(req.headers(), "text/event-stream"))
        {
            return transport_error(
                StatusCode::NOT_ACCEPTABLE,
                code::INVALID_REQUEST,
                "Accept must list both application/json and text/event-stream",
            );
        }
        let (parts, body) = match self.read_body(req).await {
            Ok(v) => v,
            Err(r) => return r,
        };
        let Ok(text) = std::str::from_utf8(&body) else {
            return json(
                StatusCode::BAD_REQUEST,
                crate::dispatch::error_reply(
                    None,
                    mcp_types::ErrorObject::parse_error("parse error: the body is not valid UTF-8"),
                ),
            );
        };
        if let Some(batch) = split_batch(text) {
            return self.legacy_batch(&parts.headers, batch).await;
        }
        let msg = match RawMessage::parse(text) {
            Ok(msg) => msg,
            Err(e) => return json(StatusCode::BAD_REQUEST, encode(&e.to_response())),
        };
        let header_version = header_str(&parts.headers, PROTOCOL_VERSION);
        let params = match &msg {
            RawMessage::Request { params, .. } | RawMessage::Notification { params, .. } => *params,
            _ => None,
        };
        let peeked = Peek::read(params);
        let body_version = peeked.protocol_version();
        let modern_header = header_version
            .and_then(ProtocolVersion::parse)
            .is_some_and(|v| !v.is_legacy());
        if body_version.is_some() || modern_header {
            self.modern_post(&parts.headers, msg, &peeked)
        } else {
            self.legacy_post(&parts.headers, msg)
        }
    }

    // ------------------------------------------------------------ modern era

    fn modern_post(
        self: &Arc<Self>,
        headers: &HeaderMap,
        msg: RawMessage<'_>,
        peeked: &Peek<'_>,
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
            let _ = self
                .core
                .handle(&session, msg, &sink, &self.request_info(headers));
            return respond(base(StatusCode::ACCEPTED), McpBody::empty());
        };
        if let Err(response) = check_modern_headers(headers, &id, method_name, peeked) {
            return *response;
        }
        // Stateless: each request gets its own throwaway session state.
        let session = Session::new(TransportKind::StreamableHttp, None);
        let sink = RequestSink::new();
        let out: Arc<dyn Outbound> = Arc::clone(&sink) as Arc<dyn Outbound>;
        match self
            .core
            .handle(&session, msg, &out, &self.request_info(headers))
        {
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
                let task = tokio::spawn(async move {
                    let reply = tokio::select! {
                        r = fut => r,
                        () = shutdown.cancelled() => None,
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

    // ------------------------------------------------------------ legacy era

    /// Checks `MCP-Protocol-Version` on a legacy request: any supported value
    /// is accepted, a missing one means 2025-03-26, anything else is a 400.
    fn legacy_version(headers: &HeaderMap) -> Result<ProtocolVersion, Box<Response<McpBody>>> {
        match header_str(headers, PROTOCOL_VERSION) {
            None => Ok(ProtocolVersion::V2025_03_26),
            Some(v) => match ProtocolVersion::parse(v) {
                Some(v) => Ok(v),
                None => Err(Box::new(transport_error(
                    StatusCode::BAD_REQUEST,
                    code::INVALID_REQUEST,
                    &format!("unsupported MCP-Protocol-Version: {v}"),
                ))),
            },
        }
    }

    fn session_of(&self, headers: &HeaderMap) -> Result<Arc<HttpSession>, Box<Response<McpBody>>> {
        match header_str(headers, SESSION_ID) {
            None => Err(Box::new(transport_error(
                StatusCode::BAD_REQUEST,
                code::INVALID_REQUEST,
                "missing Mcp-Session-Id header: send initialize first",
            ))),
            Some(id) => self.sessions.get(id).ok_or_else(|| {
                Box::new(transport_error(
                    StatusCode::NOT_FOUND,
                    code::INVALID_REQUEST,
                    "unknown or terminated session: initialize a new one",
                ))
            }),
        }
    }

    fn legacy_post(
        self: &Arc<Self>,
        headers: &HeaderMap,
        msg: RawMessage<'_>,
    ) -> Response<McpBody> {
        if let Err(r) = Self::legacy_version(headers) {
            return *r;
        }
        let is_initialize =
            matches!(&msg, RawMessage::Request { method, .. } if method == method::INITIALIZE);
        if is_initialize {
            return self.initialize(msg, headers);
        }
        let http_session = match self.session_of(headers) {
            Ok(s) => s,
            Err(r) => return *r,
        };
        let is_request = matches!(msg, RawMessage::Request { .. });
        let sink = RequestSink::new();
        let out: Arc<dyn Outbound> = Arc::clone(&sink) as Arc<dyn Outbound>;
        let outcome = self.core.handle(
            &http_session.session,
            msg,
            &out,
            &self.request_info(headers),
        );
        if !is_request {
            return respond(base(StatusCode::ACCEPTED), McpBody::empty());
        }
        match outcome {
            Outcome::Reply(bytes) | Outcome::Failed { bytes, .. } if sink.is_quiet() => {
                json(StatusCode::OK, bytes)
            }
            Outcome::Nothing => respond(base(StatusCode::ACCEPTED), McpBody::empty()),
            outcome => {
                let stream = http_session.open_stream(self.config.replay, self.config.retry_ms());
                let rx = stream.attach(None);
                // Priming follows the session's negotiated revision: clients
                // may send any supported version in the header (conformance
                // 0.1.16 sends 2025-03-26 inside 2025-11-25 sessions).
                if http_session
                    .session
                    .legacy_version()
                    .is_some_and(|v| v >= ProtocolVersion::V2025_11_25)
                {
                    stream.prime();
                }
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

    fn initialize(self: &Arc<Self>, msg: RawMessage<'_>, headers: &HeaderMap) -> Response<McpBody> {
        let http_session = match self.sessions.create(TransportKind::StreamableHttp) {
            Ok(Some(s)) => s,
            Ok(None) => {
                return transport_error(
                    StatusCode::SERVICE_UNAVAILABLE,
                    code::INTERNAL_ERROR,
                    "too many sessions; try again later",
                )
            }
            Err(e) => {
                tracing::error!(error = %e, "no randomness for a session id");
                return transport_error(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    code::INTERNAL_ERROR,
                    "cannot create a session",
                );
            }
        };
        let sink: Arc<dyn Outbound> = RequestSink::new();
        match self.core.handle(
            &http_session.session,
            msg,
            &sink,
            &self.request_info(headers),
        ) {
            Outcome::Reply(bytes) => {
                tracing::debug!(session = %http_session.id, "session created");
                let b = base(StatusCode::OK)
                    .header(header::CONTENT_TYPE, "application/json")
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

    async fn legacy_batch(
        self: &Arc<Self>,
        headers: &HeaderMap,
        batch: Result<Vec<&RawValue>, mcp_types::jsonrpc::DecodeError>,
    ) -> Response<McpBody> {
        let items = match batch {
            Ok(items) if !items.is_empty() => items,
            Ok(_) => {
                return transport_error(
                    StatusCode::BAD_REQUEST,
                    code::INVALID_REQUEST,
                    "empty batch",
                )
            }
            Err(e) => return json(StatusCode::BAD_REQUEST, encode(&e.to_response())),
        };
        let http_session = match self.session_of(headers) {
            Ok(s) => s,
            Err(r) => return *r,
        };
        if !http_session.session.allows_batches() {
            return transport_error(
                StatusCode::BAD_REQUEST,
                code::INVALID_REQUEST,
                "JSON-RPC batches are only allowed in protocol revision 2025-03-26",
            );
        }
        let sink: Arc<dyn Outbound> = RequestSink::new();
        let info = self.request_info(headers);
        let batch = self.core.batch(&http_session.session, &items, &sink, &info);
        if !batch.any_request && batch.is_silent() {
            return respond(base(StatusCode::ACCEPTED), McpBody::empty());
        }
        match batch.finish().await {
            Some(body) => json(StatusCode::OK, body),
            None => respond(base(StatusCode::ACCEPTED), McpBody::empty()),
        }
    }

    /// GET on the endpoint: a legacy session's standalone stream, or a resumption.
    fn get(self: &Arc<Self>, headers: &HeaderMap) -> Response<McpBody> {
        if !headers.contains_key(SESSION_ID) {
            // 2026-07-28 has no GET stream; a legacy client always names its session.
            return method_not_allowed("POST");
        }
        let http_session = match self.session_of(headers) {
            Ok(s) => s,
            Err(r) => return *r,
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
                return transport_error(
                    StatusCode::NOT_FOUND,
                    code::INVALID_REQUEST,
                    "unknown stream in Last-Event-ID",
                );
            };
            let rx = stream.attach(Some(seq));
            return respond(sse_builder(), McpBody::stream(rx, None));
        }
        let stream = http_session.open_stream(self.config.replay, self.config.retry_ms());
        let rx = stream.attach(None);
        if http_session
            .session
            .legacy_version()
            .is_some_and(|v| v >= ProtocolVersion::V2025_11_25)
        {
            stream.prime();
        }
        self.keep_alive(&stream, &http_session);
        respond(sse_builder(), McpBody::stream(rx, None))
    }

    /// Keeps a standalone stream open (with comment pings) until shutdown or
    /// the session ends, and carries server-initiated messages: tool-list
    /// changes.
    fn keep_alive(self: &Arc<Self>, stream: &Arc<EventStream>, http_session: &Arc<HttpSession>) {
        let stream = Arc::clone(stream);
        let session = Arc::downgrade(http_session);
        let shutdown = self.shutdown.clone();
        let every = self.config.keep_alive;
        let ended = http_session.ended.clone();
        let mut changes = self.core.tools.subscribe();
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
                    alive = crate::dispatch::next_tools_change(&mut changes) => {
                        if !alive || session.upgrade().is_none() {
                            break;
                        }
                        stream.push(&crate::dispatch::tools_list_changed(None));
                    }
                }
            }
            stream.finish();
        });
    }

    fn delete(self: &Arc<Self>, headers: &HeaderMap) -> Response<McpBody> {
        let Some(id) = header_str(headers, SESSION_ID) else {
            return method_not_allowed("POST");
        };
        match self.sessions.remove(id) {
            Some(_) => {
                tracing::debug!(session = id, "session terminated by the client");
                respond(base(StatusCode::OK), McpBody::empty())
            }
            None => transport_error(
                StatusCode::NOT_FOUND,
                code::INVALID_REQUEST,
                "unknown or terminated session",
            ),
        }
    }
}

// ---------------------------------------------------------------- serving

impl Server {
    /// The HTTP endpoints of this server as a service, to mount in a router
    /// (axum, hyper) of your own.
    pub fn http_service(&self, config: HttpConfig) -> HttpService {
        HttpService {
            inner: Arc::new(Inner {
                core: Arc::clone(&self.core),
                sessions: Sessions::new(config.max_sessions, config.session_idle),
                config,
                shutdown: CancellationToken::new(),
            }),
        }
    }

    /// Serves MCP over HTTP on `addr` (use `127.0.0.1:PORT` to stay local)
    /// until Ctrl-C: Streamable HTTP at `/mcp` in both eras and, unless turned
    /// off in `config`, the legacy HTTP+SSE transport at `/sse`.
    pub async fn serve_http(
        self,
        addr: impl tokio::net::ToSocketAddrs,
        config: HttpConfig,
    ) -> Result<(), Error> {
        let listener = tokio::net::TcpListener::bind(addr).await?;
        let ctrl_c = async {
            let _ = tokio::signal::ctrl_c().await;
        };
        self.serve_http_on(listener, config, ctrl_c).await
    }

    /// Serves MCP over HTTP on a bound listener until `shutdown` completes,
    /// then lets in-flight requests finish (up to the config's grace period).
    pub async fn serve_http_on(
        self,
        listener: tokio::net::TcpListener,
        config: HttpConfig,
        shutdown: impl Future<Output = ()>,
    ) -> Result<(), Error> {
        use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
        use hyper_util::server::conn::auto;

        let grace = config.shutdown_grace;
        let service = self.http_service(config);
        let local: Option<SocketAddr> = listener.local_addr().ok();
        tracing::info!(addr = ?local, "serving MCP over HTTP");
        let mut builder = auto::Builder::new(TokioExecutor::new());
        builder
            .http1()
            .timer(TokioTimer::new())
            .header_read_timeout(Duration::from_secs(30));
        let graceful = hyper_util::server::graceful::GracefulShutdown::new();
        tokio::pin!(shutdown);
        loop {
            tokio::select! {
                accepted = listener.accept() => {
                    let (stream, peer) = match accepted {
                        Ok(v) => v,
                        Err(e) => {
                            // Out of file descriptors and the like: back off, keep serving.
                            tracing::warn!(error = %e, "accept failed");
                            tokio::time::sleep(Duration::from_millis(50)).await;
                            continue;
                        }
                    };
                    // Small SSE events must not wait for Nagle's algorithm.
                    let _ = stream.set_nodelay(true);
                    let hyper_service = hyper_util::service::TowerToHyperService::new(service.clone());
                    let conn = builder.serve_connection(TokioIo::new(stream), hyper_service).into_owned();
                    let conn = graceful.watch(conn);
                    tokio::spawn(async move {
                        if let Err(e) = conn.await {
                            tracing::debug!(%peer, error = %e, "connection ended with an error");
                        }
                    });
                }
                () = &mut shutdown => break,
            }
        }
        drop(listener);
        tracing::info!("shutting down: finishing requests in flight");
        service.shutdown();
        if tokio::time::timeout(grace, graceful.shutdown())
            .await
            .is_err()
        {
            tracing::warn!("requests still running after the grace period were dropped");
        }
        Ok(())
    }
}
