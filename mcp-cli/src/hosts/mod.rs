//! The hosts `mcp install` writes into: where each keeps its MCP servers
//! (a module per host, citing its documentation), the shape of an entry,
//! and the one edit they all go through (read, change in memory, back up
//! once, write whole).
//!
//! The hosts read these files themselves and users edit them by hand, so an
//! edit changes one entry and keeps the rest: the other keys in their
//! order, the file's indentation (`json.rs`), Codex's comments and layout
//! (`codex.rs`, through `toml_edit`).

mod claude_code;
mod claude_desktop;
mod codex;
mod cursor;
mod gemini;
mod json;
mod vscode;

use std::fmt;
use std::path::{Path, PathBuf};

/// A host that reads MCP servers from a config file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Host {
    ClaudeCode,
    ClaudeDesktop,
    Cursor,
    Vscode,
    GeminiCli,
    Codex,
}

impl Host {
    /// Every host, in the order help and errors list them.
    pub(crate) const ALL: [Host; 6] = [
        Host::ClaudeCode,
        Host::ClaudeDesktop,
        Host::Cursor,
        Host::Vscode,
        Host::GeminiCli,
        Host::Codex,
    ];

    /// The name typed on the command line.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Host::ClaudeCode => "claude-code",
            Host::ClaudeDesktop => "claude-desktop",
            Host::Cursor => "cursor",
            Host::Vscode => "vscode",
            Host::GeminiCli => "gemini-cli",
            Host::Codex => "codex",
        }
    }

    /// The host named `name`; the error lists the known ones.
    pub(crate) fn parse(name: &str) -> Result<Host, HostError> {
        Host::ALL
            .into_iter()
            .find(|h| h.name() == name)
            .ok_or_else(|| HostError::UnknownHost(name.to_owned()))
    }

    /// The config file this host reads for `scope`; `project` is the
    /// project directory (the current one).
    pub(crate) fn config_file(self, scope: Scope, project: &Path) -> Result<PathBuf, HostError> {
        let file = match self {
            Host::ClaudeCode => claude_code::file(scope, project),
            Host::ClaudeDesktop => claude_desktop::file(scope),
            Host::Cursor => cursor::file(scope, project),
            Host::Vscode => vscode::file(scope, project),
            Host::GeminiCli => gemini::file(scope, project),
            Host::Codex => codex::file(scope, project),
        };
        file.ok_or(HostError::NoLocation(self))
    }

    /// The entry written for `server`, for the JSON hosts; `None` for Codex.
    fn json_entry(self, server: &Server) -> Option<Result<json::Value, HostError>> {
        Some(match self {
            // Both name the transport in `type`.
            Host::ClaudeCode | Host::Vscode => Ok(json::typed_entry(server)),
            Host::ClaudeDesktop => claude_desktop::entry(server),
            Host::Cursor => Ok(cursor::entry(server)),
            Host::GeminiCli => Ok(gemini::entry(server)),
            Host::Codex => return None,
        })
    }

    /// What the host asks of the user before it starts a server from this
    /// scope's file, when it asks anything.
    pub(crate) fn first_start_note(self, scope: Scope) -> Option<&'static str> {
        match (self, scope) {
            (Host::ClaudeCode, Scope::Project) => Some("Claude Code asks you to approve a server from .mcp.json when it first starts in this project (or list it in `enabledMcpjsonServers` in its settings)"),
            (Host::GeminiCli, _) => Some("Gemini CLI starts MCP servers only in a folder you trusted (its trust dialog, ~/.gemini/trustedFolders.json)"),
            (Host::Codex, Scope::Project) => Some("Codex reads .codex/config.toml only in a project you trusted"),
            (Host::ClaudeDesktop, _) => Some("restart Claude Desktop to start the server"),
            _ => None,
        }
    }

    /// Where a JSON host's entries go in `file`: the key of the object
    /// that holds them, and what its reader takes beyond JSON.
    fn json(self, file: &str) -> json::Target<'_> {
        let (key, syntax) = match self {
            Host::Vscode => (vscode::SERVERS_KEY, json::Syntax::JSONC),
            Host::GeminiCli => ("mcpServers", json::Syntax::COMMENTS),
            _ => ("mcpServers", json::Syntax::JSON),
        };
        json::Target { file, syntax, key }
    }
}

impl fmt::Display for Host {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Where an entry goes: the project's file or the user's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Scope {
    /// The project's file (in the current directory), shared with the project.
    Project,
    /// The user's file, seen from every project.
    User,
}

/// What a host starts or connects to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Server {
    /// A child process spoken to over stdio; `command` is an absolute path.
    Stdio {
        command: String,
        args: Vec<String>,
        env: Vec<(String, String)>,
    },
    /// A Streamable HTTP endpoint.
    Http { url: String },
}

/// What an install or uninstall did to the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Change {
    Added,
    Replaced,
    /// The same entry was already there: the file was not written.
    Unchanged,
    Removed,
    /// No entry of that name: the file was not written.
    Absent,
}

impl Change {
    /// The word `--json` reports.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Change::Added => "added",
            Change::Replaced => "replaced",
            Change::Unchanged => "unchanged",
            Change::Removed => "removed",
            Change::Absent => "absent",
        }
    }
}

/// A refused install or uninstall; each names the fix.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub(crate) enum HostError {
    #[error("unknown host `{0}`: use one of {hosts}", hosts = host_names())]
    UnknownHost(String),
    #[error("{0} has no config file for this scope on this system: use the other --scope")]
    NoLocation(Host),
    #[error("{0} reads only servers it starts from its config file, not URLs: give a command (`-- COMMAND ARGS`), or add the URL in its settings")]
    UrlUnsupported(Host),
    #[error("{file} is not valid {format} ({detail}); the file was left untouched: fix it, or move it away to start a new one")]
    Parse {
        file: String,
        format: &'static str,
        detail: String,
    },
    #[error("{file}: `{key}` is not {expected}; the file was left untouched: fix it by hand")]
    Shape {
        file: String,
        key: String,
        expected: &'static str,
    },
    #[error("`{0}` is not a server name the hosts accept: use letters, digits, `-` and `_`")]
    BadName(String),
    #[error("a different server named `{name}` is already in {file}: pass --force to replace it, or choose another name")]
    Taken { name: String, file: String },
    #[error("cannot {action} {file}: {error}")]
    Io {
        action: &'static str,
        file: String,
        error: std::io::Error,
    },
}

fn host_names() -> String {
    Host::ALL.map(Host::name).join(", ")
}

/// Adds `server` as `name` to `host`'s file for `scope`; an entry of that
/// name is replaced only with `force`, and the same entry twice writes
/// nothing.
pub(crate) fn install(
    host: Host,
    file: &Path,
    name: &str,
    server: &Server,
    force: bool,
) -> Result<Change, HostError> {
    // Claude Code refuses any other name ("Names can only contain letters,
    // numbers, hyphens, and underscores"), and the hosts make tool names
    // such as `mcp__NAME__TOOL` from it.
    let valid = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
    if name.is_empty() || !name.chars().all(valid) {
        return Err(HostError::BadName(name.to_owned()));
    }
    let text = read(file)?;
    let label = file.display().to_string();
    let (new_text, change) = match host.json_entry(server) {
        Some(entry) => json::install(text.as_deref(), &host.json(&label), name, &entry?, force)?,
        None => codex::install(text.as_deref(), &label, name, server, force)?,
    };
    if let Some(new_text) = new_text {
        write(file, text.is_some(), &new_text)?;
    }
    Ok(change)
}

/// Removes the entry `name` from `host`'s file, if it is there.
pub(crate) fn uninstall(host: Host, file: &Path, name: &str) -> Result<Change, HostError> {
    let Some(text) = read(file)? else {
        return Ok(Change::Absent);
    };
    let label = file.display().to_string();
    let new_text = if host == Host::Codex {
        codex::uninstall(&text, &label, name)?
    } else {
        json::uninstall(&text, &host.json(&label), name)?
    };
    match new_text {
        Some(new_text) => {
            write(file, true, &new_text)?;
            Ok(Change::Removed)
        }
        None => Ok(Change::Absent),
    }
}

/// What installing does, given whether an entry of that name is there and
/// equal to the new one (`existing`): added, kept, replaced only with
/// `force`.
fn decide(
    existing: Option<bool>,
    name: &str,
    file: &str,
    force: bool,
) -> Result<Change, HostError> {
    match existing {
        None => Ok(Change::Added),
        Some(true) => Ok(Change::Unchanged),
        Some(false) if force => Ok(Change::Replaced),
        Some(false) => Err(HostError::Taken {
            name: name.to_owned(),
            file: file.to_owned(),
        }),
    }
}

/// `DIR/FILE` in the project for the project scope, in the home directory
/// for the user's (Cursor's `.cursor/`, Gemini CLI's `.gemini/`).
fn dot_dir_file(scope: Scope, project: &Path, dir: &str, file: &str) -> Option<PathBuf> {
    let base = match scope {
        Scope::Project => project.to_path_buf(),
        Scope::User => home()?,
    };
    Some(base.join(dir).join(file))
}

/// The file's text, or `None` when there is no file yet.
fn read(file: &Path) -> Result<Option<String>, HostError> {
    match std::fs::read_to_string(file) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(error) => Err(io_error("read", file, error)),
    }
}

/// Writes `text` to `file` whole: to a temporary file beside it, renamed
/// over it, so a host never reads half a file. Before the first change to
/// an existing file, a copy is kept as `FILE.bak` (never overwritten: it is
/// the user's file as it was before `mcp` touched it). A symbolic link (a
/// dotfiles manager's) is followed, so the link stays a link.
fn write(file: &Path, existed: bool, text: &str) -> Result<(), HostError> {
    let target = if existed {
        std::fs::canonicalize(file).map_err(|e| io_error("resolve", file, e))?
    } else {
        file.to_path_buf()
    };
    if let Some(dir) = target.parent() {
        std::fs::create_dir_all(dir).map_err(|e| io_error("create the folder of", file, e))?;
    }
    let mut tmp_name = target.file_name().unwrap_or_default().to_os_string();
    if existed {
        let mut bak_name = tmp_name.clone();
        bak_name.push(".bak");
        let bak = target.with_file_name(bak_name);
        if !bak.exists() {
            std::fs::copy(&target, &bak).map_err(|e| io_error("back up", file, e))?;
        }
    }
    tmp_name.push(".mcp-tmp");
    let tmp = target.with_file_name(tmp_name);
    std::fs::write(&tmp, text).map_err(|e| io_error("write", &tmp, e))?;
    if existed {
        // The user's file may be private (~/.claude.json holds tokens): the
        // new one keeps its permissions.
        if let Ok(meta) = std::fs::metadata(&target) {
            std::fs::set_permissions(&tmp, meta.permissions())
                .map_err(|e| io_error("set the permissions of", &tmp, e))?;
        }
    }
    std::fs::rename(&tmp, &target).map_err(|e| io_error("replace", file, e))
}

fn io_error(action: &'static str, file: &Path, error: std::io::Error) -> HostError {
    HostError::Io {
        action,
        file: file.display().to_string(),
        error,
    }
}

/// The user's home directory, where most hosts keep their user scope.
fn home() -> Option<PathBuf> {
    dirs::home_dir()
}
