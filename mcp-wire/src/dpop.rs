//! DPoP (RFC 9449): what the client that makes proofs and the server that
//! checks them must compute alike: the header and error names, the JWK
//! thumbprint (RFC 7638) a token's `cnf.jkt` names, the access token hash
//! (`ath`) and the form in which `htu` is compared with the request's URL.

use base64::Engine as _;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

/// The request header carrying a proof (`DPoP`, lowercase as `http` wants it).
pub const DPOP: &str = "dpop";
/// The response header carrying a server's nonce.
pub const DPOP_NONCE: &str = "dpop-nonce";
/// The `typ` of a proof's JOSE header.
pub const PROOF_TYPE: &str = "dpop+jwt";
/// The error of a server that wants a (fresh) nonce in the proof.
pub const USE_DPOP_NONCE: &str = "use_dpop_nonce";
/// The error of a proof that does not pass the checks.
pub const INVALID_DPOP_PROOF: &str = "invalid_dpop_proof";

/// Base64url without padding, as JOSE writes everything.
pub fn b64url(bytes: &[u8]) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

/// The RFC 7638 SHA-256 thumbprint of a public JWK (EC, RSA or OKP), in
/// base64url: the hash of its required members, in lexicographic order,
/// written without whitespace. `None` when a required member is missing or
/// not a string, or the key type is unknown.
pub fn jwk_thumbprint(jwk: &Map<String, Value>) -> Option<String> {
    let members: &[&str] = match jwk.get("kty")?.as_str()? {
        "EC" => &["crv", "kty", "x", "y"],
        "RSA" => &["e", "kty", "n"],
        "OKP" => &["crv", "kty", "x"],
        _ => return None,
    };
    let mut canonical = String::from("{");
    for (i, name) in members.iter().enumerate() {
        let value = jwk.get(*name)?.as_str()?;
        if i > 0 {
            canonical.push(',');
        }
        // serde_json writes a string as JSON does, escapes included.
        canonical.push_str(&Value::from(*name).to_string());
        canonical.push(':');
        canonical.push_str(&Value::from(value).to_string());
    }
    canonical.push('}');
    Some(b64url(&Sha256::digest(canonical.as_bytes())))
}

/// The `ath` of a proof sent with `access_token`: base64url(SHA-256(token)).
pub fn access_token_hash(access_token: &str) -> String {
    b64url(&Sha256::digest(access_token.as_bytes()))
}

/// The form in which `htu` and a request's URL are compared (RFC 9449
/// §4.3, with RFC 3986 §6.2.2 and §6.2.3 normalization): query and
/// fragment dropped, scheme and host lowercased, the scheme's default port
/// dropped, an empty path written `/`, percent-encoded unreserved
/// characters decoded and other escapes in uppercase. `None` when `url` is
/// not an absolute `http(s)` URL.
pub fn htu_form(url: &str) -> Option<String> {
    let (origin, path) = crate::oauth::split_url(url)?;
    let (scheme, authority) = origin.split_once("://")?;
    let scheme = scheme.to_ascii_lowercase();
    if authority.contains('@') {
        return None;
    }
    let mut authority = authority.to_ascii_lowercase();
    let default_port = if scheme == "https" { ":443" } else { ":80" };
    if let Some(host) = authority.strip_suffix(default_port) {
        authority = host.to_owned();
    }
    let path = if path.is_empty() { "/" } else { path };
    Some(format!("{scheme}://{authority}{}", normalize_escapes(path)))
}

/// Decodes `%XX` of unreserved characters and uppercases the others.
fn normalize_escapes(path: &str) -> String {
    let bytes = path.as_bytes();
    let mut out = String::with_capacity(path.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| char::from(b).to_digit(16);
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                let c = u8::try_from(h * 16 + l).unwrap_or(0);
                if c.is_ascii_alphanumeric() || b"-._~".contains(&c) {
                    out.push(char::from(c));
                } else {
                    out.push('%');
                    out.push(char::from(bytes[i + 1]).to_ascii_uppercase());
                    out.push(char::from(bytes[i + 2]).to_ascii_uppercase());
                }
                i += 3;
                continue;
            }
        }
        out.push(char::from(bytes[i]));
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{access_token_hash, htu_form, jwk_thumbprint};
    use serde_json::json;

    #[test]
    fn the_thumbprint_is_rfc_7638s_example() {
        // RFC 7638 §3.1.
        let jwk = json!({
            "kty": "RSA",
            "n": "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw",
            "e": "AQAB",
            "alg": "RS256",
            "kid": "2011-04-29"
        });
        assert_eq!(
            jwk_thumbprint(jwk.as_object().unwrap()).as_deref(),
            Some("NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs")
        );
        assert_eq!(
            jwk_thumbprint(json!({"kty": "oct", "k": "x"}).as_object().unwrap()),
            None
        );
        assert_eq!(
            jwk_thumbprint(json!({"kty": "EC", "x": "a"}).as_object().unwrap()),
            None
        );
    }

    #[test]
    fn ath_is_the_tokens_sha256() {
        // RFC 9449 §7.1's example token and its `ath`.
        assert_eq!(
            access_token_hash("Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU"),
            "fUHyO2r2Z3DZ53EsNrWBb0xWXoaNy59IiKCAqksmQEo"
        );
    }

    #[test]
    fn htu_is_compared_normalized_without_query_or_fragment() {
        let same = [
            "https://Server.Example.COM:443/mcp?x=1#f",
            "HTTPS://server.example.com/%6Dcp",
        ];
        for url in same {
            assert_eq!(
                htu_form(url).as_deref(),
                Some("https://server.example.com/mcp"),
                "{url}"
            );
        }
        assert_eq!(
            htu_form("http://127.0.0.1:80").as_deref(),
            Some("http://127.0.0.1/")
        );
        assert_eq!(
            htu_form("http://h/a%2fb").as_deref(),
            Some("http://h/a%2Fb")
        );
        assert_ne!(htu_form("http://h:8080/mcp"), htu_form("http://h/mcp"));
        assert_eq!(htu_form("ftp://h/x"), None);
    }
}
