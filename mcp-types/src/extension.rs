//! Extensions (SEP-2133): identifiers, and what each side declared.
//!
//! A server lists the extensions it offers in `capabilities.extensions`
//! (`initialize`, `server/discover`); a client lists those it supports in
//! its capabilities (at `initialize` in the legacy era, in every request's
//! `_meta` in 2026-07-28). An extension is in use only when both declared
//! it. Identifiers follow the `_meta` key rules with a mandatory prefix:
//! `{reverse-DNS prefix}/{name}`.

use crate::lifecycle::{ClientCapabilities, ServerCapabilities};
use crate::JsonObject;

/// The tasks extension (SEP-2663): long-running calls polled as tasks.
pub const TASKS: &str = "io.modelcontextprotocol/tasks";
/// MCP Apps: tools with a user interface (`ui://` resources).
pub const UI: &str = "io.modelcontextprotocol/ui";

/// Why an extension identifier was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvalidExtensionId {
    /// The identifier as given.
    pub id: String,
    /// What is wrong with it.
    pub reason: &'static str,
}

impl std::fmt::Display for InvalidExtensionId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "invalid extension identifier `{}`: {} (expected `vendor.prefix/name`, e.g. `{TASKS}`)",
            self.id, self.reason
        )
    }
}

impl std::error::Error for InvalidExtensionId {}

/// Checks an extension identifier: a prefix of dot-separated labels (each
/// starts with a letter, ends with a letter or digit, has letters, digits
/// and hyphens inside), a slash, and a name (starts and ends with a letter
/// or digit; letters, digits, `-`, `_` and `.` inside).
pub fn check_id(id: &str) -> Result<(), InvalidExtensionId> {
    match id_problem(id) {
        None => Ok(()),
        Some(reason) => Err(InvalidExtensionId {
            id: id.to_owned(),
            reason,
        }),
    }
}

/// What is wrong with an extension identifier, if anything ([`check_id`]);
/// a `const fn`, so that an identifier written in code is checked when it
/// compiles.
pub const fn id_problem(id: &str) -> Option<&'static str> {
    let b = id.as_bytes();
    let mut slash = 0;
    while slash < b.len() && b[slash] != b'/' {
        slash += 1;
    }
    if slash == b.len() {
        return Some("it has no `prefix/`");
    }
    if slash == 0 {
        return Some("its prefix is empty");
    }
    // The prefix's labels.
    let mut start = 0;
    let mut i = 0;
    while i <= slash {
        if i == slash || b[i] == b'.' {
            if i == start {
                return Some("its prefix has an empty label");
            }
            if !b[start].is_ascii_alphabetic() {
                return Some("a label of its prefix does not start with a letter");
            }
            if !b[i - 1].is_ascii_alphanumeric() {
                return Some("a label of its prefix does not end with a letter or digit");
            }
            start = i + 1;
        } else if !(b[i].is_ascii_alphanumeric() || b[i] == b'-') {
            return Some("its prefix has a character other than letters, digits, `-` and `.`");
        }
        i += 1;
    }
    // The name.
    if slash + 1 == b.len() {
        return Some("its name is empty");
    }
    if !b[slash + 1].is_ascii_alphanumeric() || !b[b.len() - 1].is_ascii_alphanumeric() {
        return Some("its name does not start and end with a letter or digit");
    }
    i = slash + 1;
    while i < b.len() {
        let c = b[i];
        if !(c.is_ascii_alphanumeric() || c == b'-' || c == b'_' || c == b'.') {
            return Some("its name has a character other than letters, digits, `-`, `_` and `.`");
        }
        i += 1;
    }
    None
}

impl ClientCapabilities {
    /// The settings the client declared for extension `id`, if it declared it.
    pub fn extension(&self, id: &str) -> Option<&JsonObject> {
        extension_in(self.extensions.as_ref(), id)
    }
}

impl ServerCapabilities {
    /// The settings the server declared for extension `id`, if it declared it.
    pub fn extension(&self, id: &str) -> Option<&JsonObject> {
        extension_in(self.extensions.as_ref(), id)
    }
}

fn extension_in<'a>(declared: Option<&'a JsonObject>, id: &str) -> Option<&'a JsonObject> {
    declared?.get(id)?.as_object()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_follow_the_meta_key_rules_with_a_prefix() {
        for good in [TASKS, UI, "com.example/my-ext", "a/b", "x1.y-2/n.a_m-e9"] {
            assert_eq!(check_id(good), Ok(()), "{good}");
        }
        for (bad, why) in [
            ("tasks", "no `prefix/`"),
            ("/tasks", "prefix is empty"),
            ("io..x/tasks", "empty label"),
            ("1io.x/tasks", "start with a letter"),
            ("io.x-/tasks", "end with a letter or digit"),
            ("io.x_y/tasks", "other than letters"),
            ("io.x/", "name is empty"),
            ("io.x/-tasks", "start and end"),
            ("io.x/tas ks", "other than letters"),
            ("io.x/a/b", "other than letters"),
        ] {
            let e = check_id(bad).unwrap_err();
            assert!(e.reason.contains(why), "{bad}: {}", e.reason);
            assert!(e.to_string().contains(bad));
        }
    }

    #[test]
    fn declared_extensions_are_found_by_id() {
        let caps: ClientCapabilities = serde_json::from_value(serde_json::json!({
            "extensions": {TASKS: {}, UI: {"mimeTypes": ["text/html;profile=mcp-app"]}}
        }))
        .unwrap();
        assert!(caps.extension(TASKS).is_some_and(JsonObject::is_empty));
        assert!(caps
            .extension(UI)
            .is_some_and(|s| s.contains_key("mimeTypes")));
        assert!(caps.extension("com.example/other").is_none());
        assert!(ClientCapabilities::default().extension(TASKS).is_none());
    }
}
