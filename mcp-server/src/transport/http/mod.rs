//! Streamable HTTP (legacy sessions and the stateless 2026-07-28 era on one
//! endpoint) and the legacy 2024-11-05 HTTP+SSE transport, on hyper 1.x.
//!
//! [`HttpService`] is a `tower::Service`, so it runs on its own
//! ([`Server::serve_http`]) or mounts inside an axum router.

mod body;
mod config;
mod legacy;
mod legacy_sse;
mod modern;
mod reply;
mod security;
mod serve;
mod session_table;
mod shared;
mod sse;

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::Bytes;
use http::header::{self, HeaderMap};
use http::{Method, Request, Response, StatusCode};
use oxmcp_types::jsonrpc::{code, split_batch, RawMessage};
use oxmcp_types::{ProtocolVersion, RequestId};
use oxmcp_wire::route::Peek;
use reply::names::PROTOCOL_VERSION;
use tokio_util::sync::CancellationToken;

pub use body::McpBody;
use body::ReadError;
pub use config::HttpConfig;

use crate::dispatch::{encode, RequestInfo, ServerCore};
use reply::{accepts, header_str, is_json_content, json, method_not_allowed, transport_error};
use session_table::Sessions;

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
    /// The store shared with other instances, if any.
    shared: Option<shared::Shared>,
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
    /// calls are cancelled. [`Server::serve_http_on`](crate::Server::serve_http_on) calls this itself.
    pub fn shutdown(&self) {
        self.inner.shutdown.cancel();
    }

    /// How many legacy sessions are alive.
    pub fn session_count(&self) -> usize {
        self.inner.sessions.len()
    }
}

// ---------------------------------------------------------------- handling

impl Inner {
    /// What hooks may know of a request: its headers, when any hook looks,
    /// and whom its token speaks for.
    pub(super) fn request_info(
        &self,
        headers: &HeaderMap,
        extensions: &http::Extensions,
    ) -> RequestInfo {
        let verified = extensions.get::<crate::auth::Verified>();
        let identity = verified.map(|v| Arc::clone(&v.identity));
        RequestInfo {
            headers: (self.core.wants_caller() || identity.is_some())
                .then(|| Arc::new(headers.clone())),
            identity,
            owner: session_table::Owner::of(extensions).map(|o| Arc::from(o.to_hex())),
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
        if let Some(page) = self
            .config
            .pages
            .iter()
            .find(|p| p.path == req.uri().path())
        {
            if *req.method() != Method::GET {
                return method_not_allowed("GET");
            }
            return reply::respond(
                Response::builder()
                    .status(StatusCode::OK)
                    .header(header::CONTENT_TYPE, page.content_type.clone()),
                McpBody::full((page.render)()),
            );
        }
        let mut req = req;
        if let Err(answer) = self.pass_gate(&mut req).await {
            return answered(answer);
        }
        if let Err(wait) = self.admit(&req) {
            return too_many_requests(wait);
        }
        // What the gate (here, or a layer in front) found; the answer
        // carries what it owes, and a stream opened with a token lasts no
        // longer than the token: the client comes back (resuming, where the
        // stream is resumable) with a fresh one, which is checked again.
        let verified = req.extensions().get::<crate::auth::Verified>().cloned();
        let mut response = self.route(req).await;
        if let Some(verified) = &verified {
            verified.dress(&mut response);
            if let Some(left) = verified.time_left() {
                response.body_mut().end_after(left);
            }
        }
        response
    }

    /// Takes the request from its caller's budget of HTTP requests
    /// ([`RateLimit::http_requests`](crate::policy::RateLimit::http_requests)),
    /// or says how long until one is free. The caller is the token's
    /// subject, else the session, else the key hook's answer.
    fn admit<B>(&self, req: &Request<B>) -> Result<(), std::time::Duration> {
        let Some(limits) = self.core.tools.rate_limits() else {
            return Ok(());
        };
        if !limits.limits_requests() {
            return Ok(());
        }
        let caller = crate::policy::Caller {
            transport: crate::policy::TransportKind::StreamableHttp,
            session_id: header_str(req.headers(), &reply::names::SESSION_ID).map(Arc::from),
            client: None,
            protocol_version: ProtocolVersion::LATEST,
            headers: Some(Arc::new(req.headers().clone())),
            identity: req
                .extensions()
                .get::<crate::auth::Verified>()
                .map(|v| Arc::clone(&v.identity)),
            connection: 0,
        };
        limits.admit_request(&caller)
    }

    /// Passes the request through the configured gate (its metadata's
    /// well-known paths answered, its token checked), unless a gate in
    /// front (a [`crate::auth::AuthLayer`]) already did; what the gate
    /// found is left in the request's extensions.
    async fn pass_gate<B>(&self, req: &mut Request<B>) -> Result<(), crate::auth::Answer> {
        let Some(gate) = &self.config.gate else {
            return Ok(());
        };
        if req.extensions().get::<crate::auth::Verified>().is_some() {
            return Ok(());
        }
        if let Some(answer) = gate.answer(req.method(), req.uri().path()) {
            return Err(answer);
        }
        // With a store, what must be used once is claimed across the instances.
        let store = self.shared.as_ref().map(|s| &*s.store);
        let verified = gate
            .verify(req.method(), req.uri(), req.headers(), store)
            .await?;
        req.extensions_mut().insert(verified);
        Ok(())
    }

    /// Serves a request that passed the Host, Origin and token checks.
    async fn route<B>(self: Arc<Self>, req: Request<B>) -> Response<McpBody>
    where
        B: http_body::Body + Send + 'static,
        B::Data: Send,
        B::Error: Into<BoxError>,
    {
        let path = req.uri().path();
        if path == self.config.endpoint {
            return match *req.method() {
                Method::POST => self.post(req).await,
                Method::GET => self.get(req.headers(), req.extensions()).await,
                Method::DELETE => self.delete(req.headers(), req.extensions()).await,
                _ => method_not_allowed("GET, POST, DELETE"),
            };
        }
        if let Some((sse, messages)) = &self.config.legacy_sse {
            if path == sse {
                return match *req.method() {
                    Method::GET => legacy_sse::open(&self, req.headers(), req.extensions()),
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
        // Refused bodies are drained in the background while the 413 goes out.
        let body = Box::pin(body);
        let declared = header_str(&parts.headers, header::CONTENT_LENGTH.as_str())
            .and_then(|v| v.parse::<u64>().ok());
        if declared.is_some_and(|n| n > self.config.max_body as u64) {
            body::drain(body);
            return Err(too_large());
        }
        match body::read_limited(body, self.config.max_body, self.config.body_timeout).await {
            Ok(bytes) => Ok((parts, bytes)),
            Err(ReadError::TooLarge(rest)) => {
                body::drain(rest);
                Err(too_large())
            }
            Err(ReadError::Timeout) => Err(transport_error(
                StatusCode::REQUEST_TIMEOUT,
                code::INVALID_REQUEST,
                "timed out reading the request body",
            )),
            Err(ReadError::Failed(e)) => Err(transport_error(
                StatusCode::BAD_REQUEST,
                code::INVALID_REQUEST,
                &format!("failed to read the request body: {e}"),
            )),
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
                crate::common::error_reply(
                    None,
                    oxmcp_types::ErrorObject::parse_error(
                        "parse error: the body is not valid UTF-8",
                    ),
                ),
            );
        };
        if let Some(batch) = split_batch(text) {
            return self.legacy_batch(&parts, batch).await;
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
        if let Err(refused) = self.core.admit(&msg, parts.extensions.get()).await {
            return refusal(refused, reply::request_id(&msg));
        }
        let peeked = Peek::read(params);
        let body_version = peeked.protocol_version();
        let modern_header = header_version
            .and_then(ProtocolVersion::parse)
            .is_some_and(|v| !v.is_legacy());
        if body_version.is_some() || modern_header {
            let info = self.request_info(&parts.headers, &parts.extensions);
            let stateless = modern::Stateless {
                core: &self.core,
                config: &self.config,
                shutdown: &self.shutdown,
            };
            stateless.post(&parts.headers, msg, &peeked, &info)
        } else {
            self.legacy_post(&parts, msg).await
        }
    }
}

/// An answer made whole (a gate's) as a response.
fn answered((status, headers, body): crate::auth::Answer) -> Response<McpBody> {
    let mut response = reply::respond(reply::base(status), McpBody::full(body));
    response.headers_mut().extend(headers);
    response
}

/// A request refused before dispatch, as a response to the request `id`.
fn refusal(refused: crate::dispatch::Refusal, id: Option<&RequestId>) -> Response<McpBody> {
    match refused {
        crate::dispatch::Refusal::Answer(answer) => answered(answer),
        crate::dispatch::Refusal::Failed { bytes, code } => json(reply::modern_status(code), bytes),
        crate::dispatch::Refusal::Unavailable(e) => shared::unavailable(&e).answer(id),
    }
}

/// 429 with `Retry-After` (whole seconds, rounded up) and a JSON-RPC error
/// saying the same in milliseconds.
fn too_many_requests(wait: std::time::Duration) -> Response<McpBody> {
    let millis = wait.as_millis().max(1);
    let mut response = transport_error(
        StatusCode::TOO_MANY_REQUESTS,
        crate::dispatch::SERVER_BUSY,
        &format!("rate limit: too many requests from this caller; retry in {millis} ms"),
    );
    let seconds = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, http::HeaderValue::from(seconds.max(1)));
    response
}
