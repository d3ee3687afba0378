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
//! stderr when one is allowed. See `oxmcp_toolbox::commands`.

use clap::error::ErrorKind;
use clap::{CommandFactory, Parser};
use oxmcp_server::Server;
use oxmcp_toolbox::commands::Commands;

use mcp_examples::command_line;
use mcp_examples::stderr_logs;

/// A stdio MCP server offering `exec` over an allow list of programs, in the current directory.
#[derive(Debug, Parser)]
#[command(
    name = "shell",
    version,
    after_help = "Examples:\n  \
        shell --allow date,wc,uname                 # exec runs these three\n  \
        shell                                       # no program allowed: no tool"
)]
struct Args {
    /// The programs `exec` may run, comma-separated (found on
    /// /usr/local/bin:/usr/bin:/bin; never one that runs others).
    #[arg(long, value_name = "PROGRAM[,PROGRAM...]")]
    allow: Option<String>,
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let args = command_line::parse::<Args>();
    let result = run(args.allow.as_deref()).await;
    stderr_logs::report("shell", result)
}

async fn run(allow: Option<&str>) -> Result<(), oxmcp_server::Error> {
    stderr_logs::init("warn");
    let programs: Vec<&str> = allow
        .map(|list| list.split(',').collect())
        .unwrap_or_default();
    let commands = programs
        .iter()
        .fold(Commands::builder(), |builder, program| {
            builder.allow(*program)
        })
        .build()
        .unwrap_or_else(|e| {
            let e = oxmcp_server::types::error::Chain(&e);
            Args::command()
                .error(ErrorKind::ValueValidation, format!("--allow: {e}"))
                .exit()
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
