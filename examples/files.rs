//! `files [--read-only] ROOT...`: the files toolbox over stdio, a drop-in for the reference filesystem server.
//!
//! Register it as `{"command": "/path/to/files", "args": ["/home/me/project"]}`
//! where a host ran `npx @modelcontextprotocol/server-filesystem /home/me/project`.
//! Writing is on unless `--read-only` is given (then `write_file`,
//! `edit_file`, `create_directory` and `move_file` are not offered). A
//! client that offers roots narrows the directories to those inside them.

use mcp_server::Server;
use mcp_toolbox::files::Files;

const USAGE: &str = "usage: files [--read-only] ROOT...   (serves MCP over stdio; paths outside the ROOTs are refused)";

use mcp_examples::stderr_logs;

#[tokio::main]
async fn main() {
    stderr_logs::init("warn");
    let mut read_only = false;
    let mut roots = Vec::new();
    let mut options_done = false;
    for arg in std::env::args_os().skip(1) {
        match arg.to_str() {
            Some("--read-only") if !options_done => read_only = true,
            Some("--") if !options_done => options_done = true,
            Some("-h" | "--help") if !options_done => {
                println!("{USAGE}");
                return;
            }
            Some(s) if s.starts_with('-') && !options_done => {
                eprintln!("files: unknown option {s}\n{USAGE}");
                std::process::exit(2);
            }
            _ => roots.push(std::path::PathBuf::from(arg)),
        }
    }
    if roots.is_empty() {
        eprintln!("files: name at least one directory\n{USAGE}");
        std::process::exit(2);
    }
    let files = match Files::builder().roots(roots).read_only(read_only).build() {
        Ok(files) => files,
        Err(e) => {
            eprintln!("files: {}", mcp_server::types::error::Chain(&e));
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
