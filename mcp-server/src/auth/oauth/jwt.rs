//! [`JwtVerifier`]: JWT access tokens checked against the issuer's JWKS.

use std::collections::{HashMap, HashSet};
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use jsonwebtoken::jwk::{AlgorithmParameters, Jwk, PublicKeyUse};
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use oxmcp_types::JsonObject;
use oxmcp_wire::http_client::{fetch_json, get_json_request, send, HttpClient};
use oxmcp_wire::oauth::{
    authorization_server_metadata_urls, is_secure_or_loopback, AuthorizationServerMetadata,
};
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::audience::{self, InvalidAudience};
use super::{Identity, TokenError, TokenVerifier, VerifyFuture};

/// The algorithms a JWT access token may be signed with: asymmetric only, so
/// a public key can never serve as an HMAC secret, and never `none`.
pub(super) const ACCEPTED: &[Algorithm] = &[
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
/// 8414, then OpenID discovery, as MCP clients look) unless given. Both must
/// be `https` (plain `http` only to a loopback address). The key set is kept
/// for as long as the issuer's `Cache-Control: max-age` says (default 10
/// minutes without one, never longer than an hour: see
/// [`key_set_max_age`](Self::key_set_max_age)); then it is fetched again,
/// and tokens remembered as verified with a key no longer published are
/// forgotten (a key rotated out after a compromise stops being trusted). A
/// token naming an unknown `kid` fetches the keys again too (the issuer
/// rotated them), at most once per
/// [`min_refresh_interval`](Self::min_refresh_interval).
///
/// One fetch runs at a time and every request waiting for keys shares its
/// outcome. A failed fetch is retried after a back-off (1 s, doubling up to
/// a minute); meanwhile, and while a retry is in flight, a request that
/// needs the keys is answered at once with 503 and `Retry-After`, so an
/// issuer that is down or slow never makes requests queue behind each
/// other's timeouts. Tokens already verified stay served through such an
/// outage until they expire.
///
/// A token is accepted when its signature checks with an asymmetric
/// algorithm the key allows, `iss` is the issuer, `aud` names this server's
/// resource URI (RFC 8707; scheme and host compared without case, a trailing
/// `/` ignored) or another audience set with [`audiences`](Self::audiences),
/// `exp` and `nbf` hold within the leeway (default 30 s), and
/// (when [`require_access_token_type`](Self::require_access_token_type) is
/// set) its `typ` header is `at+jwt`. A verified token is remembered (by its
/// SHA-256) until it expires, so its signature is checked once, not on
/// every request.
///
/// ```no_run
/// use oxmcp_server::auth::JwtVerifier;
///
/// let verifier = JwtVerifier::new("https://auth.example.com", "https://mcp.example.com/mcp");
/// # let _ = verifier;
/// ```
#[derive(Clone)]
pub struct JwtVerifier {
    inner: Arc<VerifierState>,
}

impl std::fmt::Debug for JwtVerifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JwtVerifier")
            .field("issuer", &self.inner.issuer)
            .field("audiences", &self.inner.audiences)
            .finish_non_exhaustive()
    }
}

/// What every clone of a [`JwtVerifier`] shares: the issuer, the audiences,
/// the leeway and the key set cache.
struct VerifierState {
    issuer: String,
    /// The `aud` values accepted (by default the resource URI alone).
    audiences: Vec<String>,
    leeway: u64,
    min_refresh: Duration,
    max_age: Duration,
    max_age_ceiling: Duration,
    require_typ: bool,
    timeout: Duration,
    client: HttpClient,
    keys: RwLock<Keys>,
    /// One fetch at a time; those waiting for it take its outcome.
    fetching: tokio::sync::Mutex<Attempt>,
    /// The last fetch failed: while another runs, requests do not wait.
    failing: AtomicBool,
    /// Tokens already verified, by SHA-256: a signature is checked once
    /// per token, not once per request.
    verified: std::sync::Mutex<HashMap<[u8; 32], Remembered>>,
}

/// A verified token: whom it speaks for, its `exp`, and the key that
/// verified it (forgotten with the key).
struct Remembered {
    identity: Identity,
    exp: u64,
    key: [u8; 32],
}

/// The most verified tokens remembered; past it, the memory starts afresh.
const MAX_VERIFIED: usize = 10_000;
/// The shortest a key set is kept, whatever the issuer says (`no-cache`
/// would otherwise mean a fetch per request).
const MIN_KEY_SET_AGE: Duration = Duration::from_secs(1);
/// The first wait after a failed fetch; it doubles up to [`MAX_BACKOFF`].
const FIRST_BACKOFF: Duration = Duration::from_secs(1);
const MAX_BACKOFF: Duration = Duration::from_secs(60);

#[derive(Default)]
struct Keys {
    jwks_uri: Option<String>,
    set: Vec<Key>,
    /// When the set was fetched, and how long it may be used.
    fetched: Option<Instant>,
    max_age: Duration,
    /// The last fetch for an unknown `kid` (throttled by `min_refresh`).
    refreshed: Option<Instant>,
}

impl Keys {
    fn is_fresh(&self) -> bool {
        self.fetched.is_some_and(|at| at.elapsed() < self.max_age)
    }
}

/// The last fetch of the keys.
#[derive(Default)]
struct Attempt {
    /// When it ended, and how.
    ended: Option<(Instant, Result<(), Arc<str>>)>,
    /// Failed fetches in a row.
    failures: u32,
    /// No new fetch before this (after a failure).
    retry_at: Option<Instant>,
}

/// Why the keys are fetched.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Why {
    /// None yet, or the set is older than its max age.
    Stale,
    /// A token names a key the set does not have.
    UnknownKid,
}

struct Key {
    /// The SHA-256 of the JWK as published: what remembered tokens name.
    fingerprint: [u8; 32],
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
        let fingerprint = Sha256::digest(serde_json::to_vec(&value).ok()?).into();
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
            fingerprint,
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

impl JwtVerifier {
    /// Verifies tokens from `issuer` for the resource `audience` (this
    /// server's canonical URI, the `resource` of its metadata).
    pub fn new(issuer: impl Into<String>, audience: impl Into<String>) -> Self {
        let issuer = issuer.into();
        if !is_secure_or_loopback(&issuer) {
            tracing::error!(%issuer, "the issuer must be an https URL (http only on a loopback address): its keys will not be fetched");
        }
        JwtVerifier {
            inner: Arc::new(VerifierState {
                issuer,
                audiences: vec![audience.into()],
                leeway: 30,
                min_refresh: Duration::from_secs(60),
                max_age: Duration::from_secs(600),
                max_age_ceiling: Duration::from_secs(3600),
                require_typ: false,
                timeout: Duration::from_secs(10),
                client: oxmcp_wire::http_client::http_client(Duration::from_secs(5), None),
                keys: RwLock::new(Keys::default()),
                fetching: tokio::sync::Mutex::new(Attempt::default()),
                failing: AtomicBool::new(false),
                verified: std::sync::Mutex::new(HashMap::new()),
            }),
        }
    }

    fn inner_mut(&mut self) -> &mut VerifierState {
        Arc::get_mut(&mut self.inner).expect("configured before it is shared")
    }

    /// Accepts tokens whose `aud` names any of `audiences`, instead of the
    /// one given to [`new`](Self::new) (include it to keep it): for an
    /// identity provider that writes the API's client id or an `api://`
    /// URI there rather than the resource URI (Entra ID, Auth0, Okta: see
    /// `docs/authorization.md`). The identity says which one a token was
    /// accepted for ([`Identity::audience`]). URIs compare as resource URIs
    /// (scheme and host without case, a trailing `/` ignored), other names
    /// exactly.
    ///
    /// An empty set, or a value that is no audience (empty, with spaces, or
    /// with a `:` but not a URI), is refused: [`InvalidAudience`].
    ///
    /// ```
    /// use oxmcp_server::auth::JwtVerifier;
    ///
    /// let resource = "https://mcp.example.com/mcp";
    /// let verifier = JwtVerifier::new("https://login.example.com/tenant/v2.0", resource)
    ///     .audiences([resource, "api://calculator", "6b2f0c3e-8d4a-4f7e-9a51-3c2d1e0f9b8a"])
    ///     .expect("well-formed audiences");
    /// # let _ = verifier;
    /// ```
    pub fn audiences<S: Into<String>>(
        mut self,
        audiences: impl IntoIterator<Item = S>,
    ) -> Result<Self, InvalidAudience> {
        self.inner_mut().audiences = audience::checked(audiences)?;
        Ok(self)
    }

    /// Uses this JWKS URL instead of the one in the issuer's metadata.
    #[must_use]
    pub fn jwks_uri(mut self, uri: impl Into<String>) -> Self {
        oxmcp_wire::sync::write(&self.inner_mut().keys).jwks_uri = Some(uri.into());
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

    /// How long the key set is used before it is fetched again: `default`
    /// when the issuer's answer has no `Cache-Control: max-age` (10 minutes
    /// unless set), and never longer than `ceiling` (an hour unless set),
    /// whatever the issuer says.
    #[must_use]
    pub fn key_set_max_age(mut self, default: Duration, ceiling: Duration) -> Self {
        let inner = self.inner_mut();
        inner.max_age_ceiling = ceiling.max(MIN_KEY_SET_AGE);
        inner.max_age = default.clamp(MIN_KEY_SET_AGE, inner.max_age_ceiling);
        self
    }

    /// Accepts only tokens whose `typ` header is `at+jwt` (or
    /// `application/at+jwt`), as RFC 9068 asks of access tokens. Off by
    /// default: the audience check already refuses ID tokens, and issuers
    /// that still write `JWT` there are common.
    #[must_use]
    pub fn require_access_token_type(mut self) -> Self {
        self.inner_mut().require_typ = true;
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
        let inner = &*self.inner;
        // A stale set is fetched again first, so that a token remembered
        // with a key the issuer has since removed is forgotten.
        let stale = if oxmcp_wire::sync::read(&inner.keys).is_fresh() {
            Ok(())
        } else {
            inner.refresh(Why::Stale).await
        };
        if let Some(who) = inner.remembered(&digest) {
            // Served through an outage: the key was valid when last seen.
            return Ok(who);
        }
        stale?;
        let (who, key) = self.verify_now(token).await?;
        if let Some(exp) = who.expires_at() {
            let now = unix_now();
            let mut verified = oxmcp_wire::sync::lock(&inner.verified);
            if verified.len() >= MAX_VERIFIED {
                verified.retain(|_, r| now <= r.exp.saturating_add(inner.leeway));
                if verified.len() >= MAX_VERIFIED {
                    verified.clear();
                }
            }
            verified.insert(
                digest,
                Remembered {
                    identity: who.clone(),
                    exp,
                    key,
                },
            );
        }
        Ok(who)
    }

    /// Checks a token's signature and claims; also says which key verified it.
    async fn verify_now(&self, token: &str) -> Result<(Identity, [u8; 32]), TokenError> {
        let header = jsonwebtoken::decode_header(token)
            .map_err(|e| TokenError::invalid(format!("malformed token: {e}")))?;
        if !ACCEPTED.contains(&header.alg) {
            return Err(TokenError::invalid(format!(
                "tokens signed with {:?} are not accepted",
                header.alg
            )));
        }
        if self.inner.require_typ
            && !header.typ.as_deref().is_some_and(|t| {
                t.eq_ignore_ascii_case("at+jwt") || t.eq_ignore_ascii_case("application/at+jwt")
            })
        {
            return Err(TokenError::invalid(
                "not an access token: its `typ` header is not `at+jwt`",
            ));
        }
        let kid = header.kid.as_deref();
        let (key, fingerprint) = if let Some(found) = self.inner.find(kid, header.alg) {
            found
        } else {
            self.inner.refresh(Why::UnknownKid).await?;
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
        let Some(accepted) = audience::accepted(data.claims.get("aud"), &self.inner.audiences)
        else {
            return Err(TokenError::invalid(
                "the token was issued for another resource",
            ));
        };
        let accepted = accepted.to_owned();
        Ok((
            Identity::from_claims(data.claims).with_audience(accepted),
            fingerprint,
        ))
    }
}

fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default()
        .as_secs()
}

/// The `max-age` of a `Cache-Control` value (`no-cache` and `no-store`
/// count as zero), if it says.
fn max_age_of(cache_control: &str) -> Option<Duration> {
    let mut age = None;
    for directive in cache_control.split(',').map(str::trim) {
        let (name, value) = directive.split_once('=').unwrap_or((directive, ""));
        if name.eq_ignore_ascii_case("no-cache") || name.eq_ignore_ascii_case("no-store") {
            return Some(Duration::ZERO);
        }
        if name.eq_ignore_ascii_case("max-age") {
            age = value
                .trim_matches('"')
                .parse::<u64>()
                .ok()
                .map(Duration::from_secs);
        }
    }
    age
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

impl VerifierState {
    fn find(&self, kid: Option<&str>, alg: Algorithm) -> Option<(DecodingKey, [u8; 32])> {
        let keys = oxmcp_wire::sync::read(&self.keys);
        let mut fitting = keys.set.iter().filter(|k| k.fits(kid, alg));
        let first = fitting.next()?;
        // Without a `kid`, only an unambiguous key will do.
        (kid.is_some() || fitting.next().is_none())
            .then(|| (first.decoding.clone(), first.fingerprint))
    }

    /// A token verified before, still within its `exp`.
    fn remembered(&self, digest: &[u8; 32]) -> Option<Identity> {
        let verified = oxmcp_wire::sync::lock(&self.verified);
        let r = verified.get(digest)?;
        (unix_now() <= r.exp.saturating_add(self.leeway)).then(|| r.identity.clone())
    }

    /// Fetches the keys, once for all who need them at the same time.
    ///
    /// After a failure nothing is fetched until the back-off has passed,
    /// and while a fetch runs after a failure others do not wait for it:
    /// both answer at once, with when to try again. A fetch for an unknown
    /// `kid` less than `min_refresh` after the last one keeps the keys held.
    async fn refresh(&self, why: Why) -> Result<(), TokenError> {
        let started = Instant::now();
        let mut attempt = if self.failing.load(Ordering::Acquire) {
            match self.fetching.try_lock() {
                Ok(attempt) => attempt,
                Err(_) => return Err(backing_off("a fetch of the keys is failing", FIRST_BACKOFF)),
            }
        } else {
            self.fetching.lock().await
        };
        match &attempt.ended {
            // Ended while this one waited: its outcome is this one's.
            Some((at, outcome)) if *at >= started => {
                return outcome.clone().map_err(|e| {
                    let left = attempt
                        .retry_at
                        .map_or(FIRST_BACKOFF, |t| t - Instant::now().min(t));
                    backing_off(&e, left)
                });
            }
            _ => {}
        }
        if let Some(at) = attempt.retry_at {
            let now = Instant::now();
            if now < at {
                let last = match &attempt.ended {
                    Some((_, Err(e))) => Arc::clone(e),
                    _ => Arc::from("fetching the keys failed"),
                };
                return Err(backing_off(&last, at - now));
            }
        }
        {
            let keys = oxmcp_wire::sync::read(&self.keys);
            match why {
                Why::Stale if keys.is_fresh() => return Ok(()),
                Why::UnknownKid
                    if keys
                        .refreshed
                        .is_some_and(|at| at.elapsed() < self.min_refresh) =>
                {
                    return Ok(())
                }
                _ => {}
            }
        }
        let outcome = self.fetch(why).await;
        let now = Instant::now();
        match &outcome {
            Ok(()) => {
                attempt.failures = 0;
                attempt.retry_at = None;
                self.failing.store(false, Ordering::Release);
            }
            Err(e) => {
                attempt.failures = attempt.failures.saturating_add(1);
                let backoff = FIRST_BACKOFF
                    .saturating_mul(1 << (attempt.failures - 1).min(16))
                    .min(MAX_BACKOFF);
                attempt.retry_at = Some(now + backoff);
                self.failing.store(true, Ordering::Release);
                tracing::warn!(issuer = %self.issuer, error = %e, retry_in = ?backoff, "fetching the issuer's keys failed");
            }
        }
        attempt.ended = Some((now, outcome.clone()));
        outcome.map_err(|e| {
            let left = attempt.retry_at.map_or(FIRST_BACKOFF, |t| t - now.min(t));
            backing_off(&e, left)
        })
    }

    /// One fetch: the metadata when the `jwks_uri` is not known yet, then
    /// the keys; on success, remembered tokens whose key is gone are dropped.
    async fn fetch(&self, why: Why) -> Result<(), Arc<str>> {
        let jwks_uri = oxmcp_wire::sync::read(&self.keys).jwks_uri.clone();
        let jwks_uri = match jwks_uri {
            Some(uri) => uri,
            None => self.discover().await?,
        };
        if !is_secure_or_loopback(&jwks_uri) {
            return Err(format!(
                "the key set URL {jwks_uri} is not https (plain http is accepted on loopback addresses only)"
            )
            .into());
        }
        let fetched =
            get_json_request(&jwks_uri).map(|request| send(&self.client, request, self.timeout));
        let answer = match fetched {
            Ok(sent) => sent.await,
            Err(e) => Err(e),
        }
        .map_err(|e| Arc::from(oxmcp_types::error::Chain(&e).to_string()))?;
        let set: Value = answer
            .json(&jwks_uri)
            .map_err(|e| Arc::from(oxmcp_types::error::Chain(&e).to_string()))?;
        let max_age = answer
            .headers
            .get_all(http::header::CACHE_CONTROL)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .find_map(max_age_of)
            .unwrap_or(self.max_age)
            .clamp(MIN_KEY_SET_AGE, self.max_age_ceiling);
        let keys: Vec<Key> = set
            .get("keys")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .cloned()
            .filter_map(Key::from_jwk)
            .collect();
        tracing::debug!(%jwks_uri, keys = keys.len(), ?max_age, "fetched the issuer's keys");
        let published: HashSet<[u8; 32]> = keys.iter().map(|k| k.fingerprint).collect();
        {
            let mut held = oxmcp_wire::sync::write(&self.keys);
            held.jwks_uri = Some(jwks_uri);
            held.set = keys;
            held.max_age = max_age;
            let now = Instant::now();
            if why == Why::UnknownKid {
                held.refreshed = Some(now);
            }
            held.fetched = Some(now);
        }
        let mut verified = oxmcp_wire::sync::lock(&self.verified);
        let before = verified.len();
        verified.retain(|_, r| published.contains(&r.key));
        if verified.len() < before {
            tracing::info!(
                forgotten = before - verified.len(),
                "tokens verified with keys the issuer no longer publishes are checked again"
            );
        }
        Ok(())
    }

    /// The issuer's `jwks_uri`, from its metadata.
    async fn discover(&self) -> Result<String, Arc<str>> {
        let mut last = None;
        for url in authorization_server_metadata_urls(&self.issuer) {
            if !is_secure_or_loopback(&url) {
                return Err(format!(
                    "the issuer {} is not https (plain http is accepted on loopback addresses only)",
                    self.issuer
                )
                .into());
            }
            match fetch_json::<AuthorizationServerMetadata>(&self.client, &url, self.timeout).await
            {
                Ok(meta) if meta.issuer != self.issuer => {
                    return Err(format!(
                        "the metadata at {url} names the issuer `{}`, not `{}`",
                        meta.issuer, self.issuer
                    )
                    .into())
                }
                Ok(meta) => {
                    return meta
                        .jwks_uri
                        .ok_or_else(|| format!("the metadata at {url} names no jwks_uri").into())
                }
                Err(e) => last = Some(e),
            }
        }
        Err(match last {
            Some(e) => oxmcp_types::error::Chain(&e).to_string().into(),
            None => format!("`{}` is not an issuer URL", self.issuer).into(),
        })
    }
}

/// A 503 for a request that needs keys while fetching them fails.
fn backing_off(reason: &str, left: Duration) -> TokenError {
    TokenError::unavailable(format!("the issuer's keys cannot be fetched: {reason}"))
        .retry_after(left.max(Duration::from_secs(1)))
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
    fn cache_control_gives_the_key_set_its_age() {
        let secs = |s: &str| max_age_of(s).map(|d| d.as_secs());
        assert_eq!(secs("public, max-age=300"), Some(300));
        assert_eq!(secs("Max-Age=\"60\", must-revalidate"), Some(60));
        assert_eq!(secs("no-cache"), Some(0));
        assert_eq!(secs("max-age=600, no-store"), Some(0));
        assert_eq!(secs("public"), None);
        assert_eq!(secs("max-age=soon"), None);
    }
}
