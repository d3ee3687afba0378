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
use support::{
    as_refs, first_input_key, modern_call_headers, modern_meta_with, Asking, HttpServer,
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
