//! [`Fake`]: a scripted server on the other end of a duplex, for what our
//! server never does (server→client requests, MRTR, silence).

use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines};

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
