//! JSON-RPC method routing for both protocol eras. No I/O: transports hand in
//! parsed messages and get back bytes to send (or a future producing them).
//!
//! A request is served in the modern era (2026-07-28, stateless) when its
//! `params._meta` names a protocol version; otherwise it belongs to the
//! connection's legacy session, which `initialize` opens.

use mcp_wire::sync::lock;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use mcp_types::jsonrpc::{code, ErrorResponse, Notification, RawMessage, Response};
use mcp_types::lifecycle::{EmptyResult, MetaParams};
use mcp_types::modern::{
    meta as meta_key, MetaError, RawRequestMeta, RequestMeta, SubscriptionFilter,
    SubscriptionsAcknowledgedParams, SubscriptionsListenParams, UnsupportedVersionData,
};
use mcp_types::notification::{CancelledParams, SetLevelParams};
use mcp_types::{
    method, CacheScope, ClientCapabilities, DiscoverResult, ErrorObject, Implementation,
    InitializeParams, InitializeResult, ListToolsParams, ListToolsResult, LoggingLevel, Meta,
    ProtocolVersion, RequestId, ResultType, ServerCapabilities,
};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::Value;

use crate::args::Args;
use crate::context::{Context, ContextParts, Outbound};
use crate::policy::{
    CallOutcome, Caller, Middleware, Next, ToolCall, ToolInfo, TransportKind, VisibilityHook,
};
use crate::registry::{LiveTools, Registry};
use crate::tool::BoxFuture;

/// The server's shared state: identity, capabilities, tools.
pub(crate) struct ServerCore {
    pub(crate) info: Implementation,
    pub(crate) instructions: Option<String>,
    pub(crate) capabilities: ServerCapabilities,
    pub(crate) tools: LiveTools,
    pub(crate) page_size: usize,
    pub(crate) list_ttl_ms: u64,
    /// `{"io.modelcontextprotocol/serverInfo": …}`, put on every modern result.
    server_info_meta: Meta,
    /// The same, serialized once: spliced into modern call results.
    server_info_meta_json: Vec<u8>,
    pub(crate) policy: Policy,
}

/// What runs around tool calls: visibility, middleware, timeouts, bounds.
#[derive(Default)]
pub(crate) struct Policy {
    pub(crate) visibility: Option<Arc<VisibilityHook>>,
    pub(crate) middleware: Vec<Arc<dyn Middleware>>,
    pub(crate) call_timeout: Option<std::time::Duration>,
    pub(crate) limits: CallLimits,
}

impl Policy {
    pub(crate) fn wants_caller(&self) -> bool {
        self.visibility.is_some() || !self.middleware.is_empty()
    }
}

/// A bound on calls running at once, and on calls waiting for a slot.
pub(crate) struct CallLimits {
    pub(crate) running: Arc<tokio::sync::Semaphore>,
    pub(crate) max_running: usize,
    pub(crate) max_waiting: usize,
    pub(crate) waiting: Arc<std::sync::atomic::AtomicUsize>,
}

/// A slot to run a call in: held now, or to wait for.
enum Admission {
    Now(Option<tokio::sync::OwnedSemaphorePermit>),
    Wait(Arc<tokio::sync::Semaphore>, WaitingGuard),
}

/// Counts a call waiting for a slot while it exists.
struct WaitingGuard(Arc<std::sync::atomic::AtomicUsize>);

impl Drop for WaitingGuard {
    fn drop(&mut self) {
        self.0.fetch_sub(1, std::sync::atomic::Ordering::AcqRel);
    }
}

impl Default for CallLimits {
    fn default() -> Self {
        CallLimits::new(
            crate::server::DEFAULT_MAX_RUNNING_CALLS,
            crate::server::DEFAULT_MAX_WAITING_CALLS,
        )
    }
}

impl CallLimits {
    pub(crate) fn new(running: usize, waiting: usize) -> Self {
        let running = running.clamp(1, tokio::sync::Semaphore::MAX_PERMITS);
        CallLimits {
            running: Arc::new(tokio::sync::Semaphore::new(running)),
            max_running: running,
            max_waiting: waiting,
            waiting: Arc::default(),
        }
    }

    fn admit(&self) -> Result<Admission, ErrorObject> {
        if let Ok(permit) = Arc::clone(&self.running).try_acquire_owned() {
            return Ok(Admission::Now(Some(permit)));
        }
        let waiting = self
            .waiting
            .fetch_add(1, std::sync::atomic::Ordering::AcqRel);
        let guard = WaitingGuard(Arc::clone(&self.waiting));
        if waiting >= self.max_waiting {
            drop(guard);
            return Err(ErrorObject::new(
                SERVER_BUSY,
                format!(
                    "server busy: {} calls running and {} waiting; retry later",
                    self.max_running, self.max_waiting
                ),
            ));
        }
        Ok(Admission::Wait(Arc::clone(&self.running), guard))
    }
}

/// The JSON-RPC error a full server answers with (implementation-defined range).
pub(crate) const SERVER_BUSY: i32 = -32000;

/// Maps a call's result to `Ok`, keeping it `Unpin` (see [`ServerCore::run_call`]).
struct Infallible<F>(F);

impl<F: std::future::Future<Output = mcp_types::CallToolResult> + Unpin> std::future::Future
    for Infallible<F>
{
    type Output = CallOutcome;

    fn poll(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<CallOutcome> {
        std::pin::Pin::new(&mut self.0).poll(cx).map(Ok)
    }
}

/// Per-connection state: the legacy session (if `initialize` opened one) and
/// the calls in flight, for cancellation.
pub(crate) struct Session {
    legacy: Mutex<Option<LegacyState>>,
    inflight: Mutex<HashMap<RequestId, Context>>,
    /// Open `subscriptions/listen` streams: they never finish on their own.
    listens: Mutex<HashMap<RequestId, Context>>,
    kind: TransportKind,
    id: Option<Arc<str>>,
}

/// What a transport knows about one request beyond its body.
#[derive(Default)]
pub(crate) struct RequestInfo {
    /// The HTTP headers, when the server's hooks may look at them.
    pub(crate) headers: Option<Arc<http::HeaderMap>>,
}

#[derive(Clone)]
struct LegacyState {
    version: ProtocolVersion,
    log_level: Option<LoggingLevel>,
    client_capabilities: Arc<ClientCapabilities>,
    client: Arc<Implementation>,
}

/// What the transport should do with a message.
pub(crate) enum Outcome {
    /// Send these bytes now.
    Reply(Vec<u8>),
    /// Send this error response now (`code` lets HTTP pick the status).
    Failed {
        /// The serialized error response.
        bytes: Vec<u8>,
        /// Its JSON-RPC error code.
        #[cfg_attr(not(feature = "http"), allow(dead_code))]
        code: i32,
    },
    /// Run this; send what it yields (nothing when the call was cancelled).
    Spawn(BoxFuture<Option<Vec<u8>>>),
    /// Nothing to send (a notification, a response).
    Nothing,
}

/// Which era a request is served in.
enum Era {
    Legacy(LegacyState),
    Modern(Box<RequestMeta>),
}

impl Era {
    fn version(&self) -> ProtocolVersion {
        match self {
            Era::Legacy(s) => s.version,
            Era::Modern(_) => ProtocolVersion::V2026_07_28,
        }
    }
}

type Reply = Result<Vec<u8>, ErrorObject>;

fn failed(id: RequestId, error: ErrorObject) -> Outcome {
    Outcome::Failed {
        code: error.code,
        bytes: error_reply(Some(id), error),
    }
}

/// How long a burst of tool-list changes may last before subscribers hear of
/// it: every change within this window yields one notification.
pub(crate) const CHANGE_DEBOUNCE: std::time::Duration = std::time::Duration::from_millis(10);

/// Waits for the next burst of tool-list changes to settle. `false` when the
/// server is gone.
pub(crate) async fn next_tools_change(rx: &mut tokio::sync::watch::Receiver<u64>) -> bool {
    if rx.changed().await.is_err() {
        return false;
    }
    tokio::time::sleep(CHANGE_DEBOUNCE).await;
    rx.borrow_and_update();
    true
}

/// `notifications/tools/list_changed`, optionally tagged with a subscription id.
pub(crate) fn tools_list_changed(subscription: Option<&Meta>) -> Vec<u8> {
    encode(&Notification::new(
        method::TOOLS_LIST_CHANGED,
        mcp_types::notification::NotificationMetaParams {
            meta: subscription.cloned(),
        },
    ))
}

/// Serializes one message. Our types always serialize; a failure is still
/// answered rather than unwrapped.
pub(crate) fn encode<T: Serialize>(value: &T) -> Vec<u8> {
    serde_json::to_vec(value).unwrap_or_else(|e| {
        tracing::error!(error = %e, "failed to serialize a message");
        br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"internal error: unserializable message"}}"#.to_vec()
    })
}

pub(crate) fn error_reply(id: Option<RequestId>, error: ErrorObject) -> Vec<u8> {
    encode(&ErrorResponse::new(id, error))
}

/// A JSON-RPC batch (revision 2025-03-26) being answered: the replies that
/// are ready, and the calls still running. The same rules hold on every
/// transport: `initialize` must not be in a batch, an element that is not a
/// message gets its own error, and the replies go back as one array.
pub(crate) struct Batch {
    replies: Vec<Vec<u8>>,
    pending: Vec<BoxFuture<Option<Vec<u8>>>>,
    /// Whether any element was a request (HTTP answers 202 otherwise).
    pub(crate) any_request: bool,
}

impl Batch {
    /// Whether nothing will be sent back (only notifications and responses).
    pub(crate) fn is_silent(&self) -> bool {
        self.replies.is_empty() && self.pending.is_empty()
    }

    /// Waits for the running calls; the array of every reply, or `None`
    /// when there is none to send.
    pub(crate) async fn finish(self) -> Option<Vec<u8>> {
        let mut replies = self.replies;
        replies.extend(
            futures_util::future::join_all(self.pending)
                .await
                .into_iter()
                .flatten(),
        );
        if replies.is_empty() {
            return None;
        }
        let mut joined = Vec::with_capacity(replies.iter().map(|r| r.len() + 1).sum::<usize>() + 1);
        joined.push(b'[');
        for (i, r) in replies.iter().enumerate() {
            if i > 0 {
                joined.push(b',');
            }
            joined.extend_from_slice(r);
        }
        joined.push(b']');
        Some(joined)
    }
}

pub(crate) use mcp_wire::route::is_object;

fn params<T: DeserializeOwned + Default>(raw: Option<&RawValue>) -> Result<T, ErrorObject> {
    match raw {
        None => Ok(T::default()),
        Some(raw) => required_params(Some(raw)),
    }
}

fn required_params<T: DeserializeOwned>(raw: Option<&RawValue>) -> Result<T, ErrorObject> {
    let raw = raw.ok_or_else(|| ErrorObject::invalid_params("missing params"))?;
    // MCP names its params: JSON-RPC's by-position array is not a form of
    // them (serde would read one into a struct field by field).
    if !is_object(raw) {
        return Err(ErrorObject::invalid_params("params must be a JSON object"));
    }
    serde_json::from_str(raw.get())
        .map_err(|e| ErrorObject::invalid_params(format!("invalid params: {e}")))
}

impl Session {
    pub(crate) fn new(kind: TransportKind, id: Option<Arc<str>>) -> Arc<Session> {
        Arc::new(Session {
            legacy: Mutex::new(None),
            inflight: Mutex::new(HashMap::new()),
            listens: Mutex::new(HashMap::new()),
            kind,
            id,
        })
    }

    /// Cancels every call in flight (the connection is going away).
    pub(crate) fn cancel_all(&self) {
        for (_, ctx) in lock(&self.inflight).drain() {
            ctx.cancel();
        }
        self.end_listens();
    }

    /// Ends every open `subscriptions/listen` stream (the connection is closing).
    pub(crate) fn end_listens(&self) {
        for (_, ctx) in lock(&self.listens).drain() {
            ctx.cancel();
        }
    }

    /// The protocol version `initialize` negotiated, if it ran.
    pub(crate) fn legacy_version(&self) -> Option<ProtocolVersion> {
        lock(&self.legacy).as_ref().map(|s| s.version)
    }

    /// Whether the session negotiated 2025-03-26, the one revision with JSON-RPC batches.
    pub(crate) fn allows_batches(&self) -> bool {
        lock(&self.legacy)
            .as_ref()
            .is_some_and(|s| s.version == ProtocolVersion::V2025_03_26)
    }
}

impl ServerCore {
    pub(crate) fn new(
        info: Implementation,
        instructions: Option<String>,
        capabilities: ServerCapabilities,
        tools: LiveTools,
        page_size: usize,
        list_ttl_ms: u64,
        policy: Policy,
    ) -> ServerCore {
        let mut server_info_meta = Meta::new();
        server_info_meta.insert(
            meta_key::SERVER_INFO.to_owned(),
            serde_json::to_value(&info).unwrap_or(Value::Null),
        );
        ServerCore {
            info,
            instructions,
            capabilities,
            tools,
            page_size,
            list_ttl_ms,
            server_info_meta_json: serde_json::to_vec(&server_info_meta)
                .unwrap_or_else(|_| b"{}".to_vec()),
            server_info_meta,
            policy,
        }
    }

    fn registry(&self) -> Arc<Registry> {
        self.tools.snapshot()
    }

    /// Starts answering the elements of a batch (already split, non-empty,
    /// on a session that allows batches).
    pub(crate) fn batch(
        self: &Arc<Self>,
        session: &Arc<Session>,
        items: &[&RawValue],
        out: &Arc<dyn Outbound>,
        info: &RequestInfo,
    ) -> Batch {
        let mut batch = Batch {
            replies: Vec::new(),
            pending: Vec::new(),
            any_request: false,
        };
        for item in items {
            let msg = match RawMessage::parse(item.get()) {
                Ok(msg) => msg,
                Err(e) => {
                    batch.replies.push(encode(&e.to_response()));
                    continue;
                }
            };
            if let RawMessage::Request { id, method, .. } = &msg {
                if method == mcp_types::method::INITIALIZE {
                    batch.replies.push(error_reply(
                        Some(id.clone()),
                        ErrorObject::invalid_request("initialize must not be part of a batch"),
                    ));
                    continue;
                }
                batch.any_request = true;
            }
            match self.handle(session, msg, out, info) {
                Outcome::Reply(bytes) | Outcome::Failed { bytes, .. } => batch.replies.push(bytes),
                Outcome::Spawn(fut) => batch.pending.push(fut),
                Outcome::Nothing => {}
            }
        }
        batch
    }

    /// Handles one incoming message on `session`. Notifications that belong to
    /// a request (progress, log messages, a listen stream's events) go to `out`.
    pub(crate) fn handle(
        self: &Arc<Self>,
        session: &Arc<Session>,
        msg: RawMessage<'_>,
        out: &Arc<dyn Outbound>,
        info: &RequestInfo,
    ) -> Outcome {
        match msg {
            RawMessage::Request { id, method, params } => {
                self.request(session, id, &method, params, out, info)
            }
            RawMessage::Notification { method, params } => {
                Self::notification(session, &method, params);
                Outcome::Nothing
            }
            RawMessage::Response { id, .. } => {
                // We send no requests yet (sampling/elicitation come later); an
                // unsolicited response is logged and dropped, as JSON-RPC allows.
                tracing::debug!(%id, "ignoring a response to a request we did not send");
                Outcome::Nothing
            }
            RawMessage::Error { id, error } => {
                tracing::warn!(id = ?id, code = error.code, message = %error.message, "client reported an error");
                Outcome::Nothing
            }
        }
    }

    fn notification(session: &Session, method: &str, params: Option<&RawValue>) {
        match method {
            method::INITIALIZED => {}
            method::CANCELLED => match required_params::<CancelledParams>(params) {
                Ok(CancelledParams {
                    request_id: Some(id),
                    ..
                }) => {
                    let found = lock(&session.inflight)
                        .remove(&id)
                        .or_else(|| lock(&session.listens).remove(&id));
                    if let Some(ctx) = found {
                        tracing::debug!(%id, "request cancelled by the client");
                        ctx.cancel();
                    }
                }
                Ok(_) => {}
                Err(e) => tracing::debug!(error = %e, "malformed cancellation ignored"),
            },
            other => tracing::debug!(method = other, "ignoring notification"),
        }
    }

    fn request(
        self: &Arc<Self>,
        session: &Arc<Session>,
        id: RequestId,
        method: &str,
        raw: Option<&RawValue>,
        out: &Arc<dyn Outbound>,
        info: &RequestInfo,
    ) -> Outcome {
        let reply = match method {
            method::INITIALIZE if is_modern_request(raw) => {
                // Removed in 2026-07-28: a modern request names no handshake.
                Err(ErrorObject::method_not_found(method))
            }
            method::INITIALIZE => self.initialize(session, &id, raw),
            method::TOOLS_CALL => return self.tools_call(session, id, raw, out, info),
            method::TOOLS_LIST => self.tools_list(session, &id, raw, info),
            // Removed in 2026-07-28; in the legacy era a client may ping even
            // before `initialize` is answered.
            method::PING if is_modern_request(raw) => Err(ErrorObject::method_not_found(method)),
            method::PING => params::<MetaParams>(raw)
                .map(|_| encode(&Response::new(id.clone(), EmptyResult::default()))),
            method::LOGGING_SET_LEVEL => Self::set_level(session, &id, raw),
            method::SERVER_DISCOVER => self.discover(&id, raw),
            method::SUBSCRIPTIONS_LISTEN => return self.listen(session, id, raw, out),
            other => Err(ErrorObject::method_not_found(other)),
        };
        match reply {
            Ok(bytes) => Outcome::Reply(bytes),
            Err(e) => failed(id, e),
        }
    }

    /// Parses params and decides the era: modern when `_meta` names a protocol
    /// version, else the session's legacy state (which must exist).
    fn era_of<P: DeserializeOwned + Default>(
        session: &Session,
        raw: Option<&RawValue>,
        modern: impl FnOnce(&P) -> Option<Result<RequestMeta, MetaError>>,
    ) -> Result<(P, Era), ErrorObject> {
        let p: P = params(raw)?;
        let era = match modern(&p) {
            Some(read) => Era::Modern(Box::new(check_modern(read)?)),
            None => match lock(&session.legacy).clone() {
                Some(state) => Era::Legacy(state),
                None => {
                    return Err(ErrorObject::invalid_request(
                        "the session is not initialized: send `initialize` first, or use the \
                         2026-07-28 `_meta` protocol fields (see `server/discover`)",
                    ))
                }
            },
        };
        Ok((p, era))
    }

    fn complete_meta(&self) -> Meta {
        self.server_info_meta.clone()
    }

    fn initialize(&self, session: &Session, id: &RequestId, raw: Option<&RawValue>) -> Reply {
        let p: InitializeParams = required_params(raw)?;
        let version = ProtocolVersion::negotiate_legacy(&p.protocol_version);
        tracing::info!(
            client = %p.client_info.name,
            requested = %p.protocol_version,
            negotiated = %version,
            "initialize"
        );
        *lock(&session.legacy) = Some(LegacyState {
            version,
            log_level: None,
            client_capabilities: Arc::new(p.capabilities),
            client: Arc::new(p.client_info.clone()),
        });
        Ok(encode(&Response::new(
            id.clone(),
            InitializeResult {
                protocol_version: version,
                capabilities: self.capabilities.clone(),
                server_info: self.info.clone(),
                instructions: self.instructions.clone(),
                meta: None,
            },
        )))
    }

    fn discover(&self, id: &RequestId, raw: Option<&RawValue>) -> Reply {
        let p: MetaParams = params(raw)?;
        let m = p.meta.as_ref().ok_or_else(|| {
            ErrorObject::invalid_params(format!(
                "missing `_meta[\"{}\"]`",
                meta_key::PROTOCOL_VERSION
            ))
        })?;
        check_modern(RequestMeta::from_meta(m))?;
        Ok(encode(&Response::new(
            id.clone(),
            DiscoverResult {
                result_type: ResultType::Complete,
                supported_versions: ProtocolVersion::ALL
                    .iter()
                    .map(|v| v.as_str().to_owned())
                    .collect(),
                capabilities: self.capabilities.clone(),
                instructions: self.instructions.clone(),
                ttl_ms: self.list_ttl_ms,
                cache_scope: CacheScope::Public,
                meta: Some(self.complete_meta()),
            },
        )))
    }

    fn set_level(session: &Session, id: &RequestId, raw: Option<&RawValue>) -> Reply {
        let (p, era) =
            Self::era_of::<SetLevelParamsOpt>(session, raw, |p| raw_modern(p.meta.as_ref()))?;
        if let Era::Modern(_) = era {
            return Err(ErrorObject::method_not_found(method::LOGGING_SET_LEVEL));
        }
        let level: SetLevelParams = match p.level {
            Some(_) => required_params(raw)?,
            None => return Err(ErrorObject::invalid_params("missing `level`")),
        };
        if let Some(state) = lock(&session.legacy).as_mut() {
            state.log_level = Some(level.level);
        }
        Ok(encode(&Response::new(id.clone(), EmptyResult::default())))
    }

    fn tools_list(
        &self,
        session: &Session,
        id: &RequestId,
        raw: Option<&RawValue>,
        info: &RequestInfo,
    ) -> Reply {
        let (p, era) = Self::era_of::<ListToolsParams>(session, raw, |p| {
            p.meta
                .as_ref()
                .filter(|m| RequestMeta::is_modern(Some(m)))
                .map(RequestMeta::from_meta)
        })?;
        let registry = self.registry();
        let page = match &self.policy.visibility {
            None => registry.page(p.cursor.as_deref(), self.page_size),
            Some(hook) => {
                let caller = Self::caller(session, &era, info);
                registry.page_filtered(p.cursor.as_deref(), self.page_size, |t| {
                    hook(
                        &caller,
                        &ToolInfo {
                            tool: t.tool(),
                            toolbox: t.toolbox(),
                        },
                    )
                })
            }
        };
        let (tools, next_cursor) =
            page.map_err(|_| ErrorObject::invalid_params("invalid cursor"))?;
        let mut result = ListToolsResult {
            tools,
            next_cursor,
            ..ListToolsResult::default()
        };
        if let Era::Modern(_) = era {
            result.result_type = Some(ResultType::Complete);
            result.ttl_ms = Some(self.list_ttl_ms);
            // A list that depends on the caller must not be shared.
            result.cache_scope = Some(if self.policy.visibility.is_some() {
                CacheScope::Private
            } else {
                CacheScope::Public
            });
            result.meta = Some(self.complete_meta());
        }
        Ok(encode(&Response::new(id.clone(), result)))
    }

    /// Who is calling, for hooks and middleware.
    fn caller(session: &Session, era: &Era, info: &RequestInfo) -> Caller {
        Caller {
            transport: session.kind,
            session_id: session.id.clone(),
            client: match era {
                Era::Legacy(s) => Some((*s.client).clone()),
                Era::Modern(m) => m.client_info.clone(),
            },
            protocol_version: era.version(),
            headers: info.headers.clone(),
        }
    }

    fn tools_call(
        self: &Arc<Self>,
        session: &Arc<Session>,
        id: RequestId,
        raw: Option<&RawValue>,
        out: &Arc<dyn Outbound>,
        info: &RequestInfo,
    ) -> Outcome {
        let (p, mut era) = match Self::era_of::<CallToolParamsOpt>(session, raw, |p| {
            raw_modern(p.meta.as_ref())
        }) {
            Ok(v) => v,
            Err(e) => return failed(id, e),
        };
        let Some(name) = p.name else {
            return failed(id, ErrorObject::invalid_params("missing tool `name`"));
        };
        let registry = self.registry();
        let unknown = |id| {
            failed(
                id,
                ErrorObject::invalid_params(format!("unknown tool: {name}")),
            )
        };
        let Some(entry) = registry.get(&name) else {
            return unknown(id);
        };
        let caller = self
            .policy
            .wants_caller()
            .then(|| Arc::new(Self::caller(session, &era, info)));
        if let (Some(hook), Some(caller)) = (&self.policy.visibility, &caller) {
            // A tool the caller may not see does not exist for it.
            if !hook(
                caller,
                &ToolInfo {
                    tool: entry.tool(),
                    toolbox: entry.toolbox(),
                },
            ) {
                return unknown(id);
            }
        }
        let (log_level, client_capabilities, progress_token) = match &mut era {
            Era::Legacy(s) => (
                Some(s.log_level.unwrap_or(LoggingLevel::Info)),
                Arc::clone(&s.client_capabilities),
                p.meta.as_ref().and_then(RawRequestMeta::progress_token),
            ),
            // Read once with the other protocol fields; the caller below needs
            // only the client's name and the version.
            Era::Modern(m) => (
                m.log_level,
                Arc::new(std::mem::take(&mut m.client_capabilities)),
                m.progress_token.take(),
            ),
        };
        if let Some(missing) = missing_capabilities(entry.requires_client, &client_capabilities) {
            return failed(id, missing_capability_error(&name, missing));
        }
        let admission = match self.policy.limits.admit() {
            Ok(a) => a,
            Err(busy) => return failed(id, busy),
        };
        let modern = matches!(era, Era::Modern(_));
        let ctx = Context::new(ContextParts {
            request_id: id.clone(),
            progress_token,
            log_level,
            out: Arc::clone(out),
            protocol_version: era.version(),
            client_capabilities,
            server: Arc::clone(self),
        });
        let timeout = entry.timeout.or(self.policy.call_timeout);
        let arguments = p.arguments;
        match admission {
            // The common case, kept free of boxing: no middleware, no timeout, a slot at hand.
            Admission::Now(permit) if self.policy.middleware.is_empty() && timeout.is_none() => {
                let call = Infallible(entry.call(Args::new(arguments), ctx.clone()));
                self.run_call(session, id, ctx, call, permit, modern)
            }
            admission => {
                let call = ToolCall {
                    name,
                    arguments: arguments.unwrap_or_default(),
                    caller: caller.unwrap_or_else(|| Arc::new(Self::caller(session, &era, info))),
                    ctx: ctx.clone(),
                };
                let guarded = self.guarded_call(entry, call, admission, timeout);
                self.run_call(session, id, ctx, guarded, None, modern)
            }
        }
    }

    /// A call wrapped in the policy: middleware, a slot, a timeout.
    fn guarded_call(
        &self,
        entry: &crate::tool::ToolEntry,
        call: ToolCall,
        admission: Admission,
        timeout: Option<std::time::Duration>,
    ) -> BoxFuture<CallOutcome> {
        let name = call.name.clone();
        let entry = entry.clone();
        let middleware = self.policy.middleware.clone();
        Box::pin(async move {
            let _permit = match admission {
                Admission::Now(permit) => permit,
                Admission::Wait(running, waiting) => {
                    let permit = running.acquire_owned().await.ok();
                    drop(waiting);
                    permit
                }
            };
            // Nothing of the tool or its layers runs before it has a slot,
            // nor after its call was cancelled while it waited.
            if call.ctx.is_cancelled() {
                return Ok(mcp_types::CallToolResult::error("cancelled"));
            }
            let chain: BoxFuture<CallOutcome> = if middleware.is_empty() {
                let fut = entry.call(Args::new(Some(call.arguments)), call.ctx);
                Box::pin(async move { Ok(fut.await) })
            } else {
                Next::new(middleware.into(), entry).run(call)
            };
            match timeout {
                None => chain.await,
                Some(limit) => match tokio::time::timeout(limit, chain).await {
                    Ok(outcome) => outcome,
                    // The tool's future is dropped: that stops it.
                    Err(_) => Ok(mcp_types::CallToolResult::error(format!(
                        "tool `{name}` timed out after {} ms",
                        limit.as_millis()
                    ))),
                },
            }
        })
    }

    /// Polls a call once in place and answers at once if it is done (most
    /// tools never wait); otherwise registers it for cancellation and hands it
    /// to the transport to run. A spawned future is polled again straight
    /// away, which replaces the no-op waker this poll may have left behind.
    fn run_call<F>(
        self: &Arc<Self>,
        session: &Arc<Session>,
        id: RequestId,
        ctx: Context,
        mut call: F,
        permit: Option<tokio::sync::OwnedSemaphorePermit>,
        modern: bool,
    ) -> Outcome
    where
        F: std::future::Future<Output = CallOutcome> + Unpin + Send + 'static,
    {
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        if let std::task::Poll::Ready(outcome) = std::pin::Pin::new(&mut call).poll(&mut cx) {
            return self.call_outcome(id, outcome, modern);
        }
        lock(&session.inflight).insert(id.clone(), ctx.clone());
        let core = Arc::clone(self);
        let session = Arc::clone(session);
        Outcome::Spawn(Box::pin(async move {
            let _permit = permit;
            let outcome = tokio::select! {
                r = call => Some(r),
                () = ctx.cancelled() => None,
            };
            lock(&session.inflight).remove(&id);
            // A cancelled request gets no response, even if the tool returned
            // on seeing the cancellation (spec: cancellation utility).
            let outcome = outcome.filter(|_| !ctx.is_cancelled())?;
            match core.call_outcome(id, outcome, modern) {
                Outcome::Reply(bytes) | Outcome::Failed { bytes, .. } => Some(bytes),
                Outcome::Spawn(_) | Outcome::Nothing => None,
            }
        }))
    }

    fn call_outcome(&self, id: RequestId, outcome: CallOutcome, modern: bool) -> Outcome {
        match outcome {
            Ok(result) => Outcome::Reply(self.call_reply(id, result, modern)),
            Err(e) => failed(id, e),
        }
    }

    fn call_reply(
        &self,
        id: RequestId,
        mut result: mcp_types::CallToolResult,
        modern: bool,
    ) -> Vec<u8> {
        if !modern {
            return encode(&Response::new(id, result));
        }
        result.result_type = Some(ResultType::Complete);
        if let Some(meta) = &mut result.meta {
            // The tool set its own `_meta`: add the server's identity to it.
            for (k, v) in &self.server_info_meta {
                meta.entry(k.clone()).or_insert_with(|| v.clone());
            }
            return encode(&Response::new(id, result));
        }
        // The hot path: splice the pre-serialized `_meta` into the result
        // object instead of building and serializing it for every call.
        let mut bytes = encode(&Response::new(id, result));
        if bytes.ends_with(b"}}") {
            bytes.truncate(bytes.len() - 2);
            bytes.extend_from_slice(b",\"_meta\":");
            bytes.extend_from_slice(&self.server_info_meta_json);
            bytes.extend_from_slice(b"}}");
        }
        bytes
    }

    fn listen(
        self: &Arc<Self>,
        session: &Arc<Session>,
        id: RequestId,
        raw: Option<&RawValue>,
        out: &Arc<dyn Outbound>,
    ) -> Outcome {
        let p: SubscriptionsListenParams = match required_params(raw) {
            Ok(p) => p,
            Err(e) => return failed(id, e),
        };
        let modern = p.meta.as_ref().ok_or_else(|| {
            ErrorObject::invalid_params(format!(
                "missing `_meta[\"{}\"]`",
                meta_key::PROTOCOL_VERSION
            ))
        });
        if let Err(e) = modern.and_then(|m| check_modern(RequestMeta::from_meta(m)).map(drop)) {
            return failed(id, e);
        }
        // This server offers tools only: it agrees to the tool list filter and nothing else.
        let agreed = SubscriptionFilter {
            tools_list_changed: p.notifications.tools_list_changed.filter(|&b| b),
            ..SubscriptionFilter::default()
        };
        let mut sub_meta = Meta::new();
        sub_meta.insert(
            meta_key::SUBSCRIPTION_ID.to_owned(),
            serde_json::to_value(&id).unwrap_or(Value::Null),
        );
        out.send(encode(&Notification::new(
            method::SUBSCRIPTIONS_ACKNOWLEDGED,
            SubscriptionsAcknowledgedParams {
                notifications: agreed.clone(),
                meta: Some(sub_meta.clone()),
            },
        )));
        let ctx = Context::new(ContextParts {
            request_id: id.clone(),
            progress_token: None,
            log_level: None,
            out: Arc::clone(out),
            protocol_version: ProtocolVersion::V2026_07_28,
            client_capabilities: Arc::default(),
            server: Arc::clone(self),
        });
        lock(&session.listens).insert(id, ctx.clone());
        let mut changes = self.tools.subscribe();
        let out = Arc::clone(out);
        Outcome::Spawn(Box::pin(async move {
            // The stream stays open until the client cancels it (then nothing is
            // sent) or the connection ends; it carries only what was agreed.
            loop {
                tokio::select! {
                    () = ctx.cancelled() => return None,
                    alive = next_tools_change(&mut changes) => {
                        if !alive {
                            return None;
                        }
                        if agreed.tools_list_changed == Some(true) {
                            out.send(tools_list_changed(Some(&sub_meta)));
                        }
                    }
                }
            }
        }))
    }
}

/// -32021 with `data.requiredCapabilities`, as 2026-07-28 defines it.
fn missing_capability_error(tool: &str, missing: mcp_types::JsonObject) -> ErrorObject {
    let names: Vec<&str> = missing.keys().map(String::as_str).collect();
    let message = format!(
        "tool `{tool}` needs the client capabilities {names:?}, which the client did not declare"
    );
    let mut data = mcp_types::JsonObject::new();
    data.insert("requiredCapabilities".into(), Value::Object(missing));
    ErrorObject::new(code::MISSING_REQUIRED_CLIENT_CAPABILITY, message)
        .with_data(Value::Object(data))
}

/// Whether raw params carry the modern `_meta` protocol version.
fn is_modern_request(raw: Option<&RawValue>) -> bool {
    mcp_wire::route::Peek::read(raw).is_modern()
}

/// The modern protocol fields of a raw `_meta`, if it names a version.
fn raw_modern(meta: Option<&RawRequestMeta>) -> Option<Result<RequestMeta, MetaError>> {
    meta.filter(|m| m.is_modern()).map(RawRequestMeta::read)
}

/// The capabilities in `required` that `declared` lacks, as a
/// `ClientCapabilities`-shaped object (`{"sampling": {}}`), or `None`.
fn missing_capabilities(
    required: &[&str],
    declared: &ClientCapabilities,
) -> Option<mcp_types::JsonObject> {
    if required.is_empty() {
        return None;
    }
    let declared = serde_json::to_value(declared).unwrap_or(Value::Null);
    let missing: mcp_types::JsonObject = required
        .iter()
        .filter(|name| declared.get(**name).is_none())
        .map(|name| {
            (
                (*name).to_owned(),
                Value::Object(mcp_types::JsonObject::new()),
            )
        })
        .collect();
    (!missing.is_empty()).then_some(missing)
}

/// Checks a modern request's `_meta` as read: required fields (-32602) and a
/// supported modern version (-32022 with the supported list).
fn check_modern(read: Result<RequestMeta, MetaError>) -> Result<RequestMeta, ErrorObject> {
    let rm = read.map_err(|e| ErrorObject::invalid_params(e.to_string()))?;
    match ProtocolVersion::parse(&rm.protocol_version) {
        Some(v) if !v.is_legacy() => Ok(rm),
        _ => Err(ErrorObject::new(
            code::UNSUPPORTED_PROTOCOL_VERSION,
            format!("unsupported protocol version: {}", rm.protocol_version),
        )
        .with_data(
            serde_json::to_value(UnsupportedVersionData {
                supported: ProtocolVersion::MODERN
                    .iter()
                    .map(|v| v.as_str().to_owned())
                    .collect(),
                requested: rm.protocol_version,
            })
            .unwrap_or(Value::Null),
        )),
    }
}

/// `tools/call` params read leniently first, so a missing `name` is a clear -32602.
#[derive(serde::Deserialize, Default)]
struct CallToolParamsOpt {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    arguments: Option<mcp_types::JsonObject>,
    #[serde(rename = "_meta", default)]
    meta: Option<RawRequestMeta>,
}

/// `logging/setLevel` params read leniently first, to route by era before validating.
#[derive(serde::Deserialize, Default)]
struct SetLevelParamsOpt {
    #[serde(default)]
    level: Option<Value>,
    #[serde(rename = "_meta", default)]
    meta: Option<RawRequestMeta>,
}
