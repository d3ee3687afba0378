//! A calculator MCP server: the framework's main example.
//!
//! Run with: `cargo run -p mcp-examples --bin calculator` (it then speaks MCP
//! on stdin/stdout; the README shows a full round trip and how to register it
//! in Claude Desktop or Claude Code), or
//! `cargo run -p mcp-examples --bin calculator -- --http 127.0.0.1:3000` to
//! serve Streamable HTTP at `http://127.0.0.1:3000/mcp` (both protocol eras)
//! and the legacy HTTP+SSE transport at `/sse`.

use std::time::Duration;

use mcp_server::http::HttpConfig;
use mcp_server::{tool, Context, Json, Server, ToolError};
use schemars::JsonSchema;
use serde::Serialize;

/// Arithmetic with one memory register.
#[derive(Debug, Default)]
pub struct Calculator {
    memory: f64,
}

/// Summary statistics of a list of numbers.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Stats {
    /// How many numbers there are.
    pub count: usize,
    /// Their sum.
    pub sum: f64,
    /// Their arithmetic mean.
    pub mean: f64,
    /// The smallest.
    pub min: f64,
    /// The largest.
    pub max: f64,
}

#[tool(description = "Arithmetic on two numbers, with one memory register")]
impl Calculator {
    #[describe("Add two numbers")]
    #[param(a, "The first number")]
    #[param(b, "The second number")]
    #[tool(read_only, idempotent, open_world = false)]
    pub fn add(&self, a: f64, b: f64) -> f64 {
        a + b
    }

    #[describe("Subtract b from a")]
    #[param(a, "The first number")]
    #[param(b, "The second number")]
    #[tool(read_only, idempotent, open_world = false)]
    pub fn subtract(&self, a: f64, b: f64) -> f64 {
        a - b
    }

    #[describe("Multiply two numbers")]
    #[param(a, "The first number")]
    #[param(b, "The second number")]
    #[tool(read_only, idempotent, open_world = false)]
    pub fn multiply(&self, a: f64, b: f64) -> f64 {
        a * b
    }

    #[describe("Divide a by b")]
    #[tool(read_only, idempotent, open_world = false)]
    pub fn divide(
        &self,
        #[param("The first number")] a: f64,
        #[param("The second number")] b: f64,
    ) -> Result<f64, ToolError> {
        if b == 0.0 {
            return Err(ToolError::new("division by zero"));
        }
        Ok(a / b)
    }

    #[describe("Store a value in memory and return the previous one")]
    #[tool(open_world = false, destructive = false)]
    pub fn store(&mut self, #[param("The value to store")] value: f64) -> f64 {
        std::mem::replace(&mut self.memory, value)
    }

    #[describe("Return the value in memory")]
    #[tool(read_only, open_world = false)]
    pub fn recall(&self) -> f64 {
        self.memory
    }

    #[describe("Summary statistics of a list of numbers")]
    #[tool(read_only, idempotent, open_world = false)]
    pub fn stats(
        &self,
        #[param("The numbers to summarise")] values: Vec<f64>,
    ) -> Result<Json<Stats>, ToolError> {
        if values.is_empty() {
            return Err(ToolError::new("no values"));
        }
        let sum: f64 = values.iter().sum();
        #[allow(clippy::cast_precision_loss)] // a list longer than 2^52 does not fit in memory
        let mean = sum / values.len() as f64;
        Ok(Json(Stats {
            count: values.len(),
            sum,
            mean,
            min: values.iter().copied().fold(f64::INFINITY, f64::min),
            max: values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        }))
    }

    #[describe("Count to n, reporting progress")]
    #[tool(read_only, open_world = false)]
    pub async fn count_to(
        &self,
        #[param("The number to count to")] n: u32,
        ctx: Context,
    ) -> String {
        for i in 1..=n {
            tokio::select! {
                () = ctx.cancelled() => return format!("cancelled at {i}"),
                () = tokio::time::sleep(Duration::from_millis(10)) => {}
            }
            ctx.progress_with_message(f64::from(i), Some(f64::from(n)), format!("{i}/{n}"));
        }
        format!("counted to {n}")
    }
}

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
