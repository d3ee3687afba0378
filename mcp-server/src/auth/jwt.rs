//! [`JwtVerifier`]: JWT access tokens checked against the issuer's JWKS.

use std::collections::HashMap;
use std::str::FromStr;
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use jsonwebtoken::jwk::{AlgorithmParameters, Jwk, PublicKeyUse};
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use mcp_types::JsonObject;
use mcp_wire::http_client::{fetch_json, FetchError, HttpClient};
use mcp_wire::oauth::{authorization_server_metadata_urls, AuthorizationServerMetadata};
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::{Identity, TokenError, TokenVerifier, VerifyFuture};

/// The algorithms a JWT access token may be signed with: asymmetric only, so
/// a public key can never serve as an HMAC secret, and never `none`.
const ACCEPTED: &[Algorithm] = &[
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
    Algorithm::ES256,
    Algorithm::ES384,
    Algorithm::EdDSA,
];

/// Verifies JWT access tokens (RFC 9068) with the issuer's published keys.
///
/// The keys come from the issuer's `jwks_uri`, found in its metadata (RFC
/// 8414, then OpenID discovery, as MCP clients look) unless given; they are
/// cached, and fetched again when a token names an unknown `kid` (the
/// issuer rotated its keys), at most once per
/// [`min_refresh_interval`](Self::min_refresh_interval). A token is
/// accepted when its signature checks with an asymmetric algorithm the key
/// allows, `iss` is the issuer, `aud` names this server's resource URI
/// (RFC 8707; scheme and host compared without case, a trailing `/` ignored),
/// and `exp` and `nbf` hold within the leeway (default 30 s). A verified
/// token is remembered (by its SHA-256) until it expires, so its signature
/// is checked once, not on every request.
///
/// ```no_run
/// use mcp_server::auth::JwtVerifier;
///
/// let verifier = JwtVerifier::new("https://auth.example.com", "https://mcp.example.com/mcp");
/// # let _ = verifier;
/// ```
#[derive(Clone)]
pub struct JwtVerifier {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for JwtVerifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JwtVerifier")
            .field("issuer", &self.inner.issuer)
            .field("audience", &self.inner.audience)
            .finish_non_exhaustive()
    }
}

struct Inner {
    issuer: String,
    audience: String,
    leeway: u64,
    min_refresh: Duration,
    timeout: Duration,
    client: HttpClient,
    keys: RwLock<Keys>,
    /// One fetch at a time; others wait for its keys.
    fetching: tokio::sync::Mutex<()>,
    /// Tokens already verified, by SHA-256, with their `exp`: a signature
    /// is checked once per token, not once per request.
    verified: std::sync::Mutex<HashMap<[u8; 32], (Identity, u64)>>,
}

/// The most verified tokens remembered; past it, the memory starts afresh.
const MAX_VERIFIED: usize = 10_000;

#[derive(Default)]
struct Keys {
    jwks_uri: Option<String>,
    set: Vec<Key>,
    fetched: Option<Instant>,
    /// The last fetch after the first (for an unknown `kid`).
    refreshed: Option<Instant>,
}

struct Key {
    kid: Option<String>,
    /// The JWK's `alg`, when it names one.
    alg: Option<Algorithm>,
    family: Family,
    decoding: DecodingKey,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Family {
    Rsa,
    Ec,
    Okp,
}

fn family_of(alg: Algorithm) -> Option<Family> {
    match alg {
        Algorithm::RS256
        | Algorithm::RS384
        | Algorithm::RS512
        | Algorithm::PS256
        | Algorithm::PS384
        | Algorithm::PS512 => Some(Family::Rsa),
        Algorithm::ES256 | Algorithm::ES384 => Some(Family::Ec),
        Algorithm::EdDSA => Some(Family::Okp),
        Algorithm::HS256 | Algorithm::HS384 | Algorithm::HS512 => None,
    }
}

impl Key {
    fn from_jwk(value: Value) -> Option<Key> {
        let jwk: Jwk = serde_json::from_value(value).ok()?;
        if matches!(&jwk.common.public_key_use, Some(u) if *u != PublicKeyUse::Signature) {
            return None;
        }
        let family = match &jwk.algorithm {
            AlgorithmParameters::RSA(_) => Family::Rsa,
            AlgorithmParameters::EllipticCurve(_) => Family::Ec,
            AlgorithmParameters::OctetKeyPair(_) => Family::Okp,
            // A shared secret is no issuer's public key.
            AlgorithmParameters::OctetKey(_) => return None,
        };
        let alg = match &jwk.common.key_algorithm {
            None => None,
            Some(a) => {
                let name = serde_json::to_value(a).ok()?;
                Some(Algorithm::from_str(name.as_str()?).ok()?)
            }
        };
        Some(Key {
            kid: jwk.common.key_id.clone(),
            alg,
            family,
            decoding: DecodingKey::from_jwk(&jwk).ok()?,
        })
    }

    fn fits(&self, kid: Option<&str>, alg: Algorithm) -> bool {
        (kid.is_none() || self.kid.as_deref() == kid)
            && family_of(alg) == Some(self.family)
            && self.alg.is_none_or(|a| a == alg)
    }
}

/// RFC 8707 resource URIs compared as the spec asks: scheme and host
/// without case, without a trailing slash.
fn same_resource(a: &str, b: &str) -> bool {
    fn norm(uri: &str) -> String {
        let uri = uri.trim_end_matches('/');
        match mcp_wire::oauth::split_url(uri) {
            Some((origin, _)) => format!("{}{}", origin.to_ascii_lowercase(), &uri[origin.len()..]),
            None => uri.to_owned(),
        }
    }
    norm(a) == norm(b)
}

/// Whether the `aud` claim (a string or a list) names `resource`.
pub(super) fn audience_names(aud: Option<&Value>, resource: &str) -> bool {
    match aud {
        Some(Value::String(s)) => same_resource(s, resource),
        Some(Value::Array(list)) => list
            .iter()
            .filter_map(Value::as_str)
            .any(|s| same_resource(s, resource)),
        _ => false,
    }
}

impl JwtVerifier {
    /// Verifies tokens from `issuer` for the resource `audience` (this
    /// server's canonical URI, the `resource` of its metadata).
    pub fn new(issuer: impl Into<String>, audience: impl Into<String>) -> Self {
        JwtVerifier {
            inner: Arc::new(Inner {
                issuer: issuer.into(),
                audience: audience.into(),
                leeway: 30,
                min_refresh: Duration::from_secs(60),
                timeout: Duration::from_secs(10),
                client: mcp_wire::http_client::http_client(Duration::from_secs(5), None),
                keys: RwLock::new(Keys::default()),
                fetching: tokio::sync::Mutex::new(()),
                verified: std::sync::Mutex::new(HashMap::new()),
            }),
        }
    }

    fn inner_mut(&mut self) -> &mut Inner {
        Arc::get_mut(&mut self.inner).expect("configured before it is shared")
    }

    /// Uses this JWKS URL instead of the one in the issuer's metadata.
    #[must_use]
    pub fn jwks_uri(mut self, uri: impl Into<String>) -> Self {
        mcp_wire::sync::write(&self.inner_mut().keys).jwks_uri = Some(uri.into());
        self
    }

    /// How far `exp` and `nbf` may be off (default 30 s).
    #[must_use]
    pub fn leeway(mut self, leeway: Duration) -> Self {
        self.inner_mut().leeway = leeway.as_secs();
        self
    }

    /// How often a token naming an unknown `kid` may fetch the keys again
    /// (default 60 s): forged `kid`s cannot make the server hammer the issuer.
    #[must_use]
    pub fn min_refresh_interval(mut self, interval: Duration) -> Self {
        self.inner_mut().min_refresh = interval;
        self
    }

    /// The HTTP client used to reach the issuer (for a custom TLS setup).
    #[must_use]
    pub fn http_client(mut self, client: HttpClient) -> Self {
        self.inner_mut().client = client;
        self
    }

    async fn check(&self, token: &str) -> Result<Identity, TokenError> {
        let digest: [u8; 32] = Sha256::digest(token.as_bytes()).into();
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default()
            .as_secs();
        if let Some((who, exp)) = mcp_wire::sync::lock(&self.inner.verified).get(&digest) {
            if now <= exp.saturating_add(self.inner.leeway) {
                return Ok(who.clone());
            }
        }
        let who = self.verify_now(token).await?;
        if let Some(exp) = who.expires_at() {
            let mut verified = mcp_wire::sync::lock(&self.inner.verified);
            if verified.len() >= MAX_VERIFIED {
                verified.retain(|_, (_, e)| now <= e.saturating_add(self.inner.leeway));
                if verified.len() >= MAX_VERIFIED {
                    verified.clear();
                }
            }
            verified.insert(digest, (who.clone(), exp));
        }
        Ok(who)
    }

    /// Checks a token's signature and claims.
    async fn verify_now(&self, token: &str) -> Result<Identity, TokenError> {
        let header = jsonwebtoken::decode_header(token)
            .map_err(|e| TokenError::invalid(format!("malformed token: {e}")))?;
        if !ACCEPTED.contains(&header.alg) {
            return Err(TokenError::invalid(format!(
                "tokens signed with {:?} are not accepted",
                header.alg
            )));
        }
        let kid = header.kid.as_deref();
        let key = if let Some(key) = self.inner.find(kid, header.alg) {
            key
        } else {
            self.inner.refresh().await?;
            self.inner.find(kid, header.alg).ok_or_else(|| {
                TokenError::invalid(match kid {
                    Some(kid) => format!("no key `{kid}` for {:?} from the issuer", header.alg),
                    None => format!("no key for {:?} from the issuer", header.alg),
                })
            })?
        };
        let mut validation = Validation::new(header.alg);
        validation.leeway = self.inner.leeway;
        validation.validate_nbf = true;
        validation.validate_aud = false;
        validation.set_issuer(&[&self.inner.issuer]);
        validation.set_required_spec_claims(&["exp", "iss", "aud"]);
        let data = jsonwebtoken::decode::<JsonObject>(token, &key, &validation)
            .map_err(|e| TokenError::invalid(describe(&e)))?;
        if !audience_names(data.claims.get("aud"), &self.inner.audience) {
            return Err(TokenError::invalid(
                "the token was issued for another resource",
            ));
        }
        Ok(Identity::from_claims(data.claims))
    }
}

fn describe(e: &jsonwebtoken::errors::Error) -> String {
    use jsonwebtoken::errors::ErrorKind;
    match e.kind() {
        ErrorKind::ExpiredSignature => "the token has expired".into(),
        ErrorKind::ImmatureSignature => "the token is not valid yet".into(),
        ErrorKind::InvalidIssuer => "the token was issued by another issuer".into(),
        ErrorKind::InvalidSignature => "the token's signature does not verify".into(),
        ErrorKind::MissingRequiredClaim(c) => format!("the token has no `{c}` claim"),
        _ => format!("invalid token: {e}"),
    }
}

impl Inner {
    fn find(&self, kid: Option<&str>, alg: Algorithm) -> Option<DecodingKey> {
        let keys = mcp_wire::sync::read(&self.keys);
        let mut fitting = keys.set.iter().filter(|k| k.fits(kid, alg));
        let first = fitting.next()?;
        // Without a `kid`, only an unambiguous key will do.
        (kid.is_some() || fitting.next().is_none()).then(|| first.decoding.clone())
    }

    /// Fetches the keys: the first time, and again for an unknown `kid`
    /// unless the last such refresh was less than `min_refresh` ago (then
    /// the cached keys stand).
    async fn refresh(&self) -> Result<(), TokenError> {
        let started = Instant::now();
        let _one = self.fetching.lock().await;
        let (jwks_uri, fetched, refreshed) = {
            let keys = mcp_wire::sync::read(&self.keys);
            (keys.jwks_uri.clone(), keys.fetched, keys.refreshed)
        };
        if fetched.is_some_and(|at| at >= started) {
            // Fetched while this one waited.
            return Ok(());
        }
        if refreshed.is_some_and(|at| at.elapsed() < self.min_refresh) {
            return Ok(());
        }
        let jwks_uri = match jwks_uri {
            Some(uri) => uri,
            None => self.discover().await?,
        };
        let set: Value = fetch_json(&self.client, &jwks_uri, self.timeout)
            .await
            .map_err(unavailable)?;
        let keys: Vec<Key> = set
            .get("keys")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .cloned()
            .filter_map(Key::from_jwk)
            .collect();
        tracing::debug!(%jwks_uri, keys = keys.len(), "fetched the issuer's keys");
        let mut held = mcp_wire::sync::write(&self.keys);
        held.jwks_uri = Some(jwks_uri);
        held.set = keys;
        let now = Instant::now();
        if held.fetched.is_some() {
            held.refreshed = Some(now);
        }
        held.fetched = Some(now);
        Ok(())
    }

    /// The issuer's `jwks_uri`, from its metadata.
    async fn discover(&self) -> Result<String, TokenError> {
        let mut last = None;
        for url in authorization_server_metadata_urls(&self.issuer) {
            match fetch_json::<AuthorizationServerMetadata>(&self.client, &url, self.timeout).await
            {
                Ok(meta) if meta.issuer != self.issuer => {
                    return Err(TokenError::Unavailable(
                        format!(
                            "the metadata at {url} names the issuer `{}`, not `{}`",
                            meta.issuer, self.issuer
                        )
                        .into(),
                    ))
                }
                Ok(meta) => {
                    return meta.jwks_uri.ok_or_else(|| {
                        TokenError::Unavailable(
                            format!("the metadata at {url} names no jwks_uri").into(),
                        )
                    })
                }
                Err(e) => last = Some(e),
            }
        }
        Err(last.map_or_else(
            || TokenError::Unavailable(format!("`{}` is not an issuer URL", self.issuer).into()),
            unavailable,
        ))
    }
}

fn unavailable(e: FetchError) -> TokenError {
    TokenError::Unavailable(Box::new(e))
}

impl TokenVerifier for JwtVerifier {
    fn verify<'a>(&'a self, token: &'a str) -> VerifyFuture<'a> {
        Box::pin(self.check(token))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resources_compare_as_rfc_8707_says() {
        assert!(same_resource(
            "HTTP://Example.COM/mcp/",
            "http://example.com/mcp"
        ));
        assert!(!same_resource(
            "http://example.com/MCP",
            "http://example.com/mcp"
        ));
        assert!(!same_resource(
            "http://example.com/mcp2",
            "http://example.com/mcp"
        ));
        let list = serde_json::json!(["x", "http://h/mcp"]);
        assert!(audience_names(Some(&list), "http://h/mcp"));
        assert!(!audience_names(None, "http://h/mcp"));
    }
}
