//! Our server on the benchmark's workload: one tool, `add(a: f64, b: f64)`,
//! returning the sum as text, served over stdio exactly as a user would write it.
//!
//! By default it runs on `#[tokio::main]`'s multi-threaded runtime, as the
//! examples do; `--current-thread` uses a current-thread runtime instead, the
//! configuration rmcp's best run uses.

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

fn main() -> Result<(), mcp_server::Error> {
    let mut builder = if std::env::args().any(|a| a == "--current-thread") {
        tokio::runtime::Builder::new_current_thread()
    } else {
        tokio::runtime::Builder::new_multi_thread()
    };
    let runtime = builder.enable_all().build()?;
    runtime.block_on(
        Server::builder("bench", env!("CARGO_PKG_VERSION"))
            .toolbox(Bench)
            .build()
            .serve_stdio(),
    )
}
