//! `files [--read-only] ROOT...`: the files toolbox over stdio, a drop-in for the reference filesystem server.
//!
//! Register it as `{"command": "/path/to/files", "args": ["/home/me/project"]}`
//! where a host ran `npx @modelcontextprotocol/server-filesystem /home/me/project`.
//! Writing is on unless `--read-only` is given (then `write_file`,
//! `edit_file`, `create_directory` and `move_file` are not offered). A
//! client that offers roots narrows the directories to those inside them.

use std::path::PathBuf;

use clap::Parser;
use oxmcp_server::Server;
use oxmcp_toolbox::files::Files;

use mcp_examples::command_line;
use mcp_examples::stderr_logs;

/// The files toolbox over stdio: paths outside the ROOTs are refused.
#[derive(Debug, Parser)]
#[command(
    name = "files",
    version,
    args_override_self = true,
    after_help = "Examples:\n  \
        files ~/project                             # read and write inside ~/project\n  \
        files --read-only ~/project ~/notes"
)]
struct Args {
    /// Offer only the tools that read (no `write_file`, `edit_file`,
    /// `create_directory` or `move_file`).
    #[arg(long)]
    read_only: bool,
    /// The directories the tools may reach (a client's roots may narrow them).
    #[arg(value_name = "ROOT", required = true)]
    roots: Vec<PathBuf>,
}

#[tokio::main]
async fn main() {
    let Args { read_only, roots } = command_line::parse::<Args>();
    stderr_logs::init("warn");
    let files = match Files::builder().roots(roots).read_only(read_only).build() {
        Ok(files) => files,
        Err(e) => {
            eprintln!("files: {}", oxmcp_server::types::error::Chain(&e));
            std::process::exit(2);
        }
    };
    let server = Server::builder("files", env!("CARGO_PKG_VERSION"))
        .instructions("Files inside the allowed directories: call list_allowed_directories first.")
        .toolbox(files)
        .build();
    if let Err(e) = server.serve_stdio().await {
        eprintln!("files: {e}");
        std::process::exit(1);
    }
}
