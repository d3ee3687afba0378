//! JSON config files edited in place: an ordered value, so the keys the
//! user and the host wrote keep their order, and the file's own indentation
//! on the way back.
//!
//! `serde_json`'s `preserve_order` would do the first, but a feature is
//! unified across everything built together: turning it on here would
//! change the key order of every `serde_json::Value` in the workspace's
//! other crates when they are built with this one.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use super::{decide, Change, HostError, Server};

/// A JSON value whose objects keep their key order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub(crate) enum Value {
    Null,
    Bool(bool),
    Number(serde_json::Number),
    String(String),
    Array(Vec<Value>),
    Object(IndexMap<String, Value>),
}

impl Value {
    /// An object of `pairs`, in their order.
    pub(crate) fn object<const N: usize>(pairs: [(&str, Value); N]) -> Value {
        Value::Object(pairs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
    }

    pub(crate) fn string(s: &str) -> Value {
        Value::String(s.to_owned())
    }

    pub(crate) fn strings(items: &[String]) -> Value {
        Value::Array(items.iter().map(|s| Value::string(s)).collect())
    }

    pub(crate) fn env(pairs: &[(String, String)]) -> Value {
        Value::Object(
            pairs
                .iter()
                .map(|(k, v)| (k.clone(), Value::string(v)))
                .collect(),
        )
    }
}

/// The common entry of a server the host starts: `command`, then `args`
/// and `env` when there are any.
pub(crate) fn command_entry(
    first: Option<(&str, Value)>,
    command: &str,
    args: &[String],
    env: &[(String, String)],
) -> Value {
    let mut entry = IndexMap::new();
    if let Some((k, v)) = first {
        entry.insert(k.to_owned(), v);
    }
    entry.insert("command".to_owned(), Value::string(command));
    if !args.is_empty() {
        entry.insert("args".to_owned(), Value::strings(args));
    }
    if !env.is_empty() {
        entry.insert("env".to_owned(), Value::env(env));
    }
    Value::Object(entry)
}

/// The entry that names its transport in `type`: `"stdio"` with the
/// command, or `"http"` with the URL (Claude Code's and VS Code's shape).
pub(crate) fn typed_entry(server: &Server) -> Value {
    match server {
        Server::Stdio { command, args, env } => {
            command_entry(Some(("type", Value::string("stdio"))), command, args, env)
        }
        Server::Http { url } => {
            Value::object([("type", Value::string("http")), ("url", Value::string(url))])
        }
    }
}

/// A parsed file and how it was laid out.
struct Document {
    root: IndexMap<String, Value>,
    /// One level of indentation as found in the file; `None` when the file
    /// is on one line.
    indent: Option<String>,
    final_newline: bool,
}

fn parse(text: Option<&str>, file: &str) -> Result<Document, HostError> {
    let Some(text) = text.filter(|t| !t.trim().is_empty()) else {
        return Ok(Document {
            root: IndexMap::new(),
            indent: Some("  ".to_owned()),
            final_newline: true,
        });
    };
    let root: Value = serde_json::from_str(text).map_err(|e| HostError::Parse {
        file: file.to_owned(),
        format: "JSON",
        detail: e.to_string(),
    })?;
    let Value::Object(root) = root else {
        return Err(HostError::Shape {
            file: file.to_owned(),
            key: "(the whole file)".to_owned(),
            expected: "a JSON object",
        });
    };
    Ok(Document {
        root,
        indent: indentation(text),
        final_newline: text.ends_with('\n'),
    })
}

/// The first indented line's leading whitespace: tabs, or so many spaces.
fn indentation(text: &str) -> Option<String> {
    let trimmed = text.trim();
    if !trimmed.contains('\n') {
        return None;
    }
    let indent = trimmed
        .lines()
        .skip(1)
        .map(|line| &line[..line.len() - line.trim_start().len()])
        .find(|ws| !ws.is_empty())
        .unwrap_or("  ");
    Some(indent.to_owned())
}

fn render(doc: &Document) -> String {
    let mut out = Vec::new();
    let written = match &doc.indent {
        Some(indent) => {
            let formatter = serde_json::ser::PrettyFormatter::with_indent(indent.as_bytes());
            let mut ser = serde_json::Serializer::with_formatter(&mut out, formatter);
            doc.root.serialize(&mut ser)
        }
        None => doc
            .root
            .serialize(&mut serde_json::Serializer::new(&mut out)),
    };
    // Strings and ordered maps always serialize.
    written.expect("a JSON value serializes");
    let mut text = String::from_utf8(out).expect("serde_json writes UTF-8");
    if doc.final_newline {
        text.push('\n');
    }
    text
}

/// The servers object under `key`, made when missing.
fn servers<'d>(
    doc: &'d mut Document,
    file: &str,
    key: &str,
) -> Result<&'d mut IndexMap<String, Value>, HostError> {
    let servers = doc
        .root
        .entry(key.to_owned())
        .or_insert_with(|| Value::Object(IndexMap::new()));
    match servers {
        Value::Object(map) => Ok(map),
        _ => Err(HostError::Shape {
            file: file.to_owned(),
            key: key.to_owned(),
            expected: "a JSON object",
        }),
    }
}

/// The new text (`None`: unchanged) after putting `entry` as `name` under
/// `key`.
pub(crate) fn install(
    text: Option<&str>,
    file: &str,
    key: &str,
    name: &str,
    entry: Value,
    force: bool,
) -> Result<(Option<String>, Change), HostError> {
    let mut doc = parse(text, file)?;
    let servers = servers(&mut doc, file, key)?;
    let change = decide(
        servers.get(name).map(|old| *old == entry),
        name,
        file,
        force,
    )?;
    if change == Change::Unchanged {
        return Ok((None, change));
    }
    // `insert` keeps a replaced entry where it was.
    servers.insert(name.to_owned(), entry);
    Ok((Some(render(&doc)), change))
}

/// The new text after removing `name` from under `key`, or `None` when it
/// is not there.
pub(crate) fn uninstall(
    text: &str,
    file: &str,
    key: &str,
    name: &str,
) -> Result<Option<String>, HostError> {
    let mut doc = parse(Some(text), file)?;
    let Some(Value::Object(servers)) = doc.root.get_mut(key) else {
        return Ok(None);
    };
    // `shift_remove` keeps the other entries in their order.
    if servers.shift_remove(name).is_none() {
        return Ok(None);
    }
    Ok(Some(render(&doc)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_order_numbers_and_indentation_survive_a_round_trip() {
        let text = "{\n\t\"z\": 1.5,\n\t\"a\": {\"y\": [1, -2, null, true], \"b\": \"s\"}\n}\n";
        let doc = parse(Some(text), "f").unwrap();
        assert_eq!(doc.indent.as_deref(), Some("\t"));
        let out = render(&doc);
        assert_eq!(
            out,
            "{\n\t\"z\": 1.5,\n\t\"a\": {\n\t\t\"y\": [\n\t\t\t1,\n\t\t\t-2,\n\t\t\tnull,\n\t\t\ttrue\n\t\t],\n\t\t\"b\": \"s\"\n\t}\n}\n"
        );
    }

    #[test]
    fn a_one_line_file_stays_on_one_line() {
        let doc = parse(Some(r#"{"b":1,"a":2}"#), "f").unwrap();
        assert_eq!(render(&doc), r#"{"b":1,"a":2}"#);
    }

    #[test]
    fn a_parse_error_names_line_and_column() {
        let Err(HostError::Parse { detail, .. }) = parse(Some("{\n  \"a\": 1,\n}"), "f") else {
            panic!("a trailing comma is refused");
        };
        assert!(detail.contains("line 3 column 1"), "{detail}");
    }
}
