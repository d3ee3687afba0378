//! Our server on the benchmark's workload: one tool, `add(a: f64, b: f64)`,
//! returning the sum as text, served over stdio exactly as a user would write it.
//!
//! By default it runs on `#[tokio::main]`'s multi-threaded runtime, as the
//! examples do; `--current-thread` uses a current-thread runtime instead, the
//! configuration rmcp's best run uses.
//!
//! `--otel-export` (built with the bench's `otel` feature) exports spans and
//! metrics as the `OTEL_*` variables say, through the `tracing` layer of
//! `oxmcp_otel::Telemetry`; without it, a server built with the feature has
//! no subscriber, which is what "on, no exporter" measures.

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

fn main() -> Result<(), oxmcp_server::Error> {
    let mut builder = if std::env::args().any(|a| a == "--current-thread") {
        tokio::runtime::Builder::new_current_thread()
    } else {
        tokio::runtime::Builder::new_multi_thread()
    };
    let runtime = builder.enable_all().build()?;
    let _telemetry = std::env::args()
        .any(|a| a == "--otel-export")
        .then(|| runtime.block_on(async { export() }));
    runtime.block_on(
        Server::builder("bench", env!("CARGO_PKG_VERSION"))
            .toolbox(Bench)
            .build()
            .serve_stdio(),
    )
}

/// Installs the OpenTelemetry layer, exporting as `OTEL_*` says.
#[cfg(feature = "otel")]
fn export() -> oxmcp_otel::Telemetry {
    use tracing_subscriber::prelude::*;
    let telemetry = oxmcp_otel::Telemetry::from_env("bench").unwrap_or_else(|e| {
        let why = oxmcp_server::types::error::Chain(&e);
        eprintln!("bench-ours-stdio: OpenTelemetry: {why}");
        std::process::exit(2);
    });
    tracing_subscriber::registry()
        .with(telemetry.layer())
        .init();
    telemetry
}

#[cfg(not(feature = "otel"))]
fn export() {
    eprintln!("bench-ours-stdio: --otel-export needs the bench built with --features otel");
    std::process::exit(2);
}
