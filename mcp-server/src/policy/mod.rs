//! Who may see and call which tool, and what runs around each call:
//! [`Caller`], visibility hooks, [`Middleware`] (tool-call layers written
//! as one function, with [`AuditLog`]), [`RateLimit`] per caller, the
//! [`ResultCache`] of read-only tools, timeouts and concurrency bounds. Any
//! tower layer over tool calls ([`ToolService`]) goes into
//! [`ServerBuilder::layer`](crate::ServerBuilder::layer) as well.
//!
//! Inside: `rate` (the rate limits, on governor's keyed limiters) and
//! `cache` (the result cache, on moka, and on the shared store).

pub(crate) mod cache;
pub(crate) mod rate;

pub use cache::{CacheStats, ResultCache, DEFAULT_CACHE_BYTES};
pub use rate::{Rate, RateLimit};

use std::fmt;
use std::future::Future;
use std::sync::Arc;
use std::task::{Context as TaskContext, Poll};
use std::time::Instant;

pub use crate::common::BoxFuture;

use oxmcp_types::{CallToolResult, ErrorObject, Implementation, ProtocolVersion, Tool};
use tower::{Layer, Service};

use crate::tool::{ToolRequest, ToolService};

/// Calls that run at once unless
/// [`ServerBuilder::max_concurrent_calls`](crate::ServerBuilder::max_concurrent_calls) says otherwise.
pub const DEFAULT_MAX_RUNNING_CALLS: usize = 1024;

/// Calls that wait for a slot unless
/// [`ServerBuilder::max_concurrent_calls`](crate::ServerBuilder::max_concurrent_calls) says otherwise.
pub const DEFAULT_MAX_WAITING_CALLS: usize = 4096;

/// Tasks one caller may hold unless
/// [`ServerBuilder::max_tasks_per_caller`](crate::ServerBuilder::max_tasks_per_caller)
/// says otherwise. A task is held for an hour after it was created, its
/// result with it: far more than a client follows at once, and a bound on
/// what one caller can make the server keep.
pub const DEFAULT_MAX_TASKS_PER_CALLER: usize = 256;

/// The transport a request came in on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum TransportKind {
    /// Newline-delimited JSON on stdio (or any byte streams, `serve_io`).
    Stdio,
    /// Streamable HTTP.
    StreamableHttp,
    /// The legacy HTTP+SSE transport (2024-11-05).
    LegacySse,
}

/// Who is calling: what visibility hooks and middleware decide on.
#[derive(Debug, Clone)]
pub struct Caller {
    pub(crate) transport: TransportKind,
    pub(crate) session_id: Option<Arc<str>>,
    pub(crate) client: Option<Implementation>,
    pub(crate) protocol_version: ProtocolVersion,
    pub(crate) headers: Option<Arc<http::HeaderMap>>,
    pub(crate) identity: Option<Arc<crate::auth::Identity>>,
    /// The connection's serial number in this process (stdio: one client).
    pub(crate) connection: u64,
}

impl Caller {
    /// The transport.
    pub fn transport(&self) -> TransportKind {
        self.transport
    }

    /// The legacy HTTP session's id (none on stdio and in the stateless era).
    pub fn session_id(&self) -> Option<&str> {
        self.session_id.as_deref()
    }

    /// The client's name and version, as it announced them.
    pub fn client(&self) -> Option<&Implementation> {
        self.client.as_ref()
    }

    /// The protocol revision of the request.
    pub fn protocol_version(&self) -> ProtocolVersion {
        self.protocol_version
    }

    /// The HTTP request's headers (for authorization), on HTTP transports.
    pub fn headers(&self) -> Option<&http::HeaderMap> {
        self.headers.as_deref()
    }

    /// Whom the request's access token speaks for, on an HTTP server with
    /// authorization ([`auth`](crate::auth)).
    pub fn identity(&self) -> Option<&crate::auth::Identity> {
        self.identity.as_deref()
    }

    /// One HTTP header's value, if present and text.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .as_deref()?
            .get(name)
            .and_then(|v| v.to_str().ok())
    }

    /// A key identifying the caller for per-caller limits: the token's
    /// subject, else the session, else the client's name, else the transport.
    pub fn key(&self) -> String {
        if let Some(subject) = self.identity().and_then(crate::auth::Identity::subject) {
            return format!("subject:{subject}");
        }
        match (&self.session_id, &self.client) {
            (Some(id), _) => format!("session:{id}"),
            (None, Some(c)) => format!("client:{}", c.name),
            (None, None) => format!("{:?}", self.transport),
        }
    }
}

/// Tells callers apart for [`RateLimit`] and [`ResultCache`] where the
/// token and the session do not (an API key header, a proxy's
/// client-address header): `None` leaves the caller unknown.
pub type CallerKeyHook = dyn Fn(&Caller) -> Option<String> + Send + Sync;

impl Caller {
    /// Whom a per-caller limit or cache counts a call for: the token's
    /// issuer and subject, else the legacy session, else what `hook` says,
    /// else, on stdio, the connection (one client each). `None` when
    /// nothing tells callers apart: the 2026-07-28 era over HTTP without
    /// authorization or a hook.
    pub(crate) fn owner(&self, hook: Option<&CallerKeyHook>) -> Option<String> {
        if let Some(identity) = &self.identity {
            if let Some(subject) = identity.subject() {
                let issuer = identity.issuer().unwrap_or_default();
                return Some(format!("token:{issuer}\u{0}{subject}"));
            }
        }
        if let Some(id) = &self.session_id {
            return Some(format!("session:{id}"));
        }
        if let Some(key) = hook.and_then(|h| h(self)) {
            return Some(format!("key:{key}"));
        }
        (self.transport == TransportKind::Stdio)
            .then(|| format!("connection:{}:{}", process_nonce(), self.connection))
    }
}

/// A random number drawn once per process: connection serials of two
/// processes sharing a store never meet.
fn process_nonce() -> &'static str {
    static NONCE: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    NONCE.get_or_init(|| {
        // Without randomness, the time and process id still tell processes apart.
        crate::common::random_hex_id().unwrap_or_else(|_| {
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap_or_default();
            format!("{:x}-{}", now.as_nanos(), std::process::id())
        })
    })
}

/// Decides whether a caller may see (and so call) a tool.
pub type VisibilityHook = dyn Fn(&Caller, &ToolInfo<'_>) -> bool + Send + Sync;

/// What a visibility hook knows about a tool.
#[derive(Debug, Clone, Copy)]
pub struct ToolInfo<'a> {
    /// The tool's definition.
    pub tool: &'a Tool,
    /// Its toolbox (empty for tools added on their own).
    pub toolbox: &'a str,
}

/// Decides whether a caller may see (and so get, read or complete) a prompt,
/// a resource or a resource template.
pub type OfferVisibilityHook = dyn Fn(&Caller, &OfferInfo<'_>) -> bool + Send + Sync;

/// What an offer visibility hook knows: the prompt, resource or template,
/// and its toolbox.
#[derive(Debug, Clone, Copy)]
pub struct OfferInfo<'a> {
    /// The prompt, resource or template.
    pub offer: Offer<'a>,
    /// Its toolbox (empty for one added on its own).
    pub toolbox: &'a str,
}

/// A prompt, a resource or a resource template.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub enum Offer<'a> {
    /// A prompt.
    Prompt(&'a oxmcp_types::Prompt),
    /// A static resource.
    Resource(&'a oxmcp_types::Resource),
    /// A resource template.
    Template(&'a oxmcp_types::ResourceTemplate),
}

/// What a call produces through the middleware chain: a result, or a
/// JSON-RPC error (a middleware's refusal).
pub type CallOutcome = Result<CallToolResult, ErrorObject>;

/// A tool-call middleware written as one function of the call and the rest
/// of the chain: before and after, able to refuse or rewrite. It is sugar
/// over a tower layer: [`MiddlewareLayer::new`] (or [`from_fn`] for a
/// closure) makes it one for
/// [`ServerBuilder::layer`](crate::ServerBuilder::layer), which takes any
/// tower `Layer` over [`ToolService`], tower's own timeout, concurrency and
/// load-shed layers among them.
///
/// ```
/// use oxmcp_server::policy::{BoxFuture, CallOutcome, Middleware, MiddlewareLayer, Next};
/// use oxmcp_server::tool::ToolRequest;
/// use oxmcp_server::Server;
///
/// /// Refuses every call to tools whose name starts with `admin_`.
/// struct NoAdmin;
///
/// impl Middleware for NoAdmin {
///     fn call(&self, call: ToolRequest, next: Next) -> BoxFuture<'static, CallOutcome> {
///         if call.name.starts_with("admin_") {
///             return Box::pin(async {
///                 Err(oxmcp_server::types::ErrorObject::invalid_params("not allowed"))
///             });
///         }
///         next.run(call)
///     }
/// }
///
/// let server = Server::builder("app", "1.0").layer(MiddlewareLayer::new(NoAdmin)).build();
/// # let _ = server;
/// ```
pub trait Middleware: Send + Sync + 'static {
    /// Handles one call; `next.run(call)` runs the rest of the chain and the tool.
    fn call(&self, call: ToolRequest, next: Next) -> BoxFuture<'static, CallOutcome>;
}

/// The rest of the chain after a middleware.
pub struct Next {
    inner: ToolService,
}

impl fmt::Debug for Next {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Next").finish_non_exhaustive()
    }
}

impl Next {
    /// Runs the rest of the chain and the tool. An error a layer further in
    /// raised comes back as it reaches the client: a refusal as `Err`, any
    /// other as an `isError` result.
    pub fn run(self, call: ToolRequest) -> BoxFuture<'static, CallOutcome> {
        crate::tool::service::call_through(&self.inner, call)
    }
}

/// A [`Middleware`] as a tower layer over tool calls.
#[derive(Debug)]
pub struct MiddlewareLayer<M> {
    middleware: Arc<M>,
}

impl<M> Clone for MiddlewareLayer<M> {
    fn clone(&self) -> Self {
        MiddlewareLayer {
            middleware: Arc::clone(&self.middleware),
        }
    }
}

impl<M: Middleware> MiddlewareLayer<M> {
    /// The layer that runs `middleware` around each call.
    pub fn new(middleware: M) -> Self {
        MiddlewareLayer {
            middleware: Arc::new(middleware),
        }
    }
}

impl<M: Middleware> Layer<ToolService> for MiddlewareLayer<M> {
    type Service = MiddlewareService<M>;

    fn layer(&self, inner: ToolService) -> MiddlewareService<M> {
        MiddlewareService {
            middleware: Arc::clone(&self.middleware),
            inner,
        }
    }
}

/// The service a [`MiddlewareLayer`] puts around the rest of the chain.
pub struct MiddlewareService<M> {
    middleware: Arc<M>,
    inner: ToolService,
}

impl<M> Clone for MiddlewareService<M> {
    fn clone(&self) -> Self {
        MiddlewareService {
            middleware: Arc::clone(&self.middleware),
            inner: self.inner.clone(),
        }
    }
}

impl<M> fmt::Debug for MiddlewareService<M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MiddlewareService").finish_non_exhaustive()
    }
}

impl<M: Middleware> Service<ToolRequest> for MiddlewareService<M> {
    type Response = CallToolResult;
    type Error = ErrorObject;
    type Future = BoxFuture<'static, CallOutcome>;

    /// Always ready: the rest of the chain is asked when `next.run` runs it.
    fn poll_ready(&mut self, _: &mut TaskContext<'_>) -> Poll<Result<(), ErrorObject>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, call: ToolRequest) -> BoxFuture<'static, CallOutcome> {
        let next = Next {
            inner: self.inner.clone(),
        };
        self.middleware.call(call, next)
    }
}

/// A closure as a [`Middleware`], as axum's `middleware::from_fn` makes one:
/// `from_fn(|call, next| async move { ... next.run(call).await })`.
pub fn from_fn<F, Fut>(f: F) -> MiddlewareLayer<FromFn<F>>
where
    F: Fn(ToolRequest, Next) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = CallOutcome> + Send + 'static,
{
    MiddlewareLayer::new(FromFn(f))
}

/// The middleware [`from_fn`] makes of a closure.
#[derive(Debug, Clone, Copy)]
pub struct FromFn<F>(F);

impl<F, Fut> Middleware for FromFn<F>
where
    F: Fn(ToolRequest, Next) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = CallOutcome> + Send + 'static,
{
    fn call(&self, call: ToolRequest, next: Next) -> BoxFuture<'static, CallOutcome> {
        Box::pin((self.0)(call, next))
    }
}

/// Implements `Layer<ToolService>` for a built-in middleware, so it goes
/// straight into `ServerBuilder::layer`.
macro_rules! middleware_layer {
    ($($ty:ty),*) => {$(
        impl Layer<ToolService> for $ty {
            type Service = MiddlewareService<$ty>;

            fn layer(&self, inner: ToolService) -> MiddlewareService<$ty> {
                MiddlewareLayer::new(self.clone()).layer(inner)
            }
        }
    )*};
}

middleware_layer!(AuditLog);

/// Logs every call through `tracing` (target `oxmcp_server::audit`): tool,
/// caller, duration and outcome. Arguments are not logged (they may hold
/// secrets); their size is.
#[derive(Debug, Clone, Copy, Default)]
pub struct AuditLog;

impl Middleware for AuditLog {
    fn call(&self, call: ToolRequest, next: Next) -> BoxFuture<'static, CallOutcome> {
        let tool = call.name.clone();
        let caller = call.caller.key();
        let client = call.caller.client().map(|c| c.name.clone());
        let subject = call
            .caller
            .identity()
            .and_then(crate::auth::Identity::subject)
            .map(str::to_owned);
        let arg_count = call.arguments.len();
        let start = Instant::now();
        let fut = next.run(call);
        Box::pin(async move {
            let outcome = fut.await;
            let elapsed_ms = u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX);
            match &outcome {
                Ok(r) => tracing::info!(
                    target: "oxmcp_server::audit",
                    %tool, %caller, client = ?client, subject = ?subject, arg_count, elapsed_ms,
                    is_error = r.is_error(),
                    "tool call"
                ),
                Err(e) => tracing::info!(
                    target: "oxmcp_server::audit",
                    %tool, %caller, client = ?client, subject = ?subject, arg_count, elapsed_ms,
                    refused = e.code,
                    "tool call refused"
                ),
            }
            outcome
        })
    }
}
