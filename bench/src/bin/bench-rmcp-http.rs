//! rmcp 3.9's Streamable HTTP server on `127.0.0.1:<--port>`.
//!
//! - rmcp's tower service `StreamableHttpService` with its in-memory
//!   `LocalSessionManager`, served by hyper 1.x HTTP/1.1 connections through
//!   `hyper_util::service::TowerToHyperService` (rmcp's own tests mount the
//!   same service with axum's `nest_service("/mcp", …)`; the service itself
//!   ignores the path, so it answers on every path);
//! - by default, `StreamableHttpServerConfig::default()`: legacy stateful
//!   sessions (`Mcp-Session-Id`), every legacy response sent as a
//!   `text/event-stream` with a priming event. Requests carrying 2026-07-28
//!   `_meta` are served statelessly whatever the configuration, as SSE here;
//! - with `--json`: `legacy_session_mode = false` and `json_response = true`,
//!   rmcp's stateless configuration, answering each request with one
//!   `application/json` body (`initialize` returns no session id);
//! - the tool router is built once and shared (through an `Arc`, as the
//!   service factory makes a handler per session, or per request when
//!   stateless), named with `#[tool_handler(router = self.tool_router)]`;
//! - `#[tokio::main]`'s multi-threaded runtime; `--current-thread` uses a
//!   current-thread runtime instead.
//!
//! It offers one tool, `add(a: f64, b: f64)`, returning the sum as text.

use std::net::Ipv4Addr;
use std::sync::Arc;

use hyper::server::conn::http1;
use hyper_util::rt::TokioIo;
use hyper_util::service::TowerToHyperService;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{schemars, tool, tool_handler, tool_router, ServerHandler};
use serde::Deserialize;
use tokio::net::TcpListener;

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
struct AddArgs {
    a: f64,
    b: f64,
}

#[derive(Debug, Clone)]
struct Calculator {
    tool_router: Arc<ToolRouter<Self>>,
}

#[tool_router]
impl Calculator {
    fn new() -> Self {
        Self {
            tool_router: Arc::new(Self::tool_router()),
        }
    }

    #[tool(description = "Add two numbers")]
    #[allow(clippy::unused_self)]
    fn add(&self, Parameters(AddArgs { a, b }): Parameters<AddArgs>) -> String {
        (a + b).to_string()
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Calculator {}

async fn serve(port: u16, json: bool) -> std::io::Result<()> {
    let config = if json {
        StreamableHttpServerConfig::default()
            .with_legacy_session_mode(false)
            .with_json_response(true)
    } else {
        StreamableHttpServerConfig::default()
    };
    let calculator = Calculator::new();
    let service = StreamableHttpService::new(
        move || Ok(calculator.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, port)).await?;
    loop {
        let (stream, _) = listener.accept().await?;
        stream.set_nodelay(true)?;
        let service = TowerToHyperService::new(service.clone());
        tokio::spawn(async move {
            let _ = http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

fn port_argument() -> Result<u16, String> {
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--port" {
            let value = args.next().ok_or("--port needs a value")?;
            return value
                .parse()
                .map_err(|_| format!("--port needs a port number, not {value:?}"));
        }
    }
    Err("usage: bench-rmcp-http --port N [--json] [--current-thread]".into())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let port = port_argument()?;
    let json = std::env::args().any(|arg| arg == "--json");
    let mut builder = if std::env::args().any(|arg| arg == "--current-thread") {
        tokio::runtime::Builder::new_current_thread()
    } else {
        tokio::runtime::Builder::new_multi_thread()
    };
    let runtime = builder.enable_all().build()?;
    runtime.block_on(serve(port, json))?;
    Ok(())
}
