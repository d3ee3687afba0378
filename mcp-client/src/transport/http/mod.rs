//! Streamable HTTP (legacy sessions and the stateless 2026-07-28 era) and,
//! in [`legacy_sse`], the 2024-11-05 HTTP+SSE transport, on hyper 1.x.
//!
//! Each request is a POST whose answer is JSON or an SSE stream; the stream's
//! messages (notifications, server requests, the response) are dispatched as
//! they arrive. In the legacy era a stream that ends before the response is
//! resumed with `GET` + `Last-Event-ID` after the server's `retry` delay, a
//! standalone `GET` stream carries server-initiated messages, and `close`
//! deletes the session. In the modern era dropping a call's future closes its
//! stream, which is the cancellation.

mod body;
mod connector;
pub(crate) mod legacy_sse;
pub(crate) use oxmcp_wire::sse;

use std::ops::ControlFlow;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use http::header::{self, HeaderMap, HeaderName, HeaderValue};
use http::{Method, Request, StatusCode, Uri};
use http_body_util::Full;
use hyper::body::Incoming;
use oxmcp_types::call::{BoxFuture, CallError};
use oxmcp_types::jsonrpc::Message;
use oxmcp_types::{ProtocolVersion, RequestId};
use oxmcp_wire::header::{
    encode_value, LAST_EVENT_ID, MCP_METHOD, MCP_NAME, PROTOCOL_VERSION, SESSION_ID,
};
use tokio::task::AbortHandle;

use self::sse::SseParser;
use super::{Outgoing, Transport};
use crate::connection::{lock, Shared};
use crate::error::transport;
use body::{
    drain, error_status, header_value, kind_of, on_message, pump, read_body, send_for_status, Kind,
};
pub(crate) use connector::parse_url;
use connector::request_failed;
pub(crate) use connector::{http_client, HttpClient};

const ACCEPT_BOTH: &str = "application/json, text/event-stream";

/// The reconnection delay when the server sent no `retry`.
const DEFAULT_RETRY: Duration = Duration::from_secs(1);
/// Resumptions in a row that bring no new event before giving up.
const MAX_QUIET_RESUMPTIONS: u32 = 3;
/// How much of an error body is kept for the message.
const ERROR_BODY_MAX: usize = 64 * 1024;

#[derive(Debug, Default)]
struct HttpState {
    modern: bool,
    protocol_version: Option<HeaderValue>,
    session: Option<HeaderValue>,
    /// The session was deleted (on close): never again.
    deleted: bool,
}

/// The Streamable HTTP transport.
pub(crate) struct HttpTransport {
    client: HttpClient,
    url: Uri,
    headers: HeaderMap,
    state: Mutex<HttpState>,
    shared: Arc<Shared>,
    max_message: usize,
    standalone: Mutex<Option<AbortHandle>>,
    /// Signs in when the server asks (feature `auth`).
    #[cfg(feature = "auth")]
    auth: Option<Arc<crate::auth::Authenticator>>,
}

impl std::fmt::Debug for HttpTransport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpTransport")
            .field("url", &self.url)
            .field("state", &*lock(&self.state))
            .finish_non_exhaustive()
    }
}

impl HttpTransport {
    pub(crate) fn new(
        client: HttpClient,
        url: Uri,
        headers: HeaderMap,
        shared: &Arc<Shared>,
        max_message: usize,
    ) -> HttpTransport {
        HttpTransport {
            client,
            url,
            headers,
            state: Mutex::new(HttpState::default()),
            shared: Arc::clone(shared),
            max_message,
            standalone: Mutex::new(None),
            #[cfg(feature = "auth")]
            auth: None,
        }
    }

    /// Signs in with `auth` when the server asks.
    #[cfg(feature = "auth")]
    pub(crate) fn with_auth(mut self, auth: Option<Arc<crate::auth::Authenticator>>) -> Self {
        self.auth = auth;
        self
    }

    /// What adds the credentials to requests made outside [`execute`](Self::execute).
    fn signer(&self) -> Signer {
        Signer {
            #[cfg(feature = "auth")]
            auth: self.auth.clone(),
        }
    }

    /// Sends the request `build` makes, with the bearer token when signed
    /// in; when the server answers 401 (or 403 for more scope), signs in
    /// and sends it again.
    async fn execute(
        &self,
        build: impl Fn() -> Result<Request<Full<Bytes>>, CallError>,
    ) -> Result<http::Response<Incoming>, CallError> {
        #[cfg(feature = "auth")]
        if let Some(auth) = &self.auth {
            auth.before_request().await;
            let mut attempt = crate::auth::Attempt::default();
            loop {
                let mut request = build()?;
                let (method, uri) = (request.method().clone(), request.uri().clone());
                let token = auth.authorize(&method, &uri, request.headers_mut());
                let response = self
                    .client
                    .request(request)
                    .await
                    .map_err(|e| request_failed(&self.url, &e))?;
                let next = auth
                    .answer(
                        response.status(),
                        response.headers(),
                        token.as_ref(),
                        &mut attempt,
                    )
                    .await
                    .map_err(|e| CallError::Transport(Box::new(e)))?;
                match next {
                    crate::auth::Next::Done => return Ok(response),
                    crate::auth::Next::Retry => drain(response.into_body()),
                }
            }
        }
        self.client
            .request(build()?)
            .await
            .map_err(|e| request_failed(&self.url, &e))
    }

    fn current_session(&self) -> Option<HeaderValue> {
        lock(&self.state).session.clone()
    }

    /// Speaks the modern era (headers mirrored from the body, no session).
    pub(crate) fn set_modern(&self, modern: bool) {
        lock(&self.state).modern = modern;
    }

    /// The negotiated legacy version, sent as `MCP-Protocol-Version` from now on.
    pub(crate) fn set_protocol_version(&self, version: ProtocolVersion) {
        lock(&self.state).protocol_version = Some(HeaderValue::from_static(version.as_str()));
    }

    /// Headers every legacy request carries after `initialize`.
    fn session_headers(&self) -> HeaderMap {
        let st = lock(&self.state);
        let mut h = self.headers.clone();
        if !st.modern {
            if let Some(s) = &st.session {
                h.insert(HeaderName::from_static(SESSION_ID), s.clone());
            }
            if let Some(v) = &st.protocol_version {
                h.insert(HeaderName::from_static(PROTOCOL_VERSION), v.clone());
            }
        }
        h
    }

    fn post(
        &self,
        body: Bytes,
        method: Option<&str>,
        name: Option<&str>,
        params: &[(String, String)],
    ) -> Result<Request<Full<Bytes>>, CallError> {
        let mut headers = self.session_headers();
        if lock(&self.state).modern {
            headers.insert(
                HeaderName::from_static(PROTOCOL_VERSION),
                HeaderValue::from_static(ProtocolVersion::V2026_07_28.as_str()),
            );
            if let Some(method) = method {
                headers.insert(HeaderName::from_static(MCP_METHOD), header_value(method)?);
            }
            if let Some(name) = name {
                headers.insert(
                    HeaderName::from_static(MCP_NAME),
                    header_value(&encode_value(name))?,
                );
            }
            for (k, v) in params {
                let name = HeaderName::from_bytes(k.as_bytes())
                    .map_err(|_| transport(format!("`{k}` is not a valid header name")))?;
                headers.insert(name, header_value(v)?);
            }
        }
        let mut request = Request::builder()
            .method(Method::POST)
            .uri(self.url.clone())
            .header(header::CONTENT_TYPE, "application/json")
            .header(header::ACCEPT, ACCEPT_BOTH)
            .body(Full::new(body))
            .map_err(|e| transport(format!("cannot build the HTTP request: {e}")))?;
        request.headers_mut().extend(headers);
        #[cfg(feature = "otel")]
        if oxmcp_otel::instrumentation::enabled() {
            oxmcp_otel::propagation::inject_headers(
                &tracing::Span::current(),
                request.headers_mut(),
            );
        }
        Ok(request)
    }

    fn get(&self, last_event_id: Option<&str>) -> Result<Request<Full<Bytes>>, CallError> {
        signed_get(
            &self.url,
            self.session_headers(),
            last_event_id,
            &self.signer(),
        )
    }

    /// Keeps the session id from the `initialize` response.
    fn note_session(&self, response: &http::Response<Incoming>) {
        let mut st = lock(&self.state);
        if st.modern || st.session.is_some() {
            return;
        }
        if let Some(id) = response.headers().get(SESSION_ID) {
            st.session = Some(id.clone());
        }
    }

    /// Sends a request. A 404 to a request that carried a legacy session id
    /// means the server ended the session: the transport forgets it and says
    /// so ([`session_ended`](crate::error::session_ended)); the connection
    /// core opens a new session and sends the request again.
    async fn send_request(&self, out: Outgoing) -> Result<(), CallError> {
        let session = self.current_session();
        match self.send_once(out).await {
            Err(e)
                if session.is_some()
                    && crate::error::http_status(&e)
                        .is_some_and(|s| s.status == StatusCode::NOT_FOUND) =>
            {
                let mut st = lock(&self.state);
                if st.session == session {
                    st.session = None;
                }
                Err(crate::error::session_ended())
            }
            other => other,
        }
    }

    async fn send_once(&self, out: Outgoing) -> Result<(), CallError> {
        let body = Bytes::from(out.body);
        let response = self
            .execute(|| {
                self.post(
                    body.clone(),
                    Some(&out.head.method),
                    out.head.name.as_deref(),
                    &out.head.param_headers,
                )
            })
            .await?;
        self.note_session(&response);
        let status = response.status();
        if !status.is_success() {
            // A 404 is reported by its status even when its body answers the
            // request by id (as ours does since the id was readable): to a
            // request in a session, it says the session is gone, and
            // `send_request` starts a new one.
            let id = (status != StatusCode::NOT_FOUND).then_some(&out.head.id);
            return Err(error_status(response, id).await);
        }
        if status == StatusCode::ACCEPTED {
            return Err(transport(
                "the server accepted the request (HTTP 202) but sent no answer",
            ));
        }
        match kind_of(response.headers()) {
            Kind::Json => {
                let bytes = read_body(response.into_body(), self.max_message).await?;
                let text = std::str::from_utf8(&bytes)
                    .map_err(|_| transport("the server's JSON response is not UTF-8"))?;
                let msg = Message::parse(text).map_err(|e| {
                    transport(format!(
                        "the server's JSON response is not a JSON-RPC message: {e}"
                    ))
                })?;
                let answered = match &msg {
                    Message::Response(r) => r.id == out.head.id,
                    Message::Error(e) => e.id.as_ref() == Some(&out.head.id),
                    _ => false,
                };
                self.shared.dispatch(msg);
                if answered {
                    Ok(())
                } else {
                    Err(transport(
                        "the server's JSON response does not answer the request",
                    ))
                }
            }
            Kind::Sse => self.read_stream(response.into_body(), &out.head.id).await,
            Kind::Other(ct) => Err(transport(format!(
                "the server answered with Content-Type `{ct}`, neither JSON nor an event stream"
            ))),
        }
    }

    /// Reads a request's SSE stream until its response; in the legacy era a
    /// stream that ends early is resumed after the server's `retry` delay.
    async fn read_stream(&self, body: Incoming, id: &RequestId) -> Result<(), CallError> {
        let mut body = body;
        let mut parser = SseParser::new(self.max_message);
        let mut quiet = 0;
        loop {
            let before = parser.last_event_id().map(str::to_owned);
            let shared = &self.shared;
            let ended = pump(&mut body, &mut parser, |event| {
                if on_message(shared, &event, Some(id)) {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            })
            .await;
            match ended {
                Ok(true) => {
                    drain(body);
                    return Ok(());
                }
                Ok(false) => {}
                Err(e) => tracing::debug!(error = %e, "the response stream broke"),
            }
            if lock(&self.state).modern {
                return Err(transport(
                    "the server closed the response stream before answering",
                ));
            }
            let Some(last) = parser.last_event_id().map(str::to_owned) else {
                return Err(transport(
                    "the response stream ended before the answer and cannot be resumed (the server sent no event id)",
                ));
            };
            quiet = if before.as_deref() == Some(last.as_str()) {
                quiet + 1
            } else {
                0
            };
            if quiet >= MAX_QUIET_RESUMPTIONS {
                return Err(transport(format!(
                    "the response stream ended before the answer; {quiet} resumptions brought nothing new"
                )));
            }
            let delay = parser.retry().unwrap_or(DEFAULT_RETRY);
            tracing::debug!(?delay, last_event_id = %last, "resuming the response stream");
            tokio::time::sleep(delay).await;
            let response = self
                .client
                .request(self.get(Some(&last))?)
                .await
                .map_err(|e| request_failed(&self.url, &e))?;
            if !response.status().is_success() {
                return Err(error_status(response, None).await);
            }
            if !matches!(kind_of(response.headers()), Kind::Sse) {
                return Err(transport(
                    "the server answered a resumption without an event stream",
                ));
            }
            body = response.into_body();
            parser.new_connection();
        }
    }

    async fn send_message(&self, message: Vec<u8>) -> Result<(), CallError> {
        let body = Bytes::from(message);
        let response = self
            .execute(|| self.post(body.clone(), None, None, &[]))
            .await?;
        if response.status().is_success() {
            drain(response.into_body());
            Ok(())
        } else {
            Err(error_status(response, None).await)
        }
    }

    /// Opens the legacy standalone `GET` stream for server-initiated
    /// messages, reconnecting while the server keeps offering it.
    ///
    /// The first `GET` is answered before this returns: servers send
    /// messages unrelated to a request (such as a tool's sampling or
    /// elicitation request, in some SDKs) only on this stream, and drop them
    /// when it is not open yet.
    pub(crate) async fn start_standalone(&self) {
        let headers = self.session_headers();
        let signer = self.signer();
        let first = match signed_get(&self.url, headers.clone(), None, &signer) {
            Ok(request) => {
                tokio::time::timeout(Duration::from_secs(10), self.client.request(request))
                    .await
                    .ok()
            }
            Err(_) => return,
        };
        let task = tokio::spawn(standalone(
            self.client.clone(),
            self.url.clone(),
            headers,
            Arc::clone(&self.shared),
            self.max_message,
            first,
            signer,
        ));
        if let Some(old) = lock(&self.standalone).replace(task.abort_handle()) {
            old.abort();
        }
    }

    /// The `DELETE` that ends a legacy session, if there is one.
    fn delete_request(&self) -> Option<Request<Full<Bytes>>> {
        let mut st = lock(&self.state);
        if st.modern || st.deleted {
            return None;
        }
        let session = st.session.clone()?;
        st.deleted = true;
        drop(st);
        let mut request = Request::builder()
            .method(Method::DELETE)
            .uri(self.url.clone())
            .body(Full::new(Bytes::new()))
            .ok()?;
        let mut headers = self.session_headers();
        self.signer().sign(&Method::DELETE, &self.url, &mut headers);
        request.headers_mut().extend(headers);
        request
            .headers_mut()
            .insert(HeaderName::from_static(SESSION_ID), session);
        Some(request)
    }
}

/// Adds the credentials, when signed in, to a request: fresh for each one
/// (a DPoP proof is good for one request only).
#[derive(Clone)]
struct Signer {
    #[cfg(feature = "auth")]
    auth: Option<Arc<crate::auth::Authenticator>>,
}

impl Signer {
    fn sign(&self, method: &Method, url: &Uri, headers: &mut HeaderMap) {
        #[cfg(feature = "auth")]
        if let Some(auth) = &self.auth {
            auth.authorize(method, url, headers);
        }
        #[cfg(not(feature = "auth"))]
        let _ = (method, url, headers);
    }

    /// Keeps what an answer says for the credentials (a DPoP nonce).
    fn note(&self, headers: &HeaderMap) {
        #[cfg(feature = "auth")]
        if let Some(auth) = &self.auth {
            auth.note_nonce(headers);
        }
        #[cfg(not(feature = "auth"))]
        let _ = headers;
    }
}

/// A `GET` of the stream at `url`, with the credentials `signer` adds.
fn signed_get(
    url: &Uri,
    mut headers: HeaderMap,
    last_event_id: Option<&str>,
    signer: &Signer,
) -> Result<Request<Full<Bytes>>, CallError> {
    signer.sign(&Method::GET, url, &mut headers);
    get_request(url, headers, last_event_id)
}

fn get_request(
    url: &Uri,
    headers: HeaderMap,
    last_event_id: Option<&str>,
) -> Result<Request<Full<Bytes>>, CallError> {
    let mut request = Request::builder()
        .method(Method::GET)
        .uri(url.clone())
        .header(header::ACCEPT, "text/event-stream")
        .body(Full::new(Bytes::new()))
        .map_err(|e| transport(format!("cannot build the HTTP request: {e}")))?;
    request.headers_mut().extend(headers);
    if let Some(id) = last_event_id {
        request
            .headers_mut()
            .insert(HeaderName::from_static(LAST_EVENT_ID), header_value(id)?);
    }
    Ok(request)
}

/// The standalone stream's loop (legacy era). A 405 means the server offers
/// none, which is fine; other failures are retried a few times.
async fn standalone(
    client: HttpClient,
    url: Uri,
    headers: HeaderMap,
    shared: Arc<Shared>,
    max_message: usize,
    first: Option<Result<http::Response<Incoming>, hyper_util::client::legacy::Error>>,
    signer: Signer,
) {
    let mut parser = SseParser::new(max_message);
    let mut failures = 0u32;
    let mut first = first;
    while shared.closed().is_none() {
        let response = if let Some(response) = first.take() {
            response
        } else {
            let Ok(request) = signed_get(&url, headers.clone(), parser.last_event_id(), &signer)
            else {
                return;
            };
            client.request(request).await
        };
        match response {
            Ok(r) if r.status() == StatusCode::METHOD_NOT_ALLOWED => {
                tracing::debug!("the server offers no standalone SSE stream (405)");
                return;
            }
            Ok(r) if r.status().is_success() && matches!(kind_of(r.headers()), Kind::Sse) => {
                failures = 0;
                signer.note(r.headers());
                parser.new_connection();
                let mut body = r.into_body();
                let ended = pump(&mut body, &mut parser, |event| {
                    on_message(&shared, &event, None);
                    ControlFlow::Continue(())
                })
                .await;
                if let Err(e) = ended {
                    tracing::debug!(error = %e, "the standalone stream broke");
                }
            }
            Ok(r) => {
                failures += 1;
                // A server asking for a (new) DPoP nonce gets it next time.
                signer.note(r.headers());
                tracing::debug!(status = %r.status(), "the standalone stream was refused");
                if r.status() == StatusCode::NOT_FOUND || failures >= 3 {
                    return;
                }
            }
            Err(e) => {
                failures += 1;
                tracing::debug!(error = %oxmcp_types::error::Chain(&e), "the standalone stream could not be opened");
                if failures >= 3 {
                    return;
                }
            }
        }
        tokio::time::sleep(parser.retry().unwrap_or(DEFAULT_RETRY)).await;
    }
}

impl Transport for HttpTransport {
    #[cfg(feature = "otel")]
    fn network(&self) -> oxmcp_otel::instrumentation::Transport {
        oxmcp_otel::instrumentation::Transport::Http
    }

    fn request(&self, request: Outgoing) -> BoxFuture<'_, Result<(), CallError>> {
        Box::pin(self.send_request(request))
    }

    fn set_era(&self, modern: bool) {
        self.set_modern(modern);
    }

    fn mirrors_params(&self) -> bool {
        lock(&self.state).modern
    }

    fn has_sessions(&self) -> bool {
        true
    }

    fn initialized(&self, version: ProtocolVersion) {
        self.set_protocol_version(version);
    }

    fn opened(&self) -> BoxFuture<'_, ()> {
        Box::pin(self.start_standalone())
    }

    fn send(&self, message: Vec<u8>) -> BoxFuture<'_, Result<(), CallError>> {
        Box::pin(self.send_message(message))
    }

    fn signing_in(&self) -> Option<BoxFuture<'_, ()>> {
        #[cfg(feature = "auth")]
        if let Some(auth) = &self.auth {
            return auth.signing_in();
        }
        None
    }

    fn cancels_by_closing(&self) -> bool {
        lock(&self.state).modern
    }

    fn close(&self) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            if let Some(task) = lock(&self.standalone).take() {
                task.abort();
            }
            if let Some(request) = self.delete_request() {
                let deleted =
                    tokio::time::timeout(Duration::from_secs(5), self.client.request(request))
                        .await;
                match deleted {
                    Ok(Ok(r)) => tracing::debug!(status = %r.status(), "session deleted"),
                    Ok(Err(e)) => {
                        tracing::debug!(error = %oxmcp_types::error::Chain(&e), "deleting the session failed");
                    }
                    Err(_) => tracing::debug!("deleting the session timed out"),
                }
            }
        })
    }
}

impl Drop for HttpTransport {
    fn drop(&mut self) {
        if let Some(task) = lock(&self.standalone).take() {
            task.abort();
        }
        if let Some(request) = self.delete_request() {
            if let Ok(rt) = tokio::runtime::Handle::try_current() {
                let client = self.client.clone();
                rt.spawn(async move {
                    let _ =
                        tokio::time::timeout(Duration::from_secs(5), client.request(request)).await;
                });
            }
        }
    }
}
