//! Permissions, middleware, timeouts and bounds around tool calls.

use mcp_test_support::server as support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use oxmcp_server::policy::{AuditLog, CallOutcome, Middleware, MiddlewareLayer, Next};
use oxmcp_server::tool::ToolRequest;
use oxmcp_server::types::ErrorObject;
use oxmcp_server::{policy::BoxFuture, Server, ToolEntry};
use serde_json::{json, Value};
use support::{Client, TestTools};

fn builder() -> oxmcp_server::ServerBuilder {
    Server::builder("policy", "1").toolbox(TestTools)
}

async fn names(c: &mut Client, id: i64) -> Vec<String> {
    let mut out = Vec::new();
    let mut cursor: Option<Value> = None;
    for page in 0..50 {
        let params = cursor
            .take()
            .map_or_else(|| json!({}), |c| json!({ "cursor": c }));
        let r = c.request(id * 100 + page, "tools/list", params).await;
        out.extend(
            r["result"]["tools"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t["name"].as_str().unwrap().to_owned()),
        );
        match r["result"].get("nextCursor") {
            Some(next) => cursor = Some(next.clone()),
            None => break,
        }
    }
    out
}

async fn init_as(c: &mut Client, client_name: &str) {
    c.request(
        0,
        "initialize",
        json!({"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":client_name,"version":"1"}}),
    )
    .await;
}

#[tokio::test]
async fn each_caller_sees_only_what_the_hook_allows() {
    let server = builder()
        .page_size(2)
        .visibility(|caller, tool| {
            // The "viewer" client may not see tools that can hurt.
            caller.client().is_none_or(|c| c.name != "viewer")
                || matches!(tool.tool.name.as_str(), "add" | "chatty")
        })
        .build();
    let mut admin = Client::start(server.clone());
    init_as(&mut admin, "admin").await;
    let mut viewer = Client::start(server);
    init_as(&mut viewer, "viewer").await;
    assert!(names(&mut admin, 1).await.len() > 2);
    assert_eq!(
        names(&mut viewer, 1).await,
        ["add", "chatty"],
        "filtered and paginated"
    );
    let r = viewer
        .request(5, "tools/call", json!({"name":"boom"}))
        .await;
    assert_eq!(r["error"]["code"], -32602, "a hidden tool is unknown: {r}");
    let r = admin.request(5, "tools/call", json!({"name":"boom"})).await;
    assert_eq!(
        r["result"]["isError"], true,
        "admin may call it (and it panics)"
    );
    let r = viewer
        .request(6, "tools/list", json!({"_meta": support::modern_meta()}))
        .await;
    assert_eq!(
        r["result"]["cacheScope"], "private",
        "a per-caller list is private"
    );
}

/// Records the order layers run in, and can rewrite or refuse.
struct Probe {
    name: &'static str,
    log: Arc<Mutex<Vec<String>>>,
}

impl Middleware for Probe {
    fn call(&self, mut call: ToolRequest, next: Next) -> BoxFuture<'static, CallOutcome> {
        self.log
            .lock()
            .unwrap()
            .push(format!("{} before {}", self.name, call.name));
        let log = Arc::clone(&self.log);
        let name = self.name;
        if name == "guard" && call.name == "boom" {
            return Box::pin(async { Err(ErrorObject::invalid_params("refused by policy")) });
        }
        if name == "rewrite" {
            call.arguments.insert("b".into(), json!(100));
        }
        let fut = next.run(call);
        Box::pin(async move {
            let mut outcome = fut.await;
            log.lock().unwrap().push(format!("{name} after"));
            if let (Ok(r), "rewrite") = (&mut outcome, name) {
                r.content
                    .push(oxmcp_server::types::ContentBlock::text("(rewritten)"));
            }
            outcome
        })
    }
}

#[tokio::test]
async fn middleware_runs_in_order_and_may_reject_or_rewrite() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let server = builder()
        .layer(AuditLog)
        .layer(MiddlewareLayer::new(Probe {
            name: "guard",
            log: Arc::clone(&log),
        }))
        .layer(MiddlewareLayer::new(Probe {
            name: "rewrite",
            log: Arc::clone(&log),
        }))
        .build();
    let mut c = Client::start(server);
    c.initialize("2025-11-25").await;
    let r = c
        .request(
            1,
            "tools/call",
            json!({"name":"add","arguments":{"a":1,"b":2}}),
        )
        .await;
    assert_eq!(
        r["result"]["content"][0]["text"], "101",
        "b rewritten to 100: {r}"
    );
    assert_eq!(r["result"]["content"][1]["text"], "(rewritten)");
    assert_eq!(
        *log.lock().unwrap(),
        [
            "guard before add",
            "rewrite before add",
            "rewrite after",
            "guard after"
        ]
    );
    let r = c.request(2, "tools/call", json!({"name":"boom"})).await;
    assert_eq!(r["error"]["message"], "refused by policy");
}

#[tokio::test]
async fn timeouts_stop_slow_calls_with_an_error_result() {
    let quick = ToolEntry::dynamic(
        "sleepy",
        "Sleeps a second",
        json!({"type": "object", "properties": {}}),
        |_args, _ctx| async {
            tokio::time::sleep(Duration::from_secs(1)).await;
            "woke"
        },
    )
    .unwrap()
    .with_timeout(Duration::from_millis(50));
    let server = builder()
        .tool(quick)
        .call_timeout(Duration::from_millis(100))
        .build();
    let mut c = Client::start(server);
    c.initialize("2025-11-25").await;
    let r = c.request(1, "tools/call", json!({"name":"sleepy"})).await;
    assert_eq!(r["result"]["isError"], true);
    assert!(r["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .contains("timed out after 50 ms"));
    let r = c.request(2, "tools/call", json!({"name":"wait"})).await;
    assert!(
        r["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("timed out after 100 ms"),
        "{r}"
    );
}

/// A tool with a time limit of its own, from `#[tool(timeout = ...)]`.
#[derive(Debug)]
pub struct Patient;

#[oxmcp_server::tool(description = "Waits", client = false)]
impl Patient {
    #[describe("Sleep a second")]
    #[tool(timeout = "50ms")]
    pub async fn nap(&self) -> &'static str {
        tokio::time::sleep(Duration::from_secs(1)).await;
        "woke"
    }
}

#[tokio::test]
async fn a_tools_own_timeout_from_the_macro_stops_it() {
    let server = builder().toolbox(Patient).build();
    let mut c = Client::start(server);
    c.initialize("2025-11-25").await;
    let r = c.request(1, "tools/call", json!({"name":"nap"})).await;
    assert_eq!(r["result"]["isError"], true, "{r}");
    let text = r["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("tool `nap` timed out after 50 ms"), "{text}");
}

#[test]
fn a_zero_or_absurd_time_limit_is_refused_when_the_server_is_built() {
    let refused = |b: oxmcp_server::ServerBuilder| b.try_build().unwrap_err().to_string();
    let e = refused(builder().call_timeout(Duration::ZERO));
    assert!(e.contains("call_timeout is zero"), "{e}");
    let e = refused(builder().call_timeout(Duration::from_secs(3 * 24 * 3600)));
    assert!(
        e.contains("call_timeout is 259200 s, more than a day"),
        "{e}"
    );
    let tool = |limit: Duration| {
        ToolEntry::dynamic("snail", "Slow", json!({"type": "object"}), |_, _| async {
            ""
        })
        .unwrap()
        .with_timeout(limit)
    };
    let e = refused(builder().tool(tool(Duration::ZERO)));
    assert!(e.contains("the timeout of tool `snail` is zero"), "{e}");
    // Added at run time: refused the same way, and nothing is added.
    let server = builder().build();
    let e = server
        .handle()
        .add_tool(tool(Duration::from_secs(90_000)))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("the timeout of tool `snail` is 90000 s, more than a day"),
        "{e}"
    );
    assert!(!server.handle().tool_names().contains(&"snail".to_owned()));
}

#[tokio::test]
async fn a_full_server_says_so_instead_of_queueing_forever() {
    let server = builder().max_concurrent_calls(1, 1).build();
    let mut c = Client::start(server);
    c.initialize("2025-11-25").await;
    // `wait` holds the only slot; one more may wait; the third is refused at once.
    c.send(json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"wait"}}))
        .await;
    c.send(json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":1}}})).await;
    let r = c
        .request(
            3,
            "tools/call",
            json!({"name":"add","arguments":{"a":1,"b":1}}),
        )
        .await;
    assert_eq!(r["error"]["code"], -32000, "{r}");
    assert!(r["error"]["message"].as_str().unwrap().contains("busy"));
    // Cancelling the first call frees the slot: the queued one runs.
    c.send(json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}))
        .await;
    let (r, _) = c.recv_response(json!(2)).await;
    assert_eq!(r["result"]["content"][0]["text"], "2");
}

/// tower's own layers work on tool calls unchanged, and what stops a call
/// reaches the client as an `isError` result naming the limit: never a
/// dropped reply, and the server keeps serving.
#[tokio::test]
async fn tower_timeout_layer_answers_with_an_error_result() {
    let server = builder()
        .layer(tower::timeout::TimeoutLayer::new(Duration::from_millis(50)))
        .build();
    let mut c = Client::start(server);
    c.initialize("2025-11-25").await;
    let r = c.request(1, "tools/call", json!({"name":"wait"})).await;
    assert_eq!(r["result"]["isError"], true, "{r}");
    let text = r["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        text.contains("tool `wait` timed out") && text.contains("timeout layer"),
        "{text}"
    );
    // Quick calls pass the same layer.
    let r = c
        .request(
            2,
            "tools/call",
            json!({"name":"add","arguments":{"a":1,"b":2}}),
        )
        .await;
    assert_eq!(r["result"]["content"][0]["text"], "3", "{r}");
}

#[tokio::test]
async fn tower_concurrency_limit_queues_and_load_shed_refuses_with_an_error_result() {
    // One call at a time: a second waits for the slot, then runs.
    let server = builder()
        .layer(tower::limit::ConcurrencyLimitLayer::new(1))
        .build();
    let mut c = Client::start(server);
    c.initialize("2025-11-25").await;
    c.send(json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"wait"}}))
        .await;
    c.send(json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":1}}})).await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    c.send(json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}))
        .await;
    let (r, _) = c.recv_response(json!(2)).await;
    assert_eq!(r["result"]["content"][0]["text"], "2", "{r}");

    // With load shedding in front, the second call is refused at once
    // instead of waiting, with a result that says why.
    let server = builder()
        .layer(tower::load_shed::LoadShedLayer::new())
        .layer(tower::limit::ConcurrencyLimitLayer::new(1))
        .build();
    let mut c = Client::start(server);
    c.initialize("2025-11-25").await;
    c.send(json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"wait"}}))
        .await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    let r = c
        .request(
            2,
            "tools/call",
            json!({"name":"add","arguments":{"a":1,"b":1}}),
        )
        .await;
    assert_eq!(r["result"]["isError"], true, "{r}");
    let text = r["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        text.contains("tool `add` was not run") && text.contains("load shedding"),
        "{text}"
    );
    // The slot freed, calls run again.
    c.send(json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}))
        .await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    let r = c
        .request(
            3,
            "tools/call",
            json!({"name":"add","arguments":{"a":2,"b":2}}),
        )
        .await;
    assert_eq!(r["result"]["content"][0]["text"], "4", "{r}");
}

/// A closure middleware (`from_fn`) sits in the same stack as tower's layers.
#[tokio::test]
async fn from_fn_middleware_and_tower_layers_share_one_stack() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    let server = builder()
        .layer(oxmcp_server::policy::from_fn(
            move |call: ToolRequest, next: Next| {
                log.lock().unwrap().push(call.name.clone());
                next.run(call)
            },
        ))
        .layer(tower::timeout::TimeoutLayer::new(Duration::from_millis(50)))
        .build();
    let mut c = Client::start(server);
    c.initialize("2025-11-25").await;
    let r = c.request(1, "tools/call", json!({"name":"wait"})).await;
    assert!(
        r["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("timed out"),
        "the timeout inside the closure's layer reaches it as a result: {r}"
    );
    assert_eq!(*seen.lock().unwrap(), ["wait"]);
}
