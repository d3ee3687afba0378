//! MCP inside an existing axum application: the server's HTTP endpoints are a
//! `tower::Service`, mounted next to the app's own routes.
//!
//! Run with: `cargo run -p mcp-examples --bin axum_mount -- --port 3001`, then
//! `curl http://127.0.0.1:3001/health` and point an MCP client at
//! `http://127.0.0.1:3001/mcp`.

use axum::routing::get;
use axum::Router;
use mcp_server::http::HttpConfig;
use mcp_server::{tool, Server};

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

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let mut args = std::env::args().skip(1);
    let port: u16 = match (args.next().as_deref(), args.next().map(|p| p.parse())) {
        (Some("--port"), Some(Ok(port))) => port,
        (None, _) => 3001,
        _ => {
            eprintln!("usage: axum_mount [--port PORT]");
            std::process::exit(2);
        }
    };
    let server = Server::builder("greeter", env!("CARGO_PKG_VERSION"))
        .toolbox(Greeter)
        .build();
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    eprintln!("listening on http://127.0.0.1:{port} (MCP at /mcp)");
    axum::serve(listener, app(&server)).await
}
