//! `mcp completions SHELL`: the shell's completion script for `mcp`, on
//! stdout, from the same command definition the parser uses (`clap_complete`).

use clap::CommandFactory;

/// `mcp completions SHELL`.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
    mcp completions bash > ~/.local/share/bash-completion/completions/mcp\n  \
    mcp completions zsh > ~/.zfunc/_mcp\n  \
    mcp completions fish > ~/.config/fish/completions/mcp.fish")]
pub(crate) struct Completions {
    /// The shell.
    shell: clap_complete::Shell,
}

/// Writes the script for the shell asked for.
pub(crate) fn run(args: &Completions) {
    let mut command = crate::Cli::command();
    clap_complete::generate(args.shell, &mut command, "mcp", &mut std::io::stdout());
}
