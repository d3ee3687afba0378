//! Large results and the limits around them: a report of 200,000
//! characters under the default cap (cut at 100,000, with a marker), the
//! same under a small cap of its own with the whole kept for its caller
//! (a resource link), and under a raised cap (announced to Claude hosts);
//! a long list of orders as structured content (items dropped until it
//! fits); a picture (never cut); a stock quote cached per caller; and a
//! rate limit per caller on every call.
//!
//! Run with `cargo run -p mcp-examples --bin reports` (stdio), or
//! `cargo run -p mcp-examples --bin reports -- --http 127.0.0.1:3000`
//! (Streamable HTTP at `http://127.0.0.1:3000/mcp`; port 0 picks a free
//! port, and the line it prints on stderr names it).

use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use clap::Parser;
use mcp_examples::{command_line, serve, stderr_logs};
use oxmcp_server::http::HttpConfig;
use oxmcp_server::policy::{Rate, RateLimit};
use oxmcp_server::types::ContentBlock;
use oxmcp_server::{tool, Json, Server};
use schemars::JsonSchema;
use serde::Serialize;

/// How long a report is: twice the default cap.
const REPORT_CHARS: usize = 200_000;

/// One order.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Order {
    /// Its number.
    id: u32,
    /// Who ordered.
    customer: String,
    /// What it cost, in cents.
    cents: u64,
}

/// Every order of a quarter.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Orders {
    /// How many orders there were.
    total: u32,
    /// The orders, in order.
    orders: Vec<Order>,
}

/// The reports.
#[derive(Debug, Default)]
pub struct Reports {
    /// How many quotes were looked up (a cached quote is not).
    lookups: Arc<AtomicU64>,
}

/// A quarter's report: `REPORT_CHARS` characters, lines numbered.
fn report_text(quarter: &str) -> String {
    let mut text = String::with_capacity(REPORT_CHARS);
    let mut line = 0;
    while text.len() < REPORT_CHARS {
        line += 1;
        let _ = writeln!(text, "{quarter} line {line:06}: revenue up, costs down.");
    }
    text.truncate(REPORT_CHARS);
    text
}

/// A `side`×`side` picture in the BMP format (24-bit, bottom-up rows), a
/// diagonal gradient.
fn picture(side: u32) -> Vec<u8> {
    let row = (side * 3).div_ceil(4) * 4;
    let pixels = row * side;
    let mut bmp = Vec::with_capacity(54 + pixels as usize);
    bmp.extend_from_slice(b"BM");
    bmp.extend_from_slice(&(54 + pixels).to_le_bytes());
    bmp.extend_from_slice(&[0; 4]);
    bmp.extend_from_slice(&54u32.to_le_bytes());
    bmp.extend_from_slice(&40u32.to_le_bytes());
    bmp.extend_from_slice(&side.to_le_bytes());
    bmp.extend_from_slice(&side.to_le_bytes());
    bmp.extend_from_slice(&1u16.to_le_bytes());
    bmp.extend_from_slice(&24u16.to_le_bytes());
    bmp.extend_from_slice(&[0; 4]);
    bmp.extend_from_slice(&pixels.to_le_bytes());
    bmp.extend_from_slice(&[0; 16]);
    for y in 0..side {
        for x in 0..side {
            let shade = u8::try_from((x + y) * 255 / (2 * side)).unwrap_or(255);
            bmp.extend_from_slice(&[shade, 128, 255 - shade]);
        }
        bmp.resize(bmp.len() + (row - side * 3) as usize, 0);
    }
    bmp
}

#[tool(description = "Quarterly reports, orders, charts and quotes")]
impl Reports {
    #[describe("The full report of a quarter (long: cut to the server's cap)")]
    #[tool(read_only)]
    pub fn report(&self, #[param("The quarter, e.g. 2026-Q3")] quarter: String) -> String {
        report_text(&quarter)
    }

    #[describe("The report of a quarter, its first 20,000 characters; the whole stays readable for 10 minutes at the link the result carries")]
    #[tool(read_only, max_result_chars = 20_000, keep_full_result = "10m")]
    pub fn summary(&self, #[param("The quarter, e.g. 2026-Q3")] quarter: String) -> String {
        report_text(&quarter)
    }

    #[describe("The report of a quarter, whole (a raised cap, announced to Claude hosts)")]
    #[tool(read_only, max_result_chars = 300_000)]
    pub fn full_report(&self, #[param("The quarter, e.g. 2026-Q3")] quarter: String) -> String {
        report_text(&quarter)
    }

    #[describe("Every order of the quarter, as structured content")]
    #[tool(read_only)]
    pub fn orders(&self) -> Json<Orders> {
        let orders: Vec<Order> = (1..=20_000)
            .map(|id| Order {
                id,
                customer: format!("customer {}", id % 997),
                cents: u64::from(id) * 137 % 100_000,
            })
            .collect();
        Json(Orders {
            total: 20_000,
            orders,
        })
    }

    #[describe("The revenue chart, a 300×300 picture")]
    #[tool(read_only)]
    pub fn chart(&self) -> ContentBlock {
        use base64::Engine as _;
        let data = base64::engine::general_purpose::STANDARD.encode(picture(300));
        ContentBlock::image(data, "image/bmp")
    }

    #[describe("The price of a stock, and how many lookups the server made so far (a cached answer is not a new lookup)")]
    #[tool(read_only, cache = "30s")]
    pub fn quote(&self, #[param("The stock's symbol, e.g. ACME")] symbol: String) -> String {
        let lookup = self.lookups.fetch_add(1, Ordering::Relaxed) + 1;
        let price = symbol.bytes().map(u64::from).sum::<u64>() % 500 + 10;
        format!("{symbol}: {price}.00 (lookup {lookup})")
    }
}

#[derive(Debug, Parser)]
#[command(
    name = "reports",
    version,
    after_help = "Examples:\n  \
                  reports\n  \
                  reports --http 127.0.0.1:3000 --rate 50"
)]
struct Args {
    /// Serve Streamable HTTP (both eras) at `http://ADDR/mcp` instead of
    /// stdio (port 0 picks a free port; stderr names it).
    #[arg(long, value_name = "ADDR")]
    http: Option<String>,
    /// Tool calls per second each caller may make (a burst of as many).
    #[arg(long, value_name = "N", default_value_t = 20)]
    rate: u32,
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let args = command_line::parse::<Args>();
    let result = run(&args).await;
    stderr_logs::report("reports", result)
}

async fn run(args: &Args) -> Result<(), oxmcp_server::Error> {
    stderr_logs::init("warn");
    let server = Server::builder("reports", env!("CARGO_PKG_VERSION"))
        .toolbox(Reports::default())
        .rate_limit(RateLimit::per_caller(Rate::per_second(args.rate)))
        .try_build()?;
    let Some(addr) = &args.http else {
        return server.serve_stdio().await;
    };
    stderr_logs::http_addr("reports", addr);
    serve::http_until_stopped(server, addr.as_str(), HttpConfig::default()).await
}
