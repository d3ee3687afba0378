//! Visual Studio Code.
//!
//! Documented at code.visualstudio.com/docs/copilot/reference/mcp-configuration
//! ("MCP configuration reference"): `mcp.json` in the workspace's `.vscode/`
//! or in the user profile (`Code/User/mcp.json` in the platform's config
//! directory: `~/Library/Application Support` on macOS, `%APPDATA%` on
//! Windows, `~/.config` on Linux). Its top-level key is `servers`, not
//! `mcpServers`, and `type` is required: `{"type": "stdio", "command",
//! "args", "env"}` or `{"type": "http", "url"}`.

use std::path::{Path, PathBuf};

use super::Scope;

pub(super) const SERVERS_KEY: &str = "servers";

pub(super) fn file(scope: Scope, project: &Path) -> Option<PathBuf> {
    match scope {
        Scope::Project => Some(project.join(".vscode").join("mcp.json")),
        Scope::User => dirs::config_dir().map(|d| d.join("Code").join("User").join("mcp.json")),
    }
}
