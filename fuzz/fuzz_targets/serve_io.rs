//! Bytes through a whole stdio server (`Server::serve_io`): framing,
//! dispatch of both eras, tools (static and dynamic with schema
//! validation), batches. The server never panics (libFuzzer aborts on any
//! panic, even a caught one, so no tool here panics), ends when its input
//! ends, and writes only JSON-RPC messages, one per line, never more
//! responses than it was sent lines.
//!
//! The first input byte picks a prelude: nothing, a 2025-11-25 session, or a
//! 2025-03-26 one (where batches are allowed); the rest is the input.
#![no_main]

use std::sync::OnceLock;
use std::time::Duration;

use libfuzzer_sys::fuzz_target;
use oxmcp_server::{tool, Context, Server, ToolEntry};
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// The static tools: `add` and `count_to`, as the calculator's.
struct Numbers;

#[tool(description = "Arithmetic", client = false)]
impl Numbers {
    #[describe("Add two numbers")]
    pub async fn add(&self, #[param("first")] a: f64, #[param("second")] b: f64) -> String {
        (a + b).to_string()
    }

    #[describe("Count to n, reporting progress and logging")]
    pub async fn count_to(&self, #[param("how far (at most 255)")] n: u8, ctx: Context) -> String {
        for i in 1..=n {
            tokio::task::yield_now().await;
            ctx.progress(f64::from(i), Some(f64::from(n)));
            #[allow(deprecated)] // logging, fuzzed on purpose
            ctx.info(format!("{i}"));
        }
        format!("counted to {n}")
    }
}

fn server() -> &'static Server {
    static SERVER: OnceLock<Server> = OnceLock::new();
    SERVER.get_or_init(|| {
        let shout = ToolEntry::dynamic(
            "shout",
            "Upper-case a text, repeated",
            json!({
                "type": "object",
                "properties": {
                    "text": {"type": "string", "maxLength": 64},
                    "times": {"type": "integer", "minimum": 1, "maximum": 4},
                    "tags": {"type": "array", "items": {"enum": ["a", "b"]}, "uniqueItems": true}
                },
                "required": ["text"],
                "additionalProperties": false
            }),
            |args, _ctx| async move {
                let text = args.get("text").and_then(Value::as_str).unwrap_or_default();
                let times = args.get("times").and_then(Value::as_u64).unwrap_or(1);
                text.to_uppercase()
                    .repeat(usize::try_from(times).unwrap_or(1))
            },
        )
        .expect("a valid dynamic tool");
        Server::builder("fuzz", "1")
            .toolbox(Numbers)
            .tool(shout)
            .max_message_size(64 * 1024)
            .shutdown_grace(Duration::from_secs(5))
            .build()
    })
}

fn runtime() -> &'static tokio::runtime::Runtime {
    static RT: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RT.get_or_init(|| {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    let prelude: &[u8] = match first % 3 {
        0 => b"",
        1 => b"{\"jsonrpc\":\"2.0\",\"id\":\"p\",\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"f\",\"version\":\"1\"}}}\n",
        _ => b"{\"jsonrpc\":\"2.0\",\"id\":\"p\",\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-03-26\",\"capabilities\":{},\"clientInfo\":{\"name\":\"f\",\"version\":\"1\"}}}\n",
    };
    let input = [prelude, rest].concat();
    runtime().block_on(run(input));
});

async fn run(input: Vec<u8>) {
    let lines = input.split(|b| *b == b'\n').count();
    let (mut to_server, server_in) = tokio::io::duplex(1 << 16);
    let (server_out, mut from_server) = tokio::io::duplex(1 << 16);
    let serving = tokio::spawn(server().clone().serve_io(server_in, server_out));
    let writing = tokio::spawn(async move {
        // The server may stop reading (it never should before the end).
        let _ = to_server.write_all(&input).await;
    });
    let mut out = Vec::new();
    tokio::time::timeout(Duration::from_secs(30), from_server.read_to_end(&mut out))
        .await
        .expect("the server ends when its input ends")
        .expect("reading the output");
    writing.await.expect("the writer");
    serving
        .await
        .expect("serve_io does not panic")
        .expect("serve_io ends cleanly");
    assert!(
        out.is_empty() || out.ends_with(b"\n"),
        "a partial last line"
    );
    let mut replies = 0;
    for line in out.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
        let v: Value = serde_json::from_slice(line)
            .unwrap_or_else(|e| panic!("a non-JSON line ({e}): {}", String::from_utf8_lossy(line)));
        let items = match &v {
            Value::Array(items) => {
                assert!(!items.is_empty(), "an empty batch reply");
                items.clone()
            }
            _ => vec![v.clone()],
        };
        if v.is_array() || v.get("method").is_none() {
            replies += 1;
        }
        for m in items {
            assert_eq!(m["jsonrpc"], "2.0", "{m}");
            if m.get("method").is_some() {
                assert!(m.get("id").is_none(), "the server sent a request: {m}");
                assert!(!v.is_array(), "a notification inside a batch reply: {v}");
                continue;
            }
            let id = &m["id"];
            assert!(id.is_null() || id.is_string() || id.is_i64(), "{m}");
            assert!(
                m.get("result").is_some() != m.get("error").is_some(),
                "exactly one of result/error: {m}"
            );
            if let Some(e) = m.get("error") {
                assert!(e["code"].is_i64() && e["message"].is_string(), "{m}");
            }
        }
    }
    // At most one reply line (a response, or a batch of them) per input line.
    assert!(replies <= lines, "{replies} replies to {lines} lines");
}
