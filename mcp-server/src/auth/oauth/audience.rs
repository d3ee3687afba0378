//! The audiences a verifier accepts: which `aud` values make a token this
//! server's.
//!
//! By default one, the server's resource URI (RFC 8707), which is what an
//! authorization server puts in `aud` when the client sends `resource`.
//! Some identity providers write something else there: Entra ID the API
//! application's client id (a GUID) or its `api://...` URI, Auth0 its API
//! identifier, Okta the authorization server's audience setting. A server
//! behind one of those accepts that value instead of, or beside, the
//! resource URI (see `docs/authorization.md`).

use serde_json::Value;

/// An audience set given to
/// [`JwtVerifier::audiences`](super::JwtVerifier::audiences) or
/// [`Introspection::audiences`](super::Introspection::audiences) cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum InvalidAudience {
    /// No audience at all: no token could ever be accepted.
    #[error(
        "`audiences` is empty: name at least one audience (by default the server's resource URI)"
    )]
    Empty,
    /// A value that is not an audience: empty, with spaces or control
    /// characters, or with a `:` but not a URI (RFC 7519 `StringOrURI`).
    #[error("`audiences`: `{0}` is not an audience (a URI such as `https://mcp.example.com/mcp` or `api://calculator`, or a name without `:`, spaces or control characters)")]
    Malformed(String),
}

/// The set, each value checked, in the order given (each once).
pub(super) fn checked<S: Into<String>>(
    set: impl IntoIterator<Item = S>,
) -> Result<Vec<String>, InvalidAudience> {
    let mut out: Vec<String> = Vec::new();
    for audience in set {
        let audience = audience.into();
        if !well_formed(&audience) {
            return Err(InvalidAudience::Malformed(audience));
        }
        if !out.iter().any(|have| same_audience(have, &audience)) {
            out.push(audience);
        }
    }
    if out.is_empty() {
        return Err(InvalidAudience::Empty);
    }
    Ok(out)
}

/// RFC 7519's `StringOrURI`: any name, but one with a `:` must be a URI (a
/// scheme, then something); an `http(s)` one an absolute URL without a
/// fragment, as a resource URI is.
fn well_formed(audience: &str) -> bool {
    if audience.is_empty()
        || audience
            .chars()
            .any(|c| c.is_whitespace() || c.is_control())
    {
        return false;
    }
    let Some((scheme, rest)) = audience.split_once(':') else {
        return true;
    };
    let scheme_ok = scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c));
    if !scheme_ok || rest.is_empty() {
        return false;
    }
    if scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https") {
        return oxmcp_wire::oauth::split_url(audience).is_some() && !audience.contains('#');
    }
    true
}

/// Two audiences compared as RFC 8707 resource URIs are: scheme and host
/// without case, a trailing `/` ignored; other names exactly.
pub(super) fn same_audience(a: &str, b: &str) -> bool {
    fn norm(uri: &str) -> String {
        let uri = uri.trim_end_matches('/');
        match oxmcp_wire::oauth::split_url(uri) {
            Some((origin, _)) => format!("{}{}", origin.to_ascii_lowercase(), &uri[origin.len()..]),
            None => uri.to_owned(),
        }
    }
    norm(a) == norm(b)
}

/// The first of `accepted` the `aud` claim (a string or a list) names:
/// the audience the token is accepted for, `None` when it names none.
pub(super) fn accepted<'a>(aud: Option<&Value>, accepted: &'a [String]) -> Option<&'a str> {
    let named: Vec<&str> = match aud {
        Some(Value::String(s)) => vec![s.as_str()],
        Some(Value::Array(list)) => list.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    accepted
        .iter()
        .find(|mine| named.iter().any(|n| same_audience(n, mine)))
        .map(String::as_str)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn resources_compare_as_rfc_8707_says() {
        assert!(same_audience("HTTP://H/mcp/", "http://h/mcp"));
        assert!(!same_audience("http://h/MCP", "http://h/mcp"));
        assert!(!same_audience("http://h/mcp2", "http://h/mcp"));
        assert!(!same_audience("api://calc", "api://CALC"));
    }

    #[test]
    fn the_first_accepted_audience_the_claim_names_is_the_one() {
        let set = checked(["http://h/mcp", "api://calc", "0f1e2d3c"]).unwrap();
        assert_eq!(
            accepted(Some(&json!("http://h/mcp/")), &set),
            Some("http://h/mcp")
        );
        assert_eq!(
            accepted(Some(&json!(["https://graph", "0f1e2d3c"])), &set),
            Some("0f1e2d3c")
        );
        assert_eq!(accepted(Some(&json!(["https://graph"])), &set), None);
        assert_eq!(accepted(Some(&json!(7)), &set), None);
        assert_eq!(accepted(None, &set), None);
    }

    #[test]
    fn an_empty_set_or_a_malformed_audience_is_named() {
        assert_eq!(checked(Vec::<String>::new()), Err(InvalidAudience::Empty));
        for bad in [
            "",
            "api calc",
            "http://",
            "https://h/mcp#x",
            ":x",
            "1a:b",
            "api:",
            "a\tb",
        ] {
            let e = checked(["http://h/mcp", bad]).unwrap_err();
            assert_eq!(e, InvalidAudience::Malformed(bad.into()), "{bad}");
            assert!(e.to_string().starts_with("`audiences`"), "{e}");
        }
        for good in [
            "api://calc",
            "0f1e2d3c-aaaa",
            "urn:example:calc",
            "https://h/mcp",
        ] {
            assert!(checked([good]).is_ok(), "{good}");
        }
        assert_eq!(checked(["http://h/mcp", "HTTP://h/mcp/"]).unwrap().len(), 1);
    }
}
