//! Our server on the HTTP benchmark's workload: one tool, `add(a: f64, b: f64)`,
//! served over Streamable HTTP at `http://127.0.0.1:PORT/mcp` (legacy sessions
//! and the stateless 2026-07-28 era), exactly as a user would write it.
//!
//! `--redis URL` shares the state through `oxmcp-redis` (a `RedisStore` given
//! to `HttpConfig::store`), as an instance of a multi-instance service would.

use oxmcp_server::http::HttpConfig;
use oxmcp_server::{tool, Server};

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

const USAGE: &str = "usage: bench-ours-http --port PORT [--redis URL]";

/// `--port PORT` and optionally `--redis URL`, in any order.
fn parse_args() -> Option<(u16, Option<String>)> {
    let mut port = None;
    let mut redis = None;
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        match flag.as_str() {
            "--port" => port = Some(args.next()?.parse::<u16>().ok()?),
            "--redis" => redis = Some(args.next()?),
            _ => return None,
        }
    }
    Some((port?, redis))
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let Some((port, redis)) = parse_args() else {
        eprintln!("{USAGE}");
        std::process::exit(2);
    };
    let mut config = HttpConfig::default();
    if let Some(url) = redis {
        let store = oxmcp_redis::RedisStore::connect(&url)
            .await
            .map_err(|e| format!("connecting to Redis at {url}: {e}"))?;
        config = config.store(store);
    }
    Server::builder("bench", env!("CARGO_PKG_VERSION"))
        .toolbox(Bench)
        .build()
        .serve_http(("127.0.0.1", port), config)
        .await?;
    Ok(())
}
