//! Claude Desktop.
//!
//! Documented at modelcontextprotocol.io ("Connect to local MCP servers")
//! and Anthropic's help centre: `claude_desktop_config.json` in
//! `~/Library/Application Support/Claude/` on macOS,
//! `%APPDATA%\Claude\` on Windows and `~/.config/Claude/` on Linux (the
//! platform's config directory each time, as `dirs::config_dir` gives it);
//! `mcpServers`, an entry per name: `{"command", "args", "env"}`. The file
//! holds only servers the app starts: remote servers are added in its
//! settings (Connectors), so a URL is refused here. It has one scope, the
//! user's.

use std::path::PathBuf;

use super::json::{command_entry, Value};
use super::{Host, HostError, Scope, Server};

pub(super) fn file(scope: Scope) -> Option<PathBuf> {
    match scope {
        Scope::Project => None,
        Scope::User => {
            dirs::config_dir().map(|d| d.join("Claude").join("claude_desktop_config.json"))
        }
    }
}

pub(super) fn entry(server: &Server) -> Result<Value, HostError> {
    match server {
        Server::Stdio { command, args, env } => Ok(command_entry(None, command, args, env)),
        Server::Http { .. } => Err(HostError::UrlUnsupported(Host::ClaudeDesktop)),
    }
}
