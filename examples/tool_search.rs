//! A server with more tools than a model should read at once, in tool
//! search mode: 300 tools (three domains of 100, each a verb on an object:
//! `billing_refund_invoice`, `github_create_issue`, ...), of which
//! `tools/list` offers the pinned ones and `search_tools`; every tool stays
//! callable by name.
//!
//! Run with: `cargo run -p mcp-examples --bin tool_search` (speaks MCP on
//! stdio). Call `search_tools` with `{"query": "refund an invoice"}`, then
//! the first match with `{"invoice_id": "in_42"}`. `--pin NAME` (repeatable)
//! lists a tool beside the search tool; `--limit N` sets how many matches a
//! search returns by default (at most 20); without `--search` every tool is
//! listed, to compare.

use clap::Parser;
use mcp_examples::{command_line, stderr_logs};
use mcp_test_support::tool_catalog::catalog;
use oxmcp_server::tool::search::{ToolSearch, DEFAULT_MAX_LIMIT};
use oxmcp_server::Server;

/// The command line.
#[derive(Debug, Parser)]
#[command(about = "300 tools in tool search mode, over stdio")]
struct Args {
    /// Serve in tool search mode (else every tool is listed).
    #[arg(long)]
    search: bool,
    /// A tool listed beside the search tool (repeatable).
    #[arg(long = "pin", value_name = "NAME")]
    pins: Vec<String>,
    /// How many matches a search returns when its call gives no limit.
    #[arg(long, default_value_t = oxmcp_server::tool::search::DEFAULT_LIMIT)]
    limit: usize,
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::process::ExitCode {
    let args: Args = command_line::parse();
    // A pinned tool that does not exist, a bad limit: refused here, by name
    // (exit 2, as a refused command line).
    let server = match server(args) {
        Ok(server) => server,
        Err(why) => {
            eprintln!("tool_search: {why}");
            return std::process::ExitCode::from(2);
        }
    };
    stderr_logs::report("tool_search", server.serve_stdio().await)
}

fn server(args: Args) -> Result<Server, oxmcp_server::Error> {
    let mut builder = Server::builder("tool_search", env!("CARGO_PKG_VERSION"));
    for domain in ["github", "calendar", "billing"] {
        builder = builder.tools(catalog(domain, 100));
    }
    if args.search {
        let search = ToolSearch::new()
            .pin(args.pins)
            .limits(args.limit, DEFAULT_MAX_LIMIT.max(args.limit));
        builder = builder.tool_search(search);
    }
    builder.try_build()
}
