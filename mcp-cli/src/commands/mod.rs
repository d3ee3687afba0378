//! The commands, one module each.

mod call;
mod check;
mod list;
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
}

/// Runs `command`; the error is the one line the user reads.
pub(crate) async fn run(command: Command) -> Result<(), String> {
    match command {
        Command::List(args) => list::run(args).await,
        Command::Call(args) => call::run(args).await,
        Command::Read(args) => read::run(args).await,
        Command::Prompt(args) => prompt::run(args).await,
        Command::Check(args) => check::run(args).await,
    }
}
