//! One Streamable HTTP MCP server under measurement: spawn it on a free
//! port, probe which protocol eras it serves, run the phases with
//! hand-written HTTP/1.1 keep-alive clients, and measure the memory of idle
//! legacy sessions.

use std::borrow::Cow;
use std::io::{self, Read};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, ChildStderr, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1::{self, SendRequest};
use hyper::header::{HeaderName, HeaderValue, ACCEPT, CONTENT_TYPE, HOST};
use hyper::{Method, Request, StatusCode};
use hyper_util::rt::TokioIo;
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;
use tokio::task::JoinSet;

use crate::procfs;
use crate::redis::{Connection, RedisServer};
use crate::stats::{self, phase, Limits, Phase};

/// The MCP endpoint every server is asked to serve.
const PATH: &str = "/mcp";
/// The legacy protocol version the driver negotiates.
const LEGACY_VERSION: &str = "2025-11-25";
/// The stateless protocol version.
const MODERN_VERSION: &str = "2026-07-28";
/// A request that takes longer than this fails the run.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a server may take to accept connections.
const START_TIMEOUT: Duration = Duration::from_secs(10);
/// Keep-alive connections that open the idle sessions.
const SESSION_CONNECTIONS: u64 = 4;
/// Sessions opened on a fresh server before its RSS is first read.
const SESSION_WARMUP: u64 = 32;

const MCP_SESSION_ID: HeaderName = HeaderName::from_static("mcp-session-id");
const MCP_PROTOCOL_VERSION: HeaderName = HeaderName::from_static("mcp-protocol-version");
const MCP_METHOD: HeaderName = HeaderName::from_static("mcp-method");
const MCP_NAME: HeaderName = HeaderName::from_static("mcp-name");

/// The protocol era of a phase.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// 2025-11-25: `initialize`, `notifications/initialized`, then calls
    /// carrying the session id the server gave (if any).
    Legacy,
    /// 2026-07-28: no handshake; every call carries `_meta` and the
    /// `Mcp-Method`/`Mcp-Name` headers, and its result `resultType`.
    Modern,
}

impl Mode {
    pub(crate) const ALL: [Self; 2] = [Self::Legacy, Self::Modern];

    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::Legacy => "legacy",
            Self::Modern => "modern",
        }
    }
}

/// How much to measure.
#[derive(Debug, Clone)]
pub(crate) struct Settings {
    /// A measured phase makes at least this many calls...
    pub(crate) calls: u64,
    /// ...and runs at least this long...
    pub(crate) min_phase: Duration,
    /// ...but stops issuing requests after this long.
    pub(crate) max_phase: Duration,
    /// Warm-up calls before each measured phase, on the same connections.
    pub(crate) warmup: u64,
    /// Concurrent clients of each phase, each with its own connection (and
    /// its own session in legacy mode).
    pub(crate) clients: Vec<u64>,
    /// Idle legacy sessions to open for the memory measurement (0: skip).
    pub(crate) sessions: u64,
}

/// What one mode measured on one target: a phase per entry of
/// [`Settings::clients`], or why the target does not serve the mode.
#[derive(Debug, Clone)]
pub(crate) struct ModeResult {
    pub(crate) mode: Mode,
    pub(crate) phases: Result<Vec<Phase>, String>,
}

/// What one run of one target measured.
#[derive(Debug, Clone)]
pub(crate) struct RunResult {
    pub(crate) modes: Vec<ModeResult>,
    /// Whether `initialize` returned an `Mcp-Session-Id`.
    pub(crate) sessions: bool,
    /// RSS growth per idle legacy session, KiB; `None` when not measured.
    pub(crate) kib_per_session: Option<f64>,
    /// Growth of Redis's `used_memory` per idle legacy session, bytes; `None`
    /// when the target has no Redis or the sessions were not measured.
    pub(crate) redis_bytes_per_session: Option<f64>,
    /// Keys Redis gained over the same measurement (`DBSIZE`), to show that
    /// the sessions were in Redis when its memory was read.
    pub(crate) redis_keys_added: Option<u64>,
}

impl RunResult {
    /// The phase of `mode` with the `clients`-th client count, if measured.
    pub(crate) fn phase(&self, mode: Mode, clients: usize) -> Option<&Phase> {
        self.modes
            .iter()
            .find(|m| m.mode == mode)
            .and_then(|m| m.phases.as_ref().ok())
            .and_then(|phases| phases.get(clients))
    }

    /// Why `mode` was skipped, if it was.
    pub(crate) fn skipped(&self, mode: Mode) -> Option<&str> {
        self.modes
            .iter()
            .find(|m| m.mode == mode)
            .and_then(|m| m.phases.as_ref().err())
            .map(String::as_str)
    }
}

/// Runs the whole measurement against the server at `path`, started with
/// `args` and `--port <free port>`. The idle-session memory is measured (on a
/// second, fresh server process) only when `measure_sessions` and the server
/// hands out session ids. With `redis` (the Redis the server stores its
/// sessions in), Redis is emptied before the fresh server starts, and the
/// growth of its `used_memory` per idle session is measured too.
pub(crate) fn measure(
    path: &Path,
    args: &[String],
    settings: &Settings,
    measure_sessions: bool,
    redis: Option<&RedisServer>,
) -> io::Result<RunResult> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let mut server = Server::spawn(path, args)?;
    let result = runtime.block_on(server.run(settings));
    server.shutdown();
    let mut result = result.map_err(|e| server.explain(e))?;
    if measure_sessions && result.sessions && settings.sessions > 0 {
        if let Some(redis) = redis {
            redis.flush_all()?;
        }
        let mut fresh = Server::spawn(path, args)?;
        let growth = runtime.block_on(fresh.idle_sessions(settings.sessions, redis));
        fresh.shutdown();
        let growth = growth.map_err(|e| io::Error::new(e.kind(), format!("idle sessions: {e}")));
        let growth = growth.map_err(|e| fresh.explain(e))?;
        result.kib_per_session = Some(growth.kib_per_session);
        if let Some((bytes, keys)) = growth.redis {
            result.redis_bytes_per_session = Some(bytes);
            result.redis_keys_added = Some(keys);
        }
    }
    Ok(result)
}

/// What opening idle sessions added: server RSS per session, and with Redis,
/// its `used_memory` per session (bytes) and the keys it gained.
struct SessionGrowth {
    kib_per_session: f64,
    redis: Option<(f64, u64)>,
}

/// Redis's `used_memory` and key count.
fn redis_reading(redis: &mut Connection) -> io::Result<(u64, u64)> {
    Ok((redis.used_memory()?, redis.keys()?))
}

/// A spawned server and what the driver needs to reach it.
struct Server {
    child: Child,
    pid: u32,
    addr: SocketAddr,
    /// `Host` header value: `127.0.0.1:<port>`.
    host: HeaderValue,
    /// The last few KiB the server wrote to stderr.
    stderr: Arc<Mutex<Vec<u8>>>,
}

/// Keeps the last 4 KiB of the server's stderr.
fn drain_stderr(mut stderr: ChildStderr, tail: Arc<Mutex<Vec<u8>>>) {
    thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n) = stderr.read(&mut buf) {
            if n == 0 {
                break;
            }
            let mut tail = tail.lock().expect("stderr lock");
            tail.extend_from_slice(&buf[..n]);
            let excess = tail.len().saturating_sub(4096);
            tail.drain(..excess);
        }
    });
}

/// A port that was free a moment ago: bind port 0 and release it.
pub(crate) fn free_port() -> io::Result<u16> {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?;
    Ok(listener.local_addr()?.port())
}

impl Server {
    fn spawn(path: &Path, args: &[String]) -> io::Result<Self> {
        let port = free_port()?;
        let mut child = Command::new(path)
            .args(args)
            .arg("--port")
            .arg(port.to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| io::Error::new(e.kind(), format!("spawning {}: {e}", path.display())))?;
        let stderr = Arc::new(Mutex::new(Vec::new()));
        drain_stderr(child.stderr.take().expect("piped stderr"), stderr.clone());
        let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
        let mut server = Self {
            pid: child.id(),
            child,
            addr,
            host: HeaderValue::from_str(&addr.to_string()).expect("a valid Host"),
            stderr,
        };
        if let Err(e) = server.wait_ready() {
            server.shutdown();
            return Err(server.explain(e));
        }
        Ok(server)
    }

    /// Waits until the port accepts connections.
    fn wait_ready(&mut self) -> io::Result<()> {
        let start = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait()? {
                return Err(io::Error::other(format!(
                    "the server exited ({status}) before accepting connections on {}",
                    self.addr
                )));
            }
            if TcpStream::connect_timeout(&self.addr, Duration::from_millis(100)).is_ok() {
                return Ok(());
            }
            if start.elapsed() > START_TIMEOUT {
                return Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    format!(
                        "nothing accepted connections on {} after {START_TIMEOUT:?}",
                        self.addr
                    ),
                ));
            }
            thread::sleep(Duration::from_millis(10));
        }
    }

    /// Adds the tail of the server's stderr, if any, to an error.
    fn explain(&self, error: io::Error) -> io::Error {
        let tail = self.stderr.lock().expect("stderr lock");
        if tail.is_empty() {
            return error;
        }
        let tail = String::from_utf8_lossy(&tail);
        io::Error::new(
            error.kind(),
            format!("{error}\n  server stderr (end): {}", tail.trim_end()),
        )
    }

    fn shutdown(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        // Let the stderr thread catch the last words.
        thread::sleep(Duration::from_millis(20));
    }

    async fn connect(&self, mode: Mode) -> io::Result<Client> {
        Client::connect(self.addr, self.host.clone(), mode).await
    }

    /// Probes both modes and runs the phases of each mode served.
    async fn run(&self, settings: &Settings) -> io::Result<RunResult> {
        let mut modes = Vec::new();
        let mut sessions = false;
        for mode in Mode::ALL {
            // The probe: one client sets up and makes one call. Legacy mode
            // must work; a failing modern probe means the server does not
            // serve 2026-07-28, and the mode is skipped.
            let probe = async {
                let mut client = self.connect(mode).await?;
                client.setup().await?;
                client.call().await?;
                Ok::<_, io::Error>(client.session.is_some())
            };
            match (mode, probe.await) {
                (Mode::Legacy, Ok(has_session)) => sessions = has_session,
                (Mode::Legacy, Err(e)) => return Err(e),
                (Mode::Modern, Ok(_)) => {}
                (Mode::Modern, Err(e)) => {
                    modes.push(ModeResult {
                        mode,
                        phases: Err(e.to_string()),
                    });
                    continue;
                }
            }
            let mut phases = Vec::new();
            for &clients in &settings.clients {
                phases.push(self.phase(mode, clients, settings).await.map_err(|e| {
                    io::Error::new(
                        e.kind(),
                        format!("{} mode, {clients} clients: {e}", mode.name()),
                    )
                })?);
            }
            modes.push(ModeResult {
                mode,
                phases: Ok(phases),
            });
        }
        Ok(RunResult {
            modes,
            sessions,
            kib_per_session: None,
            redis_bytes_per_session: None,
            redis_keys_added: None,
        })
    }

    /// One measured phase with `clients` concurrent clients, after a warm-up
    /// on the same connections.
    async fn phase(&self, mode: Mode, clients: u64, settings: &Settings) -> io::Result<Phase> {
        let mut set = JoinSet::new();
        for _ in 0..clients {
            let (addr, host) = (self.addr, self.host.clone());
            set.spawn(async move {
                let mut client = Client::connect(addr, host, mode).await?;
                client.setup().await?;
                Ok::<_, io::Error>(client)
            });
        }
        let mut pool = Vec::new();
        while let Some(client) = set.join_next().await {
            pool.push(client.expect("client task panicked")?);
        }
        let warmup = Limits {
            calls: settings.warmup,
            min: Duration::ZERO,
            max: settings.max_phase.min(Duration::from_secs(1)),
        };
        let measured = Limits {
            calls: settings.calls,
            min: settings.min_phase,
            max: settings.max_phase,
        };
        let (pool, _) = self.calls(pool, warmup).await?;
        let (_, phase) = self.calls(pool, measured).await?;
        Ok(phase)
    }

    /// Every client makes calls, one at a time, until `limits` says stop.
    async fn calls(&self, pool: Vec<Client>, limits: Limits) -> io::Result<(Vec<Client>, Phase)> {
        let issued = Arc::new(AtomicU64::new(0));
        let cpu_before = procfs::cpu_ticks(self.pid)?;
        let start = Instant::now();
        let mut set = JoinSet::new();
        for mut client in pool {
            let issued = issued.clone();
            set.spawn(async move {
                let mut latencies = Vec::new();
                while limits.more(issued.fetch_add(1, Ordering::Relaxed), start) {
                    latencies.push(client.call().await?);
                }
                Ok::<_, io::Error>((client, latencies))
            });
        }
        let mut pool = Vec::new();
        let mut latencies = Vec::new();
        while let Some(done) = set.join_next().await {
            let (client, mut mine) = done.expect("client task panicked")?;
            pool.push(client);
            latencies.append(&mut mine);
        }
        let elapsed = start.elapsed();
        let cpu_after = procfs::cpu_ticks(self.pid)?;
        let calls = latencies.len() as u64;
        Ok((
            pool,
            phase(calls, elapsed, &mut latencies, cpu_after - cpu_before),
        ))
    }

    /// Opens `count` legacy sessions (initialize + initialized each) on a few
    /// keep-alive connections and leaves them idle; returns the growth of
    /// the server's RSS per session, in KiB, and with `redis`, the growth of
    /// Redis's `used_memory` per session, in bytes, and of its keys. Meant
    /// for a fresh server:
    /// a few sessions are opened first, so that what the first session
    /// initializes (runtime threads, buffers, lazy tables, the server's
    /// connections to Redis) is not counted.
    async fn idle_sessions(
        &self,
        count: u64,
        redis: Option<&RedisServer>,
    ) -> io::Result<SessionGrowth> {
        let warm = self.open_sessions(SESSION_WARMUP).await?;
        tokio::time::sleep(Duration::from_millis(100)).await;
        // One connection for both readings, so that its own buffers count in
        // both. The driver's sessions are idle while it blocks on Redis.
        let mut redis = redis.map(RedisServer::connect).transpose()?;
        let redis_before = redis.as_mut().map(redis_reading).transpose()?;
        let before = procfs::rss_kib(self.pid)?;
        // Keep the connections open while the RSS is read.
        let pool = self.open_sessions(count).await?;
        tokio::time::sleep(Duration::from_millis(100)).await;
        let after = procfs::rss_kib(self.pid)?;
        let redis_after = redis.as_mut().map(redis_reading).transpose()?;
        drop((warm, pool));
        let count = stats::to_f64(count);
        let redis = redis_before.zip(redis_after).map(|(before, after)| {
            let bytes = (stats::to_f64(after.0) - stats::to_f64(before.0)) / count;
            (bytes, after.1.saturating_sub(before.1))
        });
        Ok(SessionGrowth {
            kib_per_session: (stats::to_f64(after) - stats::to_f64(before)) / count,
            redis,
        })
    }

    /// Opens `count` legacy sessions on [`SESSION_CONNECTIONS`] keep-alive
    /// connections; returns the connections, open.
    async fn open_sessions(&self, count: u64) -> io::Result<Vec<Client>> {
        let mut pool = Vec::new();
        for _ in 0..SESSION_CONNECTIONS {
            pool.push(self.connect(Mode::Legacy).await?);
        }
        let mut set = JoinSet::new();
        for (index, mut client) in (0..).zip(pool) {
            let mine = count / SESSION_CONNECTIONS + u64::from(index < count % SESSION_CONNECTIONS);
            set.spawn(async move {
                for _ in 0..mine {
                    client.setup().await?;
                    if client.session.is_none() {
                        return Err(io::Error::other("initialize returned no session id"));
                    }
                }
                Ok::<_, io::Error>(client)
            });
        }
        let mut pool = Vec::new();
        while let Some(client) = set.join_next().await {
            pool.push(client.expect("session task panicked")?);
        }
        Ok(pool)
    }
}

/// One simulated MCP client: one HTTP/1.1 keep-alive connection.
struct Client {
    sender: SendRequest<Full<Bytes>>,
    host: HeaderValue,
    mode: Mode,
    /// The session id `initialize` returned, if any.
    session: Option<HeaderValue>,
    next_id: u64,
}

/// A response, read whole.
struct Reply {
    status: StatusCode,
    content_type: Option<HeaderValue>,
    session: Option<HeaderValue>,
    body: Bytes,
}

/// The JSON-RPC fields the driver reads; `result` is parsed later, by what
/// it should be.
#[derive(Deserialize)]
struct Message<'a> {
    #[serde(default)]
    id: Option<Value>,
    #[serde(default, borrow)]
    method: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    result: Option<&'a RawValue>,
    #[serde(default)]
    error: Option<Value>,
}

#[derive(Deserialize)]
struct CallResult<'a> {
    #[serde(default, borrow)]
    content: Vec<Content<'a>>,
    #[serde(default, rename = "isError")]
    is_error: Option<bool>,
    #[serde(default, rename = "resultType", borrow)]
    result_type: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct Content<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(default, borrow)]
    text: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct InitializeResult<'a> {
    #[serde(rename = "protocolVersion", borrow)]
    protocol_version: Cow<'a, str>,
}

fn bad_reply(what: &str, body: &[u8]) -> io::Error {
    let body = String::from_utf8_lossy(body);
    let body: String = body.chars().take(300).collect();
    io::Error::new(io::ErrorKind::InvalidData, format!("{what}: {body}"))
}

/// The data of each SSE event with non-empty data (priming events carry
/// none), in order.
fn sse_events(body: &[u8]) -> Vec<Cow<'_, [u8]>> {
    fn flush<'a>(data: &mut Option<Cow<'a, [u8]>>, events: &mut Vec<Cow<'a, [u8]>>) {
        if let Some(data) = data.take().filter(|data| !data.is_empty()) {
            events.push(data);
        }
    }
    let mut events = Vec::new();
    let mut data: Option<Cow<'_, [u8]>> = None;
    for line in body.split(|&b| b == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.is_empty() {
            flush(&mut data, &mut events);
        } else if let Some(value) = line.strip_prefix(b"data:") {
            let value = value.strip_prefix(b" ").unwrap_or(value);
            data = Some(match data.take() {
                None => Cow::Borrowed(value),
                Some(earlier) => {
                    let mut joined = earlier.into_owned();
                    joined.push(b'\n');
                    joined.extend_from_slice(value);
                    Cow::Owned(joined)
                }
            });
        }
    }
    flush(&mut data, &mut events);
    events
}

/// Finds the JSON-RPC response to `id` in a reply (`application/json`, or
/// `text/event-stream` whose events may also carry notifications), and hands
/// its `result` to `check`.
fn with_result<T>(
    reply: &Reply,
    id: u64,
    check: impl Fn(&RawValue, &[u8]) -> io::Result<T>,
) -> io::Result<T> {
    let body = &reply.body[..];
    if reply.status != StatusCode::OK {
        return Err(bad_reply(&format!("HTTP status {}", reply.status), body));
    }
    let content_type = reply
        .content_type
        .as_ref()
        .and_then(|value| value.to_str().ok())
        .unwrap_or("");
    let essence = content_type.split(';').next().unwrap_or("").trim();
    let handle = |json: &[u8]| -> io::Result<Option<T>> {
        let message: Message<'_> =
            serde_json::from_slice(json).map_err(|e| bad_reply(&format!("{e}"), json))?;
        if message.method.is_some() {
            if message.id.is_none() {
                return Ok(None); // a notification
            }
            return Err(bad_reply("unexpected server request", json));
        }
        let got = message.id.as_ref().and_then(Value::as_u64);
        if got != Some(id) {
            return Err(bad_reply(&format!("expected a reply to id {id}"), json));
        }
        if let Some(error) = message.error {
            return Err(bad_reply(&format!("error reply {error}"), json));
        }
        let result = message
            .result
            .ok_or_else(|| bad_reply("reply without a result", json))?;
        check(result, json).map(Some)
    };
    if essence.eq_ignore_ascii_case("application/json") {
        handle(body)?.ok_or_else(|| bad_reply("a notification instead of a reply", body))
    } else if essence.eq_ignore_ascii_case("text/event-stream") {
        for event in sse_events(body) {
            if let Some(result) = handle(&event)? {
                return Ok(result);
            }
        }
        Err(bad_reply("no reply in the event stream", body))
    } else {
        Err(bad_reply(
            &format!("unexpected Content-Type {content_type:?}"),
            body,
        ))
    }
}

fn check_call(result: &RawValue, modern: bool, json: &[u8]) -> io::Result<()> {
    let result: CallResult<'_> = serde_json::from_str(result.get())
        .map_err(|e| bad_reply(&format!("not a tools/call result: {e}"), json))?;
    let ok = result.is_error != Some(true)
        && matches!(result.content.as_slice(),
            [Content { kind, text: Some(text) }] if kind == "text" && text == "3");
    if !ok {
        return Err(bad_reply("expected one text content \"3\"", json));
    }
    if modern && result.result_type.as_deref() != Some("complete") {
        return Err(bad_reply("expected \"resultType\":\"complete\"", json));
    }
    Ok(())
}

fn hyper_error(e: hyper::Error) -> io::Error {
    io::Error::other(e)
}

impl Client {
    async fn connect(addr: SocketAddr, host: HeaderValue, mode: Mode) -> io::Result<Self> {
        let stream = tokio::net::TcpStream::connect(addr).await?;
        stream.set_nodelay(true)?;
        let (sender, connection) = http1::handshake(TokioIo::new(stream))
            .await
            .map_err(hyper_error)?;
        tokio::spawn(async move {
            let _ = connection.await;
        });
        Ok(Self {
            sender,
            host,
            mode,
            session: None,
            next_id: 1,
        })
    }

    /// POSTs one JSON-RPC message, with the headers of its mode, and reads
    /// the whole response. `handshake` is true for `initialize`, which goes
    /// without session and protocol version headers.
    async fn post(&mut self, body: Vec<u8>, handshake: bool) -> io::Result<Reply> {
        let mut request = Request::builder()
            .method(Method::POST)
            .uri(PATH)
            .header(HOST, self.host.clone())
            .header(CONTENT_TYPE, "application/json")
            .header(ACCEPT, "application/json, text/event-stream");
        match self.mode {
            Mode::Legacy if !handshake => {
                if let Some(session) = &self.session {
                    request = request.header(MCP_SESSION_ID, session.clone());
                }
                request = request.header(MCP_PROTOCOL_VERSION, LEGACY_VERSION);
            }
            Mode::Legacy => {}
            Mode::Modern => {
                request = request
                    .header(MCP_PROTOCOL_VERSION, MODERN_VERSION)
                    .header(MCP_METHOD, "tools/call")
                    .header(MCP_NAME, "add");
            }
        }
        let request = request
            .body(Full::new(Bytes::from(body)))
            .expect("a valid request");
        let exchange = async {
            self.sender.ready().await.map_err(hyper_error)?;
            let response = self
                .sender
                .send_request(request)
                .await
                .map_err(hyper_error)?;
            let (parts, body) = response.into_parts();
            let body = body.collect().await.map_err(hyper_error)?.to_bytes();
            Ok::<_, io::Error>(Reply {
                status: parts.status,
                content_type: parts.headers.get(CONTENT_TYPE).cloned(),
                session: parts.headers.get(MCP_SESSION_ID).cloned(),
                body,
            })
        };
        tokio::time::timeout(REQUEST_TIMEOUT, exchange)
            .await
            .map_err(|_| {
                io::Error::new(
                    io::ErrorKind::TimedOut,
                    format!("no complete response within {REQUEST_TIMEOUT:?}"),
                )
            })?
    }

    /// Legacy mode: `initialize` (keeping the session id, if any), then
    /// `notifications/initialized`, which must get 202. Modern mode: nothing.
    async fn setup(&mut self) -> io::Result<()> {
        if self.mode == Mode::Modern {
            return Ok(());
        }
        let id = self.next_id;
        self.next_id += 1;
        let initialize = format!(
            concat!(
                r#"{{"jsonrpc":"2.0","id":{},"method":"initialize","params":{{"protocolVersion":"{}","#,
                r#""capabilities":{{}},"clientInfo":{{"name":"mcp-bench","version":"0.1.0"}}}}}}"#
            ),
            id, LEGACY_VERSION
        );
        let reply = self.post(initialize.into_bytes(), true).await?;
        with_result(&reply, id, |result, json| {
            let result: InitializeResult<'_> = serde_json::from_str(result.get())
                .map_err(|e| bad_reply(&format!("not an initialize result: {e}"), json))?;
            if result.protocol_version == LEGACY_VERSION {
                Ok(())
            } else {
                Err(bad_reply("another protocol version", json))
            }
        })
        .map_err(|e| io::Error::new(e.kind(), format!("initialize: {e}")))?;
        self.session = reply.session;

        let initialized = br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
        let reply = self.post(initialized.to_vec(), false).await?;
        if reply.status != StatusCode::ACCEPTED {
            return Err(bad_reply(
                &format!(
                    "notifications/initialized: expected 202, got {}",
                    reply.status
                ),
                &reply.body,
            ));
        }
        Ok(())
    }

    /// One checked `tools/call add {a:1, b:2}`; returns its latency (from
    /// just before the request is sent to when the whole response is read).
    async fn call(&mut self) -> io::Result<Duration> {
        let id = self.next_id;
        self.next_id += 1;
        let modern = self.mode == Mode::Modern;
        let body = if modern {
            format!(
                concat!(
                    r#"{{"jsonrpc":"2.0","id":{},"method":"tools/call","params":{{"name":"add","arguments":{{"a":1,"b":2}},"#,
                    r#""_meta":{{"io.modelcontextprotocol/protocolVersion":"{}","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#
                ),
                id, MODERN_VERSION
            )
        } else {
            format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"add","arguments":{{"a":1,"b":2}}}}}}"#
            )
        };
        let sent = Instant::now();
        let reply = self.post(body.into_bytes(), false).await?;
        let latency = sent.elapsed();
        with_result(&reply, id, |result, json| check_call(result, modern, json))?;
        Ok(latency)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(content_type: &'static str, body: &'static str) -> Reply {
        Reply {
            status: StatusCode::OK,
            content_type: Some(HeaderValue::from_static(content_type)),
            session: None,
            body: Bytes::from_static(body.as_bytes()),
        }
    }

    fn check(reply: &Reply, id: u64, modern: bool) -> io::Result<()> {
        with_result(reply, id, |result, json| check_call(result, modern, json))
    }

    #[test]
    fn sse_events_skip_priming_and_join_data_lines() {
        let body = b"data: \nid: 0\nretry: 3000\n\ndata: {\"a\":\r\ndata: 1}\r\nid: 1\r\n\r\n: comment\n\ndata:x";
        let events = sse_events(body);
        let events: Vec<&[u8]> = events.iter().map(AsRef::as_ref).collect();
        assert_eq!(events, [&b"{\"a\":\n1}"[..], b"x"]);
    }

    #[test]
    fn replies_are_found_and_checked() {
        let json = reply(
            "application/json",
            r#"{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"3"}]}}"#,
        );
        check(&json, 7, false).unwrap();
        assert!(check(&json, 8, false).is_err());
        assert!(check(&json, 7, true).is_err(), "no resultType");

        let sse = reply(
            "text/event-stream",
            concat!(
                "data: \nid: 0\nretry: 3000\n\n",
                "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}\n\n",
                "data: {\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{\"resultType\":\"complete\",",
                "\"content\":[{\"type\":\"text\",\"text\":\"3\"}],\"isError\":false}}\nid: 1/0\n\n"
            ),
        );
        check(&sse, 5, true).unwrap();

        let wrong = reply(
            "application/json",
            r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"4"}]}}"#,
        );
        assert!(check(&wrong, 1, false).is_err());
        let error = reply(
            "application/json",
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no"}}"#,
        );
        assert!(check(&error, 1, false).is_err());
        assert!(check(&reply("text/plain", "3"), 1, false).is_err());
    }
}
