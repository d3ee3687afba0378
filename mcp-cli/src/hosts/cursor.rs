//! Cursor.
//!
//! Documented at cursor.com/docs/mcp: `.cursor/mcp.json` in the project,
//! `~/.cursor/mcp.json` for every project; `mcpServers`, an entry per
//! name: `{"command", "args", "env"}` for a server it starts, `{"url"}` for
//! a remote one (Streamable HTTP or SSE).

use std::path::{Path, PathBuf};

use super::json::{command_entry, Value};
use super::{Scope, Server};

pub(super) fn file(scope: Scope, project: &Path) -> Option<PathBuf> {
    super::dot_dir_file(scope, project, ".cursor", "mcp.json")
}

pub(super) fn entry(server: &Server) -> Value {
    match server {
        Server::Stdio { command, args, env } => command_entry(None, command, args, env),
        Server::Http { url } => Value::object([("url", Value::string(url))]),
    }
}
