//! Claude Code.
//!
//! Documented at code.claude.com/docs/en/mcp ("MCP installation scopes"):
//! the project scope is `.mcp.json` at the project's root, the user scope
//! the top-level `mcpServers` of `~/.claude.json` (in `$CLAUDE_CONFIG_DIR`
//! when that is set); both hold `mcpServers`, an entry per name:
//! `{"type": "stdio", "command", "args", "env"}` for a server it starts,
//! `{"type": "http", "url"}` for a Streamable HTTP one. This is what
//! `claude mcp add --scope project|user` writes.

use std::path::{Path, PathBuf};

use super::Scope;

pub(super) fn file(scope: Scope, project: &Path) -> Option<PathBuf> {
    match scope {
        Scope::Project => Some(project.join(".mcp.json")),
        Scope::User => match std::env::var_os("CLAUDE_CONFIG_DIR") {
            Some(dir) if !dir.is_empty() => Some(PathBuf::from(dir).join(".claude.json")),
            _ => super::home().map(|h| h.join(".claude.json")),
        },
    }
}
