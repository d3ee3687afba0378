//! Middleware around every tool call: an audit log (through `tracing`, on
//! stderr), a per-caller rate limit, and a custom layer that refuses calls
//! carrying something that looks like a secret.
//!
//! Run with: `RUST_LOG=mcp_server::audit=info cargo run -p mcp-examples --bin middleware`
//! (speaks MCP on stdio).

use mcp_server::policy::{AuditLog, CallOutcome, Middleware, Next, RateLimit, ToolCall};
use mcp_server::types::CallToolResult;
use mcp_server::{policy::BoxFuture, tool, Server};

/// Refuses arguments that look like credentials, before any tool sees them.
#[derive(Debug)]
pub struct NoSecrets;

impl Middleware for NoSecrets {
    fn call(&self, call: ToolCall, next: Next) -> BoxFuture<CallOutcome> {
        let leaks = call
            .arguments
            .values()
            .filter_map(|v| v.as_str())
            .any(|s| s.starts_with("sk-") || s.contains("BEGIN PRIVATE KEY"));
        if leaks {
            let refusal = CallToolResult::error(format!(
                "refused: an argument of `{}` looks like a secret; never send credentials to tools",
                call.name
            ));
            return Box::pin(async move { Ok(refusal) });
        }
        next.run(call)
    }
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

#[path = "stderr_logs.rs"]
mod stderr_logs;

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::process::ExitCode {
    let result = run().await;
    stderr_logs::report("middleware", result)
}

async fn run() -> Result<(), mcp_server::Error> {
    stderr_logs::init("mcp_server::audit=info");
    Server::builder("middleware", env!("CARGO_PKG_VERSION"))
        .layer(AuditLog) // outermost: sees every call, refused or not
        .layer(RateLimit::per_caller(5, 1.0)) // 5 at once, then 1 per second
        .layer(NoSecrets)
        .toolbox(Text)
        .build()
        .serve_stdio()
        .await
}
