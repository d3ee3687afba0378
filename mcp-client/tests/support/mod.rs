//! Shared test pieces: a hand-written toolbox served by the real
//! `mcp_server`, in-process and HTTP harnesses, and a scripted fake server
//! for what our server never does (server→client requests, MRTR, silence).
#![allow(
    dead_code,
    unreachable_pub,
    clippy::missing_panics_doc,
    clippy::similar_names,
    clippy::too_many_lines
)]

use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context as TaskContext, Poll};
use std::time::Duration;

use mcp_client::{Client, ClientBuilder};
use mcp_server::http::HttpConfig;
use mcp_server::types::{CallToolResult, JsonObject};
use mcp_server::{
    __private::Args, __private::InputSchemaBuilder, __private::ToolSpec, Context, Server, ToolBox,
    ToolEntry,
};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWrite, AsyncWriteExt, BufReader, DuplexStream, Lines};
use tokio::sync::mpsc;

/// What the tools report to the test (e.g. "cancelled").
pub type Events = mpsc::UnboundedReceiver<String>;

/// Tools that exercise the client: arithmetic, waiting, progress, logs,
/// errors, structured results (good and bad), stream closing.
pub struct TestTools {
    events: mpsc::UnboundedSender<String>,
}

fn number_schema(params: &[&str]) -> JsonObject {
    let mut b = InputSchemaBuilder::new();
    for name in params {
        b.param::<f64>(name, "a number");
    }
    b.build()
}

fn spec(name: &'static str, description: &'static str) -> ToolSpec {
    ToolSpec {
        name,
        description,
        ..ToolSpec::default()
    }
}

fn sum_schema() -> schemars::Schema {
    schemars::Schema::try_from(json!({
        "type": "object",
        "properties": {"total": {"type": "number"}},
        "required": ["total"],
        "additionalProperties": false
    }))
    .unwrap()
}

impl ToolBox for TestTools {
    const NAME: &'static str = "TestTools";
    const DESCRIPTION: &'static str = "tools for client tests";

    fn into_tools(self) -> Vec<ToolEntry> {
        let events = self.events;
        let wait_events = events.clone();
        vec![
            ToolEntry::new(
                &spec("add", "Add two numbers"),
                number_schema(&["a", "b"]),
                None,
                |mut args: Args<'_>, _ctx: Context| {
                    let a = args.take::<f64>("a");
                    let b = args.take::<f64>("b");
                    Box::pin(async move {
                        match (a, b) {
                            (Some(a), Some(b)) => CallToolResult::text((a + b).to_string()),
                            _ => args.error_result(),
                        }
                    })
                },
            ),
            ToolEntry::new(
                &spec("wait", "Waits until cancelled, then reports it"),
                number_schema(&[]),
                None,
                move |_args, ctx: Context| {
                    let events = wait_events.clone();
                    Box::pin(async move {
                        let _ = events.send("started".into());
                        // The server drops a cancelled call's future: report from the drop.
                        let _signal = Signal {
                            events,
                            ctx: ctx.clone(),
                        };
                        ctx.cancelled().await;
                        CallToolResult::text("cancelled")
                    })
                },
            ),
            ToolEntry::new(
                &spec("slow", "Answers after 300 ms"),
                number_schema(&[]),
                None,
                |_args, _ctx| {
                    Box::pin(async {
                        tokio::time::sleep(Duration::from_millis(300)).await;
                        CallToolResult::text("slow done")
                    })
                },
            ),
            ToolEntry::new(
                &spec("progress", "Reports progress 3 times, then answers"),
                number_schema(&[]),
                None,
                |_args, ctx: Context| {
                    Box::pin(async move {
                        for step in [25.0, 50.0, 100.0] {
                            ctx.progress_with_message(step, Some(100.0), format!("at {step}"));
                            tokio::time::sleep(Duration::from_millis(10)).await;
                        }
                        CallToolResult::text("progressed")
                    })
                },
            ),
            ToolEntry::new(
                &spec("chatty", "Logs at info and warning"),
                number_schema(&[]),
                None,
                |_args, ctx: Context| {
                    Box::pin(async move {
                        ctx.info("hello from the tool");
                        ctx.warning("careful");
                        tokio::time::sleep(Duration::from_millis(10)).await;
                        CallToolResult::text("logged")
                    })
                },
            ),
            ToolEntry::new(
                &spec("fail", "Always reports a tool error"),
                number_schema(&[]),
                None,
                |_args, _ctx| Box::pin(async { CallToolResult::error("it went wrong") }),
            ),
            ToolEntry::new(
                &spec("sum_good", "A structured sum that matches its schema"),
                number_schema(&["a", "b"]),
                Some(sum_schema()),
                |mut args: Args<'_>, _ctx: Context| {
                    let a = args.take::<f64>("a").unwrap_or_default();
                    let b = args.take::<f64>("b").unwrap_or_default();
                    Box::pin(async move {
                        let value = json!({"total": a + b});
                        CallToolResult {
                            content: vec![mcp_server::types::ContentBlock::text(value.to_string())],
                            structured_content: Some(value),
                            ..CallToolResult::default()
                        }
                    })
                },
            ),
            ToolEntry::new(
                &spec("sum_bad", "A structured sum that violates its schema"),
                number_schema(&[]),
                Some(sum_schema()),
                |_args, _ctx| {
                    Box::pin(async {
                        CallToolResult {
                            content: vec![mcp_server::types::ContentBlock::text("three")],
                            structured_content: Some(json!({"total": "three", "extra": 1})),
                            ..CallToolResult::default()
                        }
                    })
                },
            ),
            ToolEntry::new(
                &spec(
                    "reconnect",
                    "Closes its SSE stream after 20 ms, answers 100 ms later",
                ),
                number_schema(&[]),
                None,
                |_args, ctx: Context| {
                    Box::pin(async move {
                        tokio::time::sleep(Duration::from_millis(20)).await;
                        ctx.close_sse_stream();
                        tokio::time::sleep(Duration::from_millis(100)).await;
                        CallToolResult::text("resumed")
                    })
                },
            ),
            ToolEntry::new(
                &spec("die", "Ends the server process (stdio tests)"),
                number_schema(&[]),
                None,
                |_args, _ctx| {
                    Box::pin(async {
                        eprintln!("the die tool ends the process now");
                        std::process::exit(3)
                    })
                },
            ),
        ]
    }
}

/// Reports, when a call's future ends, whether the call was cancelled.
struct Signal {
    events: mpsc::UnboundedSender<String>,
    ctx: Context,
}

impl Drop for Signal {
    fn drop(&mut self) {
        let what = if self.ctx.is_cancelled() {
            "cancelled"
        } else {
            "dropped"
        };
        let _ = self.events.send(what.into());
    }
}

/// A toolbox of `n` trivial tools named `tool_0000` ….
pub struct ManyTools(pub usize);

impl ToolBox for ManyTools {
    const NAME: &'static str = "ManyTools";
    const DESCRIPTION: &'static str = "many tools";

    fn into_tools(self) -> Vec<ToolEntry> {
        (0..self.0)
            .map(|i| {
                let name: &'static str = Box::leak(format!("tool_{i:04}").into_boxed_str());
                ToolEntry::new(
                    &spec(name, "one of many"),
                    number_schema(&[]),
                    None,
                    |_args, _ctx| Box::pin(async { CallToolResult::text("ok") }),
                )
            })
            .collect()
    }
}

/// The test toolbox and the channel its tools report on.
pub fn tools() -> (TestTools, Events) {
    let (tx, rx) = mpsc::unbounded_channel();
    (TestTools { events: tx }, rx)
}

/// A server with the test toolbox.
pub fn server() -> (Server, Events) {
    let (tools, events) = tools();
    let server = Server::builder("test-server", "1.2.3")
        .instructions("Use add to add.")
        .toolbox(tools)
        .shutdown_grace(Duration::from_millis(300))
        .build();
    (server, events)
}

/// Counts the requests of one method the client writes.
#[derive(Clone, Default)]
pub struct Tap {
    pub tools_list: Arc<AtomicUsize>,
    pub cancelled: Arc<AtomicUsize>,
}

impl Tap {
    pub fn tools_list(&self) -> usize {
        self.tools_list.load(Ordering::SeqCst)
    }

    pub fn cancelled(&self) -> usize {
        self.cancelled.load(Ordering::SeqCst)
    }
}

/// A writer that counts the client's `tools/list` requests and cancellations.
pub struct TapWriter<W> {
    inner: W,
    tap: Tap,
}

impl<W: AsyncWrite + Unpin> AsyncWrite for TapWriter<W> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut TaskContext<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let this = &mut *self;
        let poll = Pin::new(&mut this.inner).poll_write(cx, buf);
        if let Poll::Ready(Ok(n)) = &poll {
            let text = String::from_utf8_lossy(&buf[..*n]);
            this.tap
                .tools_list
                .fetch_add(text.matches("\"tools/list\"").count(), Ordering::SeqCst);
            this.tap.cancelled.fetch_add(
                text.matches("\"notifications/cancelled\"").count(),
                Ordering::SeqCst,
            );
        }
        poll
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(
        mut self: Pin<&mut Self>,
        cx: &mut TaskContext<'_>,
    ) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// Connects `builder` to `server` in the same process (the documented
/// `tokio::io::duplex` pattern); the tap counts what the client writes.
pub async fn in_process(
    server: Server,
    builder: ClientBuilder,
) -> (
    Client,
    Tap,
    tokio::task::JoinHandle<Result<(), mcp_server::Error>>,
) {
    let (client_end, server_end) = tokio::io::duplex(1 << 20);
    let (server_read, server_write) = tokio::io::split(server_end);
    let served = tokio::spawn(server.serve_io(server_read, server_write));
    let (client_read, client_write) = tokio::io::split(client_end);
    let tap = Tap::default();
    let writer = TapWriter {
        inner: client_write,
        tap: tap.clone(),
    };
    let client = builder
        .connect_io(client_read, writer)
        .await
        .expect("connect in-process");
    (client, tap, served)
}

/// A server on a real 127.0.0.1 socket.
pub struct HttpServer {
    pub addr: SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<Result<(), mcp_server::Error>>,
}

impl HttpServer {
    pub async fn start(server: Server, config: HttpConfig) -> HttpServer {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let task = tokio::spawn(server.serve_http_on(listener, config, async {
            let _ = stopped.await;
        }));
        HttpServer {
            addr,
            stop: Some(stop),
            task,
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    pub async fn stop(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        let _ = tokio::time::timeout(Duration::from_secs(15), &mut self.task).await;
    }
}

/// A scripted server on the other end of a duplex: the test reads what the
/// client sends and writes what it wants.
pub struct Fake {
    lines: Lines<BufReader<tokio::io::ReadHalf<DuplexStream>>>,
    write: tokio::io::WriteHalf<DuplexStream>,
}

impl Fake {
    /// The fake's end and the client's end.
    pub fn new() -> (
        Fake,
        tokio::io::ReadHalf<DuplexStream>,
        tokio::io::WriteHalf<DuplexStream>,
    ) {
        let (client_end, fake_end) = tokio::io::duplex(1 << 20);
        let (fr, fw) = tokio::io::split(fake_end);
        let (cr, cw) = tokio::io::split(client_end);
        (
            Fake {
                lines: BufReader::new(fr).lines(),
                write: fw,
            },
            cr,
            cw,
        )
    }

    /// The next message from the client (5 s at most).
    pub async fn recv(&mut self) -> Value {
        let line = tokio::time::timeout(Duration::from_secs(5), self.lines.next_line())
            .await
            .expect("timed out waiting for the client")
            .unwrap()
            .expect("the client closed its output");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON {line:?}: {e}"))
    }

    /// The next message whose method is `method`, skipping others.
    pub async fn recv_method(&mut self, method: &str) -> Value {
        loop {
            let v = self.recv().await;
            if v["method"] == method {
                return v;
            }
        }
    }

    /// Whether the client sends nothing (or closes) within `wait`.
    pub async fn silent_for(&mut self, wait: Duration) -> Option<Value> {
        match tokio::time::timeout(wait, self.lines.next_line()).await {
            Ok(Ok(Some(line))) => Some(serde_json::from_str(&line).unwrap()),
            _ => None,
        }
    }

    pub async fn send(&mut self, v: Value) {
        self.write
            .write_all(format!("{v}\n").as_bytes())
            .await
            .unwrap();
    }

    pub async fn reply(&mut self, request: &Value, result: Value) {
        self.send(json!({"jsonrpc": "2.0", "id": request["id"], "result": result}))
            .await;
    }

    /// Answers the legacy handshake (`initialize`, then `notifications/initialized`).
    pub async fn legacy_handshake(&mut self, capabilities: Value) -> Value {
        let init = self.recv_method("initialize").await;
        self.reply(
            &init,
            json!({
                "protocolVersion": "2025-11-25",
                "capabilities": capabilities,
                "serverInfo": {"name": "fake", "version": "0.1"},
                "instructions": "be nice"
            }),
        )
        .await;
        self.recv_method("notifications/initialized").await;
        init
    }

    /// Answers the modern probe.
    pub async fn modern_handshake(&mut self, capabilities: Value) -> Value {
        let discover = self.recv_method("server/discover").await;
        self.reply(
            &discover,
            json!({
                "resultType": "complete",
                "supportedVersions": ["2026-07-28", "2025-11-25"],
                "capabilities": capabilities,
                "ttlMs": 0,
                "cacheScope": "public",
                "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "fake-modern", "version": "2.0"}}
            }),
        )
        .await;
        discover
    }
}

/// A tool definition as JSON.
pub fn tool_json(name: &str) -> Value {
    json!({"name": name, "description": "d", "inputSchema": {"type": "object"}})
}
