//! A hand-written toolbox (no macros) and a line-based client over `tokio::io::duplex`.
#![allow(dead_code, unreachable_pub, clippy::too_many_lines)]

use std::time::Duration;

use mcp_server::types::{CallToolResult, JsonObject};
use mcp_server::{
    __private::Args, __private::InputSchemaBuilder, __private::ToolSpec, Context, Server, ToolBox,
    ToolEntry,
};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines};

pub struct TestTools;

fn schema(params: &[(&str, &str)]) -> JsonObject {
    let mut b = InputSchemaBuilder::new();
    for (name, desc) in params {
        b.param::<f64>(name, desc);
    }
    b.build()
}

impl ToolBox for TestTools {
    const NAME: &'static str = "TestTools";
    const DESCRIPTION: &'static str = "tools for dispatch tests";

    fn into_tools(self) -> Vec<ToolEntry> {
        let barrier = std::sync::Arc::new(tokio::sync::Barrier::new(2));
        vec![
            ToolEntry::new(
                &ToolSpec {
                    name: "meet",
                    description: "Wait for a second caller",
                    ..ToolSpec::default()
                },
                schema(&[]),
                None,
                move |_args, _ctx| {
                    let barrier = std::sync::Arc::clone(&barrier);
                    Box::pin(async move {
                        barrier.wait().await;
                        CallToolResult::text("met")
                    })
                },
            ),
            ToolEntry::new(
                &ToolSpec {
                    name: "add",
                    description: "Add two numbers",
                    ..ToolSpec::default()
                },
                schema(&[("a", "first"), ("b", "second")]),
                None,
                |mut args: Args<'_>, _ctx: Context| {
                    let a = args.take::<f64>("a");
                    let b = args.take::<f64>("b");
                    Box::pin(async move {
                        let (Some(a), Some(b)) = (a, b) else {
                            return args.error_result();
                        };
                        CallToolResult::text((a + b).to_string())
                    })
                },
            ),
            ToolEntry::new(
                &ToolSpec {
                    name: "wait",
                    description: "Wait until cancelled",
                    ..ToolSpec::default()
                },
                schema(&[]),
                None,
                |_args, ctx: Context| {
                    Box::pin(async move {
                        ctx.cancelled().await;
                        CallToolResult::text("cancelled")
                    })
                },
            ),
            ToolEntry::new(
                &ToolSpec {
                    name: "reconnect",
                    description: "Closes its SSE stream, then answers",
                    ..ToolSpec::default()
                },
                schema(&[]),
                None,
                |_args, ctx: Context| {
                    Box::pin(async move {
                        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
                        ctx.close_sse_stream();
                        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                        CallToolResult::text("resumed")
                    })
                },
            ),
            ToolEntry::new(
                &ToolSpec {
                    name: "slow",
                    description: "Answers after 300 ms",
                    ..ToolSpec::default()
                },
                schema(&[]),
                None,
                |_args, _ctx| {
                    Box::pin(async move {
                        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
                        CallToolResult::text("slow done")
                    })
                },
            ),
            ToolEntry::new(
                &ToolSpec {
                    name: "boom",
                    description: "Panics",
                    ..ToolSpec::default()
                },
                schema(&[]),
                None,
                |_args, _ctx| Box::pin(async move { panic!("kaboom") }),
            ),
            ToolEntry::new(
                &ToolSpec {
                    name: "chatty",
                    description: "Reports progress and logs",
                    ..ToolSpec::default()
                },
                schema(&[]),
                None,
                |_args, ctx: Context| {
                    Box::pin(async move {
                        for i in 0..3 {
                            ctx.progress(f64::from(i) * 50.0, Some(100.0));
                            ctx.debug(format!("debug {i}"));
                            ctx.info(format!("info {i}"));
                        }
                        CallToolResult::text("done")
                    })
                },
            ),
        ]
    }
}

pub fn server() -> Server {
    Server::builder("test-server", "0.0.1")
        .toolbox(TestTools)
        .max_message_size(4096)
        .page_size(2)
        .build()
}

pub struct Client {
    pub lines: Lines<BufReader<DuplexStream>>,
    pub write: DuplexStream,
    pub server: tokio::task::JoinHandle<Result<(), mcp_server::Error>>,
}

impl Client {
    /// One pipe per direction, so that dropping `write` is an end of input.
    pub fn start(server: Server) -> Client {
        let (to_server, server_in) = tokio::io::duplex(1 << 20);
        let (server_out, from_server) = tokio::io::duplex(1 << 20);
        let handle = tokio::spawn(server.serve_io(server_in, server_out));
        Client {
            lines: BufReader::new(from_server).lines(),
            write: to_server,
            server: handle,
        }
    }

    pub async fn send_raw(&mut self, text: &str) {
        self.write.write_all(text.as_bytes()).await.unwrap();
        self.write.write_all(b"\n").await.unwrap();
    }

    pub async fn send(&mut self, v: Value) {
        self.send_raw(&v.to_string()).await;
    }

    pub async fn recv(&mut self) -> Value {
        let line = tokio::time::timeout(Duration::from_secs(5), self.lines.next_line())
            .await
            .expect("timed out waiting for the server")
            .unwrap()
            .expect("server closed its output");
        serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("server wrote a non-JSON line {line:?}: {e}"))
    }

    /// Receives until the response with `id`, returning it and the notifications before it.
    pub async fn recv_response(&mut self, id: Value) -> (Value, Vec<Value>) {
        let mut notes = Vec::new();
        loop {
            let v = self.recv().await;
            if v.get("id") == Some(&id) && v.get("method").is_none() {
                return (v, notes);
            }
            notes.push(v);
        }
    }

    pub async fn request(&mut self, id: i64, method: &str, params: Value) -> Value {
        self.send(json!({"jsonrpc":"2.0","id":id,"method":method,"params":params}))
            .await;
        self.recv_response(json!(id)).await.0
    }

    pub async fn initialize(&mut self, version: &str) -> Value {
        let r = self
            .request(0, "initialize", json!({"protocolVersion": version, "capabilities": {}, "clientInfo": {"name":"t","version":"1"}}))
            .await;
        self.send(json!({"jsonrpc":"2.0","method":"notifications/initialized"}))
            .await;
        r
    }

    pub async fn close(self) -> Result<(), mcp_server::Error> {
        drop(self.write);
        tokio::time::timeout(Duration::from_secs(10), self.server)
            .await
            .expect("the server did not exit after its input closed")
            .unwrap()
    }
}

pub fn modern_meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"}
    })
}
