//! Tools that change at run time: `list_changed` reaches exactly the clients
//! that asked, once per burst; disabled and removed tools vanish.

use mcp_test_support::server as support;

use std::time::Duration;

use oxmcp_server::ToolEntry;
use serde_json::{json, Value};
use support::{modern_meta, server, Client};

/// A tool added at run time that answers its name.
fn extra(name: &'static str) -> ToolEntry {
    ToolEntry::dynamic(
        name,
        "An extra tool",
        json!({"type": "object", "properties": {}}),
        move |_args, _ctx| async move { name },
    )
    .expect("a valid dynamic tool")
}

/// Everything the server sends within `window`.
async fn drain(c: &mut Client, window: Duration) -> Vec<Value> {
    let mut got = Vec::new();
    while let Ok(Ok(Some(line))) = tokio::time::timeout(window, c.lines.next_line()).await {
        got.push(serde_json::from_str(&line).unwrap());
    }
    got
}

fn count(msgs: &[Value], method: &str) -> usize {
    msgs.iter().filter(|m| m["method"] == method).count()
}

#[tokio::test]
async fn a_burst_of_changes_notifies_legacy_sessions_once() {
    let server = server();
    let handle = server.handle();
    let mut c = Client::start(server);
    let init = c.initialize("2025-11-25").await;
    assert_eq!(init["result"]["capabilities"]["tools"]["listChanged"], true);
    handle.add_tool(extra("x1")).unwrap();
    handle.add_tool(extra("x2")).unwrap();
    handle.disable_tool("x1");
    let msgs = drain(&mut c, Duration::from_millis(200)).await;
    assert_eq!(
        count(&msgs, "notifications/tools/list_changed"),
        1,
        "{msgs:?}"
    );
    // A change that alters nothing visible notifies nobody.
    handle.disable_tool("x1");
    let msgs = drain(&mut c, Duration::from_millis(100)).await;
    assert!(msgs.is_empty(), "{msgs:?}");
    // The new tool is listed and callable; the disabled one is neither.
    let r = c.request(1, "tools/call", json!({"name":"x2"})).await;
    assert_eq!(r["result"]["content"][0]["text"], "x2");
    let r = c.request(2, "tools/call", json!({"name":"x1"})).await;
    assert_eq!(r["error"]["code"], -32602);
    let names = handle.tool_names();
    assert!(
        names.iter().any(|n| n == "x2") && !names.iter().any(|n| n == "x1"),
        "{names:?}"
    );
}

#[tokio::test]
async fn connections_that_did_not_ask_hear_nothing() {
    let server = server();
    let handle = server.handle();
    // No initialize: this stdio peer speaks only the stateless era and has no listen stream.
    let mut c = Client::start(server);
    let r = c
        .request(1, "tools/list", json!({"_meta": modern_meta()}))
        .await;
    assert_eq!(r["result"]["resultType"], "complete");
    handle.add_tool(extra("y")).unwrap();
    let msgs = drain(&mut c, Duration::from_millis(150)).await;
    assert!(msgs.is_empty(), "{msgs:?}");
}

#[tokio::test]
async fn listen_streams_get_changes_they_opted_into() {
    let server = server();
    let handle = server.handle();
    let mut c = Client::start(server);
    c.send(json!({"jsonrpc":"2.0","id":"tools","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},"_meta": modern_meta()}})).await;
    c.send(json!({"jsonrpc":"2.0","id":"prompts","method":"subscriptions/listen","params":{"notifications":{"promptsListChanged":true},"_meta": modern_meta()}})).await;
    let acks = drain(&mut c, Duration::from_millis(100)).await;
    assert_eq!(count(&acks, "notifications/subscriptions/acknowledged"), 2);
    handle.add_tool(extra("z1")).unwrap();
    handle.add_tool(extra("z2")).unwrap();
    let msgs = drain(&mut c, Duration::from_millis(200)).await;
    let changed: Vec<&Value> = msgs
        .iter()
        .filter(|m| m["method"] == "notifications/tools/list_changed")
        .collect();
    assert_eq!(
        changed.len(),
        1,
        "one event per burst, only on the stream that asked: {msgs:?}"
    );
    assert_eq!(
        changed[0]["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        "tools"
    );
    c.send(
        json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"tools"}}),
    )
    .await;
    tokio::time::sleep(Duration::from_millis(20)).await;
    handle.remove_tool("z1");
    let msgs = drain(&mut c, Duration::from_millis(150)).await;
    assert!(
        msgs.is_empty(),
        "a cancelled subscription hears nothing: {msgs:?}"
    );
}

#[tokio::test]
async fn toolboxes_disable_and_remove_as_a_whole() {
    let server = server();
    let handle = server.handle();
    let mut c = Client::start(server);
    c.initialize("2025-11-25").await;
    let all = handle.tool_names().len();
    assert_eq!(handle.disable_toolbox("TestTools"), all);
    assert!(handle.tool_names().is_empty());
    let r = c
        .request(
            1,
            "tools/call",
            json!({"name":"add","arguments":{"a":1,"b":2}}),
        )
        .await;
    assert_eq!(
        r["error"]["code"], -32602,
        "a disabled toolbox's tools are unknown"
    );
    handle.enable_toolbox("TestTools");
    let r = c
        .request(
            2,
            "tools/call",
            json!({"name":"add","arguments":{"a":1,"b":2}}),
        )
        .await;
    assert_eq!(r["result"]["content"][0]["text"], "3");
    assert!(
        handle.add_tool(extra("add")).is_err(),
        "duplicate names are refused"
    );
    assert!(handle.remove_toolbox("TestTools") > 0);
    assert!(handle.tool_names().is_empty());
    let r = c.request(3, "tools/list", json!({})).await;
    assert_eq!(r["result"]["tools"], json!([]));
}

#[test]
fn dynamic_tools_are_checked_when_made() {
    let ok_schema = json!({"type": "object", "properties": {"q": {"type": "string"}}});
    let make = |name: &str, desc: &str, schema: Value| {
        ToolEntry::dynamic(name, desc, schema, |_args, _ctx| async { "ok" })
    };
    assert!(make("search", "Search", ok_schema.clone()).is_ok());
    for (name, desc, schema, why) in [
        ("", "Search", ok_schema.clone(), "not a valid tool name"),
        (
            "has space",
            "Search",
            ok_schema.clone(),
            "not a valid tool name",
        ),
        ("search", "  ", ok_schema.clone(), "needs a description"),
        ("search", "Search", json!([1, 2]), "must be a JSON object"),
        (
            "search",
            "Search",
            json!({"type": "string"}),
            "\"type\": \"object\"",
        ),
        (
            "search",
            "Search",
            json!({"type": "object", "properties": {"q": {"type": "nonsense"}}}),
            "not valid JSON Schema",
        ),
        (
            "search",
            "Search",
            json!({"type": "object", "minProperties": "three"}),
            "not valid JSON Schema",
        ),
    ] {
        let err = make(name, desc, schema).expect_err(why).to_string();
        assert!(err.contains(why), "{why}: {err}");
    }
}

#[tokio::test]
async fn dynamic_tool_arguments_are_validated_without_echoing_them() {
    let login = ToolEntry::dynamic(
        "login",
        "Log in",
        json!({
            "type": "object",
            "properties": {
                "user": {"type": "string", "minLength": 3},
                "token": {"type": "string", "pattern": "^tok_[a-z]+$"},
                "retries": {"type": "integer", "maximum": 3}
            },
            "required": ["user", "token"],
            "additionalProperties": false
        }),
        |args, _ctx| async move { format!("welcome {}", args["user"].as_str().unwrap_or("")) },
    )
    .unwrap()
    .in_toolbox("Auth");
    let server = oxmcp_server::Server::builder("dyn", "1")
        .tool(login)
        .build();
    let mut c = Client::start(server);
    c.initialize("2025-11-25").await;
    let r = c
        .request(1, "tools/call", json!({"name":"login","arguments":{"user":"al","token":"SECRET-hunter2","retries":9,"extra":1}}))
        .await;
    assert_eq!(r["result"]["isError"], true);
    let text = r["result"]["content"][0]["text"].as_str().unwrap();
    for path in ["/user", "/token", "/retries"] {
        assert!(text.contains(path), "names {path}: {text}");
    }
    assert!(text.contains("extra"), "{text}");
    assert!(
        !text.contains("hunter2") && !text.contains("SECRET"),
        "never echoes the input: {text}"
    );
    let r = c
        .request(2, "tools/call", json!({"name":"login","arguments":{}}))
        .await;
    assert_eq!(r["result"]["isError"], true);
    let r = c
        .request(
            3,
            "tools/call",
            json!({"name":"login","arguments":{"user":"alice","token":"tok_abc"}}),
        )
        .await;
    assert_eq!(r["result"]["content"][0]["text"], "welcome alice");
}
