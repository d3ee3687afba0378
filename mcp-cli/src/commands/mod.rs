//! The commands, one module each.

mod dev;
mod new;

/// What `mcp` can do.
#[derive(Debug, clap::Subcommand)]
pub(crate) enum Command {
    New(new::New),
    Dev(dev::Dev),
}

/// Runs `command`; the error is the one line the user reads.
pub(crate) async fn run(command: Command) -> Result<(), String> {
    match command {
        // Files written with std's blocking calls: off the runtime's threads.
        Command::New(args) => tokio::task::spawn_blocking(move || new::run(&args))
            .await
            .map_err(|e| format!("mcp new stopped: {e}"))?
            .map_err(|e| e.to_string()),
        Command::Dev(args) => dev::run(args).await,
    }
}
