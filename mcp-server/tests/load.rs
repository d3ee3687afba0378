//! Load: 32 concurrent HTTP clients (16 legacy sessions, 16 stateless
//! 2026-07-28 clients, each on one kept-alive connection) and 64-in-flight
//! pipelining on one stdio connection, while tools are added, removed,
//! disabled and enabled through `Server::handle()`. Every reply is checked
//! against its request: its id, and a value only that request can produce
//! (`add(i, k)`), so a lost, duplicated or mixed-up reply fails the test.
//! Calls to dynamic tools that are gone at that moment must fail as unknown
//! tools (-32602), nothing else.
//!
//! `cargo test` runs a scaled-down load (32 × 300 HTTP calls, 20,000 stdio
//! calls). The full size, which the README's test command runs in the same
//! debug build, is
//! `MCP_LOAD_FULL=1 cargo test -p oxmcp-server --test load -- --nocapture`
//! (32 × 10,000 HTTP calls, 1,000,000 stdio calls); both print calls/s,
//! which say nothing about speed in a debug build (the bench does).
//! The HTTP test serves the `HttpService` itself (to count its sessions);
//! `MCP_LOAD_SERVE_HTTP_ON=1` measures `Server::serve_http_on` instead.
#![allow(
    clippy::cast_precision_loss,
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    reason = "test counters are small"
)]

use mcp_test_support::server as support;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use oxmcp_server::http::HttpConfig;
use oxmcp_server::ServerHandle;
use serde_json::{json, Value};
use support::{as_refs, http_request, result_text, Client, HttpConn, HttpServer};
use tokio::io::AsyncWriteExt as _;

fn full() -> bool {
    std::env::var_os("MCP_LOAD_FULL").is_some_and(|v| v != "0")
}

/// How many dynamic tools come and go.
const EXTRA: u64 = 8;

/// Adds, removes, disables and enables the `extra_*` tools until `stop`.
fn churn(handle: ServerHandle, stop: Arc<AtomicBool>) -> tokio::task::JoinHandle<u64> {
    tokio::spawn(async move {
        let mut n = 0u64;
        while !stop.load(Ordering::Relaxed) {
            let name = format!("extra_{}", n % EXTRA);
            match (n / EXTRA) % 4 {
                0 => {
                    let _ = handle.add_tool(support::extra_tool(&name));
                }
                1 => {
                    handle.disable_tool(&name);
                }
                2 => {
                    handle.enable_tool(&name);
                }
                _ => {
                    handle.remove_tool(&name);
                }
            }
            n += 1;
            tokio::time::sleep(Duration::from_micros(200)).await;
        }
        n
    })
}

/// What the call with number `i` is, and what only its reply may say.
#[derive(Debug, Clone)]
enum Call {
    /// `add(i, k)`, answered at once.
    Add(f64, f64),
    /// `add_later(i, k)`, answered from a spawned task.
    AddLater(f64, f64),
    /// `extra_j(i, k)`: `extra_j:<sum>` or an unknown-tool error.
    Extra(String, f64, f64),
}

impl Call {
    fn of(i: u64, k: u64) -> Call {
        let (a, b) = (i as f64, k as f64);
        match i % 10 {
            3 => Call::AddLater(a, b),
            7 => Call::Extra(format!("extra_{}", i % EXTRA), a, b),
            _ => Call::Add(a, b),
        }
    }

    fn tool(&self) -> &str {
        match self {
            Call::Add(..) => "add",
            Call::AddLater(..) => "add_later",
            Call::Extra(name, ..) => name,
        }
    }

    fn params(&self, modern: bool) -> Value {
        let (a, b) = match self {
            Call::Add(a, b) | Call::AddLater(a, b) | Call::Extra(_, a, b) => (*a, *b),
        };
        let mut p = json!({"name": self.tool(), "arguments": {"a": a, "b": b}});
        if modern {
            p["_meta"] = support::modern_meta();
        }
        p
    }

    /// Checks the reply; `Ok(true)` for an unknown-tool error.
    fn check(&self, reply: &Value) -> Result<bool, String> {
        support::check_response(reply)?;
        match self {
            Call::Add(a, b) | Call::AddLater(a, b) => {
                if result_text(reply) == Some(support::sum_text(*a, *b).as_str()) {
                    Ok(false)
                } else {
                    Err(format!("{self:?} got {reply}"))
                }
            }
            Call::Extra(name, a, b) => {
                if result_text(reply)
                    == Some(format!("{name}:{}", support::sum_text(*a, *b)).as_str())
                {
                    Ok(false)
                } else if reply["error"]["code"] == -32602
                    && reply["error"]["message"] == format!("unknown tool: {name}")
                {
                    Ok(true)
                } else {
                    Err(format!("{self:?} got {reply}"))
                }
            }
        }
    }
}

#[derive(Default)]
struct Tally {
    ok: AtomicU64,
    unknown: AtomicU64,
}

/// One HTTP client: `calls` sequential calls on one kept-alive connection.
async fn http_client(
    s: Arc<HttpServer>,
    k: u64,
    legacy: bool,
    calls: u64,
    tally: Arc<Tally>,
) -> Result<(), String> {
    let sid = if legacy {
        Some(s.session(support::LATEST_LEGACY).await)
    } else {
        None
    };
    let mut conn = HttpConn::connect(s.addr).await;
    for i in 0..calls {
        let call = Call::of(i, k);
        let id = json!(format!("c{k}-{i}"));
        let body =
            json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":call.params(!legacy)});
        let headers = match &sid {
            Some(sid) => support::legacy_headers(sid, support::LATEST_LEGACY),
            None => support::modern_call_headers(call.tool()),
        };
        conn.write(&http_request(
            "POST",
            "/mcp",
            s.port(),
            &as_refs(&headers),
            body.to_string().as_bytes(),
        ))
        .await;
        let r = conn
            .read_response()
            .await
            .ok_or_else(|| format!("client {k}: the connection closed at call {i}"))?;
        let msgs = r.messages();
        if msgs.len() != 1 {
            return Err(format!(
                "client {k} call {i}: not exactly one message: {r:?}"
            ));
        }
        let reply = &msgs[0];
        if reply["id"] != id {
            return Err(format!(
                "client {k} call {i}: a reply to another request: {reply}"
            ));
        }
        let unknown = call.check(reply)?;
        let status_ok = match (unknown, legacy) {
            (false, _) | (true, true) => r.status == 200,
            // Stateless: -32602 is HTTP 400.
            (true, false) => r.status == 400,
        };
        if !status_ok {
            return Err(format!(
                "client {k} call {i}: HTTP {} for {reply}",
                r.status
            ));
        }
        if unknown {
            tally.unknown.fetch_add(1, Ordering::Relaxed);
        } else {
            tally.ok.fetch_add(1, Ordering::Relaxed);
        }
    }
    if let Some(sid) = sid {
        s.delete_session(&sid).await;
    }
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_32_clients_legacy_and_stateless_while_tools_change() {
    let calls: u64 = if full() { 10_000 } else { 300 };
    let clients: u64 = 32;
    let (server, _) = support::probed_server();
    let handle = server.handle();
    // `MCP_LOAD_SERVE_HTTP_ON=1` measures `serve_http_on` itself.
    let real = std::env::var_os("MCP_LOAD_SERVE_HTTP_ON").is_some();
    let s = Arc::new(if real {
        HttpServer::start(server.clone(), HttpConfig::default()).await
    } else {
        HttpServer::start_service(&server, HttpConfig::default()).await
    });
    let stop = Arc::new(AtomicBool::new(false));
    let churner = churn(handle, Arc::clone(&stop));
    let tally = Arc::new(Tally::default());
    let started = Instant::now();
    let tasks: Vec<_> = (0..clients)
        .map(|k| {
            tokio::spawn(http_client(
                Arc::clone(&s),
                k,
                k % 2 == 0,
                calls,
                Arc::clone(&tally),
            ))
        })
        .collect();
    let mut failures = Vec::new();
    for t in tasks {
        if let Err(e) = t.await.expect("a client panicked") {
            failures.push(e);
        }
    }
    let elapsed = started.elapsed();
    stop.store(true, Ordering::Relaxed);
    let changes = churner.await.unwrap();
    assert!(failures.is_empty(), "{failures:#?}");
    let total = clients * calls;
    let ok = tally.ok.load(Ordering::Relaxed);
    let unknown = tally.unknown.load(Ordering::Relaxed);
    assert_eq!(ok + unknown, total, "every call answered once");
    println!(
        "HTTP load: {clients} clients x {calls} calls = {total} calls in {elapsed:.2?}: {:.0} calls/s \
         ({unknown} unknown-tool answers, {changes} tool changes)",
        total as f64 / elapsed.as_secs_f64()
    );
    if !real {
        assert_eq!(s.session_count(), 0, "every session was deleted");
    }
    s.assert_serving().await;
    Arc::try_unwrap(s).ok().unwrap().shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stdio_64_in_flight_while_tools_change() {
    let calls: u64 = if full() { 1_000_000 } else { 20_000 };
    let in_flight = 64;
    let (server, _) = support::probed_server();
    let handle = server.handle();
    let mut conn = Client::with_capacity(server, 1 << 20);
    conn.initialize(support::LATEST_LEGACY).await;
    let stop = Arc::new(AtomicBool::new(false));
    let churner = churn(handle, Arc::clone(&stop));
    let window = Arc::new(tokio::sync::Semaphore::new(in_flight));
    let pending: Arc<Mutex<HashMap<u64, Call>>> = Arc::default();
    let mut writer = conn.write.take().unwrap();
    let started = Instant::now();
    let sender = {
        let window = Arc::clone(&window);
        let pending = Arc::clone(&pending);
        tokio::spawn(async move {
            let mut buf = Vec::with_capacity(64 * 1024);
            for i in 0..calls {
                // Take a slot; flush what is queued when none is free.
                let permit = if let Ok(p) = window.try_acquire() {
                    p
                } else {
                    writer.write_all(&buf).await.unwrap();
                    buf.clear();
                    window.acquire().await.unwrap()
                };
                permit.forget();
                let call = Call::of(i, 7);
                let msg = json!({"jsonrpc":"2.0","id":i,"method":"tools/call","params":call.params(false)});
                pending.lock().unwrap().insert(i, call);
                serde_json::to_writer(&mut buf, &msg).unwrap();
                buf.push(b'\n');
            }
            writer.write_all(&buf).await.unwrap();
            writer
        })
    };
    let mut ok = 0u64;
    let mut unknown = 0u64;
    let mut list_changed = 0u64;
    let mut answered = 0u64;
    let mut most_in_flight = 0usize;
    while answered < calls {
        let v = conn.recv().await;
        if v["method"] == "notifications/tools/list_changed" {
            list_changed += 1;
            continue;
        }
        let id = v["id"]
            .as_u64()
            .unwrap_or_else(|| panic!("an unexpected message: {v}"));
        let call = {
            let mut p = pending.lock().unwrap();
            most_in_flight = most_in_flight.max(p.len());
            p.remove(&id)
        }
        .unwrap_or_else(|| panic!("a reply to no pending request (lost or duplicated): {v}"));
        match call.check(&v) {
            Ok(true) => unknown += 1,
            Ok(false) => ok += 1,
            Err(e) => panic!("call {id}: {e}"),
        }
        answered += 1;
        window.add_permits(1);
    }
    let elapsed = started.elapsed();
    stop.store(true, Ordering::Relaxed);
    let changes = churner.await.unwrap();
    conn.write = Some(Box::new(sender.await.unwrap()));
    assert!(pending.lock().unwrap().is_empty());
    assert_eq!(ok + unknown, calls);
    assert!(most_in_flight <= in_flight, "{most_in_flight} in flight");
    println!(
        "stdio load: {calls} calls, {in_flight} in flight, in {elapsed:.2?}: {:.0} calls/s \
         ({unknown} unknown-tool answers, {changes} tool changes, {list_changed} list_changed notifications)",
        calls as f64 / elapsed.as_secs_f64()
    );
    // Late list_changed notifications may follow; nothing else may.
    for v in conn.finish().await {
        assert_eq!(v["method"], "notifications/tools/list_changed", "{v}");
    }
}

/// A tool call answered on an SSE stream (any call that awaits: a legacy
/// session's spawned call, every streamed 2026-07-28 call) on a kept-alive
/// connection to `serve_http_on` must not wait for the client's delayed ACK
/// (Nagle: ~44 ms a call without `TCP_NODELAY`, well under 1 ms with it).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streamed_responses_are_not_delayed_by_nagle() {
    let (server, _) = support::probed_server();
    let s = HttpServer::start(server, HttpConfig::default()).await;
    let sid = s.session(support::LATEST_LEGACY).await;
    let mut conn = HttpConn::connect(s.addr).await;
    let started = Instant::now();
    for i in 0..20 {
        let body = json!({"jsonrpc":"2.0","id":i,"method":"tools/call","params":{"name":"add_later","arguments":{"a":1,"b":2}}});
        conn.write(&http_request(
            "POST",
            "/mcp",
            s.port(),
            &as_refs(&support::legacy_headers(&sid, support::LATEST_LEGACY)),
            body.to_string().as_bytes(),
        ))
        .await;
        let r = conn.read_response().await.unwrap();
        assert!(r.is_sse(), "{r:?}");
    }
    let per_call = started.elapsed() / 20;
    assert!(
        per_call < Duration::from_millis(10),
        "{per_call:?} per streamed call"
    );
    s.shutdown().await;
}
