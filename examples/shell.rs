//! A stdio MCP server offering `exec` over an allow list of programs, in the current directory.
//!
//! Run with `cargo run -p mcp-examples --bin shell -- --allow date,wc,uname`:
//! the `exec` tool then runs `date`, `wc` and `uname` (found on
//! `/usr/local/bin:/usr/bin:/bin`, with a scrubbed environment, the current
//! directory as working directory, no shell). Without `--allow` the server
//! starts with no tool at all. Every allowed program runs whatever arguments
//! the model writes, so allow none that runs other programs: not `git`
//! (`git -c 'alias.x=!cmd' x`, hooks), a shell, an interpreter (`python`,
//! `node`, `awk`), `env`, `xargs` or `find` (`-exec`); the server warns on
//! stderr when one is allowed. See `mcp_toolbox::commands`.

use mcp_server::Server;
use mcp_toolbox::commands::Commands;

const USAGE: &str = "usage: shell [--allow PROGRAM[,PROGRAM...]]   (serves MCP on stdio)";

use mcp_examples::stderr_logs;

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let result = run().await;
    stderr_logs::report("shell", result)
}

async fn run() -> Result<(), mcp_server::Error> {
    stderr_logs::init("warn");
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let programs: Vec<&str> = match args.as_slice() {
        [] => Vec::new(),
        ["--allow", list] => list.split(',').collect(),
        _ => fail(USAGE),
    };
    let commands = programs
        .iter()
        .fold(Commands::builder(), |builder, program| {
            builder.allow(*program)
        })
        .build()
        .unwrap_or_else(|e| {
            let e = mcp_server::types::error::Chain(&e);
            fail(&format!("shell: {e}\n{USAGE}"))
        });
    let instructions = if commands.allowed().is_empty() {
        "No program is allowed: this server offers no tool.".to_owned()
    } else {
        format!(
            "`exec` runs one of these programs, without a shell, in {}: {}.",
            commands.root().display(),
            commands.allowed().join(", ")
        )
    };
    Server::builder("shell", env!("CARGO_PKG_VERSION"))
        .instructions(instructions)
        .toolbox(commands)
        .build()
        .serve_stdio()
        .await
}

fn fail(message: &str) -> ! {
    eprintln!("{message}");
    std::process::exit(2);
}
