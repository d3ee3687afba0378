//! RFC 6570 URI templates as MCP resource templates use them: parse a
//! template, list its variables, expand it, and match a URI back to the
//! values of its variables. No dependencies.
//!
//! Supported expressions: `{var}` (simple), `{+var}` (reserved), `{#var}`
//! (fragment), `{/var}` (a path segment), `{?a,b}` and `{&a,b}` (query).
//! Prefix (`:N`) and explode (`*`) modifiers, lists in other expressions,
//! and the `.` and `;` operators are refused when parsing.
//!
//! ```
//! use oxmcp_uri_template::UriTemplate;
//!
//! let t = UriTemplate::parse("notes://{user}/{+path}").unwrap();
//! assert_eq!(t.variables(), ["user", "path"]);
//! let vars = t.matches("notes://ada/work/todo.md").unwrap();
//! assert_eq!(vars, [("user".to_owned(), "ada".to_owned()), ("path".to_owned(), "work/todo.md".to_owned())]);
//! let uri = t.expand(|v| Some(if v == "user" { "ada lovelace".into() } else { "a/b".into() }));
//! assert_eq!(uri, "notes://ada%20lovelace/a/b");
//! ```

use std::fmt;
use std::fmt::Write as _;

/// A parsed URI template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UriTemplate {
    text: String,
    parts: Vec<Part>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Literal(String),
    Expr(Op, Vec<String>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Simple,
    Reserved,
    Fragment,
    Path,
    Query,
    Continuation,
}

/// Why a template could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemplateError {
    offset: usize,
    message: String,
}

impl TemplateError {
    fn new(offset: usize, message: impl Into<String>) -> Self {
        TemplateError {
            offset,
            message: message.into(),
        }
    }

    /// The byte offset in the template where the problem is.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// What is wrong.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for TemplateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (at byte {})", self.message, self.offset)
    }
}

impl std::error::Error for TemplateError {}

fn is_unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~')
}

fn is_reserved(b: u8) -> bool {
    matches!(
        b,
        b':' | b'/'
            | b'?'
            | b'#'
            | b'['
            | b']'
            | b'@'
            | b'!'
            | b'$'
            | b'&'
            | b'\''
            | b'('
            | b')'
            | b'*'
            | b'+'
            | b','
            | b';'
            | b'='
    )
}

fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with('.')
        && !name.ends_with('.')
        && !name.contains("..")
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.' || b == b'%')
}

impl UriTemplate {
    /// Parses a template.
    ///
    /// # Errors
    ///
    /// An unclosed or empty expression, an unsupported operator or modifier,
    /// an invalid or repeated variable name, a stray `}`.
    pub fn parse(template: &str) -> Result<UriTemplate, TemplateError> {
        let mut parts = Vec::new();
        let mut seen: Vec<String> = Vec::new();
        let mut literal = String::new();
        let mut rest = template;
        let mut offset = 0;
        while let Some(c) = rest.chars().next() {
            match c {
                '}' => {
                    return Err(TemplateError::new(offset, "`}` closes no expression"));
                }
                '{' => {
                    let Some(end) = rest.find('}') else {
                        return Err(TemplateError::new(
                            offset,
                            "unclosed `{`: every expression ends with `}`",
                        ));
                    };
                    let body = &rest[1..end];
                    if !literal.is_empty() {
                        parts.push(Part::Literal(std::mem::take(&mut literal)));
                    }
                    parts.push(Self::expression(body, offset, &mut seen)?);
                    offset += end + 1;
                    rest = &rest[end + 1..];
                    continue;
                }
                c if c.is_control()
                    || c == ' '
                    || matches!(c, '"' | '\'' | '<' | '>' | '\\' | '^' | '`' | '|') =>
                {
                    return Err(TemplateError::new(
                        offset,
                        format!("{c:?} is not allowed in a URI template"),
                    ));
                }
                c => literal.push(c),
            }
            offset += c.len_utf8();
            rest = &rest[c.len_utf8()..];
        }
        if !literal.is_empty() {
            parts.push(Part::Literal(literal));
        }
        Ok(UriTemplate {
            text: template.to_owned(),
            parts,
        })
    }

    fn expression(
        body: &str,
        offset: usize,
        seen: &mut Vec<String>,
    ) -> Result<Part, TemplateError> {
        if body.is_empty() {
            return Err(TemplateError::new(
                offset,
                "empty expression `{}`: name a variable",
            ));
        }
        let (op, names) = match body.as_bytes()[0] {
            b'+' => (Op::Reserved, &body[1..]),
            b'#' => (Op::Fragment, &body[1..]),
            b'/' => (Op::Path, &body[1..]),
            b'?' => (Op::Query, &body[1..]),
            b'&' => (Op::Continuation, &body[1..]),
            b'.' | b';' | b'=' | b',' | b'!' | b'@' | b'|' => {
                return Err(TemplateError::new(
                    offset,
                    format!("`{{{body}}}`: the `{}` operator is not supported; use `{{var}}`, `{{+var}}`, `{{#var}}`, `{{/var}}`, `{{?var}}` or `{{&var}}`", &body[..1]),
                ));
            }
            _ => (Op::Simple, body),
        };
        let mut vars = Vec::new();
        for name in names.split(',') {
            if name.ends_with('*') || name.contains(':') {
                return Err(TemplateError::new(
                    offset,
                    format!("`{{{body}}}`: modifiers (`:N`, `*`) are not supported; write the variable alone"),
                ));
            }
            if !valid_name(name) {
                return Err(TemplateError::new(
                    offset,
                    format!("invalid variable name `{name}` in `{{{body}}}`: names are letters, digits, `_` and percent-encodings, with `.` between them"),
                ));
            }
            if seen.iter().any(|s| s == name) {
                return Err(TemplateError::new(
                    offset,
                    format!("variable `{name}` appears twice: each variable may be bound once"),
                ));
            }
            seen.push(name.to_owned());
            vars.push(name.to_owned());
        }
        if vars.len() > 1 && !matches!(op, Op::Query | Op::Continuation) {
            return Err(TemplateError::new(
                offset,
                format!("`{{{body}}}`: several variables in one expression are supported only in queries (`{{?a,b}}`); write one expression per variable"),
            ));
        }
        Ok(Part::Expr(op, vars))
    }

    /// The template's text.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Variable names, in order of appearance.
    pub fn variables(&self) -> Vec<&str> {
        self.parts
            .iter()
            .filter_map(|p| match p {
                Part::Expr(_, vars) => Some(vars.iter().map(String::as_str)),
                Part::Literal(_) => None,
            })
            .flatten()
            .collect()
    }

    /// Expands with the given values (a variable with no value is undefined).
    pub fn expand(&self, value: impl Fn(&str) -> Option<String>) -> String {
        let mut out = String::new();
        for part in &self.parts {
            match part {
                Part::Literal(l) => out.push_str(l),
                Part::Expr(op, vars) => {
                    let mut first = true;
                    for name in vars {
                        let Some(v) = value(name) else { continue };
                        match op {
                            Op::Simple => encode(&mut out, &v, false),
                            Op::Reserved => encode(&mut out, &v, true),
                            Op::Fragment => {
                                out.push('#');
                                encode(&mut out, &v, true);
                            }
                            Op::Path => {
                                out.push('/');
                                encode(&mut out, &v, false);
                            }
                            Op::Query | Op::Continuation => {
                                out.push(if first && *op == Op::Query { '?' } else { '&' });
                                encode(&mut out, name, false);
                                out.push('=');
                                encode(&mut out, &v, false);
                            }
                        }
                        first = false;
                    }
                }
            }
        }
        out
    }

    /// The variables' values if `uri` is an expansion of this template,
    /// percent-decoded; `None` if it does not match.
    pub fn matches(&self, uri: &str) -> Option<Vec<(String, String)>> {
        let mut bound = Vec::new();
        if self.match_from(0, uri, &mut bound, 0) {
            Some(bound)
        } else {
            None
        }
    }

    /// Backtracking over the parts; `depth` bounds the work for
    /// pathological templates (a few expressions in practice).
    fn match_from(
        &self,
        index: usize,
        rest: &str,
        bound: &mut Vec<(String, String)>,
        depth: usize,
    ) -> bool {
        let Some(part) = self.parts.get(index) else {
            return rest.is_empty();
        };
        if depth > 64 {
            return false;
        }
        match part {
            Part::Literal(l) => rest
                .strip_prefix(l.as_str())
                .is_some_and(|r| self.match_from(index + 1, r, bound, depth)),
            Part::Expr(Op::Query | Op::Continuation, vars) => {
                let lead = if matches!(part, Part::Expr(Op::Query, _)) {
                    '?'
                } else {
                    '&'
                };
                // The query runs to the fragment or the end.
                let Some(query) = rest.strip_prefix(lead) else {
                    return self.match_from(index + 1, rest, bound, depth);
                };
                let end = query.find('#').unwrap_or(query.len());
                let mark = bound.len();
                for pair in query[..end].split('&') {
                    let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
                    let (Some(k), Some(v)) = (percent_decode(k), percent_decode(v)) else {
                        bound.truncate(mark);
                        return false;
                    };
                    if vars.contains(&k) && !bound[mark..].iter().any(|(n, _)| *n == k) {
                        bound.push((k, v));
                    }
                }
                if self.match_from(index + 1, &query[end..], bound, depth) {
                    return true;
                }
                bound.truncate(mark);
                false
            }
            Part::Expr(op, vars) => {
                let name = &vars[0];
                let (prefix, reserved) = match op {
                    Op::Fragment => (Some('#'), true),
                    Op::Path => (Some('/'), false),
                    Op::Reserved => (None, true),
                    _ => (None, false),
                };
                let body = match prefix {
                    Some(p) => match rest.strip_prefix(p) {
                        Some(b) => b,
                        // An undefined variable expands to nothing.
                        None => return self.match_from(index + 1, rest, bound, depth + 1),
                    },
                    None => rest,
                };
                // Candidate ends: longest first, stopping at a character the
                // expression cannot contain.
                // A reserved value stops before `?` and `#`: a query or a
                // fragment after it belongs to the rest of the URI.
                let stop = |b: u8| b == b'#' || (b == b'?' && *op != Op::Fragment);
                let limit = body
                    .bytes()
                    .position(|b| {
                        !(is_unreserved(b) || b == b'%' || (reserved && is_reserved(b) && !stop(b)))
                    })
                    .unwrap_or(body.len());
                let mut ends: Vec<usize> =
                    (1..=limit).filter(|&e| body.is_char_boundary(e)).collect();
                ends.reverse();
                for end in ends {
                    let Some(value) = percent_decode(&body[..end]) else {
                        continue;
                    };
                    bound.push((name.clone(), value));
                    if self.match_from(index + 1, &body[end..], bound, depth + 1) {
                        return true;
                    }
                    bound.pop();
                }
                false
            }
        }
    }
}

impl std::str::FromStr for UriTemplate {
    type Err = TemplateError;

    fn from_str(s: &str) -> Result<Self, TemplateError> {
        UriTemplate::parse(s)
    }
}

impl fmt::Display for UriTemplate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

fn encode(out: &mut String, value: &str, reserved: bool) {
    let bytes = value.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let keep_pct = reserved
            && b == b'%'
            && bytes.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
            && bytes.get(i + 2).is_some_and(u8::is_ascii_hexdigit);
        if is_unreserved(b) || (reserved && is_reserved(b)) || keep_pct {
            out.push(char::from(b));
        } else {
            let _ = write!(out, "%{b:02X}");
        }
        i += 1;
    }
}

/// Decodes the `%XX` escapes of `text` (RFC 3986 percent-encoding; a `+`
/// stays a `+`). `None` when an escape is cut short or not two hex digits,
/// or the bytes decoded are not UTF-8. Public for the other places that
/// read percent-encoded text (a JSON Schema `$ref`'s fragment in
/// `oxmcp-agent`): one decoder.
pub fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text.get(i + 1..i + 3)?;
            // `from_str_radix` alone would take a sign (`%+1`).
            if !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
                return None;
            }
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_decoding_takes_two_hex_digits_and_utf8_only() {
        assert_eq!(percent_decode("a%2Fb%20c+d").as_deref(), Some("a/b c+d"));
        assert_eq!(percent_decode("%C3%A9").as_deref(), Some("é"));
        assert_eq!(percent_decode("%2"), None);
        assert_eq!(percent_decode("%+1"), None);
        assert_eq!(percent_decode("%zz"), None);
        assert_eq!(percent_decode("%FF"), None);
    }

    fn vars(t: &str, uri: &str) -> Option<Vec<(String, String)>> {
        UriTemplate::parse(t).unwrap().matches(uri)
    }

    #[test]
    fn matches_the_spec_examples() {
        assert_eq!(
            vars("test://template/{id}/data", "test://template/123/data"),
            Some(vec![("id".into(), "123".into())])
        );
        assert_eq!(
            vars("test://template/{id}/data", "test://template/123/other"),
            None
        );
        assert_eq!(
            vars("test://template/{id}/data", "test://template//data"),
            None
        );
        assert_eq!(
            vars("test://template/{id}/data", "test://template/1/2/data"),
            None
        );
        assert_eq!(
            vars("file:///{+path}", "file:///a/b/c.txt"),
            Some(vec![("path".into(), "a/b/c.txt".into())])
        );
        assert_eq!(
            vars("x://{a}", "x://a%20b"),
            Some(vec![("a".into(), "a b".into())])
        );
        assert_eq!(vars("x://{a}", "x://%FF"), None);
        assert_eq!(
            vars("s://find{?q,lang}", "s://find?lang=en&q=rust"),
            Some(vec![
                ("lang".into(), "en".into()),
                ("q".into(), "rust".into())
            ])
        );
    }

    #[test]
    fn expands_levels_one_and_two() {
        let t = UriTemplate::parse("{var}/{+path}{#frag}").unwrap();
        let s = t.expand(|v| {
            Some(
                match v {
                    "var" => "Hello World!",
                    "path" => "/foo/bar",
                    _ => "x y",
                }
                .to_owned(),
            )
        });
        assert_eq!(s, "Hello%20World%21//foo/bar#x%20y");
        let t = UriTemplate::parse("q{?a,b}").unwrap();
        assert_eq!(t.expand(|v| (v == "b").then(|| "1".to_owned())), "q?b=1");
    }

    #[test]
    fn refuses_what_it_cannot_match() {
        for (t, what) in [
            ("x://{id", "unclosed"),
            ("x://{}", "empty expression"),
            ("x://{id:3}", "modifiers"),
            ("x://{list*}", "modifiers"),
            ("x://{.dot}", "operator"),
            ("x://{a b}", "invalid variable name"),
            ("x://id}", "closes no expression"),
            ("x://{a}/{a}", "appears twice"),
            ("x://{a,b}", "several variables"),
        ] {
            let e = UriTemplate::parse(t).unwrap_err().to_string();
            assert!(e.contains(what), "{t}: {e}");
        }
    }

    #[test]
    fn expansions_match_back() {
        let t = UriTemplate::parse("notes://{user}/{+rest}{?q}").unwrap();
        for (user, rest, q) in [
            ("ada", "a/b", "x y"),
            ("a b", "c%d", "&="),
            ("é", "dir/é.md", "1"),
        ] {
            let uri = t.expand(|v| {
                Some(
                    match v {
                        "user" => user,
                        "rest" => rest,
                        _ => q,
                    }
                    .to_owned(),
                )
            });
            let got = t.matches(&uri).unwrap();
            assert_eq!(
                got,
                [
                    ("user".into(), user.into()),
                    ("rest".into(), rest.into()),
                    ("q".into(), q.into())
                ],
                "{uri}"
            );
        }
    }
}
