//! [`HttpConfig`]: paths, allowed hosts and origins, limits, timeouts.

use std::time::Duration;

use super::security::HostPolicy;
use super::sse::ReplayLimits;

/// How the HTTP transports behave: paths, allowed hosts, limits.
///
/// ```
/// use std::time::Duration;
/// use oxmcp_server::http::HttpConfig;
///
/// let config = HttpConfig::default()
///     .endpoint("/mcp")
///     .allow_host("mcp.internal.example")
///     .allow_origin("https://app.example.com")
///     .max_body_size(1 << 20)
///     .session_idle_timeout(Duration::from_secs(600));
/// # let _ = config;
/// ```
#[derive(Clone)]
pub struct HttpConfig {
    pub(super) endpoint: String,
    pub(super) legacy_sse: Option<(String, String)>,
    pub(super) hosts: HostPolicy,
    pub(super) max_body: usize,
    pub(super) body_timeout: Duration,
    pub(super) max_sessions: usize,
    pub(super) max_sessions_per_owner: usize,
    pub(super) session_idle: Duration,
    pub(super) replay: ReplayLimits,
    pub(super) retry: Duration,
    pub(super) keep_alive: Duration,
    pub(super) shutdown_grace: Duration,
    pub(super) connection_threads: Option<usize>,
    /// What checks a request's credentials ([`HttpConfig::authorization`]).
    pub(super) gate: Option<std::sync::Arc<dyn crate::auth::Gate>>,
    pub(super) store: Option<std::sync::Arc<dyn crate::state::Store>>,
    /// Pages served at `GET` beside the MCP endpoints ([`HttpConfig::page`]).
    pub(super) pages: Vec<Page>,
}

/// A page [`HttpConfig::page`] serves: its path, its content type, and
/// what renders it.
#[derive(Clone)]
pub(super) struct Page {
    pub(super) path: String,
    pub(super) content_type: http::HeaderValue,
    pub(super) render: std::sync::Arc<dyn Fn() -> Vec<u8> + Send + Sync>,
}

impl std::fmt::Debug for HttpConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut d = f.debug_struct("HttpConfig");
        d.field("endpoint", &self.endpoint)
            .field("legacy_sse", &self.legacy_sse)
            .field("hosts", &self.hosts)
            .field("max_body", &self.max_body)
            .field("body_timeout", &self.body_timeout)
            .field("max_sessions", &self.max_sessions)
            .field("max_sessions_per_owner", &self.max_sessions_per_owner)
            .field("session_idle", &self.session_idle)
            .field("replay", &self.replay)
            .field("retry", &self.retry)
            .field("keep_alive", &self.keep_alive)
            .field("shutdown_grace", &self.shutdown_grace)
            .field("connection_threads", &self.connection_threads);
        d.field("authorization", &self.gate);
        let pages: Vec<&str> = self.pages.iter().map(|p| p.path.as_str()).collect();
        d.field("pages", &pages);
        d.field("store", &self.store.as_ref().map(|s| s.name()))
            .finish()
    }
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
            max_sessions_per_owner: 100,
            session_idle: Duration::from_secs(30 * 60),
            replay: ReplayLimits {
                max_events: 256,
                max_bytes: 1024 * 1024,
            },
            retry: Duration::from_secs(1),
            keep_alive: Duration::from_secs(15),
            shutdown_grace: Duration::from_secs(10),
            connection_threads: None,
            gate: None,
            store: None,
            pages: Vec::new(),
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
    #[deprecated(
        since = "0.1.0",
        note = "the HTTP+SSE transport is deprecated since MCP 2025-03-26: clients should use Streamable HTTP at `HttpConfig::endpoint`; `without_legacy_sse` turns HTTP+SSE off"
    )]
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
    /// `Origin`, when a request has one, is still checked: it must be one of
    /// the origins given to [`allow_origin`](Self::allow_origin) or name one
    /// of the hosts listed (by default and with
    /// [`allow_host`](Self::allow_host)); "any host" never widens it.
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

    /// The most legacy sessions one identity may hold at once, when the
    /// server checks tokens (default 100); then 429. An identity is the
    /// token's subject at its issuer, else its client, else the token.
    #[must_use]
    pub fn max_sessions_per_owner(mut self, n: usize) -> Self {
        self.max_sessions_per_owner = n;
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

    /// How many threads serve connections when [`Server::serve_http_on`]
    /// runs on a multi-threaded runtime (default: half the cores, at least
    /// one; the runtime's own threads keep the rest, for the tools' spawned
    /// work and the rest of the application). Each thread runs a
    /// current-thread runtime and keeps the connections handed to it, so a
    /// request is answered without waking another thread. `0` serves the
    /// connections as tasks of the calling runtime instead.
    ///
    /// [`Server::serve_http_on`]: crate::Server::serve_http_on
    #[must_use]
    pub fn connection_threads(mut self, threads: usize) -> Self {
        self.connection_threads = Some(threads);
        self
    }

    /// The threads that serve connections on a multi-threaded runtime (0: none).
    pub(super) fn threads(&self) -> usize {
        self.connection_threads.unwrap_or_else(|| {
            std::thread::available_parallelism().map_or(1, |n| (n.get() / 2).max(1))
        })
    }

    /// Serves the endpoints as an OAuth protected resource: the metadata at
    /// its well-known URLs, and a bearer token checked on every request to
    /// the MCP endpoints (Streamable HTTP in both eras, and HTTP+SSE). See
    /// [`Authorization`](crate::auth::Authorization). Off by default.
    #[cfg(feature = "auth")]
    #[must_use]
    pub fn authorization(mut self, authorization: crate::auth::Authorization) -> Self {
        self.gate = Some(std::sync::Arc::new(authorization));
        self
    }

    /// Shares legacy sessions, `Last-Event-ID` replay and notifications
    /// with every instance configured with the same store, so that several
    /// instances serve one service behind a load balancer with no sticky
    /// sessions (see [`crate::state`]; `oxmcp-redis` has a store on Redis).
    /// Without one (the default), all of it lives in this process.
    ///
    /// A request that needs the store when it is unavailable is answered
    /// 503 with `Retry-After`; 2026-07-28 requests need nothing from it.
    /// Session caps ([`max_sessions`](Self::max_sessions),
    /// [`max_sessions_per_owner`](Self::max_sessions_per_owner)) count the
    /// sessions each instance holds.
    #[must_use]
    pub fn store(mut self, store: impl crate::state::Store) -> Self {
        self.store = Some(std::sync::Arc::new(store));
        self
    }

    /// Serves `GET path` with what `render` returns (bytes or text), as `content_type`:
    /// a read-only page beside the MCP endpoints, such as metrics for a
    /// scraper or a health check. Any other method on the path is answered
    /// 405. The page passes the Host and Origin checks but asks for no
    /// token, even when [authorization](Self::authorization) is on: anyone
    /// who reaches the port reads it.
    ///
    /// ```
    /// use oxmcp_server::http::HttpConfig;
    ///
    /// let config = HttpConfig::default().page("/healthz", "text/plain", || "ok");
    /// # let _ = config;
    /// ```
    ///
    /// oxmcp-otel's Prometheus exporter (its `prometheus` feature, and
    /// `OTEL_METRICS_EXPORTER=prometheus`) is served as one:
    /// `config.page("/metrics", oxmcp_otel::Prometheus::CONTENT_TYPE, move || metrics.encode())`,
    /// with `metrics` from `Telemetry::prometheus`.
    ///
    /// # Panics
    ///
    /// When `content_type` is not a valid header value.
    #[must_use]
    pub fn page<B: Into<Vec<u8>>>(
        mut self,
        path: impl Into<String>,
        content_type: &str,
        render: impl Fn() -> B + Send + Sync + 'static,
    ) -> Self {
        let content_type = http::HeaderValue::from_str(content_type)
            .unwrap_or_else(|_| panic!("{content_type:?} is not a valid Content-Type"));
        self.pages.push(Page {
            path: path.into(),
            content_type,
            render: std::sync::Arc::new(move || render().into()),
        });
        self
    }

    pub(super) fn retry_ms(&self) -> u64 {
        u64::try_from(self.retry.as_millis()).unwrap_or(u64::MAX)
    }
}
