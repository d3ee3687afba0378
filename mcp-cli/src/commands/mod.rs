//! The commands, one module each.

mod install;

/// What `mcp` can do.
#[derive(Debug, clap::Subcommand)]
pub(crate) enum Command {
    /// Add a server to a host's config file (Claude Code, Claude Desktop,
    /// Cursor, VS Code, Gemini CLI, Codex).
    Install(install::Install),
    /// Remove a server from a host's config file.
    Uninstall(install::Uninstall),
}

/// Runs `command`; the error is the one line the user reads.
pub(crate) async fn run(command: Command) -> Result<(), String> {
    match command {
        // File edits and a release build: blocking work, off the runtime.
        Command::Install(args) => blocking(move || install::install(&args)).await,
        Command::Uninstall(args) => blocking(move || install::uninstall(&args)).await,
    }
}

/// Runs a command that blocks (files, child processes waited for) on
/// tokio's blocking pool.
async fn blocking(f: impl FnOnce() -> Result<(), String> + Send + 'static) -> Result<(), String> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| format!("the command stopped unexpectedly: {e}"))?
}
