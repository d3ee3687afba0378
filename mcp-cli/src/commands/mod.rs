//! The commands, one module each.

/// What `mcp` can do.
#[derive(Debug, clap::Subcommand)]
pub(crate) enum Command {}

/// Runs `command`; the error is the one line the user reads.
pub(crate) async fn run(command: Command) -> Result<(), String> {
    match command {}
}
