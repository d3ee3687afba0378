//! [`ClientBuilder`]: configuration, the connectors, and the era handshake
//! (`server/discover` probe, legacy `initialize`, the HTTP+SSE fallback).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use http::header::{HeaderMap, HeaderName, HeaderValue};
use mcp_types::call::CallError;
use mcp_types::jsonrpc::code;
use mcp_types::modern::{meta as meta_key, SubscriptionFilter, UnsupportedVersionData};
use mcp_types::{
    method, Implementation, InitializeParams, InitializeResult, JsonObject, LoggingLevel, Meta,
    ProtocolVersion, ServerCapabilities,
};
use serde::Deserialize;
use serde_json::Value;
use tokio::io::{AsyncRead, AsyncWrite};

use crate::client::{Client, Inner, SessionInfo};
use crate::conn::{Config, Conn, Req};
use crate::error::{http_status, is_modern_code, transport};
use crate::handler::{Handlers, RequestHandler};
use crate::options::Era;
use crate::shared::Shared;
use crate::transport::http::legacy_sse::SseTransport;
use crate::transport::http::{http_client, parse_url, HttpClient, HttpTransport};
use crate::transport::lines::LinesTransport;
use crate::transport::process::Process;
use crate::transport::Transport;

/// Configures and opens a [`Client`].
///
/// ```no_run
/// use std::time::Duration;
/// use mcp_client::{Client, Era};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), mcp_client::Error> {
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
    connect_timeout: Duration,
    probe_timeout: Duration,
    shutdown_timeout: Duration,
    era: Era,
    handlers: Handlers,
    max_message: usize,
    headers: Vec<(String, String)>,
    log_level: Option<LoggingLevel>,
    max_input_rounds: usize,
    tls: Option<Arc<rustls::ClientConfig>>,
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

impl ClientBuilder {
    /// The defaults: `clientInfo` `mcp-client-rs` with this crate's version,
    /// a 60 s call timeout, 30 s to connect, a 10 s era probe, [`Era::Auto`],
    /// no handlers, 16 MiB messages.
    pub fn new() -> Self {
        ClientBuilder {
            client_info: Implementation::new("mcp-client-rs", env!("CARGO_PKG_VERSION")),
            timeout: Duration::from_secs(60),
            connect_timeout: Duration::from_secs(30),
            tls: None,
            probe_timeout: Duration::from_secs(10),
            shutdown_timeout: Duration::from_secs(2),
            era: Era::Auto,
            handlers: Handlers::default(),
            max_message: 16 * 1024 * 1024,
            headers: Vec::new(),
            log_level: None,
            max_input_rounds: 8,
        }
    }

    /// The client's name and version, sent as `clientInfo`.
    pub fn client_info(mut self, name: impl Into<String>, version: impl Into<String>) -> Self {
        self.client_info = Implementation::new(name, version);
        self
    }

    /// The default timeout of every call (default 60 s); per call, see
    /// [`CallOptions::timeout`](crate::CallOptions::timeout).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The TLS configuration for `https://` endpoints, for instance to trust
    /// a private certificate authority or to present a client certificate.
    /// By default: TLS 1.2 and 1.3 (rustls on ring) trusting Mozilla's root
    /// certificates. Build it with the re-exported [`rustls`](crate::rustls).
    pub fn tls_config(mut self, config: Arc<rustls::ClientConfig>) -> Self {
        self.tls = Some(config);
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
    pub fn http_header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Asks the server for log messages at `level` and above from the start
    /// (legacy: `logging/setLevel` after the handshake, if the server offers
    /// logging; modern: `_meta` logLevel on every request).
    pub fn log_level(mut self, level: LoggingLevel) -> Self {
        self.log_level = Some(level);
        self
    }

    /// How many `input_required` rounds one modern request may take (default 8).
    pub fn max_input_rounds(mut self, rounds: usize) -> Self {
        self.max_input_rounds = rounds;
        self
    }

    fn parts(&self) -> (Arc<Shared>, Arc<Config>) {
        let shared = Shared::new(self.handlers.clone(), self.log_level);
        let config = Arc::new(Config {
            client_info: self.client_info.clone(),
            capabilities: self.handlers.capabilities(),
            timeout: self.timeout,
            max_input_rounds: self.max_input_rounds,
        });
        (shared, config)
    }

    fn header_map(&self) -> Result<HeaderMap, CallError> {
        let mut map = HeaderMap::new();
        for (name, value) in &self.headers {
            let n = HeaderName::from_bytes(name.as_bytes())
                .map_err(|_| transport(format!("`{name}` is not a valid HTTP header name")))?;
            let v = HeaderValue::from_str(value)
                .map_err(|_| transport(format!("the value of header `{name}` is not valid")))?;
            map.append(n, v);
        }
        Ok(map)
    }

    /// Connects over any pair of byte streams carrying newline-delimited
    /// JSON-RPC: a socket, a pipe, or `tokio::io::duplex` to a server in the
    /// same program (see the [crate docs](crate#in-process)).
    pub async fn connect_io<R, W>(self, reader: R, writer: W) -> Result<Client, CallError>
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let (shared, config) = self.parts();
        let lines = LinesTransport::start(reader, writer, &shared, self.max_message, None);
        self.connect_messages(shared, config, Arc::new(lines)).await
    }

    /// Spawns `command` as the server and speaks over its stdin and stdout.
    ///
    /// stdin, stdout and stderr are piped (whatever `command` said). Each
    /// stderr line is logged with `tracing` (debug, target
    /// `mcp_client::stderr`) and the last 64 are kept
    /// ([`Client::stderr_tail`]); if the process dies, every pending call
    /// fails at once with [`CallError::Transport`] naming its exit status and
    /// its last stderr lines. The child is killed if the client is dropped
    /// without [`Client::close`] and the runtime goes away.
    pub async fn connect_stdio(
        self,
        command: tokio::process::Command,
    ) -> Result<Client, CallError> {
        let (shared, config) = self.parts();
        let program = command
            .as_std()
            .get_program()
            .to_string_lossy()
            .into_owned();
        let (process, stdout, stdin) = Process::spawn(command, &shared, self.shutdown_timeout)
            .map_err(|e| transport(format!("cannot start the server `{program}`: {e}")))?;
        let lines = LinesTransport::start(stdout, stdin, &shared, self.max_message, Some(process));
        self.connect_messages(shared, config, Arc::new(lines)).await
    }

    /// Connects to a Streamable HTTP endpoint (`http://` or `https://`).
    ///
    /// With [`Era::Auto`], a `server/discover` probe picks the modern era;
    /// a legacy server (a 4xx without a modern JSON-RPC error, -32601, or no
    /// answer within the probe timeout) gets `initialize`, and a server
    /// that refuses that POST with 400, 404 or 405 is tried as a legacy
    /// HTTP+SSE server at the same URL, as the spec's backward-compatibility
    /// section describes.
    pub async fn connect_http(self, url: &str) -> Result<Client, CallError> {
        let uri = parse_url(url)?;
        let headers = self.header_map()?;
        let client = http_client(self.connect_timeout, self.tls.clone());
        let (shared, config) = self.parts();
        let http = Arc::new(HttpTransport::new(
            client.clone(),
            uri.clone(),
            headers.clone(),
            &shared,
            self.max_message,
        ));
        let transport: Arc<dyn Transport> = Arc::clone(&http) as Arc<dyn Transport>;
        shared.set_transport(&transport);
        let conn = Conn {
            shared,
            transport,
            config,
        };
        if self.era != Era::Legacy {
            http.set_modern(true);
            let wait = if self.era == Era::Auto {
                self.probe_timeout
            } else {
                self.connect_timeout
            };
            match discover(&conn, wait).await? {
                Discovered::Modern(session) => return self.finish(conn, *session, true).await,
                Discovered::Legacy(why) if self.era == Era::Modern => {
                    return Err(not_modern(&why));
                }
                Discovered::Legacy(why) => {
                    tracing::debug!(%why, "not a 2026-07-28 server; trying initialize");
                }
            }
            http.set_modern(false);
        }
        match self.initialize(&conn).await {
            Ok(session) => {
                http.set_protocol_version(session.version);
                conn.notify(method::INITIALIZED, None).await?;
                http.keep_initialize(&initialize_params(&conn));
                http.start_standalone().await;
                self.finish(conn, session, false).await
            }
            Err(CallError::Protocol(e)) if self.era == Era::Auto && rejects_for_modern(&e) => {
                http.set_modern(true);
                match discover(&conn, self.connect_timeout).await? {
                    Discovered::Modern(session) => self.finish(conn, *session, true).await,
                    Discovered::Legacy(_) => Err(CallError::Protocol(e)),
                }
            }
            Err(e)
                if http_status(&e).is_some_and(|s| {
                    !s.modern_error && matches!(s.status.as_u16(), 400 | 404 | 405)
                }) =>
            {
                tracing::info!(error = %e, "Streamable HTTP refused; trying the HTTP+SSE transport");
                drop(conn);
                drop(http);
                self.sse(client, uri, headers).await
            }
            Err(e) => Err(e),
        }
    }

    /// Connects to a server using the legacy HTTP+SSE transport (2024-11-05):
    /// `url` is the SSE endpoint (often `…/sse`). Legacy era only.
    pub async fn connect_sse(self, url: &str) -> Result<Client, CallError> {
        let uri = parse_url(url)?;
        let headers = self.header_map()?;
        let client = http_client(self.connect_timeout, self.tls.clone());
        self.sse(client, uri, headers).await
    }

    async fn sse(
        self,
        client: HttpClient,
        uri: http::Uri,
        headers: HeaderMap,
    ) -> Result<Client, CallError> {
        if self.era == Era::Modern {
            return Err(not_modern(
                "the HTTP+SSE transport exists only in the legacy era",
            ));
        }
        let (shared, config) = self.parts();
        let sse = SseTransport::connect(
            client,
            uri,
            headers,
            &shared,
            self.max_message,
            self.connect_timeout,
        )
        .await?;
        let transport: Arc<dyn Transport> = Arc::new(sse);
        shared.set_transport(&transport);
        let conn = Conn {
            shared,
            transport,
            config,
        };
        let session = self.initialize(&conn).await?;
        conn.notify(method::INITIALIZED, None).await?;
        self.finish(conn, session, false).await
    }

    /// The handshake over a message transport (stdio, in-process, HTTP+SSE).
    async fn connect_messages(
        self,
        shared: Arc<Shared>,
        config: Arc<Config>,
        transport: Arc<dyn Transport>,
    ) -> Result<Client, CallError> {
        shared.set_transport(&transport);
        let conn = Conn {
            shared,
            transport,
            config,
        };
        match self.handshake(&conn).await {
            Ok(session) => self.finish(conn, session, false).await,
            Err(e) => {
                conn.shared.close(crate::shared::Closed::ByClient);
                conn.transport.close().await;
                Err(e)
            }
        }
    }

    async fn handshake(&self, conn: &Conn) -> Result<SessionInfo, CallError> {
        if self.era != Era::Legacy {
            let wait = if self.era == Era::Auto {
                self.probe_timeout
            } else {
                self.connect_timeout
            };
            match discover(conn, wait).await? {
                Discovered::Modern(session) => return Ok(*session),
                Discovered::Legacy(why) if self.era == Era::Modern => return Err(not_modern(&why)),
                Discovered::Legacy(why) => {
                    tracing::debug!(%why, "not a 2026-07-28 server; trying initialize");
                }
            }
        }
        let session = match self.initialize(conn).await {
            Ok(session) => session,
            // The probe's answer came late and the server already speaks the
            // modern era on this connection: ask again, patiently.
            Err(CallError::Protocol(e)) if self.era == Era::Auto && rejects_for_modern(&e) => {
                tracing::debug!("initialize refused for 2026-07-28; probing again");
                return match discover(conn, self.connect_timeout).await? {
                    Discovered::Modern(session) => Ok(*session),
                    Discovered::Legacy(_) => Err(CallError::Protocol(e)),
                };
            }
            Err(e) => return Err(e),
        };
        conn.notify(method::INITIALIZED, None).await?;
        Ok(session)
    }

    /// The legacy `initialize` request.
    async fn initialize(&self, conn: &Conn) -> Result<SessionInfo, CallError> {
        let params = initialize_params(conn);
        let req = Req {
            timeout: Some(self.connect_timeout),
            cancellable: false,
            ..Req::new(method::INITIALIZE, params, false)
        };
        let value = conn.request(req).await?;
        let chosen = value
            .get("protocolVersion")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        if !ProtocolVersion::parse(&chosen).is_some_and(ProtocolVersion::is_legacy) {
            return Err(CallError::Protocol(ErrorObject::new(
                code::INVALID_PARAMS,
                format!(
                    "the server chose protocol version `{chosen}`, which this client does not speak (it speaks {})",
                    legacy_list()
                ),
            )));
        }
        let result: InitializeResult = serde_json::from_value(value).map_err(|e| {
            CallError::Protocol(ErrorObject::internal(format!(
                "the server sent a malformed initialize result: {e}"
            )))
        })?;
        Ok(SessionInfo {
            version: result.protocol_version,
            server_info: result.server_info,
            capabilities: result.capabilities,
            instructions: result.instructions,
        })
    }

    /// Wraps up a connection: the log level, and in the modern era a
    /// subscription to tool list changes when the server offers them.
    async fn finish(
        self,
        conn: Conn,
        session: SessionInfo,
        http_modern: bool,
    ) -> Result<Client, CallError> {
        let modern = !session.version.is_legacy();
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
            crate::shared::lock(&client.inner.background).push(sub);
        }
        Ok(client)
    }
}

use mcp_types::ErrorObject;

/// The params of `initialize`: the newest legacy revision, the
/// capabilities that have handlers, `clientInfo`.
fn initialize_params(conn: &Conn) -> JsonObject {
    let params = InitializeParams {
        protocol_version: ProtocolVersion::LATEST_LEGACY.as_str().to_owned(),
        capabilities: conn.config.capabilities.clone(),
        client_info: conn.config.client_info.clone(),
        meta: None,
    };
    match serde_json::to_value(params) {
        Ok(Value::Object(map)) => map,
        _ => JsonObject::new(),
    }
}

fn legacy_list() -> String {
    ProtocolVersion::LEGACY
        .iter()
        .map(|v| v.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Whether an error to `initialize` says the server speaks (only) 2026-07-28.
fn rejects_for_modern(e: &ErrorObject) -> bool {
    e.code == code::UNSUPPORTED_PROTOCOL_VERSION
        && e.data
            .as_ref()
            .and_then(|d| UnsupportedVersionData::deserialize(d).ok())
            .is_some_and(|d| {
                d.supported
                    .iter()
                    .any(|v| v == ProtocolVersion::V2026_07_28.as_str())
            })
}

fn not_modern(why: &str) -> CallError {
    CallError::Protocol(ErrorObject::new(
        code::UNSUPPORTED_PROTOCOL_VERSION,
        format!("the server does not speak protocol 2026-07-28 ({why})"),
    ))
}

/// What the `server/discover` probe found out.
enum Discovered {
    Modern(Box<SessionInfo>),
    /// Not a modern server (why, for the log).
    Legacy(String),
}

/// The fields of a `server/discover` result the client needs, read leniently.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Discover {
    supported_versions: Vec<String>,
    #[serde(default)]
    capabilities: ServerCapabilities,
    #[serde(default)]
    instructions: Option<String>,
    #[serde(rename = "_meta", default)]
    meta: Option<Meta>,
}

/// Probes with `server/discover` (modern `_meta`). Any answer that is not a
/// discover result or a recognized modern error, or no answer in time,
/// means a legacy server (the spec's stdio and HTTP fallback rules).
async fn discover(conn: &Conn, wait: Duration) -> Result<Discovered, CallError> {
    let req = Req {
        timeout: Some(wait),
        // Nothing but `initialize` may follow at a legacy server.
        cancellable: false,
        ..Req::new(method::SERVER_DISCOVER, JsonObject::new(), true)
    };
    let legacy_versions = |supported: &[String]| {
        supported
            .iter()
            .any(|v| ProtocolVersion::parse(v).is_some_and(ProtocolVersion::is_legacy))
    };
    match conn.request(req).await {
        Ok(value) => {
            let Ok(d) = Discover::deserialize(&value) else {
                return Ok(Discovered::Legacy(
                    "server/discover returned something else than a discover result".into(),
                ));
            };
            if d.supported_versions
                .iter()
                .any(|v| v == ProtocolVersion::V2026_07_28.as_str())
            {
                let server_info = d
                    .meta
                    .as_ref()
                    .and_then(|m| m.get(meta_key::SERVER_INFO))
                    .and_then(|v| Implementation::deserialize(v).ok())
                    .unwrap_or_else(|| Implementation::new("", ""));
                Ok(Discovered::Modern(Box::new(SessionInfo {
                    version: ProtocolVersion::V2026_07_28,
                    server_info,
                    capabilities: d.capabilities,
                    instructions: d.instructions,
                })))
            } else if legacy_versions(&d.supported_versions) {
                Ok(Discovered::Legacy(format!(
                    "it supports {:?}",
                    d.supported_versions
                )))
            } else {
                Err(CallError::Protocol(ErrorObject::new(
                    code::UNSUPPORTED_PROTOCOL_VERSION,
                    format!(
                        "the server supports only {:?}; this client speaks 2026-07-28 and {}",
                        d.supported_versions,
                        legacy_list()
                    ),
                )))
            }
        }
        Err(CallError::Protocol(e)) if e.code == code::UNSUPPORTED_PROTOCOL_VERSION => {
            let supported = e
                .data
                .as_ref()
                .and_then(|d| UnsupportedVersionData::deserialize(d).ok())
                .map(|d| d.supported)
                .unwrap_or_default();
            if legacy_versions(&supported) {
                Ok(Discovered::Legacy(format!("it supports {supported:?}")))
            } else {
                Err(CallError::Protocol(e))
            }
        }
        Err(CallError::Protocol(e)) if is_modern_code(e.code) => Err(CallError::Protocol(e)),
        Err(CallError::Protocol(e)) => Ok(Discovered::Legacy(format!(
            "server/discover failed with {}: {}",
            e.code, e.message
        ))),
        Err(CallError::Timeout(d)) => Ok(Discovered::Legacy(format!(
            "no answer to server/discover within {d:?}"
        ))),
        Err(e) => match http_status(&e) {
            Some(s) if s.status.is_client_error() && !s.modern_error => {
                Ok(Discovered::Legacy(e.to_string()))
            }
            _ => Err(e),
        },
    }
}
