//! The OAuth documents and headers a protected MCP server writes and an MCP
//! client reads: Protected Resource Metadata (RFC 9728), authorization server
//! metadata (RFC 8414 and OpenID Connect Discovery), the `WWW-Authenticate`
//! challenge (RFC 6750, RFC 9728 §5.1) and the well-known URLs of each, in the
//! order the MCP authorization spec (2025-06-18 and later) tries them.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// RFC 9728 Protected Resource Metadata: what a protected MCP server says of
/// itself at its well-known URL.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProtectedResourceMetadata {
    /// The resource identifier: the server's canonical URI (RFC 8707).
    pub resource: String,
    /// The issuers of the authorization servers that grant tokens for it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub authorization_servers: Vec<String>,
    /// The scopes needed for basic use.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scopes_supported: Option<Vec<String>>,
    /// How a token may be sent (MCP allows only `header`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bearer_methods_supported: Option<Vec<String>>,
    /// A name for people.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_name: Option<String>,
    /// A page documenting the resource.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_documentation: Option<String>,
    /// Members this model does not name.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// RFC 8414 authorization server metadata (also the shape of an OpenID
/// provider configuration), with the members MCP uses named.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct AuthorizationServerMetadata {
    /// The issuer identifier; it must equal the one the document was looked up for.
    pub issuer: String,
    /// Where the user is sent to authorize.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authorization_endpoint: Option<String>,
    /// Where codes, refresh tokens and client credentials become tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_endpoint: Option<String>,
    /// The issuer's signing keys.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jwks_uri: Option<String>,
    /// Dynamic client registration (RFC 7591).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub registration_endpoint: Option<String>,
    /// Token introspection (RFC 7662).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub introspection_endpoint: Option<String>,
    /// The scopes the issuer knows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scopes_supported: Option<Vec<String>>,
    /// `code`, ...
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub response_types_supported: Vec<String>,
    /// `authorization_code`, `refresh_token`, `client_credentials`, ...
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grant_types_supported: Option<Vec<String>>,
    /// `client_secret_basic`, `client_secret_post`, `none`, `private_key_jwt`, ...
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_endpoint_auth_methods_supported: Option<Vec<String>>,
    /// PKCE methods; MCP clients refuse an issuer without `S256`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code_challenge_methods_supported: Option<Vec<String>>,
    /// Client ID Metadata Documents: a URL may be a `client_id`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_id_metadata_document_supported: Option<bool>,
    /// RFC 9207: the authorization response carries `iss`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authorization_response_iss_parameter_supported: Option<bool>,
    /// Members this model does not name.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The well-known path prefix of Protected Resource Metadata.
pub const PROTECTED_RESOURCE_WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";

/// Splits an absolute `http(s)` URL into its origin (`scheme://authority`)
/// and its path, without query or fragment. `None` when it is not one.
pub fn split_url(url: &str) -> Option<(&str, &str)> {
    let scheme_end = url.find("://")?;
    let scheme = &url[..scheme_end];
    if !scheme.eq_ignore_ascii_case("http") && !scheme.eq_ignore_ascii_case("https") {
        return None;
    }
    let rest = &url[scheme_end + 3..];
    let authority_len = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    if authority_len == 0 {
        return None;
    }
    let origin = &url[..scheme_end + 3 + authority_len];
    let after = &rest[authority_len..];
    let path = &after[..after.find(['?', '#']).unwrap_or(after.len())];
    Some((origin, path))
}

/// Whether credentials may be sent to `url`: an `https` URL, or a plain
/// `http` one whose host is a loopback address (`127.0.0.0/8`, `[::1]`, or
/// the name `localhost`), where nothing crosses a network. OAuth 2.1 and the
/// MCP authorization spec require TLS for every authorization server
/// endpoint; loopback is the exception for local development and tests.
pub fn is_secure_or_loopback(url: &str) -> bool {
    let Some((origin, _)) = split_url(url) else {
        return false;
    };
    let (scheme, authority) = origin.split_once("://").unwrap_or(("", origin));
    if scheme.eq_ignore_ascii_case("https") {
        return true;
    }
    // No userinfo: `http://127.0.0.1@evil.example` goes to evil.example.
    if authority.contains('@') {
        return false;
    }
    let host = if let Some(rest) = authority.strip_prefix('[') {
        match rest.split_once(']') {
            Some((v6, _)) => {
                return v6
                    .parse::<std::net::Ipv6Addr>()
                    .is_ok_and(|a| a.is_loopback())
            }
            None => return false,
        }
    } else {
        authority.rsplit_once(':').map_or(authority, |(h, _)| h)
    };
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::Ipv4Addr>()
            .is_ok_and(|a| a.is_loopback())
}

/// The path of a resource's metadata under the well-known prefix:
/// `/.well-known/oauth-protected-resource/mcp` for the path `/mcp`, the
/// bare prefix for the root.
pub fn protected_resource_path(resource_path: &str) -> String {
    let trimmed = resource_path.trim_end_matches('/');
    format!("{PROTECTED_RESOURCE_WELL_KNOWN}{trimmed}")
}

/// Where a client looks for a server's Protected Resource Metadata when the
/// challenge names none: at the endpoint's path, then at the root.
pub fn protected_resource_metadata_urls(endpoint: &str) -> Vec<String> {
    let Some((origin, path)) = split_url(endpoint) else {
        return Vec::new();
    };
    let mut urls = Vec::with_capacity(2);
    if !path.trim_end_matches('/').is_empty() {
        urls.push(format!("{origin}{}", protected_resource_path(path)));
    }
    urls.push(format!("{origin}{PROTECTED_RESOURCE_WELL_KNOWN}"));
    urls
}

/// Where a client looks for an issuer's metadata, in the spec's order: for
/// `https://as.example/tenant` the OAuth document with the path inserted,
/// then OpenID's with the path inserted, then OpenID's appended; for an
/// issuer without a path, OAuth's then OpenID's.
pub fn authorization_server_metadata_urls(issuer: &str) -> Vec<String> {
    let Some((origin, path)) = split_url(issuer) else {
        return Vec::new();
    };
    let path = path.trim_end_matches('/');
    if path.is_empty() {
        vec![
            format!("{origin}/.well-known/oauth-authorization-server"),
            format!("{origin}/.well-known/openid-configuration"),
        ]
    } else {
        vec![
            format!("{origin}/.well-known/oauth-authorization-server{path}"),
            format!("{origin}/.well-known/openid-configuration{path}"),
            format!("{origin}{path}/.well-known/openid-configuration"),
        ]
    }
}

/// Percent-encodes everything but RFC 3986's unreserved characters (for
/// query parameters).
pub fn percent_encode(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for &b in value.as_bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(char::from(b));
        } else {
            const HEX: &[u8; 16] = b"0123456789ABCDEF";
            out.push('%');
            out.push(char::from(HEX[usize::from(b >> 4)]));
            out.push(char::from(HEX[usize::from(b & 15)]));
        }
    }
    out
}

/// Encodes pairs as `application/x-www-form-urlencoded` (also a URL's query).
pub fn form_encode(pairs: &[(&str, &str)]) -> String {
    let mut out = String::new();
    for (i, (name, value)) in pairs.iter().enumerate() {
        if i > 0 {
            out.push('&');
        }
        out.push_str(&percent_encode(name));
        out.push('=');
        out.push_str(&percent_encode(value));
    }
    out
}

/// Decodes `application/x-www-form-urlencoded` (or a URL's query): `+` is a
/// space, `%XX` a byte; invalid escapes are kept as written.
pub fn form_decode(text: &str) -> Vec<(String, String)> {
    fn decode(part: &str) -> String {
        let bytes = part.as_bytes();
        let mut out = Vec::with_capacity(bytes.len());
        let mut i = 0;
        while i < bytes.len() {
            match bytes[i] {
                b'+' => out.push(b' '),
                b'%' if i + 2 < bytes.len() => {
                    let hex = |b: u8| char::from(b).to_digit(16);
                    match (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                        (Some(hi), Some(lo)) => {
                            out.push(u8::try_from(hi * 16 + lo).unwrap_or(b'?'));
                            i += 2;
                        }
                        _ => out.push(b'%'),
                    }
                }
                b => out.push(b),
            }
            i += 1;
        }
        String::from_utf8_lossy(&out).into_owned()
    }
    text.split('&')
        .filter(|p| !p.is_empty())
        .map(|p| match p.split_once('=') {
            Some((n, v)) => (decode(n), decode(v)),
            None => (decode(p), String::new()),
        })
        .collect()
}

/// One challenge of a `WWW-Authenticate` header (RFC 7235 §4.1): a scheme
/// and its parameters, such as
/// `Bearer resource_metadata="https://...", scope="files:read"`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Challenge {
    /// The scheme (`Bearer`), compared without regard to case.
    pub scheme: String,
    /// The parameters in order; names are lowercased when parsed.
    pub params: Vec<(String, String)>,
}

impl Challenge {
    /// A `Bearer` challenge without parameters yet.
    pub fn bearer() -> Self {
        Challenge {
            scheme: "Bearer".into(),
            params: Vec::new(),
        }
    }

    /// A `DPoP` challenge (RFC 9449 §7.1) without parameters yet.
    pub fn dpop() -> Self {
        Challenge {
            scheme: "DPoP".into(),
            params: Vec::new(),
        }
    }

    /// Adds a parameter.
    #[must_use]
    pub fn param(mut self, name: &str, value: impl Into<String>) -> Self {
        self.params.push((name.into(), value.into()));
        self
    }

    /// A parameter's value (names compared without regard to case).
    pub fn get(&self, name: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Whether this is a `Bearer` challenge.
    pub fn is_bearer(&self) -> bool {
        self.scheme.eq_ignore_ascii_case("bearer")
    }

    /// Whether this is a `DPoP` challenge (RFC 9449 §7.1).
    pub fn is_dpop(&self) -> bool {
        self.scheme.eq_ignore_ascii_case("dpop")
    }

    /// The header value: every parameter as a quoted string.
    pub fn to_header_value(&self) -> String {
        let mut out = self.scheme.clone();
        for (i, (name, value)) in self.params.iter().enumerate() {
            out.push_str(if i == 0 { " " } else { ", " });
            out.push_str(name);
            out.push_str("=\"");
            for c in value.chars() {
                match c {
                    '"' | '\\' => {
                        out.push('\\');
                        out.push(c);
                    }
                    // A header value is visible ASCII (RFC 6750 §3 limits
                    // `error_description` to it): anything else, a non-ASCII
                    // `kid` quoted in a reason say, would make the whole
                    // challenge unsendable.
                    ' '..='~' => out.push(c),
                    _ => out.push('?'),
                }
            }
            out.push('"');
        }
        out
    }

    /// Parses every challenge of one `WWW-Authenticate` value. A header that
    /// does not parse yields the challenges before the fault.
    pub fn parse_all(header: &str) -> Vec<Challenge> {
        let mut parser = ChallengeParser {
            s: header.as_bytes(),
            i: 0,
        };
        let mut out = Vec::new();
        while let Some(challenge) = parser.challenge() {
            out.push(challenge);
        }
        out
    }
}

/// A cursor over a `WWW-Authenticate` value.
struct ChallengeParser<'a> {
    s: &'a [u8],
    i: usize,
}

fn is_tchar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

impl ChallengeParser<'_> {
    fn skip_ws(&mut self) {
        while self.i < self.s.len() && matches!(self.s[self.i], b' ' | b'\t') {
            self.i += 1;
        }
    }

    /// Skips whitespace and commas (empty list elements are allowed).
    fn skip_separators(&mut self) {
        while self.i < self.s.len() && matches!(self.s[self.i], b' ' | b'\t' | b',') {
            self.i += 1;
        }
    }

    fn token(&mut self) -> Option<String> {
        let start = self.i;
        while self.i < self.s.len() && is_tchar(self.s[self.i]) {
            self.i += 1;
        }
        (self.i > start).then(|| String::from_utf8_lossy(&self.s[start..self.i]).into_owned())
    }

    fn quoted(&mut self) -> Option<String> {
        // At the opening quote.
        self.i += 1;
        let mut out = Vec::new();
        while self.i < self.s.len() {
            match self.s[self.i] {
                b'"' => {
                    self.i += 1;
                    return Some(String::from_utf8_lossy(&out).into_owned());
                }
                b'\\' if self.i + 1 < self.s.len() => {
                    out.push(self.s[self.i + 1]);
                    self.i += 2;
                }
                b => {
                    out.push(b);
                    self.i += 1;
                }
            }
        }
        None
    }

    /// `name = value` at the cursor, or `None` (cursor unchanged) when what
    /// follows is not a parameter (the next challenge's scheme, or the end).
    fn param(&mut self) -> Option<(String, String)> {
        let start = self.i;
        let name = self.token()?;
        self.skip_ws();
        if self.s.get(self.i) != Some(&b'=') {
            self.i = start;
            return None;
        }
        self.i += 1;
        self.skip_ws();
        let value = match self.s.get(self.i) {
            Some(b'"') => self.quoted(),
            _ => self.token(),
        };
        let Some(value) = value else {
            self.i = start;
            return None;
        };
        Some((name.to_ascii_lowercase(), value))
    }

    /// A token68 (`Basic dXNlcg==`) ending the challenge, or `None` (cursor unchanged).
    fn token68(&mut self) -> Option<String> {
        let start = self.i;
        while self.i < self.s.len()
            && (self.s[self.i].is_ascii_alphanumeric() || b"-._~+/".contains(&self.s[self.i]))
        {
            self.i += 1;
        }
        if self.i == start {
            return None;
        }
        while self.s.get(self.i) == Some(&b'=') {
            self.i += 1;
        }
        let end = self.i;
        self.skip_ws();
        if self.i == self.s.len() || self.s[self.i] == b',' {
            Some(String::from_utf8_lossy(&self.s[start..end]).into_owned())
        } else {
            self.i = start;
            None
        }
    }

    fn challenge(&mut self) -> Option<Challenge> {
        self.skip_separators();
        let scheme = self.token()?;
        let mut challenge = Challenge {
            scheme,
            params: Vec::new(),
        };
        self.skip_ws();
        let before = self.i;
        if self.param().is_none() {
            // Kept as a parameter without a name.
            if let Some(token68) = self.token68() {
                challenge.params.push((String::new(), token68));
            }
            return Some(challenge);
        }
        self.i = before;
        loop {
            let save = self.i;
            self.skip_separators();
            let Some(p) = self.param() else {
                self.i = save;
                break;
            };
            challenge.params.push(p);
        }
        Some(challenge)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn challenges_round_trip() {
        let c = Challenge::bearer()
            .param("error", "insufficient_scope")
            .param("scope", "files:read files:write")
            .param(
                "resource_metadata",
                "https://x.example/.well-known/oauth-protected-resource/mcp",
            )
            .param("error_description", "say \"please\" \\ now");
        let header = c.to_header_value();
        assert_eq!(Challenge::parse_all(&header), vec![c]);
    }

    #[test]
    fn several_challenges_and_unquoted_values() {
        let all = Challenge::parse_all(
            r#"Basic realm="x", Bearer error=invalid_token, scope="a b",resource_metadata="https://h/m""#,
        );
        assert_eq!(all.len(), 2);
        assert_eq!(all[0].scheme, "Basic");
        assert_eq!(all[0].get("realm"), Some("x"));
        assert!(all[1].is_bearer());
        assert_eq!(all[1].get("error"), Some("invalid_token"));
        assert_eq!(all[1].get("SCOPE"), Some("a b"));
        assert_eq!(all[1].get("resource_metadata"), Some("https://h/m"));
    }

    #[test]
    fn bare_bearer_and_garbage() {
        let all = Challenge::parse_all("Bearer");
        assert_eq!(all, vec![Challenge::bearer()]);
        assert!(Challenge::parse_all("").is_empty());
        assert!(Challenge::parse_all("\"unterminated").is_empty());
        let all = Challenge::parse_all("Basic dXNlcg==, Bearer scope=x");
        assert_eq!(all[0].params, [(String::new(), "dXNlcg==".to_string())]);
        assert_eq!(all[1].get("scope"), Some("x"));
    }

    #[test]
    fn well_known_urls_in_the_spec_order() {
        assert_eq!(
            protected_resource_metadata_urls("http://127.0.0.1:8080/mcp?x=1"),
            [
                "http://127.0.0.1:8080/.well-known/oauth-protected-resource/mcp",
                "http://127.0.0.1:8080/.well-known/oauth-protected-resource"
            ]
        );
        assert_eq!(
            protected_resource_metadata_urls("https://h.example/"),
            ["https://h.example/.well-known/oauth-protected-resource"]
        );
        assert_eq!(
            authorization_server_metadata_urls("https://auth.example.com/tenant1"),
            [
                "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
                "https://auth.example.com/.well-known/openid-configuration/tenant1",
                "https://auth.example.com/tenant1/.well-known/openid-configuration"
            ]
        );
        assert_eq!(
            authorization_server_metadata_urls("https://auth.example.com"),
            [
                "https://auth.example.com/.well-known/oauth-authorization-server",
                "https://auth.example.com/.well-known/openid-configuration"
            ]
        );
        assert!(authorization_server_metadata_urls("ftp://x").is_empty());
        let form = form_encode(&[
            ("redirect_uri", "http://127.0.0.1:9/cb?a=b"),
            ("scope", "a b"),
        ]);
        assert_eq!(
            form,
            "redirect_uri=http%3A%2F%2F127.0.0.1%3A9%2Fcb%3Fa%3Db&scope=a%20b"
        );
        assert_eq!(
            form_decode(&form),
            [
                (
                    "redirect_uri".to_string(),
                    "http://127.0.0.1:9/cb?a=b".to_string()
                ),
                ("scope".to_string(), "a b".to_string())
            ]
        );
        assert_eq!(
            form_decode("a=x+y%2&b=%é"),
            [
                ("a".to_string(), "x y%2".to_string()),
                ("b".to_string(), "%é".to_string())
            ]
        );
        assert_eq!(split_url("http://h"), Some(("http://h", "")));
        assert_eq!(split_url("http:///x"), None);
    }

    #[test]
    fn a_challenge_with_non_ascii_text_is_still_a_header_value() {
        let c = Challenge::bearer()
            .param("error", "invalid_token")
            .param("error_description", "no key `ключ\u{7f}\n` from the issuer");
        let value = c.to_header_value();
        assert!(value.bytes().all(|b| (b' '..=b'~').contains(&b)), "{value}");
        assert_eq!(
            Challenge::parse_all(&value)[0].get("error_description"),
            Some("no key `??????` from the issuer")
        );
    }

    #[test]
    fn credentials_go_over_https_or_to_loopback_only() {
        for ok in [
            "https://as.example/token",
            "HTTPS://as.example",
            "http://127.0.0.1:8080/token",
            "http://127.9.9.9/x",
            "http://[::1]:9/jwks",
            "http://localhost/x",
            "http://LOCALHOST:1",
        ] {
            assert!(is_secure_or_loopback(ok), "{ok}");
        }
        for bad in [
            "http://as.example/token",
            "http://10.0.0.1/token",
            "http://127.0.0.1.evil.example/x",
            "http://localhost.evil.example/x",
            "http://127.0.0.1@evil.example/x",
            "http://[::2]/x",
            "http://[::1/x",
            "ftp://127.0.0.1/x",
            "127.0.0.1/x",
        ] {
            assert!(!is_secure_or_loopback(bad), "{bad}");
        }
    }
}
