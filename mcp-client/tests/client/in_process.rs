//! The client against our real server in the same process
//! (`Server::serve_io` over `tokio::io::duplex`), in both eras.

use crate::support;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use oxmcp_client::types::modern::SubscriptionFilter;
use oxmcp_client::types::{method, ProtocolVersion};
use oxmcp_client::{CallOptions, Client, Era, Error};
use oxmcp_server::types::LoggingLevel;
use oxmcp_server::Server;
use serde_json::json;
use support::{in_process, server, ManyTools};

async fn connect(era: Era) -> (Client, support::Events, support::Tap) {
    let (server, events) = server();
    let (client, tap, _) = in_process(server, Client::builder().protocol(era)).await;
    (client, events, tap)
}

#[tokio::test]
async fn connect_shows_version_server_and_instructions_in_each_era() {
    for (era, version) in [
        (Era::Auto, ProtocolVersion::V2026_07_28),
        (Era::Modern, ProtocolVersion::V2026_07_28),
        (Era::Legacy, ProtocolVersion::V2025_11_25),
    ] {
        let (client, _, _) = connect(era).await;
        assert_eq!(client.protocol_version(), version, "{era:?}");
        assert_eq!(client.server_info().name, "test-server");
        assert_eq!(client.server_info().version, "1.2.3");
        assert_eq!(client.instructions(), Some("Use add to add."));
        assert!(client.server_capabilities().tools.is_some());
        client.ping().await.unwrap();
        client.close().await;
        assert!(client.is_closed());
    }
}

#[tokio::test]
async fn calls_tools_and_reports_tool_errors_in_each_era() {
    for era in [Era::Legacy, Era::Modern] {
        let (client, _, _) = connect(era).await;
        let r = client
            .call_tool("add", json!({"a": 2, "b": 3.5}))
            .await
            .unwrap();
        assert_eq!(r.content[0].as_text(), Some("5.5"));

        let err = client.call_tool("fail", ()).await.unwrap_err();
        let Error::Tool(result) = &err else {
            panic!("expected a tool error, got {err:?}")
        };
        assert!(result.is_error());
        assert_eq!(err.tool_message().as_deref(), Some("it went wrong"));
        // The raw call returns the same result as Ok.
        let raw = client.call_tool_raw("fail", ()).await.unwrap();
        assert!(raw.is_error());

        let err = client.call_tool("no_such_tool", ()).await.unwrap_err();
        assert!(
            matches!(&err, Error::Protocol(e) if e.code == -32602),
            "{err:?}"
        );
        let err = client.call_tool("add", json!([1, 2])).await.unwrap_err();
        assert!(
            matches!(&err, Error::Protocol(e) if e.code == -32602),
            "{err:?}"
        );
        client.close().await;
    }
}

#[tokio::test]
#[cfg(feature = "validation")]
async fn structured_content_is_checked_against_the_output_schema() {
    for era in [Era::Legacy, Era::Modern] {
        let (client, _, tap) = connect(era).await;
        let ok = client
            .call_tool("sum_good", json!({"a": 1, "b": 2}))
            .await
            .unwrap();
        assert_eq!(ok.structured_content.unwrap()["total"].as_f64(), Some(3.0));
        let err = client.call_tool("sum_bad", ()).await.unwrap_err();
        match &err {
            Error::SchemaMismatch { tool, details } => {
                assert_eq!(tool, "sum_bad");
                assert!(details.contains("/total"), "{details}");
            }
            other => panic!("expected a schema mismatch, got {other:?}"),
        }
        assert!(err.to_string().contains("sum_bad"), "{err}");
        // The raw call checks too.
        assert!(matches!(
            client.call_tool_raw("sum_bad", ()).await,
            Err(Error::SchemaMismatch { .. })
        ));
        // The listing used for checking is fetched once (legacy: until it
        // changes; modern: ttlMs is 0, but a stale listing still serves
        // for checking and is refreshed once before reporting a mismatch).
        let lists = tap.tools_list();
        assert!((1..=4).contains(&lists), "{era:?}: {lists} tools/list");
        client.close().await;
    }
}

#[tokio::test]
async fn a_thousand_tools_arrive_over_twenty_pages_and_are_cached() {
    for era in [Era::Legacy, Era::Modern] {
        let server = Server::builder("many", "1")
            .toolbox(ManyTools(1000))
            .page_size(50)
            .cache_ttl(Duration::from_secs(60))
            .build();
        let (client, tap, _) = in_process(server, Client::builder().protocol(era)).await;
        let tools = client.list_tools().await.unwrap();
        assert_eq!(tools.len(), 1000, "{era:?}");
        for (i, t) in tools.iter().enumerate() {
            assert_eq!(t.name, format!("tool_{i:04}"));
        }
        assert_eq!(tap.tools_list(), 20, "{era:?}: one request per page");
        let again = client.list_tools().await.unwrap();
        assert_eq!(again.len(), 1000);
        assert_eq!(tap.tools_list(), 20, "{era:?}: served from the cache");
        client.invalidate_tools();
        client.list_tools().await.unwrap();
        assert_eq!(tap.tools_list(), 40, "{era:?}: fetched again");
        client.close().await;
    }
}

#[tokio::test]
async fn modern_ttl_zero_is_not_cached() {
    let (client, _, tap) = connect(Era::Modern).await;
    client.list_tools().await.unwrap();
    client.list_tools().await.unwrap();
    assert_eq!(tap.tools_list(), 2, "ttlMs 0: fetched every time");
    client.close().await;
}

#[tokio::test]
async fn a_tool_list_change_invalidates_the_cache_in_each_era() {
    for era in [Era::Legacy, Era::Modern] {
        let (tools, _) = support::tools();
        let server = Server::builder("live", "1")
            .toolbox(tools)
            .cache_ttl(Duration::from_secs(600))
            .build();
        let handle = server.handle();
        let (client, tap, _) = in_process(server, Client::builder().protocol(era)).await;
        let mut notes = client.notifications();
        let before = client.list_tools().await.unwrap().len();
        client.list_tools().await.unwrap();
        assert_eq!(tap.tools_list(), 1, "{era:?}: cached");
        assert!(handle.disable_tool("add"));
        let note = tokio::time::timeout(Duration::from_secs(5), notes.recv())
            .await
            .expect("a list_changed notification")
            .unwrap();
        assert_eq!(note.method, method::TOOLS_LIST_CHANGED, "{era:?}");
        let after = client.list_tools().await.unwrap();
        assert_eq!(after.len(), before - 1, "{era:?}");
        assert!(after.iter().all(|t| t.name != "add"));
        assert_eq!(tap.tools_list(), 2, "{era:?}: refetched after the change");
        client.close().await;
    }
}

#[tokio::test]
async fn progress_reaches_the_callback_in_each_era() {
    for era in [Era::Legacy, Era::Modern] {
        let (client, _, _) = connect(era).await;
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&seen);
        let r = client
            .call_tool_with(
                "progress",
                (),
                CallOptions::new().on_progress(move |p| sink.lock().unwrap().push(p)),
            )
            .await
            .unwrap();
        assert_eq!(r.content[0].as_text(), Some("progressed"));
        let seen = seen.lock().unwrap().clone();
        let values: Vec<f64> = seen.iter().map(|p| p.progress).collect();
        assert_eq!(values, [25.0, 50.0, 100.0], "{era:?}");
        assert_eq!(seen[0].total, Some(100.0));
        assert_eq!(seen[2].message.as_deref(), Some("at 100"));
        client.close().await;
    }
}

#[tokio::test]
async fn dropping_a_call_cancels_it_at_the_server_in_each_era() {
    for era in [Era::Legacy, Era::Modern] {
        let (client, mut events, tap) = connect(era).await;
        let call = client.call_tool("wait", ());
        let dropped = tokio::time::timeout(Duration::from_millis(300), call).await;
        assert!(dropped.is_err(), "the call waits");
        assert_eq!(events.recv().await.as_deref(), Some("started"));
        let cancelled = tokio::time::timeout(Duration::from_secs(5), events.recv())
            .await
            .expect("the server saw the cancellation");
        assert_eq!(cancelled.as_deref(), Some("cancelled"), "{era:?}");
        assert_eq!(tap.cancelled(), 1, "{era:?}: notifications/cancelled sent");
        // The connection is still fine.
        client
            .call_tool("add", json!({"a": 1, "b": 1}))
            .await
            .unwrap();
        client.close().await;
    }
}

#[tokio::test]
async fn a_timeout_cancels_and_says_so() {
    let (server, mut events) = server();
    let (client, tap, _) = in_process(
        server,
        Client::builder()
            .protocol(Era::Legacy)
            .timeout(Duration::from_millis(200)),
    )
    .await;
    let started = Instant::now();
    let err = client.call_tool("wait", ()).await.unwrap_err();
    assert!(
        matches!(err, Error::Timeout(d) if d == Duration::from_millis(200)),
        "{err:?}"
    );
    assert!(started.elapsed() < Duration::from_secs(2));
    assert_eq!(events.recv().await.as_deref(), Some("started"));
    assert_eq!(events.recv().await.as_deref(), Some("cancelled"));
    assert_eq!(tap.cancelled(), 1);
    // A per-call timeout overrides the default.
    let r = client
        .call_tool_with(
            "slow",
            (),
            CallOptions::new().timeout(Duration::from_secs(5)),
        )
        .await
        .unwrap();
    assert_eq!(r.content[0].as_text(), Some("slow done"));
    client.close().await;
}

#[tokio::test]
async fn log_messages_reach_the_notification_stream_in_each_era() {
    for era in [Era::Legacy, Era::Modern] {
        let (server, _) = server();
        #[allow(deprecated)] // logging, tested on purpose
        let (client, _, _) = in_process(
            server,
            Client::builder()
                .protocol(era)
                .log_level(LoggingLevel::Info),
        )
        .await;
        let mut notes = client.notifications();
        client.call_tool("chatty", ()).await.unwrap();
        let mut messages = Vec::new();
        while messages.len() < 2 {
            let n = tokio::time::timeout(Duration::from_secs(5), notes.recv())
                .await
                .expect("log messages")
                .unwrap();
            if n.method == method::MESSAGE {
                messages.push(n.params.unwrap()["data"].clone());
            }
        }
        assert_eq!(messages, [json!("hello from the tool"), json!("careful")]);
        // Raising the level filters the info message out.
        #[allow(deprecated)] // logging, tested on purpose
        client.set_log_level(LoggingLevel::Warning).await.unwrap();
        client.call_tool("chatty", ()).await.unwrap();
        let n = loop {
            let n = tokio::time::timeout(Duration::from_secs(5), notes.recv())
                .await
                .unwrap()
                .unwrap();
            if n.method == method::MESSAGE {
                break n;
            }
        };
        assert_eq!(n.params.unwrap()["data"], json!("careful"), "{era:?}");
        client.close().await;
    }
}

#[tokio::test]
async fn many_tasks_share_one_client() {
    let (client, _, _) = connect(Era::Legacy).await;
    let mut tasks = Vec::new();
    for i in 0..32 {
        let client = client.clone();
        tasks.push(tokio::spawn(async move {
            let r = client
                .call_tool("add", json!({"a": i, "b": 1}))
                .await
                .unwrap();
            assert_eq!(r.content[0].as_text(), Some((i + 1).to_string().as_str()));
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    client.close().await;
}

#[tokio::test]
async fn closing_cancels_calls_in_flight_and_ends_the_server() {
    let (test_server, mut events) = server();
    let (client, _, served) =
        in_process(test_server, Client::builder().protocol(Era::Legacy)).await;
    let waiting = tokio::spawn({
        let client = client.clone();
        async move { client.call_tool("wait", ()).await }
    });
    assert_eq!(events.recv().await.as_deref(), Some("started"));
    client.close().await;
    let err = waiting.await.unwrap().unwrap_err();
    assert!(matches!(err, Error::Cancelled), "{err:?}");
    assert!(matches!(
        client.call_tool("add", json!({"a": 1, "b": 2})).await,
        Err(Error::Cancelled)
    ));
    // The server saw its input end and returned.
    tokio::time::timeout(Duration::from_secs(10), served)
        .await
        .expect("serve_io returned")
        .unwrap()
        .unwrap();
}

#[tokio::test]
async fn a_subscription_reports_tool_changes_in_the_modern_era() {
    let (tools, _) = support::tools();
    let server = Server::builder("live", "1").toolbox(tools).build();
    let handle = server.handle();
    let (client, _, _) = in_process(server, Client::builder().protocol(Era::Modern)).await;
    let mut sub = client
        .listen(SubscriptionFilter {
            tools_list_changed: Some(true),
            ..SubscriptionFilter::default()
        })
        .await
        .unwrap();
    assert_eq!(sub.agreed().tools_list_changed, Some(true));
    assert!(handle.remove_tool("slow"));
    let n = tokio::time::timeout(Duration::from_secs(5), sub.recv())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(n.method, method::TOOLS_LIST_CHANGED);
    drop(sub);
    // Legacy clients are told that listen does not exist there.
    let (legacy, _, _) = connect(Era::Legacy).await;
    assert!(matches!(
        legacy.listen(SubscriptionFilter::default()).await,
        Err(Error::Protocol(e)) if e.code == -32601
    ));
    client.close().await;
    legacy.close().await;
}

#[tokio::test]
async fn the_client_is_a_tool_caller() {
    use oxmcp_client::types::call::ToolCaller;
    let (client, _, _) = connect(Era::Auto).await;
    let caller: &dyn ToolCaller = &client;
    let tools = caller.list_all_tools().await.unwrap();
    assert!(tools.iter().any(|t| t.name == "add"));
    let args = json!({"a": 4, "b": 5}).as_object().unwrap().clone();
    let r = caller.call_tool("add", args).await.unwrap();
    assert_eq!(r.content[0].as_text(), Some("9"));
    // isError comes back as Ok through the trait.
    let r = caller
        .call_tool("fail", serde_json::Map::new())
        .await
        .unwrap();
    assert!(r.is_error());
    client.close().await;
}
