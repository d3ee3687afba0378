//! The stdio transport and dispatch, over an in-memory pipe: both eras, bad
//! input, cancellation, progress, logging.
#![allow(clippy::many_single_char_names)]

use mcp_test_support::server as support;

use serde_json::{json, Value};
use support::{modern_meta, server, Client};

#[tokio::test]
async fn legacy_handshake_list_and_call() {
    let mut c = Client::start(server());
    let init = c.initialize("2025-06-18").await;
    assert_eq!(init["result"]["protocolVersion"], "2025-06-18");
    assert_eq!(init["result"]["serverInfo"]["name"], "test-server");
    assert!(init["result"]["capabilities"]["tools"].is_object());
    assert!(init["result"].get("resultType").is_none());

    let r = c
        .request(
            1,
            "tools/call",
            json!({"name":"add","arguments":{"a":2,"b":3}}),
        )
        .await;
    assert_eq!(r["result"]["content"][0]["text"], "5");
    assert!(
        r["result"].get("resultType").is_none(),
        "legacy results carry no resultType"
    );

    let ping = c.request(2, "ping", json!({})).await;
    assert_eq!(ping["result"], json!({}));
    c.close().await.unwrap();
}

#[tokio::test]
async fn version_negotiation_offers_latest_legacy_for_unknown() {
    let mut c = Client::start(server());
    let init = c.initialize("1999-01-01").await;
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25");
}

#[tokio::test]
async fn tools_list_paginates_with_opaque_cursor() {
    let mut c = Client::start(server());
    c.initialize("2025-11-25").await;
    let mut names = Vec::new();
    let mut cursor: Option<Value> = None;
    for id in 1..10 {
        let params = match &cursor {
            Some(c) => json!({"cursor": c}),
            None => json!({}),
        };
        let r = c.request(id, "tools/list", params).await;
        for t in r["result"]["tools"].as_array().unwrap() {
            names.push(t["name"].as_str().unwrap().to_owned());
            assert!(t["description"].is_string());
            assert_eq!(t["inputSchema"]["type"], "object");
        }
        match r["result"].get("nextCursor") {
            Some(next) => cursor = Some(next.clone()),
            None => break,
        }
    }
    assert_eq!(
        names,
        ["add", "boom", "chatty", "meet", "reconnect", "slow", "wait"]
    );
    let bad = c
        .request(20, "tools/list", json!({"cursor": "not-a-cursor"}))
        .await;
    assert_eq!(bad["error"]["code"], -32602);
}

#[tokio::test]
async fn bad_input_gets_the_named_error_and_the_session_lives_on() {
    let mut c = Client::start(server());
    c.initialize("2025-11-25").await;
    // Not JSON.
    c.send_raw("{this is not json").await;
    let r = c.recv().await;
    assert_eq!(r["error"]["code"], -32700);
    assert_eq!(r["id"], Value::Null);
    // JSON but not a request.
    c.send_raw(r#"{"jsonrpc":"2.0","id":5}"#).await;
    let r = c.recv().await;
    assert_eq!(r["error"]["code"], -32600);
    assert_eq!(r["id"], 5);
    c.send_raw(r#"{"jsonrpc":"1.0","id":6,"method":"ping"}"#)
        .await;
    assert_eq!(c.recv().await["error"]["code"], -32600);
    c.send_raw("[1,2]").await;
    assert_eq!(
        c.recv().await["error"]["code"],
        -32600,
        "batches are refused outside 2025-03-26"
    );
    // Unknown method.
    let r = c.request(7, "no/such/method", json!({})).await;
    assert_eq!(r["error"]["code"], -32601);
    // Unknown tool.
    let r = c
        .request(8, "tools/call", json!({"name":"nope","arguments":{}}))
        .await;
    assert_eq!(r["error"]["code"], -32602);
    // Arguments that do not deserialize: a result with isError naming the argument.
    let r = c
        .request(9, "tools/call", json!({"name":"add","arguments":{"a":"x"}}))
        .await;
    assert_eq!(r["result"]["isError"], true);
    let text = r["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("`a`") && text.contains("`b`"), "{text}");
    // A panicking tool.
    let r = c.request(10, "tools/call", json!({"name":"boom"})).await;
    assert_eq!(r["result"]["isError"], true);
    assert!(r["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .contains("kaboom"));
    // A line over the limit, then a normal request.
    c.send_raw(&format!(
        r#"{{"jsonrpc":"2.0","id":11,"method":"ping","params":{{"x":"{}"}}}}"#,
        "y".repeat(5000)
    ))
    .await;
    let r = c.recv().await;
    assert_eq!(r["error"]["code"], -32600);
    assert!(r["error"]["message"].as_str().unwrap().contains("limit"));
    // Invalid UTF-8.
    c.write_bytes(b"\xff\xfe\n").await;
    assert_eq!(c.recv().await["error"]["code"], -32700);
    // Still serving.
    let r = c
        .request(
            12,
            "tools/call",
            json!({"name":"add","arguments":{"a":1,"b":1}}),
        )
        .await;
    assert_eq!(r["result"]["content"][0]["text"], "2");
    c.close().await.unwrap();
}

#[tokio::test]
async fn requests_before_initialize_are_refused_but_ping_is_not_needed() {
    let mut c = Client::start(server());
    let r = c.request(1, "tools/list", json!({})).await;
    assert_eq!(r["error"]["code"], -32600);
    assert!(r["error"]["message"]
        .as_str()
        .unwrap()
        .contains("initialize"));
}

#[tokio::test]
async fn batches_work_in_2025_03_26() {
    let mut c = Client::start(server());
    c.initialize("2025-03-26").await;
    c.send_raw(r#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}},{"jsonrpc":"2.0","method":"notifications/initialized"}]"#).await;
    let r = c.recv().await;
    let arr = r.as_array().expect("a batch reply is an array");
    assert_eq!(arr.len(), 2);
    assert!(arr
        .iter()
        .any(|m| m["id"] == 2 && m["result"]["content"][0]["text"] == "3"));
}

#[tokio::test]
async fn cancellation_stops_the_call_and_sends_no_result() {
    let mut c = Client::start(server());
    c.initialize("2025-11-25").await;
    c.send(json!({"jsonrpc":"2.0","id":"w","method":"tools/call","params":{"name":"wait"}}))
        .await;
    c.send(json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"w","reason":"test"}})).await;
    // The next answer is to the ping, not to the cancelled call.
    let r = c.request(2, "ping", json!({})).await;
    assert_eq!(r["id"], 2);
    c.send(json!({"jsonrpc":"2.0","id":3,"method":"ping"}))
        .await;
    let r = c.recv().await;
    assert_eq!(r["id"], 3, "no result for the cancelled call: {r}");
    c.close().await.unwrap();
}

#[tokio::test]
async fn progress_and_logging_follow_the_level() {
    let mut c = Client::start(server());
    c.initialize("2025-11-25").await;
    let r = c
        .request(1, "logging/setLevel", json!({"level":"debug"}))
        .await;
    assert_eq!(r["result"], json!({}));
    c.send(json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"chatty","_meta":{"progressToken":42}}})).await;
    let (r, notes) = c.recv_response(json!(2)).await;
    assert_eq!(r["result"]["content"][0]["text"], "done");
    let progress: Vec<_> = notes
        .iter()
        .filter(|n| n["method"] == "notifications/progress")
        .collect();
    assert_eq!(progress.len(), 3);
    assert!(progress.iter().all(|p| p["params"]["progressToken"] == 42));
    let logs = notes
        .iter()
        .filter(|n| n["method"] == "notifications/message")
        .count();
    assert_eq!(logs, 6);

    let r = c
        .request(3, "logging/setLevel", json!({"level":"warning"}))
        .await;
    assert_eq!(r["result"], json!({}));
    let (_, notes) = {
        c.send(json!({"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"chatty"}}))
            .await;
        c.recv_response(json!(4)).await
    };
    assert!(
        notes.is_empty(),
        "no progress without a token, no logs below warning: {notes:?}"
    );
    let bad = c
        .request(5, "logging/setLevel", json!({"level":"loud"}))
        .await;
    assert_eq!(bad["error"]["code"], -32602);
}

#[tokio::test]
async fn modern_requests_are_stateless_and_carry_result_type() {
    let mut c = Client::start(server());
    let d = c
        .request(1, "server/discover", json!({"_meta": modern_meta()}))
        .await;
    assert_eq!(d["result"]["resultType"], "complete");
    assert!(d["result"]["supportedVersions"]
        .as_array()
        .unwrap()
        .contains(&json!("2026-07-28")));
    assert!(d["result"]["ttlMs"].is_u64());
    assert_eq!(d["result"]["cacheScope"], "public");
    assert_eq!(
        d["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "test-server"
    );

    let l = c
        .request(2, "tools/list", json!({"_meta": modern_meta()}))
        .await;
    assert_eq!(l["result"]["resultType"], "complete");
    assert!(l["result"]["ttlMs"].is_u64());
    assert!(l["result"]["cacheScope"].is_string());

    let r = c
        .request(
            3,
            "tools/call",
            json!({"name":"add","arguments":{"a":1,"b":2},"_meta": modern_meta()}),
        )
        .await;
    assert_eq!(r["result"]["resultType"], "complete");
    assert_eq!(r["result"]["content"][0]["text"], "3");
    assert_eq!(
        r["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "test-server"
    );

    // Removed methods and missing or unsupported fields.
    let r = c.request(4, "ping", json!({"_meta": modern_meta()})).await;
    assert_eq!(r["error"]["code"], -32601);
    let r = c
        .request(
            5,
            "logging/setLevel",
            json!({"level":"info","_meta": modern_meta()}),
        )
        .await;
    assert_eq!(r["error"]["code"], -32601);
    let r = c
        .request(
            6,
            "tools/list",
            json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}),
        )
        .await;
    assert_eq!(r["error"]["code"], -32602);
    let mut m = modern_meta();
    m["io.modelcontextprotocol/protocolVersion"] = json!("2099-01-01");
    let r = c.request(7, "tools/list", json!({"_meta": m})).await;
    assert_eq!(r["error"]["code"], -32022);
    assert_eq!(r["error"]["data"]["requested"], "2099-01-01");
    assert!(r["error"]["data"]["supported"]
        .as_array()
        .unwrap()
        .contains(&json!("2026-07-28")));
}

#[tokio::test]
async fn modern_logging_only_with_log_level_in_meta() {
    let mut c = Client::start(server());
    let mut m = modern_meta();
    c.send(json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"chatty","_meta": m.clone()}})).await;
    let (_, notes) = c.recv_response(json!(1)).await;
    assert!(notes.is_empty(), "{notes:?}");
    m["io.modelcontextprotocol/logLevel"] = json!("info");
    m["progressToken"] = json!("p");
    c.send(
        json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"chatty","_meta": m}}),
    )
    .await;
    let (_, notes) = c.recv_response(json!(2)).await;
    assert_eq!(
        notes
            .iter()
            .filter(|n| n["method"] == "notifications/message")
            .count(),
        3
    );
    assert_eq!(
        notes
            .iter()
            .filter(|n| n["method"] == "notifications/progress")
            .count(),
        3
    );
}

#[tokio::test]
async fn subscriptions_listen_acknowledges_and_ends_on_cancel() {
    let mut c = Client::start(server());
    c.send(json!({"jsonrpc":"2.0","id":"sub","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true,"promptsListChanged":true},"_meta": modern_meta()}})).await;
    let ack = c.recv().await;
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(
        ack["params"]["notifications"],
        json!({"toolsListChanged": true})
    );
    assert_eq!(
        ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        "sub"
    );
    c.send(
        json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"sub"}}),
    )
    .await;
    c.close().await.unwrap();
}

#[tokio::test]
async fn calls_in_flight_finish_after_input_closes() {
    let mut c = Client::start(server());
    c.initialize("2025-11-25").await;
    c.send(json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":1}}})).await;
    let Client {
        mut lines,
        write,
        task,
        ..
    } = c;
    drop(write);
    task.unwrap().await.unwrap().unwrap();
    let line = lines.next_line().await.unwrap().unwrap();
    let v: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(v["result"]["content"][0]["text"], "2");
}

#[tokio::test]
async fn calls_that_wait_run_concurrently() {
    // `meet` returns only when two calls are inside it at once: served one
    // after the other, the first would never finish.
    let mut c = Client::start(server());
    c.initialize("2025-11-25").await;
    c.send(json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"meet"}}))
        .await;
    c.send(json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"meet"}}))
        .await;
    let a = c.recv().await;
    let b = c.recv().await;
    let mut ids = [a["id"].as_i64().unwrap(), b["id"].as_i64().unwrap()];
    ids.sort_unstable();
    assert_eq!(ids, [1, 2]);
    assert_eq!(a["result"]["content"][0]["text"], "met");
}

/// A server whose calls may run on for 600 s after the input ends: one that
/// exits within a test's limits did not wait for them.
fn patient_server() -> oxmcp_server::Server {
    oxmcp_server::Server::builder("t", "1")
        .toolbox(support::TestTools)
        .shutdown_grace(std::time::Duration::from_secs(600))
        .build()
}

#[tokio::test]
async fn open_listen_streams_do_not_hold_up_exit() {
    // With a grace period far beyond `close`'s 10 s limit, the server exits in
    // time only if it ends the listen stream itself.
    let mut c = Client::start(patient_server());
    c.send(json!({"jsonrpc":"2.0","id":"sub","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},"_meta": modern_meta()}})).await;
    let ack = c.recv().await;
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    let started = std::time::Instant::now();
    c.close().await.unwrap();
    assert!(
        started.elapsed() < std::time::Duration::from_secs(1),
        "exit waited for the listen stream"
    );
}

#[tokio::test]
async fn a_listen_request_reusing_an_open_id_is_refused_and_exit_stays_prompt() {
    // JSON-RPC ids are unique among open requests. A second listen stream
    // under the id of an open one is refused (it would otherwise take the
    // first one's place in the session's table, and nothing could end the
    // first one: the server would never exit).
    let mut c = Client::start(patient_server());
    let listen = json!({"jsonrpc":"2.0","id":"sub","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},"_meta": modern_meta()}});
    c.send(listen.clone()).await;
    let ack = c.recv().await;
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    c.send(listen).await;
    let refused = c.recv().await;
    assert_eq!(refused["id"], "sub", "{refused}");
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    let started = std::time::Instant::now();
    c.close().await.unwrap();
    assert!(
        started.elapsed() < std::time::Duration::from_secs(1),
        "exit waited for a listen stream"
    );
}

/// A parameter whose decoding panics (a user's `Deserialize` with a bug).
#[derive(Debug, schemars::JsonSchema)]
struct Fragile;

impl<'de> serde::Deserialize<'de> for Fragile {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let n = <u32 as serde::Deserialize>::deserialize(d)?;
        panic!("the decoder broke on {n}")
    }
}

/// Tools that panic, each a different way.
#[derive(Debug)]
struct Panicky;

#[oxmcp_server::tool(description = "Tools that panic")]
#[allow(
    unreachable_pub,
    clippy::unused_self,
    clippy::unused_async,
    reason = "tools as users write them: `pub`, on a toolbox, some async"
)]
impl Panicky {
    #[describe("Panics in a plain fn")]
    #[param(n, "A number")]
    pub fn sync_boom(&self, n: u32) -> u32 {
        assert!(n < 10, "sync boom {n}");
        n
    }

    #[describe("Panics in an async fn")]
    #[param(n, "A number")]
    pub async fn async_boom(&self, n: u32) -> u32 {
        tokio::task::yield_now().await;
        assert!(n < 10, "async boom {n}");
        n
    }

    #[describe("Its argument's decoding panics")]
    #[param(f, "Anything")]
    pub async fn decode_boom(&self, f: Fragile) -> String {
        format!("{f:?}")
    }
}

#[tokio::test]
async fn a_panic_in_a_tool_or_its_decoding_is_an_error_result_and_serving_goes_on() {
    let server = oxmcp_server::Server::builder("panicky", "1.0.0")
        .toolbox(Panicky)
        .build();
    let mut c = Client::start(server);
    c.initialize("2025-11-25").await;
    let call = |name: &str, arguments: Value| json!({"name": name, "arguments": arguments});
    for (id, name, arguments, expected) in [
        (1, "sync_boom", json!({"n": 11}), "sync boom 11"),
        (2, "async_boom", json!({"n": 12}), "async boom 12"),
        (3, "decode_boom", json!({"f": 1}), "the decoder broke on 1"),
    ] {
        let r = c.request(id, "tools/call", call(name, arguments)).await;
        assert_eq!(r["result"]["isError"], true, "{r}");
        let text = r["result"]["content"][0]["text"].as_str().unwrap();
        assert!(
            text.contains(&format!("tool `{name}` failed: it panicked")) && text.contains(expected),
            "{text}"
        );
    }
    // Each still answers, and a sync tool's result is unchanged.
    let r = c
        .request(4, "tools/call", call("sync_boom", json!({"n": 4})))
        .await;
    assert_eq!(r["result"]["content"][0]["text"], "4", "{r}");
    let r = c
        .request(5, "tools/call", call("async_boom", json!({"n": 5})))
        .await;
    assert_eq!(r["result"]["content"][0]["text"], "5", "{r}");
    c.close().await.unwrap();
}

/// A plain `fn` tool that takes the call's context.
#[derive(Debug)]
struct Chatty;

#[oxmcp_server::tool(description = "A plain fn tool that uses its context")]
#[allow(
    unreachable_pub,
    clippy::unused_self,
    reason = "tools as users write them: `pub`, on a toolbox"
)]
impl Chatty {
    #[describe("Reports progress and logs, then names its request")]
    #[param(n, "Steps")]
    pub fn steps(&self, n: u32, ctx: &oxmcp_server::Context) -> String {
        for i in 1..=n {
            ctx.progress(f64::from(i), Some(f64::from(n)));
        }
        #[allow(deprecated)] // logging, tested on purpose
        ctx.info(json!({"steps": n}));
        format!("{} {}", ctx.request_id(), ctx.protocol_version())
    }
}

#[tokio::test]
async fn a_plain_fn_tool_gets_its_calls_context_and_its_notices_come_first() {
    let server = oxmcp_server::Server::builder("chatty", "1.0.0")
        .toolbox(Chatty)
        .build();
    let mut c = Client::start(server);
    c.initialize("2025-11-25").await;
    c.send(
        json!({"jsonrpc":"2.0","id":"s1","method":"logging/setLevel","params":{"level":"info"}}),
    )
    .await;
    c.recv_response(json!("s1")).await;
    c.send(
        json!({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{
        "name":"steps","arguments":{"n":3},"_meta":{"progressToken":"p"}}}),
    )
    .await;
    let (r, notes) = c.recv_response(json!(7)).await;
    assert_eq!(r["result"]["content"][0]["text"], "7 2025-11-25", "{r}");
    let methods: Vec<&str> = notes.iter().filter_map(|n| n["method"].as_str()).collect();
    assert_eq!(
        methods,
        [
            "notifications/progress",
            "notifications/progress",
            "notifications/progress",
            "notifications/message"
        ],
        "{notes:?}"
    );
    assert_eq!(notes[2]["params"]["progressToken"], "p");
    assert_eq!(notes[2]["params"]["progress"], 3.0);
    assert_eq!(notes[3]["params"]["data"]["steps"], 3);
    // Without a progress token, no progress is sent; the call still answers.
    let r = c
        .request(8, "tools/call", json!({"name":"steps","arguments":{"n":2}}))
        .await;
    assert_eq!(r["result"]["content"][0]["text"], "8 2025-11-25", "{r}");
    c.close().await.unwrap();
}

#[tokio::test]
async fn replies_still_owed_when_the_input_ends_are_written_and_serving_ends_at_once() {
    // With a grace period far beyond the 10 s allowed here, the server exits
    // in time only if it ends as soon as its last replies are out.
    let mut c = Client::start(patient_server());
    c.initialize("2025-11-25").await;
    let call = |id: i32| {
        json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{"name":"add","arguments":{"a":id,"b":1}}}).to_string()
    };
    c.send_raw(&call(1)).await;
    c.send_raw(&call(2)).await;
    // The last line has no newline: it is served only once the input has
    // ended, so its reply is still owed then.
    c.write_bytes(call(3).as_bytes()).await;
    let Client {
        mut lines,
        write,
        task,
        ..
    } = c;
    drop(write);
    tokio::time::timeout(std::time::Duration::from_secs(10), task.unwrap())
        .await
        .expect("the server waited for its grace period with nothing left to do")
        .unwrap()
        .unwrap();
    let mut texts = Vec::new();
    while let Some(line) = lines.next_line().await.unwrap() {
        let v: Value = serde_json::from_str(&line).unwrap();
        texts.push(
            v["result"]["content"][0]["text"]
                .as_str()
                .unwrap()
                .to_owned(),
        );
    }
    assert_eq!(texts, ["2", "3", "4"]);
}
