//! Several instances, one service, on a real Redis: two servers (each its
//! own `Server`, as two processes would be) behind their own 127.0.0.1
//! sockets share a `RedisStore` on a `redis-server` of the test's own
//! (`mcp_test_support::redis_server`), and every request goes to the
//! instance the test names. oxmcp-server's `protocol::shared_state` runs the
//! same seam on a `MemoryStore`.
//!
//! The binary is `$REDIS_SERVER`, `/usr/bin/redis-server`, or
//! `redis-server` on `PATH`; without one these tests fail (they never skip).

use mcp_test_support::server as support;

// Tasks belong to their creator, on either instance.
mod task_owner;

use mcp_test_support::redis_server::RedisServer;
use oxmcp_redis::RedisStore;
use oxmcp_server::http::HttpConfig;
use oxmcp_server::state::SigningKeys;
use oxmcp_server::Server;
use serde_json::{json, Value};
use std::time::{Duration, Instant};
use support::{
    as_refs, first_input_key, modern_call_headers, modern_meta_with, Asking, HttpServer, TaskJobs,
};

/// One instance on the store, with the `requestState` keys every instance
/// of a deployment shares.
async fn instance(store: RedisStore) -> HttpServer {
    let server = Server::builder("shared", "1")
        .toolbox(Asking)
        .request_state_keys(SigningKeys::new("k1", [7u8; 32]))
        .build();
    HttpServer::start(server, HttpConfig::default().store(store)).await
}

/// A 2026-07-28 `tools/call` of `ask_name` (stateless: no session) whose
/// params are the JSON text `params`, written as the test wants it.
async fn call_ask_name(on: &HttpServer, params: &str) -> Value {
    let body = format!(r#"{{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{params}}}"#);
    let headers = modern_call_headers("ask_name");
    let r = on.post(&as_refs(&headers), body.as_bytes()).await;
    r.messages()
        .pop()
        .unwrap_or_else(|| panic!("no message: {r:?}"))
}

/// The params of a call of `ask_name`, with `extra` members.
fn ask_name_params(extra: &Value) -> Value {
    let mut params = json!({"name": "ask_name", "arguments": {},
        "_meta": modern_meta_with(&json!({"elicitation": {}}))});
    for (k, v) in extra.as_object().unwrap() {
        params[k] = v.clone();
    }
    params
}

/// Point 4 of issue 34: the single use across instances was claimed only
/// when the params contained the text `"requestState"`, while dispatch
/// reads the key with its escapes decoded; a retry spelling it
/// `request\u0053tate` was accepted once on each instance.
#[tokio::test]
async fn a_request_state_whose_key_is_escaped_is_accepted_once_across_instances() {
    let redis = RedisServer::start();
    let store = RedisStore::connect(&redis.url()).await.expect("connecting");
    let (a, b) = (instance(store.clone()).await, instance(store).await);

    let asked = call_ask_name(&a, &ask_name_params(&json!({})).to_string()).await;
    let result = &asked["result"];
    assert_eq!(result["resultType"], "input_required", "{asked}");
    let key = first_input_key(result);
    let retry = ask_name_params(&json!({
        "inputResponses": {key: {"action": "accept", "content": {"name": "Ada"}}},
        "requestState": result["requestState"],
    }))
    .to_string();
    let escaped = retry.replace(r#""requestState""#, r#""request\u0053tate""#);
    assert_ne!(escaped, retry, "the key is spelled with an escape");

    // Begun on A, completed on B, the key escaped: dispatch reads it.
    let done = call_ask_name(&b, &escaped).await;
    assert_eq!(done["result"]["content"][0]["text"], "hello Ada", "{done}");
    // The same retry on A, which issued the state and never saw it used:
    // refused, the key escaped or not.
    for again in [&escaped, &retry] {
        let again = call_ask_name(&a, again).await;
        assert_eq!(again["error"]["code"], -32602, "{again}");
        assert!(
            again["error"]["message"]
                .as_str()
                .unwrap()
                .contains("already used"),
            "{again}"
        );
    }
}

/// The keys of session `sid` in the store (its record, its streams' logs,
/// their ended flags and its stream set).
async fn keys_of(conn: &mut redis::aio::MultiplexedConnection, sid: &str) -> Vec<String> {
    redis::cmd("KEYS")
        .arg(format!("mcp:*{sid}*"))
        .query_async(conn)
        .await
        .expect("KEYS")
}

/// A legacy session's `DELETE` leaves none of its keys, whichever instance
/// it reaches: the end of the session's streams on the instance that holds
/// them, which comes after the store removed their logs, is not copied
/// back (it left `x:{session}:{stream}` and `k:{session}` for the replay
/// TTL, while the README says the session's logs are deleted).
#[tokio::test]
async fn a_deleted_session_leaves_no_key_behind() {
    const STEP: Duration = Duration::from_secs(10);
    let redis = RedisServer::start();
    let mut instances = Vec::new();
    for _ in 0..2 {
        let store = RedisStore::connect(&redis.url()).await.unwrap();
        let server = Server::builder("shared", "1").toolbox(TaskJobs).build();
        instances.push(HttpServer::start(server, HttpConfig::default().store(store)).await);
    }
    let (on, other) = (&instances[0], &instances[1]);
    let mut conn = redis::Client::open(redis.url())
        .unwrap()
        .get_multiplexed_async_connection()
        .await
        .unwrap();
    let sid = on.session("2025-11-25").await;
    let session = [
        ("Mcp-Session-Id", sid.as_str()),
        ("MCP-Protocol-Version", "2025-11-25"),
    ];
    // Two streams in the store: the session's GET stream, and a POST's
    // whose call runs until the session ends.
    let mut get = session.to_vec();
    get.push(("Accept", "text/event-stream"));
    let standalone = on
        .open(&support::http_request("GET", "/mcp", on.port(), &get, b""))
        .await;
    assert_eq!(standalone.head.status, 200, "{:?}", standalone.head);
    let call = json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hold","arguments":{}}});
    let held = on
        .open(&support::http_request(
            "POST",
            "/mcp",
            on.port(),
            &support::with_json(&session),
            call.to_string().as_bytes(),
        ))
        .await;
    assert_eq!(held.head.status, 200, "{:?}", held.head);
    let started = Instant::now();
    while !keys_of(&mut conn, &sid)
        .await
        .iter()
        .any(|k| k.starts_with("mcp:k:"))
    {
        assert!(
            started.elapsed() < STEP,
            "no stream in the store: {:?}",
            keys_of(&mut conn, &sid).await
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let deleted = other.request("DELETE", "/mcp", &session, b"").await;
    assert_eq!(deleted.status, 200, "{deleted:?}");
    // The streams end after the removal: their end reaches the store's
    // writer then, if at all. What remains after a quiet moment stays.
    let started = Instant::now();
    let mut quiet = 0;
    while quiet < 10 {
        let left = keys_of(&mut conn, &sid).await;
        quiet = if left.is_empty() { quiet + 1 } else { 0 };
        assert!(started.elapsed() < STEP, "left behind: {left:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    drop((standalone, held));
}
