//! The client against a scripted server, for what our server never does:
//! server→client requests, `input_required` rounds, odd era answers, silence.

use crate::support;

use std::time::Duration;

use oxmcp_client::types::{method, ErrorObject, ProtocolVersion};
use oxmcp_client::{Client, ClientBuilder, Era, Error};
use serde_json::{json, Value};
use support::{tool_json, Fake};

/// Connects `builder` to a fake while `script` plays the server's side of
/// the handshake; returns the client and the fake.
async fn connect<F, Fut>(builder: ClientBuilder, script: F) -> (Client, Fake)
where
    F: FnOnce(Fake) -> Fut,
    Fut: std::future::Future<Output = Fake>,
{
    let (fake, read, write) = Fake::new();
    let connecting = tokio::spawn(builder.connect_io(read, write));
    let fake = script(fake).await;
    let client = connecting.await.unwrap().expect("connected");
    (client, fake)
}

#[tokio::test]
async fn server_requests_reach_the_handlers_and_others_get_method_not_found() {
    #[allow(deprecated)] // roots, tested on purpose
    let builder = Client::builder()
        .protocol(Era::Legacy)
        .elicitation_handler(|params: Value| async move {
            assert_eq!(params["message"], "Your name?");
            Ok(json!({"action": "accept", "content": {"name": "Ada"}}))
        })
        .roots_handler(|_| async {
            Ok(json!({"roots": [{"uri": "file:///work", "name": "work"}]}))
        });
    let (client, mut fake) = connect(builder, |mut fake| async move {
        let init = fake.legacy_handshake(json!({"tools": {}})).await;
        // Exactly the capabilities that have a handler.
        let caps = &init["params"]["capabilities"];
        assert!(caps.get("elicitation").is_some(), "{caps}");
        assert!(caps.get("roots").is_some(), "{caps}");
        assert!(caps.get("sampling").is_none(), "{caps}");
        fake
    })
    .await;
    assert_eq!(client.protocol_version(), ProtocolVersion::V2025_11_25);
    assert_eq!(client.server_info().name, "fake");

    for (id, method_name, params) in [
        (
            10,
            "elicitation/create",
            json!({"message": "Your name?", "requestedSchema": {"type": "object"}}),
        ),
        (11, "roots/list", json!({})),
        (
            12,
            "sampling/createMessage",
            json!({"messages": [], "maxTokens": 5}),
        ),
        (13, "ping", json!({})),
        (14, "something/else", json!({})),
    ] {
        fake.send(json!({"jsonrpc": "2.0", "id": id, "method": method_name, "params": params}))
            .await;
    }
    let mut answers = std::collections::BTreeMap::new();
    for _ in 0..5 {
        let a = fake.recv().await;
        answers.insert(a["id"].as_i64().unwrap(), a);
    }
    assert_eq!(answers[&10]["result"]["content"]["name"], "Ada");
    assert_eq!(answers[&11]["result"]["roots"][0]["uri"], "file:///work");
    assert_eq!(answers[&12]["error"]["code"], -32601, "no sampling handler");
    assert_eq!(answers[&13]["result"], json!({}));
    assert_eq!(answers[&14]["error"]["code"], -32601);
    client.close().await;
}

#[tokio::test]
async fn a_handler_error_becomes_a_json_rpc_error() {
    #[allow(deprecated)] // sampling, tested on purpose
    let builder = Client::builder()
        .protocol(Era::Legacy)
        .sampling_handler(|_| async { Err(ErrorObject::new(-1, "user declined")) });
    let (client, mut fake) = connect(builder, |mut f| async move {
        f.legacy_handshake(json!({})).await;
        f
    })
    .await;
    fake.send(
        json!({"jsonrpc": "2.0", "id": "s1", "method": "sampling/createMessage", "params": {}}),
    )
    .await;
    let a = fake.recv().await;
    assert_eq!(a["id"], "s1");
    assert_eq!(a["error"]["code"], -1);
    assert_eq!(a["error"]["message"], "user declined");
    client.close().await;
}

#[tokio::test]
async fn input_required_rounds_are_fulfilled_and_retried_with_a_new_id() {
    #[allow(deprecated)] // tested on purpose
    let builder = Client::builder()
        .elicitation_handler(|_| async { Ok(json!({"action": "accept", "content": {"ok": true}})) })
        .sampling_handler(|_| async {
            Ok(json!({"role": "assistant", "content": {"type": "text", "text": "Paris"}, "model": "m"}))
        });
    let (client, mut fake) = connect(builder, |mut f| async move {
        f.modern_handshake(json!({"tools": {}})).await;
        f
    })
    .await;
    assert!(client.is_modern());
    assert_eq!(client.server_info().name, "fake-modern");

    let call = tokio::spawn({
        let client = client.clone();
        async move { client.call_tool("book", json!({"city": "Paris"})).await }
    });
    // Round 1: ask for two inputs.
    let first = fake.recv_method("tools/call").await;
    let meta = &first["params"]["_meta"];
    assert_eq!(
        meta["io.modelcontextprotocol/protocolVersion"],
        "2026-07-28"
    );
    assert!(meta["io.modelcontextprotocol/clientCapabilities"]["elicitation"].is_object());
    assert!(meta["io.modelcontextprotocol/clientInfo"]["name"].is_string());
    fake.reply(
        &first,
        json!({
            "resultType": "input_required",
            "inputRequests": {
                "confirm": {"method": "elicitation/create", "params": {"message": "Sure?", "requestedSchema": {"type": "object"}}},
                "capital": {"method": "sampling/createMessage", "params": {"messages": [], "maxTokens": 10}}
            },
            "requestState": "opaque-1"
        }),
    )
    .await;
    // Round 2: the same params, a new id, the answers and the state.
    let second = fake.recv_method("tools/call").await;
    assert_ne!(second["id"], first["id"]);
    assert_eq!(second["params"]["name"], "book");
    assert_eq!(second["params"]["arguments"], json!({"city": "Paris"}));
    assert_eq!(second["params"]["requestState"], "opaque-1");
    let responses = &second["params"]["inputResponses"];
    assert_eq!(responses["confirm"]["action"], "accept");
    assert_eq!(responses["capital"]["content"]["text"], "Paris");
    fake.reply(
        &second,
        json!({"resultType": "complete", "content": [{"type": "text", "text": "booked"}]}),
    )
    .await;
    let result = call.await.unwrap().unwrap();
    assert_eq!(result.content[0].as_text(), Some("booked"));
    // Answering the output-schema check's listing (no schema: nothing to check).
    client.close().await;
    drop(fake);
}

#[tokio::test]
async fn input_required_without_a_handler_or_forever_is_an_error() {
    let builder = Client::builder().max_input_rounds(2);
    let (client, mut fake) = connect(builder, |mut f| async move {
        f.modern_handshake(json!({"tools": {}})).await;
        f
    })
    .await;
    let call = tokio::spawn({
        let client = client.clone();
        async move { client.call_tool("t", ()).await }
    });
    let req = fake.recv_method("tools/call").await;
    fake.reply(
        &req,
        json!({"resultType": "input_required", "inputRequests": {"x": {"method": "roots/list"}}}),
    )
    .await;
    let err = call.await.unwrap().unwrap_err();
    assert!(
        matches!(&err, Error::Protocol(e) if e.code == -32601 && e.message.contains("roots/list")),
        "{err:?}"
    );

    // A server that never stops asking.
    #[allow(deprecated)] // tested on purpose
    let client2 = Client::builder()
        .max_input_rounds(2)
        .roots_handler(|_| async { Ok(json!({"roots": []})) });
    let (client2, mut fake2) = connect(client2, |mut f| async move {
        f.modern_handshake(json!({})).await;
        f
    })
    .await;
    let call = tokio::spawn({
        let client2 = client2.clone();
        async move { client2.call_tool("t", ()).await }
    });
    for _ in 0..3 {
        let req = fake2.recv_method("tools/call").await;
        fake2
            .reply(
                &req,
                json!({"resultType": "input_required", "inputRequests": {"x": {"method": "roots/list"}}}),
            )
            .await;
    }
    let err = call.await.unwrap().unwrap_err();
    assert!(err.to_string().contains("after 2 rounds"), "{err}");
    client.close().await;
    client2.close().await;
}

#[tokio::test]
async fn auto_falls_back_to_initialize_on_a_legacy_error() {
    let (client, _fake) = connect(Client::builder(), |mut f| async move {
        let probe = f.recv_method("server/discover").await;
        assert_eq!(probe["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"], "2026-07-28");
        f.send(json!({"jsonrpc": "2.0", "id": probe["id"], "error": {"code": -32601, "message": "Method not found"}}))
            .await;
        let init = f.legacy_handshake(json!({"tools": {}})).await;
        assert_eq!(init["params"]["protocolVersion"], "2025-11-25");
        f
    })
    .await;
    assert_eq!(client.protocol_version(), ProtocolVersion::V2025_11_25);
    assert_eq!(client.instructions(), Some("be nice"));
    client.close().await;
}

#[tokio::test]
async fn auto_falls_back_to_initialize_when_the_probe_gets_no_answer() {
    let builder = Client::builder().probe_timeout(Duration::from_millis(200));
    let (client, fake) = connect(builder, |mut f| async move {
        f.recv_method("server/discover").await;
        // A legacy server that ignores requests before initialize. The probe
        // is not cancelled: nothing but initialize may come next.
        let init = f.recv().await;
        assert_eq!(init["method"], "initialize");
        f.reply(
            &init,
            json!({"protocolVersion": "2025-06-18", "capabilities": {}, "serverInfo": {"name": "old", "version": "1"}}),
        )
        .await;
        f.recv_method("notifications/initialized").await;
        f
    })
    .await;
    assert_eq!(client.protocol_version(), ProtocolVersion::V2025_06_18);
    client.close().await;
    drop(fake);

    // A recognized modern error is not a reason to fall back.
    let err = {
        let (mut f, read, write) = Fake::new();
        let connecting = tokio::spawn(Client::builder().connect_io(read, write));
        let probe = f.recv_method("server/discover").await;
        f.send(json!({"jsonrpc": "2.0", "id": probe["id"], "error": {
            "code": -32022, "message": "Unsupported protocol version",
            "data": {"supported": ["2099-01-01"], "requested": "2026-07-28"}}}))
            .await;
        connecting.await.unwrap().unwrap_err()
    };
    assert!(
        matches!(&err, Error::Protocol(e) if e.code == -32022),
        "{err:?}"
    );
}

#[tokio::test]
async fn an_unsupported_negotiated_version_fails_the_connection() {
    let (mut f, read, write) = Fake::new();
    let connecting = tokio::spawn(
        Client::builder()
            .protocol(Era::Legacy)
            .connect_io(read, write),
    );
    let init = f.recv_method("initialize").await;
    f.reply(
        &init,
        json!({"protocolVersion": "1999-01-01", "capabilities": {}, "serverInfo": {"name": "x", "version": "1"}}),
    )
    .await;
    let err = connecting.await.unwrap().unwrap_err();
    assert!(err.to_string().contains("1999-01-01"), "{err}");
}

#[tokio::test]
async fn list_changed_invalidates_and_modern_ttl_caches() {
    // Legacy: cached until the notification.
    let (client, mut fake) = connect(
        Client::builder().protocol(Era::Legacy),
        |mut f| async move {
            f.legacy_handshake(json!({"tools": {"listChanged": true}}))
                .await;
            f
        },
    )
    .await;
    let listing = tokio::spawn({
        let client = client.clone();
        async move { client.list_tools().await }
    });
    let req = fake.recv_method("tools/list").await;
    fake.reply(&req, json!({"tools": [tool_json("a")]})).await;
    assert_eq!(listing.await.unwrap().unwrap().len(), 1);
    assert_eq!(client.list_tools().await.unwrap().len(), 1, "cached");
    fake.send(json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}))
        .await;
    let mut notes = client.notifications();
    // The notification may have been routed before `notifications()`; wait
    // for the invalidation by listing until the fake sees the request.
    let listing = tokio::spawn({
        let client = client.clone();
        async move {
            loop {
                let tools = client.list_tools().await.unwrap();
                if tools.len() == 2 {
                    return tools;
                }
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        }
    });
    let req = fake.recv_method("tools/list").await;
    fake.reply(&req, json!({"tools": [tool_json("a"), tool_json("b")]}))
        .await;
    assert_eq!(listing.await.unwrap().len(), 2);
    drop(notes.try_recv());
    client.close().await;

    // Modern: fresh for ttlMs; pages are combined and the smallest ttl wins.
    let (client, mut fake) = connect(
        Client::builder().protocol(Era::Modern),
        |mut f| async move {
            f.modern_handshake(json!({"tools": {}})).await;
            f
        },
    )
    .await;
    let listing = tokio::spawn({
        let client = client.clone();
        async move { client.list_tools().await }
    });
    let page1 = fake.recv_method("tools/list").await;
    assert!(page1["params"].get("cursor").is_none());
    fake.reply(
        &page1,
        json!({"resultType": "complete", "tools": [tool_json("a")], "nextCursor": "p2", "ttlMs": 60000, "cacheScope": "public"}),
    )
    .await;
    let page2 = fake.recv_method("tools/list").await;
    assert_eq!(page2["params"]["cursor"], "p2");
    fake.reply(
        &page2,
        json!({"resultType": "complete", "tools": [tool_json("b")], "ttlMs": 150, "cacheScope": "public"}),
    )
    .await;
    assert_eq!(listing.await.unwrap().unwrap().len(), 2);
    assert_eq!(
        client.list_tools().await.unwrap().len(),
        2,
        "fresh for 150 ms"
    );
    tokio::time::sleep(Duration::from_millis(200)).await;
    let listing = tokio::spawn({
        let client = client.clone();
        async move { client.list_tools().await }
    });
    let again = fake.recv_method("tools/list").await;
    fake.reply(
        &again,
        json!({"resultType": "complete", "tools": [tool_json("c")], "ttlMs": 0, "cacheScope": "public"}),
    )
    .await;
    assert_eq!(listing.await.unwrap().unwrap()[0].name, "c");
    client.close().await;
}

#[tokio::test]
async fn a_repeated_cursor_is_an_error_not_a_loop() {
    let (client, mut fake) = connect(
        Client::builder().protocol(Era::Legacy),
        |mut f| async move {
            f.legacy_handshake(json!({"tools": {}})).await;
            f
        },
    )
    .await;
    let listing = tokio::spawn({
        let client = client.clone();
        async move { client.list_tools().await }
    });
    for _ in 0..2 {
        let req = fake.recv_method("tools/list").await;
        fake.reply(&req, json!({"tools": [], "nextCursor": "same"}))
            .await;
    }
    let err = listing.await.unwrap().unwrap_err();
    assert!(err.to_string().contains("same"), "{err}");
    client.close().await;
}

#[tokio::test]
async fn a_server_that_never_answers_a_call_times_out_and_is_told() {
    let builder = Client::builder()
        .protocol(Era::Legacy)
        .timeout(Duration::from_millis(200));
    let (client, mut fake) = connect(builder, |mut f| async move {
        f.legacy_handshake(json!({"tools": {}})).await;
        f
    })
    .await;
    let call = tokio::spawn({
        let client = client.clone();
        async move { client.call_tool("t", ()).await }
    });
    let req = fake.recv_method("tools/call").await;
    let cancel = fake.recv_method(method::CANCELLED).await;
    assert_eq!(cancel["params"]["requestId"], req["id"]);
    assert!(matches!(call.await.unwrap(), Err(Error::Timeout(_))));
    // A late answer is ignored, and the connection goes on.
    fake.reply(&req, json!({"content": []})).await;
    client.close().await;
}

#[tokio::test]
async fn notifications_outside_calls_reach_the_stream_and_bad_lines_are_skipped() {
    let (client, mut fake) = connect(
        Client::builder().protocol(Era::Legacy),
        |mut f| async move {
            f.legacy_handshake(json!({"logging": {}})).await;
            f
        },
    )
    .await;
    let mut notes = client.notifications();
    fake.send(json!("not a message")).await;
    fake.send(json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": "nobody", "progress": 1}}))
        .await;
    fake.send(json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "hi"}}))
        .await;
    let a = notes.recv().await.unwrap();
    assert_eq!(a.method, method::PROGRESS);
    let b = notes.recv().await.unwrap();
    assert_eq!(b.method, method::MESSAGE);
    client.close().await;
    assert!(
        notes.recv().await.is_none(),
        "the stream ends with the connection"
    );
}

#[tokio::test]
async fn initialize_refused_for_the_modern_era_probes_again() {
    // The probe's answer comes too late (a slow server), initialize is
    // refused because the connection already speaks 2026-07-28: the client
    // probes again instead of failing.
    let builder = Client::builder().probe_timeout(Duration::from_millis(100));
    let (client, _fake) = connect(builder, |mut f| async move {
        let probe = f.recv_method("server/discover").await;
        let init = f.recv_method("initialize").await;
        f.send(json!({"jsonrpc": "2.0", "id": init["id"], "error": {
            "code": -32022, "message": "this connection speaks 2026-07-28",
            "data": {"supported": ["2026-07-28"], "requested": "2025-11-25"}}}))
            .await;
        drop(probe);
        f.modern_handshake(json!({})).await;
        f
    })
    .await;
    assert!(client.is_modern());
    client.close().await;
}
