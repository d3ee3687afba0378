//! [`ClientBuilder`]: configuration and the connectors. The era handshake,
//! the same for every transport, is in [`handshake`]; connecting over HTTP
//! (and the fallback to HTTP+SSE) in `http`.

mod handshake;
#[cfg(feature = "http")]
mod http;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use oxmcp_types::call::CallError;
use oxmcp_types::modern::SubscriptionFilter;
use oxmcp_types::{Implementation, LoggingLevel};
use tokio::io::{AsyncRead, AsyncWrite};

use crate::client::{Client, Inner};
use crate::connection::SessionInfo;
use crate::connection::Shared;
use crate::connection::{Config, Conn};
use crate::handler::{Handlers, RequestHandler};
use crate::options::Era;
use crate::transport::lines::LinesTransport;
use crate::transport::Transport;

/// Configures and opens a [`Client`].
///
/// ```no_run
/// use std::time::Duration;
/// use oxmcp_client::{Client, Era};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), oxmcp_client::Error> {
/// let client = Client::builder()
///     .client_info("my-agent", "1.0.0")
///     .timeout(Duration::from_secs(30))
///     .protocol(Era::Auto)
///     .connect_http("http://127.0.0.1:3000/mcp")
///     .await?;
/// # let _ = client;
/// # Ok(())
/// # }
/// ```
#[must_use]
pub struct ClientBuilder {
    client_info: Implementation,
    timeout: Duration,
    max_call_time: Duration,
    progress_tokens: bool,
    connect_timeout: Duration,
    probe_timeout: Duration,
    shutdown_timeout: Duration,
    era: Era,
    handlers: Handlers,
    max_message: usize,
    #[cfg(feature = "http")]
    headers: Vec<(String, String)>,
    log_level: Option<LoggingLevel>,
    max_input_rounds: usize,
    /// Extensions declared, with their settings.
    extensions: Vec<(String, oxmcp_types::JsonObject)>,
    /// Whether the tasks extension is declared (calls answered with a task
    /// are then followed to their end).
    tasks: bool,
    #[cfg(feature = "tls")]
    tls: Option<Arc<rustls::ClientConfig>>,
    #[cfg(feature = "auth")]
    oauth: Option<crate::auth::OAuth>,
}

impl std::fmt::Debug for ClientBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientBuilder")
            .field("client_info", &self.client_info)
            .field("timeout", &self.timeout)
            .field("era", &self.era)
            .field("handlers", &self.handlers)
            .finish_non_exhaustive()
    }
}

impl Default for ClientBuilder {
    fn default() -> Self {
        ClientBuilder::new()
    }
}

impl Client {
    /// Starts configuring a client.
    pub fn builder() -> ClientBuilder {
        ClientBuilder::new()
    }
}

impl ClientBuilder {
    /// The defaults: `clientInfo` `mcp-client-rs` with this crate's version,
    /// 60 s without progress and 30 minutes in all per call, 30 s to connect, a 10 s era probe, [`Era::Auto`],
    /// no handlers, 16 MiB messages.
    pub fn new() -> Self {
        ClientBuilder {
            client_info: Implementation::new("mcp-client-rs", env!("CARGO_PKG_VERSION")),
            timeout: Duration::from_secs(60),
            max_call_time: Duration::from_secs(30 * 60),
            progress_tokens: true,
            connect_timeout: Duration::from_secs(30),
            #[cfg(feature = "tls")]
            tls: None,
            #[cfg(feature = "auth")]
            oauth: None,
            probe_timeout: Duration::from_secs(10),
            shutdown_timeout: Duration::from_secs(2),
            era: Era::Auto,
            handlers: Handlers::default(),
            max_message: 16 * 1024 * 1024,
            #[cfg(feature = "http")]
            headers: Vec::new(),
            log_level: None,
            max_input_rounds: 8,
            extensions: Vec::new(),
            tasks: true,
        }
    }

    /// The client's name and version, sent as `clientInfo`.
    pub fn client_info(mut self, name: impl Into<String>, version: impl Into<String>) -> Self {
        self.client_info = Implementation::new(name, version);
        self
    }

    /// How long a request may go without an answer or a progress
    /// notification (default 60 s); each progress notification starts the
    /// wait again, so a long tool that reports progress is not cut off.
    /// Per call, see [`CallOptions::timeout`](crate::CallOptions::timeout).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The longest a request may take in all, progress or not (default 30
    /// minutes; work longer than that belongs in a task). Per call, see
    /// [`CallOptions::max_time`](crate::CallOptions::max_time).
    pub fn max_call_time(mut self, limit: Duration) -> Self {
        self.max_call_time = limit;
        self
    }

    /// Whether every request carries a `progressToken` (default yes), so
    /// that a server may report progress, and its reports keep the call
    /// alive, whether or not the call has a progress callback.
    pub fn progress_tokens(mut self, on: bool) -> Self {
        self.progress_tokens = on;
        self
    }

    /// How long connecting and the handshake may take (default 30 s).
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// How long [`Era::Auto`] waits for an answer to its `server/discover`
    /// probe before assuming a legacy server (default 10 s: a child process
    /// may take seconds to start; only legacy servers that ignore requests
    /// before `initialize` make it wait that long).
    pub fn probe_timeout(mut self, timeout: Duration) -> Self {
        self.probe_timeout = timeout;
        self
    }

    /// How long a child process gets to exit after its stdin is closed, and
    /// again after SIGTERM, before it is killed (default 2 s each).
    pub fn shutdown_timeout(mut self, timeout: Duration) -> Self {
        self.shutdown_timeout = timeout;
        self
    }

    /// Which protocol era to speak (default [`Era::Auto`]).
    pub fn protocol(mut self, era: Era) -> Self {
        self.era = era;
        self
    }

    /// Answers `sampling/createMessage` (and declares the `sampling` capability).
    #[deprecated(
        since = "0.1.0",
        note = "sampling is deprecated since MCP 2026-07-28 (SEP-2577): servers should call model providers directly; keep this handler only for servers that still ask"
    )]
    pub fn sampling_handler(mut self, handler: impl RequestHandler) -> Self {
        self.handlers.sampling = Some(Arc::new(handler));
        self
    }

    /// Answers `elicitation/create` (and declares the `elicitation` capability).
    pub fn elicitation_handler(mut self, handler: impl RequestHandler) -> Self {
        self.handlers.elicitation = Some(Arc::new(handler));
        self
    }

    /// Answers `roots/list` (and declares the `roots` capability).
    #[deprecated(
        since = "0.1.0",
        note = "roots are deprecated since MCP 2026-07-28 (SEP-2577): pass directories or files as tool arguments, resource URIs or the server's configuration instead"
    )]
    pub fn roots_handler(mut self, handler: impl RequestHandler) -> Self {
        self.handlers.roots = Some(Arc::new(handler));
        self
    }

    /// The largest message accepted from the server (default 16 MiB).
    pub fn max_message_size(mut self, bytes: usize) -> Self {
        self.max_message = bytes.max(1024);
        self
    }

    /// An HTTP header sent with every HTTP request (for example
    /// `Authorization`). Invalid names or values fail the connection.
    #[cfg(feature = "http")]
    pub fn http_header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Asks the server for log messages at `level` and above from the start
    /// (legacy: `logging/setLevel` after the handshake, if the server offers
    /// logging; modern: `_meta` logLevel on every request).
    #[deprecated(
        since = "0.1.0",
        note = "logging is deprecated since MCP 2026-07-28 (SEP-2577): read the server's stderr (stdio) or its OpenTelemetry export instead"
    )]
    pub fn log_level(mut self, level: LoggingLevel) -> Self {
        self.log_level = Some(level);
        self
    }

    /// How many `input_required` rounds one modern request may take (default 8).
    pub fn max_input_rounds(mut self, rounds: usize) -> Self {
        self.max_input_rounds = rounds;
        self
    }

    /// Declares extension `id` (SEP-2133) with its settings (often empty):
    /// in the capabilities of `initialize` (legacy era) and of every
    /// request's `_meta` (2026-07-28). What the server offers is in
    /// [`Client::server_capabilities`]`().extension(id)`. Connecting fails
    /// (before anything is sent) when `id` is not `vendor.prefix/name`.
    pub fn extension(mut self, id: impl Into<String>, settings: oxmcp_types::JsonObject) -> Self {
        self.extensions.push((id.into(), settings));
        self
    }

    /// Whether to declare the tasks extension (SEP-2663; on by default).
    /// With it, a server may answer a long `tools/call` with a task: the
    /// client then polls it (at the interval the server asks for), answers
    /// the input it asks for with the installed handlers, cancels it when
    /// the caller stops waiting, and returns the final result, so callers
    /// see an ordinary call. Without it, a tool that only runs as a task is
    /// refused (-32021).
    pub fn tasks(mut self, on: bool) -> Self {
        self.tasks = on;
        self
    }

    /// Declares MCP Apps (`io.modelcontextprotocol/ui`, with pages of
    /// `text/html;profile=mcp-app`): the server then lists its tools'
    /// pages, which [`Client::app_page`] fetches for a host to render.
    pub fn apps(self) -> Self {
        let mut settings = oxmcp_types::JsonObject::new();
        settings.insert(
            "mimeTypes".into(),
            serde_json::json!([oxmcp_types::apps::MIME_TYPE]),
        );
        self.extension(oxmcp_types::extension::UI, settings)
    }

    pub(super) fn parts(&self) -> Result<(Arc<Shared>, Arc<Config>), CallError> {
        let mut capabilities = self.handlers.capabilities();
        let tasks = self.tasks.then(|| {
            (
                oxmcp_types::extension::TASKS.to_owned(),
                oxmcp_types::JsonObject::new(),
            )
        });
        if tasks.is_some() || !self.extensions.is_empty() {
            let mut declared = oxmcp_types::JsonObject::new();
            if let Some((id, settings)) = tasks {
                declared.insert(id, settings.into());
            }
            for (id, settings) in &self.extensions {
                oxmcp_types::extension::check_id(id)
                    .map_err(|e| CallError::Transport(Box::new(e)))?;
                declared.insert(id.clone(), settings.clone().into());
            }
            capabilities.extensions = Some(declared);
        }
        let shared = Shared::new(self.handlers.clone(), self.log_level);
        let config = Arc::new(Config {
            client_info: self.client_info.clone(),
            capabilities,
            timeout: self.timeout,
            max_call_time: self.max_call_time,
            progress_tokens: self.progress_tokens,
            max_input_rounds: self.max_input_rounds,
        });
        Ok((shared, config))
    }

    /// Connects over any pair of byte streams carrying newline-delimited
    /// JSON-RPC: a socket, a pipe, or `tokio::io::duplex` to a server in the
    /// same program (see the [crate docs](crate#in-process)).
    pub async fn connect_io<R, W>(self, reader: R, writer: W) -> Result<Client, CallError>
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let (shared, config) = self.parts()?;
        let lines = LinesTransport::start(reader, writer, &shared, self.max_message, None);
        self.connect_messages(shared, config, Arc::new(lines)).await
    }

    #[cfg(feature = "stdio")]
    /// Spawns `command` as the server and speaks over its stdin and stdout.
    ///
    /// stdin, stdout and stderr are piped (whatever `command` said). Each
    /// stderr line is logged with `tracing` (debug, target
    /// `oxmcp_client::stderr`) and the last 64 are kept
    /// ([`Client::stderr_tail`]); if the process dies, every pending call
    /// fails at once with [`CallError::Transport`] naming its exit status and
    /// its last stderr lines. The child is killed if the client is dropped
    /// without [`Client::close`] and the runtime goes away.
    pub async fn connect_stdio(
        self,
        command: tokio::process::Command,
    ) -> Result<Client, CallError> {
        let (shared, config) = self.parts()?;
        let program = command
            .as_std()
            .get_program()
            .to_string_lossy()
            .into_owned();
        let (process, stdout, stdin) =
            crate::transport::process::Process::spawn(command, &shared, self.shutdown_timeout)
                .map_err(|e| {
                    crate::error::transport(format!("cannot start the server `{program}`: {e}"))
                })?;
        let lines = LinesTransport::start(stdout, stdin, &shared, self.max_message, Some(process));
        self.connect_messages(shared, config, Arc::new(lines)).await
    }

    /// Opens a connection over `transport`: the era handshake, then [`finish`](Self::finish).
    async fn connect_messages(
        &self,
        shared: Arc<Shared>,
        config: Arc<Config>,
        transport: Arc<dyn Transport>,
    ) -> Result<Client, CallError> {
        shared.set_transport(&transport);
        let conn = Conn::new(shared, transport, config);
        match self.handshake(&conn).await {
            Ok(session) => self.finish(conn, session).await,
            Err(e) => {
                conn.shared.close(crate::connection::Closed::ByClient);
                conn.transport.close().await;
                Err(e)
            }
        }
    }

    /// Wraps up a connection: the log level, and in the modern era a
    /// subscription to tool list changes when the server offers them.
    async fn finish(&self, conn: Conn, session: SessionInfo) -> Result<Client, CallError> {
        let modern = !session.version.is_legacy();
        let http_modern = conn.transport.mirrors_params();
        let wants_list_changes = session
            .capabilities
            .tools
            .as_ref()
            .and_then(|t| t.list_changed)
            == Some(true);
        let has_logging = session.capabilities.logging.is_some();
        let client = Client {
            inner: Arc::new(Inner {
                conn,
                session,
                http_modern,
                background: Mutex::new(Vec::new()),
            }),
        };
        if let (Some(level), false, true) = (self.log_level, modern, has_logging) {
            #[allow(deprecated)] // the level asked for with the deprecated `log_level`
            client.set_log_level(level).await?;
        }
        if modern && wants_list_changes {
            let filter = SubscriptionFilter {
                tools_list_changed: Some(true),
                ..SubscriptionFilter::default()
            };
            // Its events are routed (and invalidate the cache) by the
            // dispatcher; nobody reads the channel, so it is closed at once.
            let (mut sub, _) = client.start_listen(filter)?;
            sub.rx.close();
            crate::connection::lock(&client.inner.background).push(sub);
        }
        Ok(client)
    }
}
