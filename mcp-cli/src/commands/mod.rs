//! The commands, one module each.

mod call;
mod check;
mod completions;
mod dev;
mod install;
mod list;
mod new;
mod prompt;
mod read;

/// What `mcp` can do.
#[derive(Debug, clap::Subcommand)]
pub(crate) enum Command {
    /// List a server's tools, prompts and resources.
    List(list::Args),
    /// Call a tool.
    Call(call::Args),
    /// Read a resource.
    Read(read::Args),
    /// Get a prompt.
    Prompt(prompt::Args),
    /// Check a server for what breaks hosts and models.
    Check(check::Args),
    /// Add a server to a host's config file (Claude Code, Claude Desktop,
    /// Cursor, VS Code, Gemini CLI, Codex).
    Install(install::Install),
    /// Remove a server from a host's config file.
    Uninstall(install::Uninstall),
    /// Create a project: a server (stdio or HTTP, with prompts and
    /// resources) or an agent, that builds and whose test passes.
    New(new::New),
    /// Build and run a server, rebuilding and restarting it on change.
    Dev(dev::Dev),
    /// Print the completion script for a shell (bash, zsh, fish, elvish,
    /// PowerShell).
    Completions(completions::Completions),
}

/// Runs `command`; the error is the one line the user reads.
pub(crate) async fn run(command: Command) -> Result<(), String> {
    match command {
        Command::List(args) => list::run(args).await,
        Command::Call(args) => call::run(args).await,
        Command::Read(args) => read::run(args).await,
        Command::Prompt(args) => prompt::run(args).await,
        Command::Check(args) => check::run(args).await,
        // File edits and a release build: blocking work, off the runtime.
        Command::Install(args) => blocking(move || install::install(&args)).await,
        Command::Uninstall(args) => blocking(move || install::uninstall(&args)).await,
        Command::New(args) => blocking(move || new::run(&args).map_err(|e| e.to_string())).await,
        Command::Dev(args) => dev::run(args).await,
        Command::Completions(args) => {
            completions::run(&args);
            Ok(())
        }
    }
}

/// Runs a command that blocks (files, child processes waited for) on
/// tokio's blocking pool.
async fn blocking(f: impl FnOnce() -> Result<(), String> + Send + 'static) -> Result<(), String> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| format!("the command stopped unexpectedly: {e}"))?
}
