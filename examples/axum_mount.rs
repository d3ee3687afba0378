//! MCP inside an existing axum application: the server's HTTP endpoints are a
//! `tower::Service`, mounted next to the app's own routes.
//!
//! Run with: `cargo run -p mcp-examples --bin axum_mount -- --port 3001`, then
//! `curl http://127.0.0.1:3001/health` and point an MCP client at
//! `http://127.0.0.1:3001/mcp`.

use axum::routing::get;
use axum::Router;
use clap::Parser;
use mcp_examples::command_line;
use oxmcp_server::http::HttpConfig;
use oxmcp_server::{tool, Server};

/// A toolbox for the example.
#[derive(Debug)]
pub struct Greeter;

#[tool(description = "Greetings")]
impl Greeter {
    #[describe("Greet someone by name")]
    pub fn greet(&self, #[param("Who to greet")] name: String) -> String {
        format!("Hello, {name}!")
    }
}

/// The application: its own routes plus MCP at `/mcp` (Streamable HTTP, both
/// eras) and the legacy HTTP+SSE transport at `/sse` and `/messages`.
pub fn app(server: &Server) -> Router {
    let mcp = server.http_service(HttpConfig::default());
    Router::new()
        .route("/health", get(|| async { "ok" }))
        .route_service("/mcp", mcp.clone())
        .route_service("/sse", mcp.clone())
        .route_service("/messages", mcp)
}

/// MCP inside an axum application, next to its own routes.
#[derive(Debug, Parser)]
#[command(
    name = "axum_mount",
    version,
    after_help = "Examples:\n  \
        axum_mount                                  # http://127.0.0.1:3001/mcp\n  \
        axum_mount --port 8080"
)]
struct Args {
    /// Serve on `http://127.0.0.1:PORT`: `/health`, and MCP at `/mcp` (HTTP+SSE at `/sse`).
    #[arg(long, value_name = "PORT", default_value_t = 3001)]
    port: u16,
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let port = command_line::parse::<Args>().port;
    let server = Server::builder("greeter", env!("CARGO_PKG_VERSION"))
        .toolbox(Greeter)
        .build();
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    eprintln!("listening on http://127.0.0.1:{port} (MCP at /mcp)");
    axum::serve(listener, app(&server)).await
}
