//! The spec's deprecated features (sampling, roots, logging, HTTP+SSE) warn
//! once per process when a server or client really uses one, and never
//! when one is only compiled in or offered.
//!
//! A binary of its own: the warnings are once per process, and the test
//! installs the global `tracing` subscriber that catches them (HTTP
//! connections are served on threads of their own, which a thread-local
//! subscriber would not see).

use mcp_test_support::deprecations::Warnings;
use oxmcp_client::Client;
use oxmcp_server::http::HttpConfig;
use oxmcp_server::types::sampling::{CreateMessageParams, SamplingMessage};
use oxmcp_server::types::LoggingLevel;
use oxmcp_server::{tool, Context, Server, ToolError};
use serde_json::json;

#[derive(Debug)]
pub struct Legacy;

#[allow(deprecated)] // sampling, roots and logging, on purpose
#[allow(clippy::unused_self)] // tools are methods
#[tool(description = "Tools that use the deprecated features, and one that does not")]
impl Legacy {
    #[describe("Uses nothing deprecated")]
    pub fn plain(&self) -> String {
        "plain".into()
    }

    #[describe("Asks the client's model")]
    pub async fn ask_model(&self, ctx: Context) -> Result<String, ToolError> {
        let ask = SamplingMessage::user_text("Say hi");
        let answer = ctx.sample(CreateMessageParams::new(vec![ask], 10)).await?;
        Ok(answer.content.text().unwrap_or_default().to_owned())
    }

    #[describe("Asks the client for its roots")]
    pub async fn ask_roots(&self, ctx: Context) -> Result<String, ToolError> {
        Ok(ctx.roots().await?.len().to_string())
    }

    #[describe("Logs to the client")]
    pub fn log(&self, ctx: Context) -> String {
        ctx.info("one");
        ctx.warning("two");
        "logged".into()
    }
}

fn server() -> Server {
    Server::builder("legacy", "1.0").toolbox(Legacy).build()
}

/// A client with every deprecated handler installed and log messages asked for.
#[allow(deprecated)] // on purpose
fn client() -> oxmcp_client::ClientBuilder {
    Client::builder()
        .sampling_handler(|_params| async {
            Ok(json!({"role": "assistant", "content": {"type": "text", "text": "hi"}, "model": "m"}))
        })
        .roots_handler(|_params| async { Ok(json!({"roots": [{"uri": "file:///work"}]})) })
        .log_level(LoggingLevel::Debug)
}

fn features(seen: &[(String, String)]) -> Vec<&str> {
    seen.iter().map(|(f, _)| f.as_str()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_deprecated_feature_warns_once_when_used_and_never_when_unused() {
    let warnings = Warnings::install();

    // Offered and installed, not used: nothing.
    let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    let (read, write) = tokio::io::split(server_end);
    tokio::spawn(server().serve_io(read, write));
    let (read, write) = tokio::io::split(client_end);
    let client = client().connect_io(read, write).await.unwrap();
    client.call_tool("plain", ()).await.unwrap();
    let seen = warnings.take();
    assert!(seen.is_empty(), "nothing deprecated was used yet: {seen:?}");

    // Each used twice, by the server and the client: one warning each.
    for _ in 0..2 {
        let answer = client.call_tool("ask_model", ()).await.unwrap();
        let answer = serde_json::to_value(answer).unwrap();
        assert_eq!(
            answer["content"][0]["text"], "hi",
            "the client's model answered"
        );
    }
    assert_eq!(features(&warnings.take()), ["sampling"]);
    for _ in 0..2 {
        client.call_tool("ask_roots", ()).await.unwrap();
    }
    let seen = warnings.take();
    assert_eq!(features(&seen), ["roots"]);
    assert!(
        seen[0].1.contains("deprecated since MCP 2026-07-28")
            && seen[0]
                .1
                .contains("tool parameters, resource URIs or server configuration"),
        "the warning names the revision and the replacement: {}",
        seen[0].1
    );
    for _ in 0..2 {
        client.call_tool("log", ()).await.unwrap();
    }
    assert_eq!(features(&warnings.take()), ["logging"]);
    client.close().await;

    // A Streamable HTTP server with HTTP+SSE on (the default): nothing
    // until an HTTP+SSE stream is served; then once, for both connections.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let forever = std::future::pending::<()>();
    tokio::spawn(server().serve_http_on(listener, HttpConfig::default(), forever));
    let modern = Client::builder()
        .connect_http(&format!("http://{addr}/mcp"))
        .await
        .unwrap();
    modern.call_tool("plain", ()).await.unwrap();
    modern.close().await;
    let seen = warnings.take();
    assert!(
        seen.is_empty(),
        "Streamable HTTP is not deprecated: {seen:?}"
    );
    for _ in 0..2 {
        #[allow(deprecated)] // HTTP+SSE, on purpose
        let old = Client::builder()
            .connect_sse(&format!("http://{addr}/sse"))
            .await
            .unwrap();
        old.call_tool("plain", ()).await.unwrap();
        old.close().await;
    }
    let seen = warnings.take();
    assert_eq!(features(&seen), ["the HTTP+SSE transport"]);
    assert!(
        seen[0].1.contains("since MCP 2025-03-26") && seen[0].1.contains("Streamable HTTP"),
        "{}",
        seen[0].1
    );
}
