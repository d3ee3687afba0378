//! Shared by the reliability tests (`hostile`, `props`, `load`, `faults`): a
//! toolbox whose tools record what happened to them, a line client for stdio
//! (in memory over `tokio::io::duplex`, or a real child process), a raw
//! HTTP/1.1 client that can say things a well-behaved client never would, and
//! servers on real 127.0.0.1 sockets.
#![allow(
    dead_code,
    unreachable_pub,
    clippy::missing_panics_doc,
    clippy::must_use_candidate
)]

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use mcp_server::http::{HttpConfig, HttpService};
use mcp_server::types::{CallToolResult, JsonObject};
use mcp_server::{
    __private::Args, __private::InputSchemaBuilder, __private::ToolSpec, Context, Server, ToolBox,
    ToolEntry,
};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

// ------------------------------------------------------------------ tools

/// What happened to the calls of a [`Probed`] toolbox. Every call that
/// started ends in exactly one of `finished`, `cancelled`, `dropped`.
#[derive(Debug, Default)]
pub struct Probe {
    /// Calls whose handler was invoked (their future made).
    pub started: AtomicUsize,
    /// Calls that ran to their natural end.
    pub finished: AtomicUsize,
    /// Calls that ended because they were cancelled: their future dropped
    /// with the context cancelled, or the tool returning on seeing it.
    pub cancelled: AtomicUsize,
    /// Calls whose future was dropped before its end without a cancellation
    /// (a timeout, a shutdown, an aborted task).
    pub dropped: AtomicUsize,
}

impl Probe {
    pub fn started(&self) -> usize {
        self.started.load(Ordering::SeqCst)
    }
    pub fn finished(&self) -> usize {
        self.finished.load(Ordering::SeqCst)
    }
    pub fn cancelled(&self) -> usize {
        self.cancelled.load(Ordering::SeqCst)
    }
    pub fn dropped(&self) -> usize {
        self.dropped.load(Ordering::SeqCst)
    }
    /// Calls started and not ended yet.
    pub fn running(&self) -> usize {
        self.started() - self.finished() - self.cancelled() - self.dropped()
    }
}

/// Records how one call ends.
struct CallGuard {
    probe: Arc<Probe>,
    ctx: Context,
    ended: bool,
}

impl CallGuard {
    fn new(probe: &Arc<Probe>, ctx: &Context) -> Self {
        probe.started.fetch_add(1, Ordering::SeqCst);
        CallGuard {
            probe: Arc::clone(probe),
            ctx: ctx.clone(),
            ended: false,
        }
    }

    /// The call returns: finished, or cancelled if it saw a cancellation.
    fn end(mut self) {
        self.ended = true;
        let counter = if self.ctx.is_cancelled() {
            &self.probe.cancelled
        } else {
            &self.probe.finished
        };
        counter.fetch_add(1, Ordering::SeqCst);
    }
}

impl Drop for CallGuard {
    fn drop(&mut self) {
        if !self.ended {
            let counter = if self.ctx.is_cancelled() {
                &self.probe.cancelled
            } else {
                &self.probe.dropped
            };
            counter.fetch_add(1, Ordering::SeqCst);
        }
    }
}

/// Tools for the reliability tests. `add` and `count_to` behave as the
/// calculator example's, so one hostile-input table runs against both.
pub struct Probed {
    pub probe: Arc<Probe>,
}

fn numbers(params: &[(&str, &str)]) -> JsonObject {
    let mut b = InputSchemaBuilder::new();
    for (name, desc) in params {
        b.param::<f64>(name, desc);
    }
    b.build()
}

/// `a` and `b`: their schema, and the rules generated code decodes them by
/// (worded errors, unknown arguments refused), as the calculator's `add`.
fn a_and_b() -> (JsonObject, mcp_server::__private::Params) {
    let mut b = InputSchemaBuilder::new();
    b.param::<f64>("a", "first");
    b.param::<f64>("b", "second");
    b.finish()
}

/// Takes `a` and `b` as generated code does.
fn take_a_and_b(args: &mut Args<'_>, params: &mcp_server::__private::Params) -> Option<(f64, f64)> {
    let a = args.param::<f64>(params, 0);
    let b = args.param::<f64>(params, 1);
    args.refuse_unknown(params);
    match (a, b, args.is_ok()) {
        (Some(a), Some(b), true) => Some((a, b)),
        _ => None,
    }
}

fn spec(name: &'static str, description: &'static str) -> ToolSpec {
    ToolSpec {
        name,
        description,
        ..ToolSpec::default()
    }
}

/// `a + b` as the calculator writes it (`5`, not `5.0`).
pub fn sum_text(a: f64, b: f64) -> String {
    (a + b).to_string()
}

impl ToolBox for Probed {
    const NAME: &'static str = "Probed";
    const DESCRIPTION: &'static str = "tools that record what happens to their calls";

    #[allow(clippy::too_many_lines)]
    fn into_tools(self) -> Vec<ToolEntry> {
        let p1 = Arc::clone(&self.probe);
        let p2 = Arc::clone(&self.probe);
        let p3 = Arc::clone(&self.probe);
        let p4 = Arc::clone(&self.probe);
        let (add_input, add_params) = a_and_b();
        let (later_input, later_params) = a_and_b();
        vec![
            ToolEntry::new(
                &spec("add", "Add two numbers (answers at once)"),
                add_input,
                None,
                move |mut args: Args<'_>, _ctx| {
                    let ab = take_a_and_b(&mut args, &add_params);
                    Box::pin(async move {
                        match ab {
                            Some((a, b)) => CallToolResult::text(sum_text(a, b)),
                            None => args.error_result(),
                        }
                    })
                },
            ),
            ToolEntry::new(
                &spec(
                    "add_later",
                    "Add two numbers after yielding (a spawned call)",
                ),
                later_input,
                None,
                move |mut args: Args<'_>, _ctx| {
                    let ab = take_a_and_b(&mut args, &later_params);
                    Box::pin(async move {
                        tokio::task::yield_now().await;
                        match ab {
                            Some((a, b)) => CallToolResult::text(sum_text(a, b)),
                            None => args.error_result(),
                        }
                    })
                },
            ),
            ToolEntry::new(
                &spec("echo", "Return the arguments as JSON text"),
                InputSchemaBuilder::new().build(),
                None,
                |args: Args<'_>, _ctx| {
                    let result = match args.into_object() {
                        Ok(args) => CallToolResult::text(Value::Object(args).to_string()),
                        Err(e) => e.into_result(),
                    };
                    Box::pin(async move { result })
                },
            ),
            ToolEntry::new(
                &spec("count_to", "Count to n, reporting progress"),
                numbers(&[("n", "how far")]),
                None,
                |mut args: Args<'_>, ctx: Context| {
                    let n = args.take::<u32>("n");
                    Box::pin(async move {
                        let Some(n) = n else {
                            return args.error_result();
                        };
                        for i in 1..=n {
                            tokio::task::yield_now().await;
                            ctx.progress_with_message(
                                f64::from(i),
                                Some(f64::from(n)),
                                format!("{i}/{n}"),
                            );
                        }
                        CallToolResult::text(format!("counted to {n}"))
                    })
                },
            ),
            ToolEntry::new(
                &spec("hold", "Run until cancelled (records what happened)"),
                InputSchemaBuilder::new().build(),
                None,
                move |_args, ctx: Context| {
                    let guard = CallGuard::new(&p1, &ctx);
                    Box::pin(async move {
                        ctx.cancelled().await;
                        guard.end();
                        CallToolResult::text("saw the cancellation")
                    })
                },
            ),
            ToolEntry::new(
                &spec("sleep", "Sleep for `ms` milliseconds, then answer"),
                numbers(&[("ms", "how long")]),
                None,
                move |mut args: Args<'_>, ctx: Context| {
                    let ms = args.take::<u64>("ms").unwrap_or(0);
                    let guard = CallGuard::new(&p2, &ctx);
                    Box::pin(async move {
                        tokio::time::sleep(Duration::from_millis(ms)).await;
                        guard.end();
                        CallToolResult::text(format!("slept {ms}"))
                    })
                },
            ),
            ToolEntry::new(
                &spec(
                    "flood",
                    "Send `n` progress notifications of `size` bytes each",
                ),
                numbers(&[("n", "how many"), ("size", "bytes of message each")]),
                None,
                move |mut args: Args<'_>, ctx: Context| {
                    let n = args.take::<u32>("n").unwrap_or(0);
                    let size = args.take::<usize>("size").unwrap_or(0);
                    let guard = CallGuard::new(&p3, &ctx);
                    Box::pin(async move {
                        let message = "x".repeat(size);
                        for i in 1..=n {
                            if i % 64 == 0 {
                                tokio::task::yield_now().await;
                            }
                            ctx.progress_with_message(f64::from(i), None, message.clone());
                        }
                        guard.end();
                        CallToolResult::text(format!("flooded {n}"))
                    })
                },
            ),
            ToolEntry::new(
                &spec("panic", "Panics"),
                InputSchemaBuilder::new().build(),
                None,
                move |_args, ctx: Context| {
                    let _guard = CallGuard::new(&p4, &ctx);
                    Box::pin(async move { panic!("a tool panicked on purpose") })
                },
            ),
        ]
    }
}

/// A server with the [`Probed`] tools and default limits, and its probe.
pub fn probed_server() -> (Server, Arc<Probe>) {
    probed_builder()
}

pub fn probed_builder() -> (Server, Arc<Probe>) {
    let probe = Arc::new(Probe::default());
    let server = Server::builder("reliability", "0.0.1")
        .toolbox(Probed {
            probe: Arc::clone(&probe),
        })
        .shutdown_grace(Duration::from_millis(200))
        .build();
    (server, probe)
}

/// A dynamic tool named `name` that answers `name:a+b`.
pub fn extra_tool(name: &str) -> ToolEntry {
    let tag = name.to_owned();
    ToolEntry::dynamic(
        name,
        "A tool added at run time",
        json!({
            "type": "object",
            "properties": {
                "a": {"type": "number", "description": "first"},
                "b": {"type": "number", "description": "second"}
            },
            "required": ["a", "b"]
        }),
        move |args: JsonObject, _ctx| {
            let tag = tag.clone();
            async move {
                let a = args.get("a").and_then(Value::as_f64).unwrap_or(f64::NAN);
                let b = args.get("b").and_then(Value::as_f64).unwrap_or(f64::NAN);
                format!("{tag}:{}", sum_text(a, b))
            }
        },
    )
    .expect("a valid dynamic tool")
}

// ------------------------------------------------------------------ JSON-RPC

pub const LATEST_LEGACY: &str = "2025-11-25";

pub fn modern_meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "reliability", "version": "1"}
    })
}

pub fn initialize_request(id: &Value, version: &str) -> Value {
    json!({"jsonrpc":"2.0","id":id,"method":"initialize","params":{
        "protocolVersion": version, "capabilities": {}, "clientInfo": {"name":"reliability","version":"1"}}})
}

pub fn initialized() -> Value {
    json!({"jsonrpc":"2.0","method":"notifications/initialized"})
}

/// `tools/call add(a, b)` in the legacy era.
pub fn legacy_add(id: &Value, a: f64, b: f64) -> Value {
    json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{"name":"add","arguments":{"a":a,"b":b}}})
}

/// `tools/call add(a, b)` in the stateless era.
pub fn modern_add(id: &Value, a: f64, b: f64) -> Value {
    json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{"name":"add","arguments":{"a":a,"b":b},"_meta":modern_meta()}})
}

pub fn cancel(id: &Value) -> Value {
    json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":id,"reason":"test"}})
}

/// The text of a tool result's first content block.
pub fn result_text(reply: &Value) -> Option<&str> {
    reply["result"]["content"][0]["text"].as_str()
}

/// Whether `v` is a well-formed JSON-RPC response (success or error) and, if
/// so, nothing else: `jsonrpc` 2.0, an `id`, exactly one of `result`/`error`,
/// an error with an integer code and a string message.
pub fn check_response(v: &Value) -> Result<(), String> {
    let Some(obj) = v.as_object() else {
        return Err(format!("not an object: {v}"));
    };
    if obj.get("jsonrpc") != Some(&json!("2.0")) {
        return Err(format!("no jsonrpc 2.0: {v}"));
    }
    if obj.contains_key("method") {
        return Err(format!("a request or notification, not a response: {v}"));
    }
    let Some(id) = obj.get("id") else {
        return Err(format!("no id: {v}"));
    };
    if !(id.is_null() || id.is_string() || id.is_i64() || id.is_u64()) {
        return Err(format!("an id of the wrong type: {v}"));
    }
    match (obj.get("result"), obj.get("error")) {
        (Some(_), None) if !id.is_null() => Ok(()),
        (Some(_), None) => Err(format!("a result with a null id: {v}")),
        (None, Some(e)) => {
            if !e["code"].is_i64() || !e["message"].is_string() {
                return Err(format!("a malformed error: {v}"));
            }
            Ok(())
        }
        _ => Err(format!("not exactly one of result/error: {v}")),
    }
}

// ------------------------------------------------------------------ stdio

type BoxRead = Box<dyn AsyncRead + Unpin + Send>;
type BoxWrite = Box<dyn AsyncWrite + Unpin + Send>;

/// One stdio connection, seen from the client: lines in, lines out.
pub struct StdioConn {
    pub write: Option<BoxWrite>,
    pub lines: tokio::io::Lines<BufReader<BoxRead>>,
    pub task: Option<tokio::task::JoinHandle<Result<(), mcp_server::Error>>>,
    pub child: Option<tokio::process::Child>,
}

/// How long a reader waits for one line before failing the test.
pub const LINE_TIMEOUT: Duration = Duration::from_secs(20);

impl StdioConn {
    /// `server.serve_io` on in-memory pipes (one per direction).
    pub fn in_memory(server: Server) -> StdioConn {
        Self::in_memory_with(server, 1 << 16)
    }

    /// As [`in_memory`](Self::in_memory), with pipes of `capacity` bytes.
    pub fn in_memory_with(server: Server, capacity: usize) -> StdioConn {
        let (to_server, server_in) = tokio::io::duplex(capacity);
        let (server_out, from_server) = tokio::io::duplex(capacity);
        let task = tokio::spawn(server.serve_io(server_in, server_out));
        StdioConn {
            write: Some(Box::new(to_server)),
            lines: BufReader::new(Box::new(from_server) as BoxRead).lines(),
            task: Some(task),
            child: None,
        }
    }

    /// The calculator example as a child process.
    pub fn calculator() -> StdioConn {
        let mut child = tokio::process::Command::new(calculator_bin())
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("the calculator example starts");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        StdioConn {
            write: Some(Box::new(stdin)),
            lines: BufReader::new(Box::new(stdout) as BoxRead).lines(),
            task: None,
            child: Some(child),
        }
    }

    pub async fn write_bytes(&mut self, bytes: &[u8]) {
        let w = self.write.as_mut().expect("input still open");
        w.write_all(bytes)
            .await
            .expect("the server reads its input");
        w.flush().await.unwrap();
    }

    pub async fn send(&mut self, v: &Value) {
        let mut line = v.to_string().into_bytes();
        line.push(b'\n');
        self.write_bytes(&line).await;
    }

    /// The next line, parsed; panics on a non-JSON line, on timeout or at the end.
    pub async fn recv(&mut self) -> Value {
        let line = tokio::time::timeout(LINE_TIMEOUT, self.lines.next_line())
            .await
            .expect("timed out waiting for the server")
            .expect("reading the server's output")
            .expect("the server closed its output");
        serde_json::from_str(&line).unwrap_or_else(|e| {
            panic!(
                "the server wrote a non-JSON line ({e}): {:?}",
                truncate(&line)
            )
        })
    }

    /// Lines up to and including the response with `id` (notifications and
    /// other replies before it are returned too).
    pub async fn recv_until(&mut self, id: &Value) -> (Value, Vec<Value>) {
        let mut before = Vec::new();
        loop {
            let v = self.recv().await;
            if v.get("id") == Some(id) && v.get("method").is_none() {
                return (v, before);
            }
            before.push(v);
        }
    }

    pub async fn request(&mut self, v: &Value) -> Value {
        self.send(v).await;
        self.recv_until(&v["id"]).await.0
    }

    pub async fn initialize(&mut self, version: &str) -> Value {
        let r = self
            .request(&initialize_request(&json!("init"), version))
            .await;
        assert!(r.get("result").is_some(), "initialize failed: {r}");
        self.send(&initialized()).await;
        r
    }

    /// Closes the input and waits for the server to end; returns everything it
    /// wrote after that.
    pub async fn finish(mut self) -> Vec<Value> {
        drop(self.write.take());
        let mut rest = Vec::new();
        while let Some(line) = tokio::time::timeout(LINE_TIMEOUT, self.lines.next_line())
            .await
            .expect("the server did not close its output after its input closed")
            .expect("reading the server's output")
        {
            rest.push(
                serde_json::from_str(&line)
                    .unwrap_or_else(|e| panic!("a non-JSON line ({e}): {:?}", truncate(&line))),
            );
        }
        if let Some(task) = self.task.take() {
            tokio::time::timeout(LINE_TIMEOUT, task)
                .await
                .expect("serve_io did not return after its input closed")
                .expect("serve_io panicked")
                .expect("serve_io failed");
        }
        if let Some(mut child) = self.child.take() {
            let status = tokio::time::timeout(LINE_TIMEOUT, child.wait())
                .await
                .expect("the child did not exit after its stdin closed")
                .unwrap();
            assert!(status.success(), "the server exited with {status}");
        }
        rest
    }
}

pub fn truncate(s: &str) -> String {
    if s.len() <= 300 {
        s.to_owned()
    } else {
        let mut end = 300;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        format!("{}… ({} bytes)", &s[..end], s.len())
    }
}

/// `target/<profile>/calculator`, built by `cargo test --workspace` (the
/// examples crate has tests, so its binaries are built first). Run on its
/// own (`cargo test -p mcp-server`), the test builds it.
pub fn calculator_bin() -> PathBuf {
    static BUILT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BUILT
        .get_or_init(|| {
            let exe = std::env::current_exe().unwrap();
            // target/<profile>/deps/<test>-<hash>
            let dir = exe.parent().and_then(|d| d.parent()).unwrap().to_owned();
            let bin = dir.join(format!("calculator{}", std::env::consts::EXE_SUFFIX));
            // Always asked for: cargo does nothing when it is up to date, and a
            // binary left from an earlier build would test old code.
            let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
            let mut cmd = std::process::Command::new(cargo);
            cmd.args(["build", "-q", "-p", "mcp-examples", "--bin", "calculator"]);
            if !cfg!(debug_assertions) {
                cmd.arg("--release");
            }
            let status = cmd.status().expect("cargo runs");
            assert!(status.success(), "building the calculator example failed");
            assert!(bin.exists(), "no calculator binary at {}", bin.display());
            bin
        })
        .clone()
}

// ------------------------------------------------------------------ HTTP

/// One HTTP response as read off the wire.
#[derive(Clone)]
pub struct Reply {
    pub version: String,
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl std::fmt::Debug for Reply {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reply")
            .field("version", &self.version)
            .field("status", &self.status)
            .field("headers", &self.headers)
            .field("body", &truncate(&self.text()))
            .finish()
    }
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {:?}", truncate(&self.text())))
    }

    pub fn is_sse(&self) -> bool {
        self.header("content-type")
            .is_some_and(|c| c.starts_with("text/event-stream"))
    }

    /// The JSON-RPC messages of the body: the `data:` lines of an SSE stream,
    /// or the one JSON document.
    pub fn messages(&self) -> Vec<Value> {
        if self.is_sse() {
            self.text()
                .lines()
                .filter_map(|l| l.strip_prefix("data:"))
                .map(str::trim)
                .filter(|d| !d.is_empty())
                .map(|d| {
                    serde_json::from_str(d)
                        .unwrap_or_else(|e| panic!("non-JSON SSE data ({e}): {:?}", truncate(d)))
                })
                .collect()
        } else if self.body.is_empty() {
            Vec::new()
        } else {
            vec![self.json()]
        }
    }

    /// The last message (the response, on an SSE stream).
    pub fn last(&self) -> Value {
        self.messages()
            .pop()
            .unwrap_or_else(|| panic!("an empty response: {self:?}"))
    }
}

/// A raw HTTP/1.1 connection: write anything, read responses one by one.
pub struct HttpConn {
    pub stream: TcpStream,
    buf: Vec<u8>,
    pub closed: bool,
}

pub const HTTP_TIMEOUT: Duration = Duration::from_secs(20);

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

    /// Reads more input; `false` at the end of the stream.
    async fn fill(&mut self) -> bool {
        if self.closed {
            return false;
        }
        let mut chunk = vec![0u8; 16 * 1024];
        let n = match tokio::time::timeout(HTTP_TIMEOUT, self.stream.read(&mut chunk))
            .await
            .expect("timed out reading a response")
        {
            Ok(n) => n,
            // A reset after the server answered and closed counts as the end.
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => 0,
            Err(e) => panic!("read: {e}"),
        };
        if n == 0 {
            self.closed = true;
            return false;
        }
        self.buf.extend_from_slice(&chunk[..n]);
        true
    }

    async fn take_line(&mut self) -> Option<Vec<u8>> {
        loop {
            if let Some(pos) = self.buf.windows(2).position(|w| w == b"\r\n") {
                let line = self.buf[..pos].to_vec();
                self.buf.drain(..pos + 2);
                return Some(line);
            }
            if !self.fill().await {
                return None;
            }
        }
    }

    async fn take_exact(&mut self, n: usize) -> Option<Vec<u8>> {
        while self.buf.len() < n {
            if !self.fill().await {
                return None;
            }
        }
        Some(self.buf.drain(..n).collect())
    }

    /// Reads the head of the next response (status line and headers), or
    /// `None` if the server closed the connection first.
    pub async fn read_head(&mut self) -> Option<Reply> {
        let status_line = loop {
            let line = self.take_line().await?;
            if !line.is_empty() {
                break String::from_utf8_lossy(&line).into_owned();
            }
        };
        let mut parts = status_line.splitn(3, ' ');
        let version = parts.next().unwrap_or_default().to_owned();
        let status: u16 = parts
            .next()
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("a malformed status line: {status_line:?}"));
        let mut headers = Vec::new();
        loop {
            let line = self.take_line().await?;
            if line.is_empty() {
                break;
            }
            let line = String::from_utf8_lossy(&line).into_owned();
            if let Some((k, v)) = line.split_once(':') {
                headers.push((k.trim().to_owned(), v.trim().to_owned()));
            }
        }
        Some(Reply {
            version,
            status,
            headers,
            body: Vec::new(),
        })
    }

    /// Reads the body of a response whose head was read.
    pub async fn read_body(&mut self, head: &mut Reply) {
        let chunked = head
            .header("transfer-encoding")
            .is_some_and(|v| v.to_ascii_lowercase().contains("chunked"));
        if chunked {
            loop {
                let Some(size_line) = self.take_line().await else {
                    panic!("the connection ended inside a chunked body: {head:?}")
                };
                let size_text = String::from_utf8_lossy(&size_line);
                let size = usize::from_str_radix(size_text.split(';').next().unwrap().trim(), 16)
                    .unwrap_or_else(|_| panic!("a malformed chunk size {size_text:?}"));
                if size == 0 {
                    // Trailers, then the empty line.
                    while let Some(line) = self.take_line().await {
                        if line.is_empty() {
                            break;
                        }
                    }
                    return;
                }
                let data = self.take_exact(size + 2).await.expect("a complete chunk");
                head.body.extend_from_slice(&data[..size]);
            }
        } else if let Some(len) = head.header("content-length") {
            let len: usize = len.parse().expect("a numeric content-length");
            head.body = self
                .take_exact(len)
                .await
                .expect("a body as long as its content-length");
        } else if head.status == 204 || head.status == 304 || (100..200).contains(&head.status) {
        } else {
            // Delimited by the end of the connection.
            while self.fill().await {}
            head.body = std::mem::take(&mut self.buf);
        }
    }

    /// Reads one whole response, or `None` if the connection closed first.
    pub async fn read_response(&mut self) -> Option<Reply> {
        let mut head = self.read_head().await?;
        self.read_body(&mut head).await;
        Some(head)
    }

    /// Reads until `needle` appears in what arrived (raw bytes, chunk framing
    /// included); returns all of it and empties the buffer. `None` on
    /// timeout or at the end of the stream.
    pub async fn read_until(&mut self, needle: &str, within: Duration) -> Option<String> {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            if self
                .buf
                .windows(needle.len())
                .any(|w| w == needle.as_bytes())
            {
                let text = String::from_utf8_lossy(&self.buf).into_owned();
                self.buf.clear();
                return Some(text);
            }
            let mut chunk = vec![0u8; 16 * 1024];
            match tokio::time::timeout_at(deadline, self.stream.read(&mut chunk)).await {
                Err(_) | Ok(Ok(0) | Err(_)) => return None,
                Ok(Ok(n)) => self.buf.extend_from_slice(&chunk[..n]),
            }
        }
    }

    /// Whether the server closed the connection (reads until the end or `wait`).
    /// Whether a chunked response being read ends (its last chunk arrives,
    /// or the connection closes) within `wait`.
    pub async fn body_ends_within(&mut self, wait: Duration) -> bool {
        let deadline = tokio::time::Instant::now() + wait;
        let mut chunk = vec![0u8; 4096];
        loop {
            if self.buf.ends_with(b"\r\n0\r\n\r\n") || self.buf == b"0\r\n\r\n" {
                return true;
            }
            match tokio::time::timeout_at(deadline, self.stream.read(&mut chunk)).await {
                Err(_) => return false,
                Ok(Ok(0) | Err(_)) => return true,
                Ok(Ok(n)) => self.buf.extend_from_slice(&chunk[..n]),
            }
        }
    }

    pub async fn is_closed_within(&mut self, wait: Duration) -> bool {
        let deadline = tokio::time::Instant::now() + wait;
        let mut chunk = vec![0u8; 4096];
        loop {
            match tokio::time::timeout_at(deadline, self.stream.read(&mut chunk)).await {
                Err(_) => return false,
                Ok(Ok(0) | Err(_)) => return true,
                Ok(Ok(n)) => self.buf.extend_from_slice(&chunk[..n]),
            }
        }
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

pub fn as_refs<'a>(headers: &'a [(&'static str, String)]) -> Vec<(&'static str, &'a str)> {
    headers.iter().map(|(k, v)| (*k, v.as_str())).collect()
}

/// A server on a real 127.0.0.1 socket.
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
    pub async fn send(&self, raw: &[u8]) -> Reply {
        let mut c = HttpConn::connect(self.addr).await;
        c.write(raw).await;
        c.read_response()
            .await
            .expect("a response before the connection closed")
    }

    pub async fn post(&self, headers: &[(&str, &str)], body: &[u8]) -> Reply {
        self.send(&http_request("POST", "/mcp", self.port(), headers, body))
            .await
    }

    pub async fn post_json(&self, headers: &[(&'static str, String)], body: &Value) -> Reply {
        self.post(&as_refs(headers), body.to_string().as_bytes())
            .await
    }

    /// Opens a legacy session at `version` (initialize + initialized).
    pub async fn session(&self, version: &str) -> String {
        let r = self
            .post(
                &[JSON, ACCEPT_BOTH],
                initialize_request(&json!(0), version)
                    .to_string()
                    .as_bytes(),
            )
            .await;
        assert_eq!(r.status, 200, "initialize: {r:?}");
        let sid = r.header("mcp-session-id").expect("a session id").to_owned();
        let n = self
            .post_json(&legacy_headers(&sid, version), &initialized())
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
                &legacy_headers(&sid, LATEST_LEGACY),
                &legacy_add(&json!("after"), 2.0, 3.0),
            )
            .await;
        assert_eq!(r.status, 200, "{r:?}");
        assert_eq!(result_text(&r.last()), Some("5"), "{r:?}");
        self.delete_session(&sid).await;
        let m = self
            .post_json(
                &modern_call_headers("add"),
                &modern_add(&json!("after"), 20.0, 22.0),
            )
            .await;
        assert_eq!(m.status, 200, "{m:?}");
        assert_eq!(result_text(&m.last()), Some("42"), "{m:?}");
    }

    pub async fn delete_session(&self, sid: &str) {
        let d = self
            .send(&http_request(
                "DELETE",
                "/mcp",
                self.port(),
                &[("Mcp-Session-Id", sid)],
                b"",
            ))
            .await;
        assert_eq!(d.status, 200, "DELETE: {d:?}");
    }

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

// ------------------------------------------------------------------ measuring

/// This process's resident set size, in KiB (Linux).
pub fn rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// Tasks alive on the current tokio runtime.
pub fn alive_tasks() -> usize {
    tokio::runtime::Handle::current()
        .metrics()
        .num_alive_tasks()
}

/// Polls `cond` until it holds or `within` passes; returns whether it held.
pub async fn eventually(within: Duration, mut cond: impl FnMut() -> bool) -> bool {
    let deadline = tokio::time::Instant::now() + within;
    loop {
        if cond() {
            return true;
        }
        if tokio::time::Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Serializes the tests of one test binary that measure process-wide things
/// (RSS, task counts), and runs `f` on a fresh two-worker runtime.
pub fn serial<F: std::future::Future<Output = ()>>(f: impl FnOnce() -> F) {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _guard = LOCK
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
        .block_on(f());
}
