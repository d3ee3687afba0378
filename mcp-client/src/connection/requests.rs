//! Sending requests: ids, the era's `_meta`, waiting for the response, the
//! timeout, cancellation when a call is dropped, progress callbacks, and the
//! modern era's `input_required` rounds (MRTR).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use oxmcp_types::call::CallError;
use oxmcp_types::jsonrpc::{Notification, Request};
use oxmcp_types::modern::{meta as meta_key, InputRequest, InputRequiredResult, RequestMeta};
use oxmcp_types::{
    ClientCapabilities, ErrorObject, Implementation, JsonObject, Meta, ProtocolVersion, RequestId,
};
use serde_json::Value;

use crate::connection::{cancelled_notification, lock, Shared};
use crate::connection::{Outgoing, Transport};
use crate::error::transport;
use crate::options::ProgressFn;

/// What does not change over a connection's life.
#[derive(Debug)]
pub(crate) struct Config {
    pub(crate) client_info: Implementation,
    pub(crate) capabilities: ClientCapabilities,
    /// How long a request may go without an answer or progress.
    pub(crate) timeout: Duration,
    /// How long a request may take in all.
    pub(crate) max_call_time: Duration,
    /// Whether every timed request carries a progress token.
    pub(crate) progress_tokens: bool,
    pub(crate) max_input_rounds: usize,
}

/// One request to send.
pub(crate) struct Req {
    pub(crate) method: String,
    /// The params object (`_meta` is added as the era needs).
    pub(crate) params: JsonObject,
    pub(crate) modern: bool,
    /// How long to wait without an answer or progress; `None`: as long
    /// as it takes (a listen stream).
    pub(crate) timeout: Option<Duration>,
    /// The cap on the whole wait (`None`: the client's).
    pub(crate) max_time: Option<Duration>,
    pub(crate) progress: Option<ProgressFn>,
    /// Send `notifications/cancelled` if dropped unanswered (never for `initialize`).
    pub(crate) cancellable: bool,
    /// 2026-07-28 HTTP: `Mcp-Name`.
    #[cfg(feature = "http")]
    pub(crate) name: Option<String>,
    /// 2026-07-28 HTTP: `Mcp-Param-*`.
    #[cfg(feature = "http")]
    pub(crate) param_headers: Vec<(String, String)>,
    /// A pre-allocated id (a listen stream registers its id first).
    pub(crate) id: Option<RequestId>,
}

impl Req {
    pub(crate) fn new(method: &str, params: JsonObject, modern: bool) -> Req {
        Req {
            method: method.to_owned(),
            params,
            modern,
            timeout: None,
            max_time: None,
            progress: None,
            cancellable: true,
            #[cfg(feature = "http")]
            name: None,
            #[cfg(feature = "http")]
            param_headers: Vec::new(),
            id: None,
        }
    }
}

/// Renewing a legacy session the server ended: once for every request that
/// saw it end at the same time.
#[derive(Debug, Default)]
pub(crate) struct Renewal {
    /// Only after a legacy handshake over a transport with sessions.
    enabled: AtomicBool,
    /// Bumped by each renewal: a request that saw an older one renews nothing.
    pub(crate) generation: AtomicU64,
    pub(crate) one_at_a_time: tokio::sync::Mutex<()>,
}

impl Renewal {
    pub(crate) fn enable(&self, on: bool) {
        self.enabled.store(on, Ordering::Release);
    }

    /// The generation now, if sessions can be renewed at all.
    pub(crate) fn watch(&self) -> Option<u64> {
        self.enabled
            .load(Ordering::Acquire)
            .then(|| self.generation.load(Ordering::Acquire))
    }
}

/// A connection: shared state, transport and configuration.
#[derive(Clone)]
pub(crate) struct Conn {
    pub(crate) shared: Arc<Shared>,
    pub(crate) transport: Arc<dyn Transport>,
    pub(crate) config: Arc<Config>,
    /// Renewing the legacy session when the server ends it (`Conn::renew`).
    pub(crate) renewal: Arc<Renewal>,
    /// When the legacy session opened, for its duration.
    #[cfg(feature = "otel")]
    pub(crate) clock: Arc<super::telemetry::SessionClock>,
}

impl Conn {
    pub(crate) fn new(
        shared: Arc<Shared>,
        transport: Arc<dyn Transport>,
        config: Arc<Config>,
    ) -> Conn {
        Conn {
            shared,
            transport,
            config,
            renewal: Arc::default(),
            #[cfg(feature = "otel")]
            clock: Arc::default(),
        }
    }
}

impl std::fmt::Debug for Conn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Conn").finish_non_exhaustive()
    }
}

/// Removes a call's traces when it ends, and cancels it at the server when
/// it ends unanswered (dropped or timed out).
struct InFlight<'a> {
    conn: &'a Conn,
    id: RequestId,
    progress_token: Option<String>,
    cancel: bool,
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.conn.shared.forget(&self.id);
        if let Some(token) = &self.progress_token {
            self.conn.shared.remove_progress(token);
        }
        if !self.cancel
            || self.conn.transport.cancels_by_closing()
            || self.conn.shared.closed().is_some()
        {
            return;
        }
        let body = cancelled_notification(&self.id, "the client no longer waits for the result");
        let transport = Arc::clone(&self.conn.transport);
        if let Ok(rt) = tokio::runtime::Handle::try_current() {
            rt.spawn(async move {
                if let Err(e) = transport.send(body).await {
                    tracing::debug!(error = %oxmcp_types::error::Chain(&e), "could not send notifications/cancelled");
                }
            });
        }
    }
}

impl Conn {
    /// The modern protocol fields of every request's `_meta`.
    pub(crate) fn modern_meta(&self) -> Meta {
        RequestMeta {
            protocol_version: ProtocolVersion::V2026_07_28.as_str().to_owned(),
            client_capabilities: self.config.capabilities.clone(),
            client_info: Some(self.config.client_info.clone()),
            log_level: *lock(&self.shared.log_level),
            progress_token: None,
        }
        .to_meta()
    }

    /// Sends one request and waits for its response (in its CLIENT span,
    /// with the `otel` feature).
    pub(crate) async fn request(&self, mut req: Req) -> Result<Value, CallError> {
        let id = req.id.take().unwrap_or_else(|| self.shared.next_id());
        #[cfg(feature = "otel")]
        if let Some(op) = super::telemetry::start(self, &req, &id) {
            use tracing::Instrument as _;
            let method_name = req.method.clone();
            let span = op.span().clone();
            let result = self.exchange(req, id).instrument(span).await;
            super::telemetry::end(op, &method_name, &result);
            return result;
        }
        self.exchange(req, id).await
    }

    /// Sends `req` as request `id` and waits for its response.
    async fn exchange(&self, req: Req, id: RequestId) -> Result<Value, CallError> {
        let mut params = req.params;
        let mut meta = match params.remove("_meta") {
            Some(Value::Object(m)) => m,
            _ => Meta::new(),
        };
        if req.modern {
            meta.extend(self.modern_meta());
        }
        // Progress keeps a timed request alive: each notification wakes
        // `progressed`, and the caller's callback, if any, sees it too.
        // (Not on the handshake's requests, the ones that cannot be cancelled.)
        let wants_token = req.progress.is_some()
            || (req.timeout.is_some() && req.cancellable && self.config.progress_tokens);
        let (progress_token, progressed) = if wants_token {
            let (key, wake) = self.track_progress(&id, req.progress.clone(), &mut meta);
            (Some(key), Some(wake))
        } else {
            (None, None)
        };
        #[cfg(feature = "otel")]
        super::telemetry::inject(&mut meta);
        if !meta.is_empty() {
            params.insert("_meta".to_owned(), Value::Object(meta));
        }
        let body = serde_json::to_vec(&Request::new(
            id.clone(),
            req.method.clone(),
            Value::Object(params),
        ))
        .map_err(|e| transport(format!("cannot serialize the request: {e}")))?;
        let mut guard = InFlight {
            conn: self,
            id: id.clone(),
            progress_token,
            cancel: req.cancellable,
        };
        let rx = self.shared.register(&id)?;
        let outgoing = Outgoing {
            body,
            #[cfg(feature = "http")]
            head: crate::connection::Head {
                id: id.clone(),
                method: req.method,
                name: req.name,
                param_headers: req.param_headers,
            },
        };
        let renewable = self.renewal.watch();
        let delivery = async {
            let Some(seen) = renewable else {
                return self.transport.request(outgoing).await;
            };
            match self.transport.request(outgoing.clone()).await {
                // The server ended the legacy session: a new one, and again.
                Err(e) if crate::error::is_session_ended(&e) => {
                    self.renew(seen).await?;
                    self.transport.request(outgoing).await
                }
                other => other,
            }
        };
        let exchange = async {
            tokio::pin!(delivery);
            tokio::pin!(rx);
            let mut delivered = false;
            loop {
                tokio::select! {
                    biased;
                    reply = &mut rx => {
                        return reply.unwrap_or_else(|_| Err(transport("the connection closed")));
                    }
                    outcome = &mut delivery, if !delivered => {
                        outcome?;
                        delivered = true;
                    }
                }
            }
        };
        let result = match req.timeout {
            Some(idle) => {
                let cap = req.max_time.unwrap_or(self.config.max_call_time);
                self.within(idle, cap, progressed.as_deref(), exchange)
                    .await
            }
            None => exchange.await,
        };
        // Answered (or the connection is gone): nothing to cancel.
        guard.cancel &= matches!(result, Err(CallError::Timeout(_)));
        result
    }

    /// Gives request `id` a progress token in `meta`: each notification for
    /// it wakes the returned `Notify` and reaches `user`, if any. Returns the
    /// token's key (to forget it when the request ends).
    fn track_progress(
        &self,
        id: &RequestId,
        user: Option<ProgressFn>,
        meta: &mut Meta,
    ) -> (String, Arc<tokio::sync::Notify>) {
        let token = match id {
            RequestId::Number(n) => Value::from(*n),
            RequestId::String(s) => Value::from(s.clone()),
        };
        let key = token.to_string();
        let progressed = Arc::new(tokio::sync::Notify::new());
        let wake = Arc::clone(&progressed);
        self.shared.add_progress(
            key.clone(),
            Arc::new(move |p| {
                wake.notify_one();
                if let Some(f) = &user {
                    f(p);
                }
            }),
        );
        meta.insert(meta_key::PROGRESS_TOKEN.to_owned(), token);
        (key, progressed)
    }

    /// Runs `exchange` while it goes no longer than `idle` without an
    /// answer or progress (each `progressed` wake-up, when the request has a
    /// progress token, starts that wait
    /// again), and no longer than `cap` in all; the time a user spends
    /// signing in (authorization) counts toward neither.
    async fn within<T>(
        &self,
        idle: Duration,
        cap: Duration,
        progressed: Option<&tokio::sync::Notify>,
        exchange: impl std::future::Future<Output = Result<T, CallError>>,
    ) -> Result<T, CallError> {
        tokio::pin!(exchange);
        let mut deadline = tokio::time::Instant::now() + cap;
        loop {
            let quiet = tokio::time::sleep(idle);
            tokio::select! {
                r = &mut exchange => return r,
                () = async {
                    match progressed {
                        Some(p) => p.notified().await,
                        None => std::future::pending().await,
                    }
                } => continue,
                () = quiet => {}
                () = tokio::time::sleep_until(deadline) => {}
            }
            let Some(signed_in) = self.transport.signing_in() else {
                let limit = if tokio::time::Instant::now() >= deadline {
                    cap
                } else {
                    idle
                };
                return Err(CallError::Timeout(limit));
            };
            let started = tokio::time::Instant::now();
            tokio::select! {
                r = &mut exchange => return r,
                () = signed_in => {}
            }
            deadline += started.elapsed();
        }
    }

    /// Sends a request, fulfilling `input_required` rounds (2026-07-28 MRTR)
    /// with the installed handlers: each retry has a new id, the same
    /// params, the `inputResponses` and the echoed `requestState`.
    pub(crate) async fn request_with_input(&self, req: Req) -> Result<Value, CallError> {
        let modern = req.modern;
        let result = self.request_with_rounds(req).await?;
        // A task (the tasks extension): followed to its end.
        if crate::tasks::is_task(&result) {
            return self.follow_task(result, modern).await;
        }
        Ok(result)
    }

    async fn request_with_rounds(&self, req: Req) -> Result<Value, CallError> {
        if !req.modern {
            return self.request(req).await;
        }
        let original = req.params.clone();
        let mut round = req;
        for _ in 0..=self.config.max_input_rounds {
            let mut retry = Req {
                method: round.method.clone(),
                params: original.clone(),
                modern: true,
                timeout: round.timeout,
                max_time: round.max_time,
                progress: round.progress.clone(),
                cancellable: round.cancellable,
                #[cfg(feature = "http")]
                name: round.name.clone(),
                #[cfg(feature = "http")]
                param_headers: round.param_headers.clone(),
                id: None,
            };
            let result = self.request(round).await?;
            if result.get("resultType").and_then(Value::as_str) != Some("input_required") {
                return Ok(result);
            }
            let input: InputRequiredResult = serde_json::from_value(result).map_err(|e| {
                CallError::Protocol(ErrorObject::invalid_params(format!(
                    "malformed input_required result: {e}"
                )))
            })?;
            let responses = self
                .fulfil(input.input_requests.unwrap_or_default())
                .await?;
            retry
                .params
                .insert("inputResponses".to_owned(), Value::Object(responses));
            if let Some(state) = input.request_state {
                retry
                    .params
                    .insert("requestState".to_owned(), Value::String(state));
            }
            round = retry;
        }
        Err(CallError::Protocol(ErrorObject::new(
            oxmcp_types::jsonrpc::code::INTERNAL_ERROR,
            format!(
                "the server still asked for input after {} rounds",
                self.config.max_input_rounds
            ),
        )))
    }

    /// Runs each input request through its handler, in order.
    pub(crate) async fn fulfil(
        &self,
        requests: BTreeMap<String, InputRequest>,
    ) -> Result<JsonObject, CallError> {
        let mut responses = JsonObject::new();
        for (key, request) in requests {
            let params = request.params.unwrap_or(Value::Object(JsonObject::new()));
            let result = self
                .shared
                .handlers
                .run(&request.method, params)
                .await
                .map_err(|mut e| {
                    e.message =
                        format!("input request `{key}` ({}): {}", request.method, e.message);
                    CallError::Protocol(e)
                })?;
            responses.insert(key, result);
        }
        Ok(responses)
    }

    /// Sends a notification.
    pub(crate) async fn notify(
        &self,
        method: &str,
        params: Option<Value>,
    ) -> Result<(), CallError> {
        let n = Notification {
            params,
            ..Notification::new(method.to_owned(), Value::Null)
        };
        let body = serde_json::to_vec(&n)
            .map_err(|e| transport(format!("cannot serialize the notification: {e}")))?;
        self.transport.send(body).await
    }
}
