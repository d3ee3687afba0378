//! Codex (OpenAI's coding agent).
//!
//! Documented at developers.openai.com/codex/mcp and in openai/codex
//! `docs/config.md` (`mcp_servers`): `config.toml` in `~/.codex/` (in
//! `$CODEX_HOME` when that is set), and `.codex/config.toml` in a trusted
//! project; a table per server, `[mcp_servers.NAME]`, with `command`,
//! `args` and `env` (a table of strings) for a server it starts, or `url`
//! for a Streamable HTTP one. Edited with `toml_edit`, so the user's
//! comments, order and layout stay as they were.

use std::path::{Path, PathBuf};

use toml_edit::{Array, DocumentMut, InlineTable, Item, Table, TableLike};

use super::{decide, Change, HostError, Scope, Server};

const SERVERS_KEY: &str = "mcp_servers";

pub(super) fn file(scope: Scope, project: &Path) -> Option<PathBuf> {
    let dir = match scope {
        Scope::Project => project.join(".codex"),
        Scope::User => match std::env::var_os("CODEX_HOME") {
            Some(dir) if !dir.is_empty() => PathBuf::from(dir),
            _ => super::home()?.join(".codex"),
        },
    };
    Some(dir.join("config.toml"))
}

fn parse(text: Option<&str>, file: &str) -> Result<DocumentMut, HostError> {
    let text = text.unwrap_or("");
    text.parse::<DocumentMut>().map_err(|e| {
        let (line, column) = e
            .span()
            .map_or((1, 1), |span| line_column(text, span.start));
        HostError::Parse {
            file: file.to_owned(),
            format: "TOML",
            detail: format!("line {line}, column {column}: {}", e.message().trim()),
        }
    })
}

/// 1-based line and column (in characters) of byte `offset` in `text`.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

/// The `mcp_servers` table, made (as an implicit table, printing no empty
/// header of its own) when missing.
fn servers<'d>(doc: &'d mut DocumentMut, file: &str) -> Result<&'d mut Table, HostError> {
    let item = doc.entry(SERVERS_KEY).or_insert_with(|| {
        let mut t = Table::new();
        t.set_implicit(true);
        Item::Table(t)
    });
    item.as_table_mut().ok_or_else(|| HostError::Shape {
        file: file.to_owned(),
        key: SERVERS_KEY.to_owned(),
        expected: "a table",
    })
}

fn table_of(server: &Server) -> Table {
    let mut t = Table::new();
    match server {
        Server::Stdio { command, args, env } => {
            t.insert("command", toml_edit::value(command.as_str()));
            if !args.is_empty() {
                t.insert("args", toml_edit::value(args.iter().collect::<Array>()));
            }
            if !env.is_empty() {
                let env: InlineTable = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
                t.insert("env", toml_edit::value(env));
            }
        }
        Server::Http { url } => {
            t.insert("url", toml_edit::value(url.as_str()));
        }
    }
    t
}

/// The server an existing entry describes, when it holds nothing else
/// (other keys, such as `startup_timeout_sec`, make it a different entry).
fn server_of(entry: &dyn TableLike) -> Option<Server> {
    let known = ["command", "args", "env", "url"];
    if entry.iter().any(|(k, _)| !known.contains(&k)) {
        return None;
    }
    if let Some(url) = entry.get("url") {
        return Some(Server::Http {
            url: url.as_str()?.to_owned(),
        });
    }
    let command = entry.get("command")?.as_str()?.to_owned();
    let args = match entry.get("args") {
        Some(a) => a
            .as_array()?
            .iter()
            .map(|v| v.as_str().map(str::to_owned))
            .collect::<Option<Vec<_>>>()?,
        None => Vec::new(),
    };
    let env = match entry.get("env") {
        Some(e) => e
            .as_table_like()?
            .iter()
            .map(|(k, v)| Some((k.to_owned(), v.as_str()?.to_owned())))
            .collect::<Option<Vec<_>>>()?,
        None => Vec::new(),
    };
    Some(Server::Stdio { command, args, env })
}

pub(super) fn install(
    text: Option<&str>,
    file: &str,
    name: &str,
    server: &Server,
    force: bool,
) -> Result<(Option<String>, Change), HostError> {
    let mut doc = parse(text, file)?;
    let servers = servers(&mut doc, file)?;
    let same = servers
        .get(name)
        .map(|old| old.as_table_like().and_then(server_of).as_ref() == Some(server));
    let change = decide(same, name, file, force)?;
    if change == Change::Unchanged {
        return Ok((None, change));
    }
    servers.insert(name, Item::Table(table_of(server)));
    Ok((Some(doc.to_string()), change))
}

pub(super) fn uninstall(text: &str, file: &str, name: &str) -> Result<Option<String>, HostError> {
    let mut doc = parse(Some(text), file)?;
    let Some(servers) = doc.get_mut(SERVERS_KEY).and_then(Item::as_table_like_mut) else {
        return Ok(None);
    };
    if servers.remove(name).is_none() {
        return Ok(None);
    }
    Ok(Some(doc.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_and_column_count_from_one() {
        assert_eq!(line_column("a = 1\nb = =", 10), (2, 5));
        assert_eq!(line_column("x", 0), (1, 1));
    }
}
