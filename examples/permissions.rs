//! Least privilege over HTTP: every caller sees the public tools; only a
//! caller presenting the admin token sees (and may call) the admin toolbox.
//! Toolboxes can also be switched off for everyone at run time.
//!
//! Run with: `cargo run -p mcp-examples --bin permissions -- --port 3002`, then
//! list tools with and without `Authorization: Bearer let-me-in`.

use clap::Parser;
use oxmcp_server::http::HttpConfig;
use oxmcp_server::{tool, Server};

/// Tools anyone may use.
#[derive(Debug)]
pub struct Public;

#[tool(description = "Tools for everyone")]
impl Public {
    #[describe("The server's status")]
    pub fn status(&self) -> String {
        "all systems nominal".into()
    }
}

/// Tools for administrators only.
#[derive(Debug)]
pub struct Admin;

#[tool(description = "Administration")]
impl Admin {
    #[describe("Flush every cache")]
    #[tool(destructive, idempotent)]
    pub fn flush_caches(&self) -> String {
        "caches flushed".into()
    }
}

/// The admin token (read it from the environment in a real server).
const ADMIN_TOKEN: &str = "Bearer let-me-in";

/// Least privilege over HTTP: admin tools for the admin token only.
#[derive(Debug, Parser)]
#[command(
    name = "permissions",
    version,
    after_help = "Examples:\n  \
        permissions                                 # http://127.0.0.1:3002/mcp\n  \
        permissions --port 0"
)]
struct Args {
    /// Serve MCP at `http://127.0.0.1:PORT/mcp` (0 picks a free port; stderr names it).
    #[arg(long, value_name = "PORT", default_value_t = 3002)]
    port: u16,
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let result = run().await;
    stderr_logs::report("permissions", result)
}

async fn run() -> Result<(), oxmcp_server::Error> {
    let port = command_line::parse::<Args>().port;
    let server = Server::builder("permissions", env!("CARGO_PKG_VERSION"))
        .toolbox(Public)
        .toolbox(Admin)
        .visibility(|caller, tool| {
            tool.toolbox != "Admin" || caller.header("authorization") == Some(ADMIN_TOKEN)
        })
        .build();
    // A switch for everyone, e.g. during maintenance: server.handle().disable_toolbox("Admin");
    // `--port 0` picks a free port; the line below names it.
    mcp_examples::serve::http_until_stopped(server, ("127.0.0.1", port), HttpConfig::default())
        .await
}

use mcp_examples::command_line;
use mcp_examples::stderr_logs;
