//! `mcp`: the command line of this framework. Each command is a module of
//! its own under `commands/`; this file reads the command line and runs
//! the one asked for, mapping its outcome to the exit status (0 done, 1 a
//! failure the command explains on stderr, 2 a command line refused).

mod args;
mod commands;
mod hosts;
mod output;
mod target;

use clap::Parser;

/// Work with MCP servers: create, run, call, check and install them.
#[derive(Debug, Parser)]
#[command(name = "mcp", version, propagate_version = true)]
pub(crate) struct Cli {
    #[command(subcommand)]
    command: commands::Command,
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    match commands::run(cli.command).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("mcp: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
