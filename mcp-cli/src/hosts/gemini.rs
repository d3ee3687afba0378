//! Gemini CLI.
//!
//! Documented in google-gemini/gemini-cli `docs/tools/mcp-server.md`
//! (geminicli.com/docs/tools/mcp-server): `.gemini/settings.json` in the
//! project, `~/.gemini/settings.json` for the user; `mcpServers`, an entry
//! per name: `{"command", "args", "env"}` for a server it starts,
//! `{"httpUrl"}` for Streamable HTTP (`url` there means the older SSE
//! transport).

use std::path::{Path, PathBuf};

use super::json::{command_entry, Value};
use super::{Scope, Server};

pub(super) fn file(scope: Scope, project: &Path) -> Option<PathBuf> {
    super::dot_dir_file(scope, project, ".gemini", "settings.json")
}

pub(super) fn entry(server: &Server) -> Value {
    match server {
        Server::Stdio { command, args, env } => command_entry(None, command, args, env),
        Server::Http { url } => Value::object([("httpUrl", Value::string(url))]),
    }
}
