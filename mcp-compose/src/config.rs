//! The `mcpServers` configuration the hosts read (Claude Desktop, Claude
//! Code, Cursor, Gemini CLI), as mounts: users bring what they have.
//!
//! ```json
//! {
//!   "mcpServers": {
//!     "calc":  { "command": "calculator", "args": ["--precise"], "env": { "LANG": "C" } },
//!     "notes": { "type": "http", "url": "http://127.0.0.1:8080/mcp", "headers": { "X-Api-Key": "k" } },
//!     "old":   { "type": "sse", "url": "http://127.0.0.1:9000/sse" }
//!   }
//! }
//! ```
//!
//! A server with `command` is a child process over stdio (`args`, `env`
//! and `cwd` as the hosts read them). A server with a URL is reached over
//! HTTP: `"type": "sse"` means HTTP+SSE; otherwise Streamable HTTP, which
//! falls back to HTTP+SSE on a server that speaks only that (Gemini CLI
//! writes `httpUrl` for Streamable HTTP and `url` for HTTP+SSE; both are
//! read as it means them). `headers` go with every request. A key this
//! reader does not know is an error, so that a setting is never silently
//! ignored; `disabled: true` (some hosts' way of turning a server off)
//! leaves the server out.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::{Mount, MountError};

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct File {
    mcp_servers: BTreeMap<String, Entry>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Entry {
    #[serde(rename = "type")]
    kind: Option<String>,
    command: Option<String>,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    cwd: Option<String>,
    url: Option<String>,
    http_url: Option<String>,
    #[serde(default)]
    headers: BTreeMap<String, String>,
    #[serde(default)]
    disabled: bool,
    /// What some hosts keep beside a server (Claude Code's `timeout`,
    /// Cursor's and Cline's `autoApprove`...): accepted, not used here.
    #[serde(default, rename = "autoApprove")]
    _auto_approve: Option<serde_json::Value>,
    #[serde(default, rename = "timeout")]
    _timeout: Option<serde_json::Value>,
    #[serde(default, rename = "description")]
    _description: Option<String>,
}

/// The mounts an `mcpServers` document describes, each named (and
/// prefixed) by its key, in the order of their names.
///
/// ```
/// let mounts = oxmcp_compose::config::mounts(
///     r#"{ "mcpServers": { "calc": { "command": "sh", "args": ["-c", "exec calculator"] } } }"#,
/// )
/// .unwrap();
/// assert_eq!(mounts[0].name(), "calc");
/// ```
///
/// # Errors
///
/// [`MountError::Config`] naming the line and column of text that is not
/// such a document (invalid JSON, a misspelt key, a value of the wrong
/// type), or the server whose entry says neither a command nor a URL, or
/// both.
pub fn mounts(text: &str) -> Result<Vec<Mount>, MountError> {
    let file: File = serde_json::from_str(text).map_err(|e| {
        MountError::Config(format!(
            "line {}, column {}: {}",
            e.line(),
            e.column(),
            without_position(&e)
        ))
    })?;
    let mut mounts = Vec::new();
    for (name, entry) in file.mcp_servers {
        if entry.disabled {
            continue;
        }
        mounts.push(entry.mount(&name)?);
    }
    Ok(mounts)
}

impl Entry {
    fn mount(self, name: &str) -> Result<Mount, MountError> {
        let refuse = |why: &str| MountError::Config(format!("mcpServers.{name}: {why}"));
        let kind = self.kind.as_deref();
        let mount = match (self.command, self.http_url.or(self.url)) {
            (Some(_), Some(_)) => return Err(refuse("has both a command and a URL: give one")),
            (None, None) => return Err(refuse("has neither a command nor a URL")),
            (Some(command), None) => {
                if !matches!(kind, None | Some("stdio")) {
                    return Err(refuse(&format!("a command, but \"type\": {kind:?}")));
                }
                let mut mount = Mount::stdio(name, command, self.args);
                for (key, value) in self.env {
                    mount = mount.env(key, value);
                }
                if let Some(dir) = self.cwd {
                    mount = mount.current_dir(dir);
                }
                mount
            }
            (None, Some(url)) => url_mount(name, kind, url).map_err(|why| refuse(&why))?,
        };
        #[cfg(feature = "http")]
        let mount = self
            .headers
            .into_iter()
            .fold(mount, |m, (k, v)| m.header(k, v));
        #[cfg(not(feature = "http"))]
        drop(self.headers);
        Ok(mount)
    }
}

#[cfg(feature = "http")]
fn url_mount(name: &str, kind: Option<&str>, url: String) -> Result<Mount, String> {
    match kind {
        #[allow(deprecated)] // the configuration file asked for HTTP+SSE
        Some("sse") => Ok(Mount::sse(name, url)),
        None | Some("http" | "streamable-http" | "streamableHttp") => Ok(Mount::http(name, url)),
        Some(other) => Err(format!(
            "\"type\": {other:?} with a URL (use \"http\" or \"sse\")"
        )),
    }
}

#[cfg(not(feature = "http"))]
#[allow(
    clippy::needless_pass_by_value,
    reason = "the signature of the `http` build's url_mount"
)]
fn url_mount(_: &str, _: Option<&str>, url: String) -> Result<Mount, String> {
    Err(format!(
        "{url} is reached over HTTP: build oxmcp-compose with its `http` feature"
    ))
}

/// `serde_json`'s message without its " at line L column C" (said first here).
fn without_position(e: &serde_json::Error) -> String {
    let text = e.to_string();
    match text.rfind(" at line ") {
        Some(at) => text[..at].to_owned(),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(text: &str) -> String {
        match mounts(text) {
            Err(e) => e.to_string(),
            Ok(m) => panic!("read: {m:?}"),
        }
    }

    #[test]
    fn every_host_form_is_read() {
        let mounts = mounts(
            r#"{
              "mcpServers": {
                "a": { "command": "sh", "args": ["-c", "true"], "env": { "K": "V" }, "cwd": "/tmp" },
                "b": { "type": "http", "url": "http://127.0.0.1:1/mcp", "headers": { "X-Key": "k" } },
                "c": { "type": "sse", "url": "http://127.0.0.1:1/sse" },
                "d": { "httpUrl": "http://127.0.0.1:1/mcp", "timeout": 30000 },
                "e": { "url": "http://127.0.0.1:1/mcp", "autoApprove": [] },
                "off": { "command": "nothing", "disabled": true }
              }
            }"#,
        )
        .unwrap();
        let names: Vec<&str> = mounts.iter().map(Mount::name).collect();
        assert_eq!(names, ["a", "b", "c", "d", "e"]);
        let shown: Vec<String> = mounts.iter().map(|m| format!("{m:?}")).collect();
        assert!(shown[0].contains("stdio `sh`"), "{}", shown[0]);
        assert!(
            shown[1].contains("Streamable HTTP http://127.0.0.1:1/mcp"),
            "{}",
            shown[1]
        );
        assert!(shown[2].contains("HTTP+SSE"), "{}", shown[2]);
        assert!(shown[3].contains("Streamable HTTP"), "{}", shown[3]);
    }

    #[test]
    fn what_cannot_be_read_is_named_with_its_position() {
        let e = refused("{\n  \"mcpServers\": {\n    \"a\": { \"comand\": \"x\" }\n  }\n}");
        assert!(
            e.starts_with("configuration: line 3, column 19: unknown field `comand`"),
            "{e}"
        );
        let e =
            refused("{ \"mcpServers\": { \"a\": { \"command\": \"x\", \"url\": \"http://h\" } } }");
        assert!(
            e.contains("mcpServers.a: has both a command and a URL"),
            "{e}"
        );
        let e = refused("{ \"mcpServers\": { \"a\": {} } }");
        assert!(
            e.contains("mcpServers.a: has neither a command nor a URL"),
            "{e}"
        );
        let e =
            refused("{ \"mcpServers\": { \"a\": { \"url\": \"http://h\", \"type\": \"ws\" } } }");
        assert!(e.contains("\"type\": \"ws\" with a URL"), "{e}");
        let e = refused("not json");
        assert!(
            e.starts_with("configuration: line 1, column 2: expected ident"),
            "{e}"
        );
        let e = refused("{ \"servers\": {} }");
        assert!(e.contains("unknown field `servers`"), "{e}");
    }
}
