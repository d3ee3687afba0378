//! JSON config files edited in place, through a concrete syntax tree
//! (dprint's `jsonc-parser`): one entry is added, replaced or removed and
//! every other byte of the file stays as the user wrote it: key order,
//! indentation, blank lines and, where the host reads JSON with comments
//! (VS Code, Gemini CLI), the comments and trailing commas.
//!
//! Entries are built as an ordered [`Value`]: `serde_json`'s
//! `preserve_order` would do it, but a feature is unified across everything
//! built together, and turning it on here would change the key order of
//! every `serde_json::Value` in the workspace's other crates.

use indexmap::IndexMap;
use jsonc_parser::cst::{CstInputValue, CstNode, CstObject, CstRootNode};
use jsonc_parser::ParseOptions;
use serde::Serialize;

use super::{decide, Change, HostError, Server};

/// A JSON value whose objects keep their key order.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub(crate) enum Value {
    /// A string, number, boolean or null read from a file.
    Scalar(serde_json::Value),
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

    /// The same value for the syntax tree, in the same order.
    fn input(&self) -> CstInputValue {
        match self {
            Value::Scalar(v) => scalar_input(v),
            Value::String(s) => CstInputValue::String(s.clone()),
            Value::Array(items) => CstInputValue::Array(items.iter().map(Value::input).collect()),
            Value::Object(map) => {
                CstInputValue::Object(map.iter().map(|(k, v)| (k.clone(), v.input())).collect())
            }
        }
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

fn scalar_input(value: &serde_json::Value) -> CstInputValue {
    match value {
        serde_json::Value::Bool(b) => CstInputValue::Bool(*b),
        serde_json::Value::Number(n) => CstInputValue::Number(n.to_string()),
        serde_json::Value::String(s) => CstInputValue::String(s.clone()),
        // Arrays and objects are read as `Array` and `Object`.
        _ => CstInputValue::Null,
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

/// What a host's reader takes beyond strict JSON. A file is refused when it
/// uses more than its host reads, so nothing `mcp` keeps would break the host.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Syntax {
    comments: bool,
    trailing_commas: bool,
}

impl Syntax {
    /// `JSON.parse`: Claude Code, Claude Desktop, Cursor.
    pub(crate) const JSON: Syntax = Syntax {
        comments: false,
        trailing_commas: false,
    };
    /// Comments stripped before `JSON.parse` (Gemini CLI's settings).
    pub(crate) const COMMENTS: Syntax = Syntax {
        comments: true,
        trailing_commas: false,
    };
    /// VS Code's JSONC: comments and trailing commas.
    pub(crate) const JSONC: Syntax = Syntax {
        comments: true,
        trailing_commas: true,
    };

    fn name(self) -> &'static str {
        if self.comments {
            "JSON with comments"
        } else {
            "JSON"
        }
    }

    fn options(self) -> ParseOptions {
        // Every leniency a host's reader lacks is off; one the parser adds
        // later comes from its default (today that names none).
        #[allow(clippy::needless_update)]
        ParseOptions {
            allow_comments: self.comments,
            allow_trailing_commas: self.trailing_commas,
            allow_loose_object_property_names: false,
            allow_missing_commas: false,
            allow_single_quoted_strings: false,
            allow_hexadecimal_numbers: false,
            allow_unary_plus_numbers: false,
            allow_bare_decimal_point_numbers: false,
            allow_non_finite_numbers: false,
            allow_extended_string_escapes: false,
            ..ParseOptions::default()
        }
    }
}

/// Where an edit goes: the file's file name (for errors), syntax and the
/// key of its servers object.
pub(crate) struct Target<'a> {
    pub(crate) file: &'a str,
    pub(crate) syntax: Syntax,
    pub(crate) key: &'a str,
}

impl Target<'_> {
    /// The file's tree and its top-level object (made in an empty file).
    fn parse(&self, text: &str) -> Result<(CstRootNode, CstObject), HostError> {
        let options = self.syntax.options();
        let refused = |e: jsonc_parser::errors::ParseError| HostError::Parse {
            file: self.file.to_owned(),
            format: self.syntax.name(),
            detail: e.to_string(),
        };
        // The tree keeps comments whatever the options say: the syntax is
        // checked by a plain parse first.
        jsonc_parser::parse_to_value(text, &options).map_err(refused)?;
        let root = CstRootNode::parse(text, &options).map_err(refused)?;
        let object = root
            .object_value_or_create()
            .ok_or_else(|| self.shape("(the whole file)"))?;
        Ok((root, object))
    }

    fn shape(&self, key: &str) -> HostError {
        HostError::Shape {
            file: self.file.to_owned(),
            key: key.to_owned(),
            expected: "a JSON object",
        }
    }
}

/// The new text (`None`: unchanged) after putting `entry` as `name` in the
/// servers object (made when missing).
pub(crate) fn install(
    text: Option<&str>,
    target: &Target<'_>,
    name: &str,
    entry: &Value,
    force: bool,
) -> Result<(Option<String>, Change), HostError> {
    let (root, object) = target.parse(text.unwrap_or(""))?;
    let servers = object
        .object_value_or_create(target.key)
        .ok_or_else(|| target.shape(target.key))?;
    let existing = servers.get(name);
    let wanted = serde_json::to_value(entry).ok();
    let same = existing
        .as_ref()
        .map(|prop| prop.value().and_then(|v| v.to_serde_value()) == wanted);
    let change = decide(same, name, target.file, force)?;
    match (change, existing) {
        (Change::Unchanged, _) => return Ok((None, change)),
        // Set in place: a replaced entry keeps its position and comments.
        (_, Some(prop)) => prop.set_value(entry.input()),
        (_, None) => {
            servers.append(name, entry.input());
        }
    }
    if let Some(compact) = text.and_then(|t| one_line(t, &root)) {
        return Ok((Some(compact), change));
    }
    let mut new_text = root.to_string();
    if text.is_none_or(|t| t.ends_with('\n') || t.trim().is_empty()) && !new_text.ends_with('\n') {
        new_text.push('\n');
    }
    Ok((Some(new_text), change))
}

/// The new text after removing `name` from the servers object, or `None`
/// when it is not there.
pub(crate) fn uninstall(
    text: &str,
    target: &Target<'_>,
    name: &str,
) -> Result<Option<String>, HostError> {
    let (root, object) = target.parse(text)?;
    let Some(prop) = object.object_value(target.key).and_then(|s| s.get(name)) else {
        return Ok(None);
    };
    prop.remove();
    Ok(Some(
        one_line(text, &root).unwrap_or_else(|| root.to_string()),
    ))
}

/// A file written on one line, with no comments, stays on one line: the
/// tree would lay a new object out over several lines.
fn one_line(text: &str, root: &CstRootNode) -> Option<String> {
    let trimmed = text.trim();
    if trimmed.is_empty() || trimmed.contains('\n') {
        return None;
    }
    jsonc_parser::parse_to_value(text, &Syntax::JSON.options()).ok()?;
    let value = ordered(&root.value()?)?;
    let mut out = serde_json::to_string(&value).ok()?;
    if text.ends_with('\n') {
        out.push('\n');
    }
    Some(out)
}

/// A node of the tree as an ordered value.
fn ordered(node: &CstNode) -> Option<Value> {
    if let Some(object) = node.as_object() {
        let mut map = IndexMap::new();
        for prop in object.properties() {
            map.insert(prop.decoded_name()?, ordered(&prop.value()?)?);
        }
        return Some(Value::Object(map));
    }
    if let Some(array) = node.as_array() {
        return array
            .elements()
            .iter()
            .map(ordered)
            .collect::<Option<_>>()
            .map(Value::Array);
    }
    Some(Value::Scalar(node.to_serde_value()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target(syntax: Syntax) -> Target<'static> {
        Target {
            file: "f",
            syntax,
            key: "servers",
        }
    }

    fn entry(command: &str) -> Value {
        command_entry(None, command, &["--x".to_owned()], &[])
    }

    #[test]
    fn only_the_entry_changes_order_indentation_and_numbers_kept() {
        let text = "{\n\t\"z\": 1.50,\n\n\t\"servers\": {\"old\": {\"command\": \"/a\"}},\n\t\"a\": [1, -2, null]\n}\n";
        let (out, change) = install(
            Some(text),
            &target(Syntax::JSON),
            "new",
            &entry("/b"),
            false,
        )
        .unwrap();
        assert_eq!(change, Change::Added);
        let out = out.unwrap();
        assert!(
            out.starts_with("{\n\t\"z\": 1.50,\n\n\t\"servers\": {"),
            "{out}"
        );
        assert!(out.ends_with("\t\"a\": [1, -2, null]\n}\n"), "{out}");
        let parsed: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(parsed["servers"]["new"]["command"], "/b");
        assert_eq!(parsed["servers"]["old"]["command"], "/a");
        let back = uninstall(&out, &target(Syntax::JSON), "new")
            .unwrap()
            .unwrap();
        let parsed: serde_json::Value = serde_json::from_str(&back).unwrap();
        assert!(parsed["servers"].get("new").is_none());
        assert!(back.starts_with("{\n\t\"z\": 1.50,\n\n"), "{back}");
    }

    #[test]
    fn the_same_entry_twice_writes_nothing_and_a_different_one_needs_force() {
        let (out, _) = install(None, &target(Syntax::JSON), "s", &entry("/b"), false).unwrap();
        let out = out.unwrap();
        assert!(out.ends_with("}\n"), "{out}");
        let again = install(Some(&out), &target(Syntax::JSON), "s", &entry("/b"), false).unwrap();
        assert_eq!(again, (None, Change::Unchanged));
        let taken = install(Some(&out), &target(Syntax::JSON), "s", &entry("/c"), false);
        assert!(matches!(taken, Err(HostError::Taken { .. })));
        let (_, change) =
            install(Some(&out), &target(Syntax::JSON), "s", &entry("/c"), true).unwrap();
        assert_eq!(change, Change::Replaced);
    }

    #[test]
    fn jsonc_keeps_its_comments_and_trailing_commas() {
        let text = "{\n  // my servers\n  \"servers\": {\n    \"old\": { \"command\": \"/a\" }, // keep\n  },\n}\n";
        let (out, _) = install(
            Some(text),
            &target(Syntax::JSONC),
            "new",
            &entry("/b"),
            false,
        )
        .unwrap();
        let out = out.unwrap();
        assert!(out.contains("// my servers"), "{out}");
        assert!(out.contains("// keep"), "{out}");
        assert!(out.contains("\"new\""), "{out}");
        let back = uninstall(&out, &target(Syntax::JSONC), "new")
            .unwrap()
            .unwrap();
        assert!(
            back.contains("// my servers") && back.contains("// keep"),
            "{back}"
        );
        assert!(!back.contains("\"new\""), "{back}");
    }

    #[test]
    fn what_the_host_does_not_read_is_refused_with_line_and_column() {
        let Err(HostError::Parse { detail, .. }) = install(
            Some("{\n  \"a\": 1,\n}"),
            &target(Syntax::JSON),
            "s",
            &entry("/b"),
            false,
        ) else {
            panic!("a trailing comma is refused in strict JSON");
        };
        assert!(detail.contains("line 2 column 9"), "{detail}");
        let comment = "{\n  // note\n  \"a\": 1\n}";
        assert!(install(
            Some(comment),
            &target(Syntax::JSON),
            "s",
            &entry("/b"),
            false
        )
        .is_err());
        assert!(install(
            Some(comment),
            &target(Syntax::COMMENTS),
            "s",
            &entry("/b"),
            false
        )
        .is_ok());
    }

    #[test]
    fn a_servers_key_that_is_not_an_object_is_refused() {
        let r = install(
            Some(r#"{"servers": []}"#),
            &target(Syntax::JSON),
            "s",
            &entry("/b"),
            false,
        );
        assert!(matches!(r, Err(HostError::Shape { .. })), "{r:?}");
    }
}
