//! The client against our real server on a 127.0.0.1 socket: Streamable
//! HTTP in both eras, the HTTP+SSE transport, and the fallbacks between them.

mod support;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use oxmcp_client::types::{method, ProtocolVersion};
use oxmcp_client::{types::error::Chain, CallOptions, Client, Era, Error};
use oxmcp_server::http::HttpConfig;
use oxmcp_server::types::LoggingLevel;
use oxmcp_server::Server;
use serde_json::json;
use support::{server, HttpServer, ManyTools};

async fn start() -> (HttpServer, support::Events) {
    let (server, events) = server();
    let config = HttpConfig::default().sse_retry(Duration::from_millis(300));
    (HttpServer::start(server, config).await, events)
}

#[tokio::test]
async fn both_eras_over_streamable_http() {
    let (http, _) = start().await;
    for (era, version) in [
        (Era::Auto, ProtocolVersion::V2026_07_28),
        (Era::Modern, ProtocolVersion::V2026_07_28),
        (Era::Legacy, ProtocolVersion::V2025_11_25),
    ] {
        let client = Client::builder()
            .protocol(era)
            .connect_http(&http.url("/mcp"))
            .await
            .unwrap();
        assert_eq!(client.protocol_version(), version, "{era:?}");
        assert_eq!(client.server_info().name, "test-server");
        assert_eq!(client.instructions(), Some("Use add to add."));
        client.ping().await.unwrap();
        let tools = client.list_tools().await.unwrap();
        assert!(tools.iter().any(|t| t.name == "add"));
        let r = client
            .call_tool("add", json!({"a": 1, "b": 2}))
            .await
            .unwrap();
        assert_eq!(r.content[0].as_text(), Some("3"));
        assert!(matches!(
            client.call_tool("fail", ()).await,
            Err(Error::Tool(_))
        ));
        assert!(matches!(
            client.call_tool("sum_bad", ()).await,
            Err(Error::SchemaMismatch { tool, .. }) if tool == "sum_bad"
        ));
        let err = client.call_tool("nope", ()).await.unwrap_err();
        assert!(
            matches!(&err, Error::Protocol(e) if e.code == -32602),
            "{err:?}"
        );
        client.close().await;
    }
    http.stop().await;
}

#[tokio::test]
async fn legacy_sessions_are_deleted_on_close() {
    let (server, _) = server();
    let service = server.http_service(HttpConfig::default());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let svc = service.clone();
    tokio::spawn(async move {
        loop {
            let (stream, _) = listener.accept().await.unwrap();
            let svc = hyper_util::service::TowerToHyperService::new(svc.clone());
            tokio::spawn(
                hyper::server::conn::http1::Builder::new()
                    .serve_connection(hyper_util::rt::TokioIo::new(stream), svc),
            );
        }
    });
    let client = Client::builder()
        .protocol(Era::Legacy)
        .connect_http(&format!("http://{addr}/mcp"))
        .await
        .unwrap();
    assert_eq!(service.session_count(), 1);
    client
        .call_tool("add", json!({"a": 1, "b": 2}))
        .await
        .unwrap();
    client.close().await;
    assert_eq!(service.session_count(), 0, "DELETE ended the session");
}

#[tokio::test]
async fn progress_and_logs_arrive_over_sse_in_each_era() {
    let (http, _) = start().await;
    for era in [Era::Legacy, Era::Modern] {
        #[allow(deprecated)] // logging, tested on purpose
        let client = Client::builder()
            .protocol(era)
            .log_level(LoggingLevel::Info)
            .connect_http(&http.url("/mcp"))
            .await
            .unwrap();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&seen);
        client
            .call_tool_with(
                "progress",
                (),
                CallOptions::new().on_progress(move |p| sink.lock().unwrap().push(p.progress)),
            )
            .await
            .unwrap();
        assert_eq!(*seen.lock().unwrap(), [25.0, 50.0, 100.0], "{era:?}");
        let mut notes = client.notifications();
        client.call_tool("chatty", ()).await.unwrap();
        let n = tokio::time::timeout(Duration::from_secs(5), async {
            loop {
                let n = notes.recv().await.unwrap();
                if n.method == method::MESSAGE {
                    return n;
                }
            }
        })
        .await
        .unwrap();
        assert_eq!(n.params.unwrap()["data"], json!("hello from the tool"));
        client.close().await;
    }
    http.stop().await;
}

#[tokio::test]
async fn cancellation_reaches_the_server_in_each_era() {
    let (http, mut events) = start().await;
    for era in [Era::Legacy, Era::Modern] {
        let client = Client::builder()
            .protocol(era)
            .timeout(Duration::from_millis(300))
            .connect_http(&http.url("/mcp"))
            .await
            .unwrap();
        // A timeout cancels: modern closes the stream, legacy sends
        // notifications/cancelled.
        let err = client.call_tool("wait", ()).await.unwrap_err();
        assert!(matches!(err, Error::Timeout(_)), "{err:?}");
        assert_eq!(events.recv().await.as_deref(), Some("started"));
        let seen = tokio::time::timeout(Duration::from_secs(5), events.recv())
            .await
            .expect("the server saw the cancellation");
        assert_eq!(seen.as_deref(), Some("cancelled"), "{era:?}");
        // So does dropping the call.
        let call = client.call_tool_with(
            "wait",
            (),
            CallOptions::new().timeout(Duration::from_secs(30)),
        );
        assert!(tokio::time::timeout(Duration::from_millis(200), call)
            .await
            .is_err());
        assert_eq!(events.recv().await.as_deref(), Some("started"));
        let seen = tokio::time::timeout(Duration::from_secs(5), events.recv())
            .await
            .expect("the server saw the cancellation");
        assert_eq!(seen.as_deref(), Some("cancelled"), "{era:?}");
        client
            .call_tool("add", json!({"a": 1, "b": 1}))
            .await
            .unwrap();
        client.close().await;
    }
    http.stop().await;
}

#[tokio::test]
async fn a_closed_stream_is_resumed_after_retry_with_last_event_id() {
    let (http, _) = start().await;
    let client = Client::builder()
        .protocol(Era::Legacy)
        .connect_http(&http.url("/mcp"))
        .await
        .unwrap();
    let started = Instant::now();
    let r = client.call_tool("reconnect", ()).await.unwrap();
    let took = started.elapsed();
    assert_eq!(r.content[0].as_text(), Some("resumed"));
    // The stream closes after 20 ms; the client waits the 300 ms `retry`.
    assert!(took >= Duration::from_millis(320), "{took:?}");
    assert!(took < Duration::from_secs(3), "{took:?}");
    client.close().await;
    http.stop().await;
}

#[tokio::test]
async fn the_legacy_sse_transport_explicitly_and_by_fallback() {
    let (http, _) = start().await;
    // Explicitly.
    #[allow(deprecated)] // HTTP+SSE, tested on purpose
    let client = Client::builder()
        .connect_sse(&http.url("/sse"))
        .await
        .unwrap();
    assert!(client.protocol_version().is_legacy());
    let r = client
        .call_tool("add", json!({"a": 2, "b": 2}))
        .await
        .unwrap();
    assert_eq!(r.content[0].as_text(), Some("4"));
    client.close().await;
    // By fallback: the SSE URL refuses POST (405, no modern error), so
    // Streamable HTTP gives way to HTTP+SSE.
    let client = Client::builder()
        .connect_http(&http.url("/sse"))
        .await
        .unwrap();
    assert!(client.protocol_version().is_legacy());
    let seen = Arc::new(Mutex::new(0));
    let sink = Arc::clone(&seen);
    let r = client
        .call_tool_with(
            "progress",
            (),
            CallOptions::new().on_progress(move |_| *sink.lock().unwrap() += 1),
        )
        .await
        .unwrap();
    assert_eq!(r.content[0].as_text(), Some("progressed"));
    assert_eq!(*seen.lock().unwrap(), 3);
    assert!(matches!(
        client.call_tool("sum_bad", ()).await,
        Err(Error::SchemaMismatch { .. })
    ));
    client.close().await;
    // The modern era does not exist on HTTP+SSE.
    #[allow(deprecated)] // HTTP+SSE, tested on purpose
    let err = Client::builder()
        .protocol(Era::Modern)
        .connect_sse(&http.url("/sse"))
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Protocol(_)), "{err:?}");
    http.stop().await;
}

#[tokio::test]
async fn a_thousand_tools_over_http_in_each_era() {
    let server = Server::builder("many", "1")
        .toolbox(ManyTools(1000))
        .page_size(50)
        .build();
    let http = HttpServer::start(server, HttpConfig::default()).await;
    for era in [Era::Legacy, Era::Modern] {
        let client = Client::builder()
            .protocol(era)
            .connect_http(&http.url("/mcp"))
            .await
            .unwrap();
        let tools = client.list_tools().await.unwrap();
        assert_eq!(tools.len(), 1000);
        assert_eq!(tools[999].name, "tool_0999");
        client.close().await;
    }
    http.stop().await;
}

#[tokio::test]
async fn list_changes_reach_http_clients_in_each_era() {
    let (tools, _) = support::tools();
    let server = Server::builder("live", "1")
        .toolbox(tools)
        .cache_ttl(Duration::from_secs(600))
        .build();
    let handle = server.handle();
    let http = HttpServer::start(server, HttpConfig::default()).await;
    for (era, tool) in [(Era::Legacy, "slow"), (Era::Modern, "chatty")] {
        let client = Client::builder()
            .protocol(era)
            .connect_http(&http.url("/mcp"))
            .await
            .unwrap();
        let mut notes = client.notifications();
        let before = client.list_tools().await.unwrap().len();
        // Give the standalone GET stream / the listen stream time to open.
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert!(handle.disable_tool(tool));
        let n = tokio::time::timeout(Duration::from_secs(5), notes.recv())
            .await
            .expect("list_changed")
            .unwrap();
        assert_eq!(n.method, method::TOOLS_LIST_CHANGED, "{era:?}");
        let after = client.list_tools().await.unwrap();
        assert_eq!(
            after.len(),
            before - 1,
            "{era:?}: the cache was invalidated"
        );
        client.close().await;
    }
    http.stop().await;
}

#[tokio::test]
async fn connection_failures_are_transport_errors() {
    // Nothing listens on this port.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    let err = Client::builder()
        .connect_http(&format!("http://{addr}/mcp"))
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Transport(_)), "{err:?}");
    let err = Client::builder()
        .connect_http(&format!("https://{addr}/mcp"))
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Transport(_)), "{err:?}");
    // A path the server does not serve: 404 everywhere, nothing to fall back to.
    let (http, _) = start().await;
    let err = Client::builder()
        .connect_http(&http.url("/nowhere"))
        .await
        .unwrap_err();
    let text = Chain(&err).to_string();
    assert!(text.contains("404"), "{text}");
    http.stop().await;
}

#[tokio::test]
async fn a_forgotten_session_is_initialized_again() {
    let _ = tracing_subscriber::fmt()
        .with_env_filter("oxmcp_client=info")
        .with_test_writer()
        .try_init();
    let (server, _) = server();
    let config = HttpConfig::default().session_idle_timeout(Duration::from_millis(100));
    let http = HttpServer::start(server, config).await;
    let client = Client::builder()
        .protocol(Era::Legacy)
        .connect_http(&http.url("/mcp"))
        .await
        .unwrap();
    client
        .call_tool("add", json!({"a": 1, "b": 2}))
        .await
        .unwrap();
    // The server sweeps idle sessions when it creates one (at most once a second).
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let other = Client::builder()
        .protocol(Era::Legacy)
        .connect_http(&http.url("/mcp"))
        .await
        .unwrap();
    // The first client's session is gone: its next call gets a 404, and the
    // client starts a new session and retries.
    let r = client
        .call_tool("add", json!({"a": 2, "b": 2}))
        .await
        .unwrap();
    assert_eq!(r.content[0].as_text(), Some("4"));
    client.close().await;
    other.close().await;
    http.stop().await;
}
