//! Layers around every tool call: an audit log (through `tracing`, on
//! stderr), a custom middleware that refuses calls carrying something that
//! looks like a secret, and tower's own timeout and concurrency limit
//! (`ServerBuilder::layer` takes any tower layer over tool calls); inside
//! them, a per-caller rate limit (`ServerBuilder::rate_limit`).
//!
//! Run with: `RUST_LOG=oxmcp_server::audit=info cargo run -p mcp-examples --bin middleware`
//! (speaks MCP on stdio).

use std::time::Duration;

use oxmcp_server::policy::{from_fn, AuditLog, CallOutcome, Next, Rate, RateLimit};
use oxmcp_server::tool::ToolRequest;
use oxmcp_server::types::CallToolResult;
use oxmcp_server::{tool, Server};
use tower::limit::ConcurrencyLimitLayer;
use tower::timeout::TimeoutLayer;

/// Refuses arguments that look like credentials, before any tool sees them.
pub async fn no_secrets(call: ToolRequest, next: Next) -> CallOutcome {
    let leaks = call
        .arguments
        .values()
        .filter_map(|v| v.as_str())
        .any(|s| s.starts_with("sk-") || s.contains("BEGIN PRIVATE KEY"));
    if leaks {
        return Ok(CallToolResult::error(format!(
            "refused: an argument of `{}` looks like a secret; never send credentials to tools",
            call.name
        )));
    }
    next.run(call).await
}

/// Text utilities.
#[derive(Debug)]
pub struct Text;

#[tool(description = "Text utilities")]
impl Text {
    #[describe("Count the words in a text")]
    pub fn word_count(&self, #[param("The text")] text: String) -> usize {
        text.split_whitespace().count()
    }
}

use mcp_examples::stderr_logs;

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::process::ExitCode {
    let result = run().await;
    stderr_logs::report("middleware", result)
}

async fn run() -> Result<(), oxmcp_server::Error> {
    stderr_logs::init("oxmcp_server::audit=info");
    Server::builder("middleware", env!("CARGO_PKG_VERSION"))
        .layer(AuditLog) // outermost: sees every call, refused or not
        .layer(from_fn(no_secrets))
        // tower's layers, unchanged: a call past 10 s is an `isError` result
        // naming the timeout; beyond 16 calls at once, a call waits its turn.
        .layer(TimeoutLayer::new(Duration::from_secs(10)))
        .layer(ConcurrencyLimitLayer::new(16))
        // Inside every layer: 5 calls at once, then 1 a second, per caller.
        .rate_limit(RateLimit::per_caller(Rate::per_second(1).burst(5)))
        .toolbox(Text)
        .try_build()?
        .serve_stdio()
        .await
}
