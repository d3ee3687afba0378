//! Our server on the HTTP benchmark's workload: one tool, `add(a: f64, b: f64)`,
//! served over Streamable HTTP at `http://127.0.0.1:PORT/mcp` (legacy sessions
//! and the stateless 2026-07-28 era), exactly as a user would write it.

use mcp_server::http::HttpConfig;
use mcp_server::{tool, Server};

/// The benchmark's toolbox.
#[derive(Debug)]
pub struct Bench;

#[tool(description = "The benchmark workload")]
impl Bench {
    #[describe("Add two numbers")]
    #[param(a, "The first number")]
    #[param(b, "The second number")]
    pub fn add(&self, a: f64, b: f64) -> f64 {
        a + b
    }
}

#[tokio::main]
async fn main() -> Result<(), mcp_server::Error> {
    let mut args = std::env::args().skip(1);
    let (Some("--port"), Some(Ok(port))) = (
        args.next().as_deref(),
        args.next().map(|p| p.parse::<u16>()),
    ) else {
        eprintln!("usage: bench-ours-http --port PORT");
        std::process::exit(2);
    };
    Server::builder("bench", env!("CARGO_PKG_VERSION"))
        .toolbox(Bench)
        .build()
        .serve_http(("127.0.0.1", port), HttpConfig::default())
        .await
}
