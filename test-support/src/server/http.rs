//! HTTP on real 127.0.0.1 sockets: [`HttpConn`], a raw HTTP/1.1 client that
//! can say things a well-behaved client never would and reads responses
//! ([`Response`], parsed by `crate::http_response`) off the socket
//! one by one; [`Stream`], a response read as it arrives; and
//! [`HttpServer`], a server under test on its own socket.

use std::net::SocketAddr;
use std::time::Duration;

use oxmcp_server::http::{HttpConfig, HttpService};
use oxmcp_server::Server;
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::{
    initialize_request_with, initialized, legacy_add, modern_add, parse_body, parse_head,
    result_text, sse_messages, Response, LATEST_LEGACY,
};

/// How long a read waits before failing the test.
pub const HTTP_TIMEOUT: Duration = Duration::from_secs(20);

/// A raw HTTP/1.1 connection: write anything, read responses one by one.
pub struct HttpConn {
    pub stream: TcpStream,
    /// What arrived and was not taken as a response yet.
    buf: Vec<u8>,
    /// The server closed the connection (or reset it after answering).
    pub closed: bool,
}

impl HttpConn {
    pub async fn connect(addr: SocketAddr) -> HttpConn {
        let stream = TcpStream::connect(addr).await.expect("connect");
        stream.set_nodelay(true).unwrap();
        HttpConn {
            stream,
            buf: Vec::new(),
            closed: false,
        }
    }

    /// Writes `bytes`, reading what the server sends meanwhile (a server may
    /// answer and close before taking a whole body). Stops writing, without
    /// failing, when the server stops reading.
    pub async fn write(&mut self, bytes: &[u8]) {
        let (mut r, mut w) = self.stream.split();
        let mut sent = 0;
        let mut chunk = vec![0u8; 16 * 1024];
        while sent < bytes.len() {
            tokio::select! {
                n = w.write(&bytes[sent..]) => match n {
                    Ok(n) if n > 0 => sent += n,
                    _ => return,
                },
                n = r.read(&mut chunk), if !self.closed => match n {
                    Ok(0) | Err(_) => self.closed = true,
                    Ok(n) => self.buf.extend_from_slice(&chunk[..n]),
                },
            }
        }
        let _ = w.flush().await;
    }

    /// Reads more input, failing the test after [`HTTP_TIMEOUT`]; `false` at
    /// the end of the stream.
    async fn fill(&mut self) -> bool {
        let deadline = tokio::time::Instant::now() + HTTP_TIMEOUT;
        self.fill_by(deadline)
            .await
            .expect("timed out reading a response")
    }

    /// Reads more input: `Some(false)` at the end of the stream, `None` when
    /// nothing came by `deadline`.
    async fn fill_by(&mut self, deadline: tokio::time::Instant) -> Option<bool> {
        if self.closed {
            return Some(false);
        }
        let mut chunk = vec![0u8; 16 * 1024];
        let n = match tokio::time::timeout_at(deadline, self.stream.read(&mut chunk)).await {
            Err(_) => return None,
            Ok(Ok(n)) => n,
            // A reset after the server answered and closed counts as the end.
            Ok(Err(e)) if e.kind() == std::io::ErrorKind::ConnectionReset => 0,
            Ok(Err(e)) => panic!("read: {e}"),
        };
        if n == 0 {
            self.closed = true;
            return Some(false);
        }
        self.buf.extend_from_slice(&chunk[..n]);
        Some(true)
    }

    /// Reads the head of the next response (status line and headers), or
    /// `None` if the server closed the connection first.
    pub async fn read_head(&mut self) -> Option<Response> {
        loop {
            if let Some((head, used)) = parse_head(&self.buf) {
                self.buf.drain(..used);
                return Some(head);
            }
            if !self.fill().await {
                return None;
            }
        }
    }

    /// Reads the body of a response whose head was read.
    pub async fn read_body(&mut self, head: &mut Response) {
        loop {
            match parse_body(head, &self.buf, self.closed) {
                Ok(Some((body, used))) => {
                    self.buf.drain(..used);
                    head.body = body;
                    return;
                }
                Ok(None) => {
                    self.fill().await;
                }
                Err(e) => panic!("{e}"),
            }
        }
    }

    /// Reads one whole response, or `None` if the connection closed first.
    pub async fn read_response(&mut self) -> Option<Response> {
        let mut head = self.read_head().await?;
        self.read_body(&mut head).await;
        Some(head)
    }

    /// What arrived and was not read as a response, as text (raw: chunk
    /// framing included).
    pub fn seen(&self) -> String {
        String::from_utf8_lossy(&self.buf).into_owned()
    }

    /// Reads until `needle` is `times` times in what arrived and was not
    /// read as a response (raw bytes, chunk framing included); whether it
    /// is, `false` on timeout or at the end of the stream.
    pub async fn wait_for(&mut self, needle: &str, times: usize, within: Duration) -> bool {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            if self.seen().matches(needle).count() >= times {
                return true;
            }
            if self.fill_by(deadline).await != Some(true) {
                return false;
            }
        }
    }

    /// Reads until `needle` appears in what arrived; returns all of it and
    /// empties the buffer. `None` on timeout or at the end of the stream.
    pub async fn read_until(&mut self, needle: &str, within: Duration) -> Option<String> {
        if !self.wait_for(needle, 1, within).await {
            return None;
        }
        let text = self.seen();
        self.buf.clear();
        Some(text)
    }

    /// Whether a chunked response being read ends (its last chunk arrives,
    /// or the connection closes) within `wait`.
    pub async fn body_ends_within(&mut self, wait: Duration) -> bool {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            if self.buf.ends_with(b"\r\n0\r\n\r\n") || self.buf == b"0\r\n\r\n" {
                return true;
            }
            match self.fill_by(deadline).await {
                None => return false,
                Some(false) => return true,
                Some(true) => {}
            }
        }
    }

    /// Whether the server closes the connection within `wait` (reads until
    /// the end or `wait`).
    pub async fn is_closed_within(&mut self, wait: Duration) -> bool {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            match self.fill_by(deadline).await {
                None => return false,
                Some(false) => return true,
                Some(true) => {}
            }
        }
    }
}

/// A response read as it arrives (an SSE stream): its head, then its body.
pub struct Stream {
    /// The status line and headers (no body).
    pub head: Response,
    pub conn: HttpConn,
}

/// How long a [`Stream`] waits for what a test expects on it.
pub const STREAM_WAIT: Duration = Duration::from_secs(10);

impl Stream {
    /// Reads until `needle` has arrived (fails after [`STREAM_WAIT`]).
    pub async fn until(&mut self, needle: &str) {
        self.until_times(needle, 1).await;
    }

    /// Reads until `needle` has arrived `times` times (fails after [`STREAM_WAIT`]).
    pub async fn until_times(&mut self, needle: &str, times: usize) {
        assert!(
            self.conn.wait_for(needle, times, STREAM_WAIT).await,
            "not {times} {needle:?} in {:?}",
            self.seen()
        );
    }

    /// The body so far, raw (chunk framing included).
    pub fn seen(&self) -> String {
        self.conn.seen()
    }

    /// The messages of the body so far.
    pub fn messages(&self) -> Vec<Value> {
        sse_messages(&self.seen())
    }

    /// Reads the rest of the body: the whole response.
    pub async fn finish(mut self) -> Response {
        self.conn.read_body(&mut self.head).await;
        self.head
    }
}

/// An HTTP/1.1 request as bytes. `Host` is added unless given;
/// `Content-Length` is added unless a `Content-Length` or `Transfer-Encoding`
/// is given.
pub fn http_request(
    method: &str,
    path: &str,
    port: u16,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Vec<u8> {
    use std::fmt::Write as _;
    let mut head = format!("{method} {path} HTTP/1.1\r\n");
    if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
        let _ = write!(head, "Host: 127.0.0.1:{port}\r\n");
    }
    for (k, v) in headers {
        let _ = write!(head, "{k}: {v}\r\n");
    }
    if !headers.iter().any(|(k, _)| {
        k.eq_ignore_ascii_case("content-length") || k.eq_ignore_ascii_case("transfer-encoding")
    }) {
        let _ = write!(head, "Content-Length: {}\r\n", body.len());
    }
    head.push_str("\r\n");
    let mut out = head.into_bytes();
    out.extend_from_slice(body);
    out
}

pub const JSON: (&str, &str) = ("Content-Type", "application/json");
pub const ACCEPT_BOTH: (&str, &str) = ("Accept", "application/json, text/event-stream");

/// The headers of a 2026-07-28 `tools/call` of `tool`.
pub fn modern_call_headers(tool: &str) -> Vec<(&'static str, String)> {
    vec![
        (JSON.0, JSON.1.into()),
        (ACCEPT_BOTH.0, ACCEPT_BOTH.1.into()),
        ("MCP-Protocol-Version", "2026-07-28".into()),
        ("Mcp-Method", "tools/call".into()),
        ("Mcp-Name", tool.into()),
    ]
}

/// The headers of a request in legacy session `sid`.
pub fn legacy_headers(sid: &str, version: &str) -> Vec<(&'static str, String)> {
    vec![
        (JSON.0, JSON.1.into()),
        (ACCEPT_BOTH.0, ACCEPT_BOTH.1.into()),
        ("Mcp-Session-Id", sid.into()),
        ("MCP-Protocol-Version", version.into()),
    ]
}

/// `headers`, with `Content-Type: application/json` and `Accept` (JSON and
/// SSE) unless given.
pub fn with_json<'a>(headers: &[(&'a str, &'a str)]) -> Vec<(&'a str, &'a str)> {
    let mut all = headers.to_vec();
    for (name, value) in [JSON, ACCEPT_BOTH] {
        if !all.iter().any(|(k, _)| k.eq_ignore_ascii_case(name)) {
            all.push((name, value));
        }
    }
    all
}

/// Owned headers (as [`legacy_headers`] makes them) as the functions here take them.
pub fn as_refs<'a>(headers: &'a [(&'static str, String)]) -> Vec<(&'static str, &'a str)> {
    headers.iter().map(|(k, v)| (*k, v.as_str())).collect()
}

/// A server on a real 127.0.0.1 socket. Dropped, it shuts down.
pub struct HttpServer {
    pub addr: SocketAddr,
    /// The service itself when the test serves it (to count sessions).
    pub service: Option<HttpService>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    task: Option<tokio::task::JoinHandle<()>>,
}

impl HttpServer {
    /// `Server::serve_http_on`: exactly what users run.
    pub async fn start(server: Server, config: HttpConfig) -> HttpServer {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            server
                .serve_http_on(listener, config, async {
                    let _ = stopped.await;
                })
                .await
                .expect("serve_http_on");
        });
        HttpServer {
            addr,
            service: None,
            stop: Some(stop),
            task: Some(task),
        }
    }

    /// The MCP service mounted at `/mcp` in an axum router, next to an
    /// app route (`/health` answers `ok`).
    pub async fn start_in_axum(server: &Server) -> HttpServer {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let mcp = server.http_service(HttpConfig::default());
        let app = axum::Router::new()
            .route("/health", axum::routing::get(|| async { "ok" }))
            .route_service("/mcp", mcp);
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            axum::serve(listener, app)
                .with_graceful_shutdown(async {
                    let _ = stopped.await;
                })
                .await
                .expect("axum::serve");
        });
        HttpServer {
            addr,
            service: None,
            stop: Some(stop),
            task: Some(task),
        }
    }

    /// The `HttpService` served by the test itself through hyper-util (with
    /// `TCP_NODELAY`), so that the test can look at it (`session_count`).
    pub async fn start_service(server: &Server, config: HttpConfig) -> HttpServer {
        use hyper_util::rt::{TokioExecutor, TokioIo};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let service = server.http_service(config);
        let (stop, mut stopped) = tokio::sync::oneshot::channel::<()>();
        let svc = service.clone();
        let task = tokio::spawn(async move {
            let builder = hyper_util::server::conn::auto::Builder::new(TokioExecutor::new());
            loop {
                tokio::select! {
                    accepted = listener.accept() => {
                        let Ok((stream, _)) = accepted else { continue };
                        // As serve_http_on does (see load.rs
                        // `streamed_responses_are_not_delayed_by_nagle`).
                        let _ = stream.set_nodelay(true);
                        let hyper_service = hyper_util::service::TowerToHyperService::new(svc.clone());
                        let conn = builder
                            .serve_connection(TokioIo::new(stream), hyper_service)
                            .into_owned();
                        tokio::spawn(async move {
                            let _ = conn.await;
                        });
                    }
                    _ = &mut stopped => break,
                }
            }
            svc.shutdown();
        });
        HttpServer {
            addr,
            service: Some(service),
            stop: Some(stop),
            task: Some(task),
        }
    }

    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    pub fn session_count(&self) -> usize {
        self.service
            .as_ref()
            .expect("started with start_service")
            .session_count()
    }

    /// Sends one request on a new connection and reads the response.
    pub async fn send(&self, raw: &[u8]) -> Response {
        let mut c = HttpConn::connect(self.addr).await;
        c.write(raw).await;
        c.read_response()
            .await
            .expect("a response before the connection closed")
    }

    /// Sends one request on a new connection and reads the head of the
    /// response: the rest is read as it arrives.
    pub async fn open(&self, raw: &[u8]) -> Stream {
        let mut conn = HttpConn::connect(self.addr).await;
        conn.write(raw).await;
        let head = conn
            .read_head()
            .await
            .expect("a response head before the connection closed");
        Stream { head, conn }
    }

    /// Opens an HTTP+SSE (2024-11-05) stream at `/sse` on a new connection:
    /// the connection, its `endpoint` event read, and the path that event
    /// names for the client's POSTs.
    pub async fn open_sse(&self) -> (HttpConn, String) {
        let mut sse = HttpConn::connect(self.addr).await;
        let accept = [("Accept", "text/event-stream")];
        sse.write(&http_request("GET", "/sse", self.port(), &accept, b""))
            .await;
        let head = sse.read_head().await.expect("a stream");
        assert_eq!(head.status, 200, "{head:?}");
        let endpoint = sse
            .read_until("\n\n", HTTP_TIMEOUT)
            .await
            .expect("an endpoint event");
        assert!(endpoint.contains("event: endpoint"), "{endpoint}");
        let path = endpoint
            .lines()
            .find_map(|l| l.strip_prefix("data: "))
            .expect("the endpoint")
            .trim()
            .to_owned();
        (sse, path)
    }

    /// `method path` with `headers` and `body`, on a new connection.
    pub async fn request(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: impl AsRef<[u8]>,
    ) -> Response {
        self.send(&http_request(
            method,
            path,
            self.port(),
            headers,
            body.as_ref(),
        ))
        .await
    }

    /// A POST to `/mcp` with exactly these headers.
    pub async fn post(&self, headers: &[(&str, &str)], body: &[u8]) -> Response {
        self.request("POST", "/mcp", headers, body).await
    }

    /// A POST of JSON to `/mcp`: `Content-Type` and `Accept` (JSON and SSE)
    /// are added unless given.
    pub async fn post_json(&self, headers: &[(&str, &str)], body: &Value) -> Response {
        self.post(&with_json(headers), body.to_string().as_bytes())
            .await
    }

    /// Opens a legacy session at `version` (initialize + initialized).
    pub async fn session(&self, version: &str) -> String {
        self.session_with(version, &json!({})).await
    }

    /// Opens a legacy session at `version` for a client with `capabilities`.
    pub async fn session_with(&self, version: &str, capabilities: &Value) -> String {
        let r = self
            .post_json(
                &[],
                &initialize_request_with(&json!(0), version, capabilities),
            )
            .await;
        assert_eq!(r.status, 200, "initialize: {r:?}");
        let sid = r.header("mcp-session-id").expect("a session id").to_owned();
        let n = self
            .post_json(&as_refs(&legacy_headers(&sid, version)), &initialized())
            .await;
        assert_eq!(n.status, 202, "initialized: {n:?}");
        sid
    }

    /// A legacy call and a stateless call, on new connections, both answered
    /// right: the server still serves.
    pub async fn assert_serving(&self) {
        let sid = self.session(LATEST_LEGACY).await;
        let r = self
            .post_json(
                &as_refs(&legacy_headers(&sid, LATEST_LEGACY)),
                &legacy_add(&json!("after"), 2.0, 3.0),
            )
            .await;
        assert_eq!(r.status, 200, "{r:?}");
        assert_eq!(result_text(&r.last()), Some("5"), "{r:?}");
        self.delete_session(&sid).await;
        let m = self
            .post_json(
                &as_refs(&modern_call_headers("add")),
                &modern_add(&json!("after"), 20.0, 22.0),
            )
            .await;
        assert_eq!(m.status, 200, "{m:?}");
        assert_eq!(result_text(&m.last()), Some("42"), "{m:?}");
    }

    pub async fn delete_session(&self, sid: &str) {
        let d = self
            .request("DELETE", "/mcp", &[("Mcp-Session-Id", sid)], b"")
            .await;
        assert_eq!(d.status, 200, "DELETE: {d:?}");
    }

    /// Stops the server and waits until it has shut down.
    pub async fn shutdown(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(task) = self.task.take() {
            tokio::time::timeout(Duration::from_secs(20), task)
                .await
                .expect("the server did not shut down")
                .expect("the server task panicked");
        }
    }
}
