//! The client program for the official client conformance scenarios of
//! `@modelcontextprotocol/conformance@0.1.16`.
//!
//! The runner starts it as `conformance_client <server URL>` with the
//! scenario's name in `MCP_CONFORMANCE_SCENARIO`:
//!
//! - `initialize`: connect (and list the tools);
//! - `tools_call`: call `add_numbers {a: 1, b: 2}`;
//! - `elicitation-sep1034-client-defaults`: call
//!   `test_client_elicitation_defaults`, answering the server's
//!   `elicitation/create` by accepting every default of its requested schema;
//! - `sse-retry`: call `test_reconnection` (the server closes the SSE stream
//!   after a `retry`; the client resumes with `GET` and `Last-Event-ID`).
//!
//! Exits 0 on success, 1 with a message on stderr otherwise, 2 on bad usage.
//! Run by `tests/conformance/run_client.sh`.

use std::process::ExitCode;
use std::time::Duration;

use mcp_client::types::{ErrorObject, JsonObject};
use mcp_client::{Chain, Client, Era};
use serde_json::{json, Value};

/// Accepts the elicitation with every default of `requestedSchema.properties`.
async fn accept_defaults(params: Value) -> Result<Value, ErrorObject> {
    let mut content = JsonObject::new();
    if let Some(properties) = params
        .pointer("/requestedSchema/properties")
        .and_then(Value::as_object)
    {
        for (name, schema) in properties {
            if let Some(default) = schema.get("default") {
                content.insert(name.clone(), default.clone());
            }
        }
    }
    Ok(json!({ "action": "accept", "content": content }))
}

async fn run(scenario: &str, url: &str) -> Result<(), String> {
    let client = Client::builder()
        .client_info("mcp-rs-conformance-client", env!("CARGO_PKG_VERSION"))
        .protocol(Era::Auto)
        .timeout(Duration::from_secs(20))
        .elicitation_handler(accept_defaults)
        .connect_http(url)
        .await
        .map_err(|e| format!("connecting to {url}: {}", Chain(&e)))?;
    eprintln!(
        "connected to {} {} ({})",
        client.server_info().name,
        client.server_info().version,
        client.protocol_version()
    );
    let outcome = match scenario {
        "initialize" => client
            .list_tools()
            .await
            .map(|tools| eprintln!("{} tools", tools.len()))
            .map_err(|e| format!("tools/list: {}", Chain(&e))),
        "tools_call" => call(&client, "add_numbers", json!({ "a": 1, "b": 2 })).await,
        "elicitation-sep1034-client-defaults" => {
            call(&client, "test_client_elicitation_defaults", json!({})).await
        }
        "sse-retry" => call(&client, "test_reconnection", json!({})).await,
        other => Err(format!("unknown scenario `{other}`")),
    };
    client.close().await;
    outcome
}

async fn call(client: &Client, tool: &str, arguments: Value) -> Result<(), String> {
    let result = client
        .call_tool(tool, arguments)
        .await
        .map_err(|e| format!("calling {tool}: {}", Chain(&e)))?;
    let text: Vec<&str> = result.content.iter().filter_map(|c| c.as_text()).collect();
    eprintln!("{tool} -> {}", text.join(" "));
    Ok(())
}

#[tokio::main]
async fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .init();
    let (Some(url), Ok(scenario)) = (
        std::env::args().skip(1).last(),
        std::env::var("MCP_CONFORMANCE_SCENARIO"),
    ) else {
        eprintln!("usage: MCP_CONFORMANCE_SCENARIO=<scenario> conformance_client <server URL>");
        return ExitCode::from(2);
    };
    match run(&scenario, &url).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("conformance_client: scenario {scenario}: {message}");
            ExitCode::FAILURE
        }
    }
}
