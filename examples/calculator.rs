//! A calculator MCP server: the framework's main example.
//!
//! Run with: `cargo run -p mcp-examples --bin calculator` (it then speaks MCP
//! on stdin/stdout; the README shows a full round trip and how to register it
//! in Claude Desktop or Claude Code), or
//! `cargo run -p mcp-examples --bin calculator -- --http 127.0.0.1:3000` to
//! serve Streamable HTTP at `http://127.0.0.1:3000/mcp` (both protocol eras)
//! and the legacy HTTP+SSE transport at `/sse`.

use mcp_server::http::HttpConfig;
use mcp_server::Server;

#[path = "calculator_tools.rs"]
pub mod calculator_tools;
use calculator_tools::Calculator;

#[tokio::main]
async fn main() -> Result<(), mcp_server::Error> {
    // Logs go to stderr: stdout carries the protocol.
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .init();
    let server = Server::builder("calculator", env!("CARGO_PKG_VERSION"))
        .instructions("A calculator: arithmetic on two numbers, statistics of a list, and one memory register.")
        .toolbox(Calculator::default())
        .build();
    let mut args = std::env::args().skip(1);
    match (args.next().as_deref(), args.next()) {
        (None, _) => server.serve_stdio().await,
        (Some("--http"), Some(addr)) => server.serve_http(addr, HttpConfig::default()).await,
        _ => {
            eprintln!("usage: calculator [--http ADDR]   (stdio without arguments)");
            std::process::exit(2);
        }
    }
}
