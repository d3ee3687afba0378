//! The per-call [`Context`]: progress, log messages, cancellation, and who is calling.

use std::fmt;
use std::sync::{Arc, Mutex};

use oxmcp_types::jsonrpc::Notification;
use oxmcp_types::notification::{LoggingMessageParams, ProgressParams, ProgressToken};
use oxmcp_types::{method, ClientCapabilities, LoggingLevel, ProtocolVersion, RequestId};
use serde::Serialize;
use std::sync::atomic::{AtomicBool, Ordering};

use tokio::sync::Notify;

use crate::ask::Asker;
use crate::common::{Discard, Outbound};

/// What a tool knows about the call it is serving, and how it talks back.
///
/// Add a `ctx: Context` parameter to a tool to receive it; it is injected and
/// never appears in the tool's schema.
///
/// ```
/// use oxmcp_server::{tool, Context};
///
/// pub struct Jobs;
///
/// #[tool(description = "Long-running jobs")]
/// impl Jobs {
///     #[describe("Count to n, reporting progress")]
///     pub async fn count(&self, #[param("How far to count")] n: u32, ctx: Context) -> String {
///         for i in 1..=n {
///             if ctx.is_cancelled() {
///                 return "cancelled".into();
///             }
///             ctx.progress(f64::from(i), Some(f64::from(n)));
///         }
///         tracing::info!(n, "done counting"); // to stderr: MCP logging is deprecated
///         format!("counted to {n}")
///     }
/// }
/// ```
#[derive(Clone)]
pub struct Context {
    inner: Arc<Inner>,
}

struct Inner {
    request_id: RequestId,
    progress_token: Option<ProgressToken>,
    log_level: Option<LoggingLevel>,
    cancelled: AtomicBool,
    cancel_notify: Notify,
    out: Arc<dyn Outbound>,
    protocol_version: ProtocolVersion,
    client_capabilities: Arc<ClientCapabilities>,
    /// The `ServerHandle`, type-erased (see [`Context::server_any`]).
    server: Option<Arc<dyn std::any::Any + Send + Sync>>,
    last_progress: Mutex<Option<f64>>,
    /// How to ask the client for input (sampling, elicitation, roots).
    asker: Asker,
    identity: Option<Arc<crate::auth::Identity>>,
    max_result_chars: usize,
    keeper: Option<crate::kept::Keeper>,
    /// Who calls (a `policy::Caller`, type-erased as `server` is, so that
    /// this module does not use `policy`), when a hook or a token makes it
    /// matter: what the tool search filters by.
    caller: Option<Arc<dyn std::any::Any + Send + Sync>>,
}

impl fmt::Debug for Context {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Context")
            .field("request_id", &self.inner.request_id)
            .field("protocol_version", &self.inner.protocol_version)
            .field("cancelled", &self.is_cancelled())
            .finish_non_exhaustive()
    }
}

/// What dispatch knows when it creates a context.
pub(crate) struct ContextParts {
    pub(crate) request_id: RequestId,
    pub(crate) progress_token: Option<ProgressToken>,
    pub(crate) log_level: Option<LoggingLevel>,
    pub(crate) out: Arc<dyn Outbound>,
    pub(crate) protocol_version: ProtocolVersion,
    pub(crate) client_capabilities: Arc<ClientCapabilities>,
    /// The server's `ServerHandle`.
    pub(crate) server: Arc<dyn std::any::Any + Send + Sync>,
    /// How to ask the client for input.
    pub(crate) asker: Asker,
    /// Whom the request's access token speaks for (HTTP with authorization).
    pub(crate) identity: Option<Arc<crate::auth::Identity>>,
    /// The cap on the result of the tool being called.
    pub(crate) max_result_chars: usize,
    /// Where the whole of a cut result goes (a tool that keeps them).
    pub(crate) keeper: Option<crate::kept::Keeper>,
    /// Who calls (a `policy::Caller`), when the server's policy looks at
    /// it (tool calls only).
    pub(crate) caller: Option<Arc<dyn std::any::Any + Send + Sync>>,
}

impl Context {
    pub(crate) fn new(parts: ContextParts) -> Self {
        Context {
            inner: Arc::new(Inner {
                request_id: parts.request_id,
                progress_token: parts.progress_token,
                log_level: parts.log_level,
                cancelled: AtomicBool::new(false),
                cancel_notify: Notify::new(),
                out: parts.out,
                protocol_version: parts.protocol_version,
                client_capabilities: parts.client_capabilities,
                server: Some(parts.server),
                last_progress: Mutex::new(None),
                asker: parts.asker,
                identity: parts.identity,
                max_result_chars: parts.max_result_chars,
                keeper: parts.keeper,
                caller: parts.caller,
            }),
        }
    }

    /// A context attached to no client: notifications go nowhere and it is
    /// never cancelled. For calling
    /// tools directly, e.g. in unit tests.
    pub fn detached() -> Self {
        Context {
            inner: Arc::new(Inner {
                request_id: RequestId::Number(0),
                progress_token: None,
                log_level: None,
                cancelled: AtomicBool::new(false),
                cancel_notify: Notify::new(),
                out: Arc::new(Discard),
                protocol_version: ProtocolVersion::LATEST,
                client_capabilities: Arc::default(),
                server: None,
                last_progress: Mutex::new(None),
                asker: Asker::Nobody,
                identity: None,
                max_result_chars: crate::common::DEFAULT_MAX_RESULT_CHARS,
                keeper: None,
                caller: None,
            }),
        }
    }

    /// Who calls (a `policy::Caller`), when the server's policy looks at it.
    pub(crate) fn caller_any(&self) -> Option<&(dyn std::any::Any + Send + Sync)> {
        self.inner.caller.as_deref()
    }

    /// How to ask the client for input.
    pub(crate) fn asker(&self) -> &Asker {
        &self.inner.asker
    }

    /// Whether this 2026-07-28 request resumes earlier input rounds with a
    /// `requestState` the server issued (checked: signature, binding,
    /// expiry, first use). Always `false` in the legacy era.
    pub fn resumed(&self) -> bool {
        matches!(&self.inner.asker, Asker::Rounds(r) if r.resumed())
    }

    /// The server's handle, type-erased: this module cannot name it (the
    /// handle holds tools, whose handlers take a `Context`);
    /// [`Context::server`] (in `handle.rs`) gives it its type back.
    pub(crate) fn server_any(&self) -> Option<&(dyn std::any::Any + Send + Sync)> {
        self.inner.server.as_deref()
    }

    /// The id of the request being served.
    pub fn request_id(&self) -> &RequestId {
        &self.inner.request_id
    }

    /// The protocol revision of the request (the session's, in the legacy era).
    pub fn protocol_version(&self) -> ProtocolVersion {
        self.inner.protocol_version
    }

    /// What the client declared it can do.
    pub fn client_capabilities(&self) -> &ClientCapabilities {
        &self.inner.client_capabilities
    }

    /// The settings the client declared for extension `id` (SEP-2133), if
    /// it declared it: at `initialize` in the legacy era, in this request's
    /// `_meta` in 2026-07-28. An extension the server offers is in use for
    /// this request only when this is `Some`.
    pub fn client_extension(&self, id: &str) -> Option<&oxmcp_types::JsonObject> {
        self.client_capabilities().extension(id)
    }

    /// Whom the request's access token speaks for, on an HTTP server with
    /// authorization ([`auth`](crate::auth)); `None` elsewhere.
    pub fn identity(&self) -> Option<&crate::auth::Identity> {
        self.inner.identity.as_deref()
    }

    /// The most characters this tool's result may carry (its own cap, else
    /// the server's; see `ServerBuilder::max_result_chars`): a tool that
    /// can page or summarize fits its answer to it rather than have it cut.
    pub fn max_result_chars(&self) -> usize {
        self.inner.max_result_chars
    }

    /// Where the whole of this call's result goes if it is cut.
    pub(crate) fn keeper(&self) -> Option<&crate::kept::Keeper> {
        self.inner.keeper.as_ref()
    }

    /// Whether the client cancelled this call (or went away).
    pub fn is_cancelled(&self) -> bool {
        self.inner.cancelled.load(Ordering::Acquire)
    }

    /// Completes when the client cancels this call. Tools that wait on
    /// something slow can `select!` on it; the framework also drops a
    /// cancelled call's future, so awaiting tools stop at their next `.await`.
    pub async fn cancelled(&self) {
        loop {
            let notified = self.inner.cancel_notify.notified();
            if self.is_cancelled() {
                return;
            }
            notified.await;
        }
    }

    /// Marks the call cancelled and wakes everything waiting on [`cancelled`](Self::cancelled).
    pub(crate) fn cancel(&self) {
        self.inner.cancelled.store(true, Ordering::Release);
        self.inner.cancel_notify.notify_waiters();
    }

    /// Closes this call's SSE stream, asking the client to reconnect
    /// (Streamable HTTP, revisions 2025-11-25 and earlier with resumability).
    /// The call goes on; what it sends next, its result included, is
    /// delivered when the client resumes the stream with `Last-Event-ID`.
    /// On other transports this does nothing.
    pub fn close_sse_stream(&self) {
        self.inner.out.close_stream();
    }

    /// Whether the client asked for progress (sent a `progressToken`).
    pub fn wants_progress(&self) -> bool {
        self.inner.progress_token.is_some()
    }

    /// Reports progress; `total` when known. Sent only if the client asked for
    /// progress, and only when `progress` increases (the spec requires it).
    pub fn progress(&self, progress: f64, total: Option<f64>) {
        self.send_progress(progress, total, None);
    }

    /// Reports progress with a human-readable message.
    pub fn progress_with_message(
        &self,
        progress: f64,
        total: Option<f64>,
        message: impl Into<String>,
    ) {
        self.send_progress(progress, total, Some(message.into()));
    }

    fn send_progress(&self, progress: f64, total: Option<f64>, message: Option<String>) {
        let Some(token) = &self.inner.progress_token else {
            return;
        };
        if self.is_cancelled() {
            return;
        }
        {
            let mut last = oxmcp_wire::sync::lock(&self.inner.last_progress);
            if last.is_some_and(|l| progress <= l) {
                tracing::debug!(progress, "progress must increase; notification dropped");
                return;
            }
            *last = Some(progress);
        }
        self.notify(
            method::PROGRESS,
            &ProgressParams {
                progress_token: token.clone(),
                progress,
                total,
                message,
                meta: None,
            },
        );
    }

    /// Whether a log message at `level` would reach the client.
    #[deprecated(
        since = "0.1.0",
        note = "logging is deprecated since MCP 2026-07-28 (SEP-2577): log to stderr with tracing, or export with OpenTelemetry (oxmcp-otel)"
    )]
    pub fn log_enabled(&self, level: LoggingLevel) -> bool {
        self.inner.log_level.is_some_and(|min| level >= min)
    }

    /// Sends a log message (`notifications/message`) if the client's level lets it through.
    /// `data` is any JSON: a string or an object.
    #[deprecated(
        since = "0.1.0",
        note = "logging is deprecated since MCP 2026-07-28 (SEP-2577): log to stderr with tracing, or export with OpenTelemetry (oxmcp-otel)"
    )]
    #[allow(deprecated)]
    pub fn log(&self, level: LoggingLevel, data: impl Serialize) {
        self.log_as(level, None, data);
    }

    /// Like [`log`](Self::log), naming the logger.
    #[deprecated(
        since = "0.1.0",
        note = "logging is deprecated since MCP 2026-07-28 (SEP-2577): log to stderr with tracing, or export with OpenTelemetry (oxmcp-otel)"
    )]
    #[allow(deprecated)]
    pub fn log_as(&self, level: LoggingLevel, logger: Option<&str>, data: impl Serialize) {
        if !self.log_enabled(level) {
            return;
        }
        oxmcp_wire::deprecated::used(oxmcp_wire::deprecated::Feature::Logging);
        let data = match serde_json::to_value(data) {
            Ok(v) => v,
            Err(e) => {
                tracing::warn!(error = %e, "log data could not be serialized");
                return;
            }
        };
        self.notify(
            method::MESSAGE,
            &LoggingMessageParams {
                level,
                logger: logger.map(str::to_owned),
                data,
                meta: None,
            },
        );
    }

    /// `log(Debug, ..)`.
    #[deprecated(
        since = "0.1.0",
        note = "logging is deprecated since MCP 2026-07-28 (SEP-2577): log to stderr with tracing, or export with OpenTelemetry (oxmcp-otel)"
    )]
    #[allow(deprecated)]
    pub fn debug(&self, data: impl Serialize) {
        self.log(LoggingLevel::Debug, data);
    }

    /// `log(Info, ..)`.
    #[deprecated(
        since = "0.1.0",
        note = "logging is deprecated since MCP 2026-07-28 (SEP-2577): log to stderr with tracing, or export with OpenTelemetry (oxmcp-otel)"
    )]
    #[allow(deprecated)]
    pub fn info(&self, data: impl Serialize) {
        self.log(LoggingLevel::Info, data);
    }

    /// `log(Warning, ..)`.
    #[deprecated(
        since = "0.1.0",
        note = "logging is deprecated since MCP 2026-07-28 (SEP-2577): log to stderr with tracing, or export with OpenTelemetry (oxmcp-otel)"
    )]
    #[allow(deprecated)]
    pub fn warning(&self, data: impl Serialize) {
        self.log(LoggingLevel::Warning, data);
    }

    /// `log(Error, ..)`.
    #[deprecated(
        since = "0.1.0",
        note = "logging is deprecated since MCP 2026-07-28 (SEP-2577): log to stderr with tracing, or export with OpenTelemetry (oxmcp-otel)"
    )]
    #[allow(deprecated)]
    pub fn error(&self, data: impl Serialize) {
        self.log(LoggingLevel::Error, data);
    }

    fn notify<P: Serialize>(&self, method: &'static str, params: &P) {
        match serde_json::to_vec(&Notification::new(method, params)) {
            Ok(bytes) => self.inner.out.send(bytes),
            Err(e) => tracing::warn!(error = %e, "notification could not be serialized"),
        }
    }
}

/// The context of a call that runs at once, made when the tool asks for it:
/// most plain `fn` tools take none, and their calls then build none.
#[derive(Clone, Copy)]
pub struct LazyContext<'a>(pub(crate) &'a dyn Fn() -> Context);

impl LazyContext<'_> {
    /// The call's context.
    pub fn get(self) -> Context {
        (self.0)()
    }
}

impl fmt::Debug for LazyContext<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("LazyContext")
    }
}
