//! A fetch MCP server over stdio: `get`, `post` and `fetch`, public addresses only.
//!
//! Run with: `cargo run -p mcp-examples --bin fetch -- [--allow-host HOST[:PORT]]... [--ignore-robots-txt]`.
//! Each `--allow-host` lets one host (on any port, or on the port named)
//! be reached even when its addresses are not public: a local service, say
//! `--allow-host localhost:8080`. `--timeout-ms MS` and
//! `--max-response-bytes N` change the limits (30 s and 5 MiB by default).
//! `fetch` asks the site for `/robots.txt` first and refuses a page it
//! forbids to our user agent, as the reference fetch server does;
//! `--ignore-robots-txt` skips that check (`get` and `post` never make it).

use std::time::Duration;

use clap::error::ErrorKind;
use clap::{CommandFactory, Parser};
use oxmcp_server::Server;
use oxmcp_toolbox::http::{Http, HttpBuilder};

use mcp_examples::command_line;
use mcp_examples::stderr_logs;

/// A fetch MCP server over stdio: `get`, `post` and `fetch`, public addresses only.
#[derive(Debug, Parser)]
#[command(
    name = "fetch",
    version,
    args_override_self = true,
    after_help = "Examples:\n  \
        fetch                                       # public addresses only\n  \
        fetch --allow-host localhost:8080 --ignore-robots-txt\n  \
        fetch --timeout-ms 5000 --max-response-bytes 1048576"
)]
struct Args {
    /// Let HOST (on any port, or on PORT) be reached even when its
    /// addresses are not public (a local service, say).
    #[arg(long, value_name = "HOST[:PORT]")]
    allow_host: Vec<String>,
    /// Give up on a request after MS milliseconds (30 s by default).
    #[arg(long, value_name = "MS")]
    timeout_ms: Option<u64>,
    /// Refuse a response longer than N bytes (5 MiB by default).
    #[arg(long, value_name = "N")]
    max_response_bytes: Option<usize>,
    /// Let `fetch` read pages the site's robots.txt forbids to our user agent.
    #[arg(long)]
    ignore_robots_txt: bool,
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let args = command_line::parse::<Args>();
    let result = run(&args).await;
    stderr_logs::report("fetch", result)
}

async fn run(args: &Args) -> Result<(), oxmcp_server::Error> {
    stderr_logs::init("warn");
    let http = match configure(Http::builder(), args) {
        Ok(builder) => builder.build(),
        Err(e) => Args::command().error(ErrorKind::ValueValidation, e).exit(),
    };
    Server::builder("fetch", env!("CARGO_PKG_VERSION"))
        .instructions("Fetch web pages (as Markdown) and make HTTP requests to public addresses.")
        .toolbox(http)
        .build()
        .serve_stdio()
        .await
}

/// The builder with the command line's options applied.
fn configure(mut builder: HttpBuilder, args: &Args) -> Result<HttpBuilder, String> {
    for host in &args.allow_host {
        builder = builder
            .allow(host)
            .map_err(|e| format!("--allow-host: {e}"))?;
    }
    if let Some(ms) = args.timeout_ms {
        builder = builder.timeout(Duration::from_millis(ms));
    }
    if let Some(n) = args.max_response_bytes {
        builder = builder.max_response_bytes(n);
    }
    if args.ignore_robots_txt {
        builder = builder.ignore_robots_txt();
    }
    Ok(builder)
}
