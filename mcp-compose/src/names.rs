//! How a mount's names and URIs appear on the front server.
//!
//! - A tool or prompt `name` of the mount `calc` is offered as `calc_name`.
//! - A resource URI `scheme:rest` is offered as `calc+scheme:rest`, and a
//!   template `scheme://{x}` as `calc+scheme://{x}`: the prefix joins the URI
//!   scheme, so the result is still a URI (RFC 3986 allows `+` in a scheme),
//!   and taking the prefix off gives the mounted server's URI back.
//!
//! A prefix starts with a letter and holds letters, digits, `-` and `.`:
//! what is valid both at the start of a tool name and in a URI scheme. It
//! holds no `+`, so everything before a URI's first `+` is the prefix: two
//! mounts with different prefixes never offer the same URI, and a URI of
//! the front server's own clashes with a mount's only if its scheme starts
//! with that mount's prefix and a `+` (the server then refuses the second
//! of the two, as it refuses any URI offered twice).

/// The longest prefix: tool names are at most 128 characters.
const MAX_PREFIX: usize = 32;

/// Why `prefix` cannot be a mount's prefix, if it cannot.
pub(crate) fn check_prefix(prefix: &str) -> Result<(), String> {
    let mut chars = prefix.chars();
    let starts_with_letter = chars.next().is_some_and(|c| c.is_ascii_alphabetic());
    let rest_valid = chars.all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.');
    if starts_with_letter && rest_valid && prefix.len() <= MAX_PREFIX {
        return Ok(());
    }
    Err(format!(
        "the prefix {prefix:?} would make invalid tool names or URIs: use 1 to {MAX_PREFIX} \
         characters, a letter first, then letters, digits, `-` or `.`"
    ))
}

/// How a mount renames what it offers: with a prefix, or (a proxy) not at all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Names {
    prefix: Option<String>,
}

impl Names {
    pub(crate) fn new(prefix: Option<String>) -> Names {
        Names { prefix }
    }

    /// The front server's name of the mounted tool or prompt `name`.
    pub(crate) fn name(&self, name: &str) -> String {
        match &self.prefix {
            Some(prefix) => format!("{prefix}_{name}"),
            None => name.to_owned(),
        }
    }

    /// The front server's URI (or URI template) for the mounted one.
    pub(crate) fn uri(&self, uri: &str) -> String {
        match &self.prefix {
            Some(prefix) => format!("{prefix}+{uri}"),
            None => uri.to_owned(),
        }
    }

    /// The mounted server's URI for a front URI this mount offered; `None`
    /// for a URI that is not this mount's.
    pub(crate) fn upstream_uri<'a>(&self, uri: &'a str) -> Option<&'a str> {
        match &self.prefix {
            Some(prefix) => uri.strip_prefix(prefix.as_str())?.strip_prefix('+'),
            None => Some(uri),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_are_valid_in_tool_names_and_uri_schemes() {
        for ok in ["calc", "a", "notes-2", "x.y", "A9"] {
            assert!(check_prefix(ok).is_ok(), "{ok}");
            assert!(oxmcp_types::tool::is_valid_tool_name(
                &Names::new(Some(ok.into())).name("t")
            ));
        }
        for bad in [
            "",
            "9lives",
            "my_server",
            "a+b",
            "a/b",
            "é",
            &"a".repeat(33),
        ] {
            let e = check_prefix(bad).unwrap_err();
            assert!(e.contains("invalid tool names or URIs"), "{e}");
        }
    }

    #[test]
    fn uris_go_and_come_back() {
        let names = Names::new(Some("calc".into()));
        assert_eq!(names.uri("file:///tmp/a"), "calc+file:///tmp/a");
        assert_eq!(
            names.upstream_uri("calc+file:///tmp/a"),
            Some("file:///tmp/a")
        );
        assert_eq!(names.uri("users://{id}"), "calc+users://{id}");
        // Another mount's, or the front server's own.
        assert_eq!(names.upstream_uri("calc2+file:///a"), None);
        assert_eq!(names.upstream_uri("file:///a"), None);
        assert_eq!(names.upstream_uri("calcfile:///a"), None);
        let proxy = Names::new(None);
        assert_eq!(proxy.uri("file:///a"), "file:///a");
        assert_eq!(proxy.upstream_uri("file:///a"), Some("file:///a"));
    }

    #[test]
    fn different_prefixes_never_offer_one_uri() {
        // Everything before the first `+` is the prefix, and no prefix holds one.
        let uris = ["a+b:x", "x:y", "b:x"];
        let ab = Names::new(Some("ab".into()));
        let a = Names::new(Some("a".into()));
        for u in uris {
            assert_ne!(ab.uri(u), a.uri(u));
        }
        assert_eq!(a.upstream_uri(&ab.uri("x:y")), None);
    }
}
