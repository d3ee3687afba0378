//! A server whose tool prints to stdout with `println!`, the classic way to
//! corrupt a stdio MCP server. The framework routes the stray text to stderr;
//! the protocol stream stays clean.
//!
//! Run with: `cargo run -p mcp-examples --bin stdout_guard` (speaks MCP on stdio).

use oxmcp_server::{tool, Server};

/// A careless toolbox.
#[derive(Debug)]
pub struct Careless;

#[tool(description = "Tools written without thinking about stdout")]
impl Careless {
    #[describe("Say hello, printing debug output on the way")]
    pub fn hello(&self, #[param("Who to greet")] name: String) -> String {
        println!("DEBUG: greeting {name}");
        print!("no newline either");
        format!("Hello, {name}!")
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::process::ExitCode {
    let result = run().await;
    stderr_logs::report("stdout_guard", result)
}

async fn run() -> Result<(), oxmcp_server::Error> {
    // Printing before `serve_stdio` starts is not guarded: the protocol has
    // not claimed stdout yet. Log to stderr instead.
    eprintln!("careless server starting");
    Server::builder("careless", env!("CARGO_PKG_VERSION"))
        .toolbox(Careless)
        .build()
        .serve_stdio()
        .await
}

use mcp_examples::stderr_logs;
