//! Serves the tools over stdio: a host (Claude Desktop, Claude Code, ...)
//! starts this program and speaks MCP on its stdin and stdout. Nothing
//! else may be written to stdout; log to stderr.

#[tokio::main]
async fn main() -> std::process::ExitCode {
    match {{crate}}::server().serve_stdio().await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{{name}}: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
