//! [`Dpop`]: DPoP-bound access tokens (RFC 9449) on a protected server:
//! the proof of each request checked, its `jti` remembered against replay,
//! and, when asked, the server's nonces.

use std::collections::{HashMap, VecDeque};
use std::str::FromStr;
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use jsonwebtoken::jwk::Jwk;
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use oxmcp_wire::dpop::{access_token_hash, htu_form, jwk_thumbprint, PROOF_TYPE};
use serde_json::{Map, Value};

use super::jwt::ACCEPTED;
use crate::state::{within, Store, StoreError};

/// The longest proof read (a JWT with an RSA key of 8192 bits fits).
const MAX_PROOF: usize = 8 * 1024;
/// The longest `jti` remembered.
const MAX_JTI: usize = 256;
/// JWK members that only a private (or symmetric) key has.
const PRIVATE_MEMBERS: &[&str] = &["d", "p", "q", "dp", "dq", "qi", "oth", "k"];

/// DPoP (RFC 9449) for an [`Authorization`](super::Authorization): tokens
/// bound to a client's key, presented as `Authorization: DPoP <token>`
/// with a proof of possession in the `DPoP` header of each request.
///
/// Each proof is checked as RFC 9449 §4.3 and §7 say: one `DPoP` header, a
/// JWT of `typ` `dpop+jwt` signed with an asymmetric algorithm (`ES256`,
/// `ES384`, `RS256`/`384`/`512`, `PS256`/`384`/`512`, `EdDSA`; never `none`
/// nor HMAC) by the public key in its `jwk` header (a key with private
/// members is refused), `htm` the request's method, `htu` the request's URL
/// (the resource's scheme and host with the request's path, compared
/// without query and fragment, normalized), `iat` at most
/// [`max_age`](Self::max_age) old (default 60 s) and at most
/// [`max_skew`](Self::max_skew) ahead (default 5 s), a `jti` not seen in
/// that window, `ath` the access token's SHA-256, and the key's RFC 7638
/// thumbprint equal to the token's `cnf.jkt` (read from the JWT claims or
/// the introspection answer). A proof that fails gets 401 with
/// `WWW-Authenticate: DPoP error="invalid_dpop_proof", algs="…"`.
///
/// A token bound with `cnf.jkt` is never accepted as a bearer token, nor
/// an unbound token with a proof; with [`required`](Self::required), no
/// bearer token is. With [`nonces`](Self::nonces), a proof must carry the
/// server's current nonce: without it, 401 `error="use_dpop_nonce"` and
/// the nonce in `DPoP-Nonce`.
///
/// Behind several instances sharing a store
/// ([`HttpConfig::store`](crate::http::HttpConfig::store), with the
/// authorization on the same [`HttpConfig`](crate::http::HttpConfig)), each
/// proof's `jti` is also claimed in the store, so a replay that reaches
/// another instance within the window is refused there (503 with
/// `Retry-After` when the store fails). Without a store, and behind an
/// [`AuthLayer`](super::AuthLayer), the replay record lives in this
/// process: a replay reaching another instance is not seen. Nonces are
/// each instance's own (a client then spends one retry on each instance
/// change).
///
/// ```no_run
/// use std::time::Duration;
/// use oxmcp_server::auth::{Authorization, Dpop, JwtVerifier};
///
/// let resource = "https://mcp.example.com/mcp";
/// let auth = Authorization::new(resource, JwtVerifier::new("https://auth.example.com", resource))
///     .expect("an absolute https URL")
///     .authorization_server("https://auth.example.com")
///     .dpop(Dpop::new().required().nonces(Duration::from_secs(300)));
/// # let _ = auth;
/// ```
#[derive(Debug, Clone)]
pub struct Dpop {
    pub(super) required: bool,
    max_age: Duration,
    max_skew: Duration,
    nonce_lifetime: Option<Duration>,
    replay_capacity: usize,
}

impl Default for Dpop {
    fn default() -> Self {
        Dpop::new()
    }
}

impl Dpop {
    /// DPoP-bound tokens accepted next to bearer tokens, without nonces.
    pub fn new() -> Self {
        Dpop {
            required: false,
            max_age: Duration::from_secs(60),
            max_skew: Duration::from_secs(5),
            nonce_lifetime: None,
            replay_capacity: 100_000,
        }
    }

    /// Accepts DPoP-bound tokens only (`dpop_bound_access_tokens_required`
    /// in the metadata): a bearer token is refused.
    #[must_use]
    pub fn required(mut self) -> Self {
        self.required = true;
        self
    }

    /// How old a proof's `iat` may be (default 60 s); its `jti` is
    /// remembered that long.
    #[must_use]
    pub fn max_age(mut self, age: Duration) -> Self {
        self.max_age = age;
        self
    }

    /// How far ahead of this server's clock a proof's `iat` may be
    /// (default 5 s).
    #[must_use]
    pub fn max_skew(mut self, skew: Duration) -> Self {
        self.max_skew = skew;
        self
    }

    /// Requires the server's nonce in every proof (RFC 9449 §9); a new
    /// nonce replaces the current one every `lifetime`, the one before
    /// staying good until the next change (a proof with it is served, and
    /// the answer carries the new one in `DPoP-Nonce`).
    #[must_use]
    pub fn nonces(mut self, lifetime: Duration) -> Self {
        self.nonce_lifetime = Some(lifetime);
        self
    }

    /// How many proofs are remembered against replay at most (default
    /// 100,000); when the record is full of proofs still in their window, a
    /// new one is refused (503) rather than accepted unrecorded.
    #[must_use]
    pub fn replay_capacity(mut self, capacity: usize) -> Self {
        self.replay_capacity = capacity;
        self
    }
}

/// The algorithms proofs may be signed with, as `algs` and the metadata say them.
pub(super) fn algorithm_names() -> Vec<String> {
    ACCEPTED.iter().map(|a| format!("{a:?}")).collect()
}

/// Why a proof was not accepted.
#[derive(Debug)]
pub(super) enum Refusal {
    /// `invalid_dpop_proof`, with the reason.
    Invalid(String),
    /// `use_dpop_nonce`: the proof lacks the current nonce, which is this.
    UseNonce(String),
    /// The replay record is full.
    Full,
    /// The shared store could not record the proof.
    Store(StoreError),
}

/// A proof that passed the checks that need no token verification.
#[derive(Debug)]
pub(super) struct Proof {
    /// The thumbprint of its key.
    pub(super) jkt: String,
    jti: String,
    iat: u64,
    /// A nonce to send back (`DPoP-Nonce`): the proof carried the one before.
    pub(super) next_nonce: Option<String>,
}

/// The nonces handed out: the current one and the one it replaced.
struct NonceState {
    current: String,
    previous: Option<String>,
    since: Instant,
}

/// Seen `jti`s (with their key's thumbprint) and when they may be forgotten.
#[derive(Default)]
struct Replays {
    seen: HashMap<String, u64>,
    order: VecDeque<(String, u64)>,
}

/// [`Dpop`] at work: its settings, the replay record and the nonces.
pub(super) struct DpopState {
    pub(super) config: Dpop,
    replays: Mutex<Replays>,
    nonces: Mutex<Option<NonceState>>,
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default()
        .as_secs()
}

fn new_nonce() -> String {
    let mut bytes = [0u8; 18];
    // Without randomness the nonce is still unpredictable enough to make a
    // client come back; it is no secret (RFC 9449 §9 asks for freshness).
    if getrandom::fill(&mut bytes).is_err() {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default()
            .as_nanos();
        bytes[..16].copy_from_slice(&nanos.to_le_bytes());
    }
    oxmcp_wire::dpop::b64url(&bytes)
}

fn invalid(reason: impl Into<String>) -> Refusal {
    Refusal::Invalid(reason.into())
}

fn decode_part(part: &str) -> Option<Map<String, Value>> {
    use base64::Engine as _;
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(part)
        .ok()?;
    serde_json::from_slice(&bytes).ok()
}

impl DpopState {
    pub(super) fn new(config: Dpop) -> Self {
        DpopState {
            config,
            replays: Mutex::new(Replays::default()),
            nonces: Mutex::new(None),
        }
    }

    /// Checks the proof `proof` of a request (`method` on `url`, the URL
    /// as this server is reached) presenting `token`: everything but the
    /// key binding (the caller compares [`Proof::jkt`] with the token's
    /// `cnf.jkt`) and replay ([`DpopState::record`]).
    pub(super) fn check(
        &self,
        proof: &str,
        method: &str,
        url: &str,
        token: &str,
    ) -> Result<Proof, Refusal> {
        if proof.len() > MAX_PROOF {
            return Err(invalid("the proof is too long"));
        }
        let mut parts = proof.split('.');
        let (Some(header), Some(_), Some(_), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(invalid("the proof is not a JWT"));
        };
        let header =
            decode_part(header).ok_or_else(|| invalid("the proof's header is not JSON"))?;
        if !header
            .get("typ")
            .and_then(Value::as_str)
            .is_some_and(|t| t.eq_ignore_ascii_case(PROOF_TYPE))
        {
            return Err(invalid("the proof's typ is not dpop+jwt"));
        }
        let alg = header
            .get("alg")
            .and_then(Value::as_str)
            .and_then(|a| Algorithm::from_str(a).ok())
            .filter(|a| ACCEPTED.contains(a))
            .ok_or_else(|| invalid("the proof's alg is not an accepted asymmetric algorithm"))?;
        let Some(jwk) = header.get("jwk").and_then(Value::as_object) else {
            return Err(invalid("the proof has no jwk"));
        };
        if PRIVATE_MEMBERS.iter().any(|m| jwk.contains_key(*m)) {
            return Err(invalid("the proof's jwk is not a public key"));
        }
        let jkt = jwk_thumbprint(jwk)
            .ok_or_else(|| invalid("the proof's jwk is not a usable public key"))?;
        let key = serde_json::from_value::<Jwk>(Value::Object(jwk.clone()))
            .ok()
            .and_then(|jwk| DecodingKey::from_jwk(&jwk).ok())
            .ok_or_else(|| invalid("the proof's jwk is not a usable public key"))?;
        let mut validation = Validation::new(alg);
        validation.validate_exp = false;
        validation.validate_aud = false;
        validation.required_spec_claims.clear();
        let claims = jsonwebtoken::decode::<Map<String, Value>>(proof, &key, &validation)
            .map_err(|_| invalid("the proof's signature does not verify with its jwk"))?
            .claims;
        let text = |name: &str| claims.get(name).and_then(Value::as_str);
        let jti = text("jti")
            .filter(|j| !j.is_empty() && j.len() <= MAX_JTI)
            .ok_or_else(|| invalid("the proof has no usable jti"))?;
        if text("htm") != Some(method) {
            return Err(invalid("the proof's htm is not this request's method"));
        }
        let htu = text("htu").ok_or_else(|| invalid("the proof has no htu"))?;
        if htu.contains(['?', '#']) || htu_form(htu).is_none() || htu_form(htu) != htu_form(url) {
            return Err(invalid("the proof's htu is not this request's URL"));
        }
        let iat = claims
            .get("iat")
            .and_then(Value::as_u64)
            .ok_or_else(|| invalid("the proof has no iat"))?;
        let now = now();
        if iat.saturating_add(self.config.max_age.as_secs()) < now {
            return Err(invalid("the proof is too old"));
        }
        if iat > now.saturating_add(self.config.max_skew.as_secs()) {
            return Err(invalid("the proof is issued in the future"));
        }
        if text("ath") != Some(access_token_hash(token).as_str()) {
            return Err(invalid(
                "the proof's ath is not the hash of this access token",
            ));
        }
        let next_nonce = self.check_nonce(text("nonce"))?;
        Ok(Proof {
            jkt,
            jti: jti.to_owned(),
            iat,
            next_nonce,
        })
    }

    /// When nonces are on: the proof's nonce must be the current one (or
    /// the one before, then the current one is sent back).
    fn check_nonce(&self, given: Option<&str>) -> Result<Option<String>, Refusal> {
        let Some(lifetime) = self.config.nonce_lifetime else {
            return Ok(None);
        };
        let mut state = oxmcp_wire::sync::lock(&self.nonces);
        let state = state.get_or_insert_with(|| NonceState {
            current: new_nonce(),
            previous: None,
            since: Instant::now(),
        });
        if state.since.elapsed() >= lifetime {
            state.previous = Some(std::mem::replace(&mut state.current, new_nonce()));
            state.since = Instant::now();
        }
        match given {
            Some(n) if n == state.current => Ok(None),
            Some(n) if state.previous.as_deref() == Some(n) => Ok(Some(state.current.clone())),
            _ => Err(Refusal::UseNonce(state.current.clone())),
        }
    }

    /// When a proof's `jti` may be forgotten (seconds since the epoch):
    /// once its `iat` is too old for it to be accepted again.
    fn forget_at(&self, proof: &Proof) -> u64 {
        let window = self.config.max_age.as_secs() + self.config.max_skew.as_secs();
        proof.iat.saturating_add(window).max(now())
    }

    /// Remembers a proof's `jti` for its window: `Err` when it was seen
    /// already (a replay) or the record is full.
    pub(super) fn record(&self, proof: &Proof) -> Result<(), Refusal> {
        let forget_at = self.forget_at(proof);
        let key = format!("{} {}", proof.jkt, proof.jti);
        let now = now();
        let mut replays = oxmcp_wire::sync::lock(&self.replays);
        let replays = &mut *replays;
        while replays.order.front().is_some_and(|(_, at)| *at < now) {
            if let Some((old, at)) = replays.order.pop_front() {
                if replays.seen.get(&old) == Some(&at) {
                    replays.seen.remove(&old);
                }
            }
        }
        if replays.seen.get(&key).is_some_and(|at| *at >= now) {
            return Err(invalid("the proof was used before"));
        }
        if replays.seen.len() >= self.config.replay_capacity {
            replays.seen.retain(|_, at| *at >= now);
            replays.order.retain(|(_, at)| *at >= now);
            if replays.seen.len() >= self.config.replay_capacity {
                return Err(Refusal::Full);
            }
        }
        replays.seen.insert(key.clone(), forget_at);
        replays.order.push_back((key, forget_at));
        Ok(())
    }

    /// Claims a proof's `jti` in the store shared by every instance, for
    /// its window: a replay that reaches another instance is refused there
    /// (each instance's own record only knows the proofs it saw). The key is
    /// a digest of the key's thumbprint and the `jti`, so its length does
    /// not depend on what the client sent.
    pub(super) async fn claim(&self, proof: &Proof, store: &dyn Store) -> Result<(), Refusal> {
        use sha2::Digest as _;
        let digest = sha2::Sha256::digest(format!("{} {}", proof.jkt, proof.jti));
        let key = format!("dpop-jti:{}", oxmcp_wire::dpop::b64url(&digest));
        // Kept one second past the window, so that it cannot lapse the
        // moment the proof stops being accepted.
        let ttl = Duration::from_secs(self.forget_at(proof).saturating_sub(now()) + 1);
        match within(store, store.claim(&key, ttl)).await {
            Ok(true) => Ok(()),
            Ok(false) => Err(invalid("the proof was used before")),
            Err(e) => Err(Refusal::Store(e)),
        }
    }
}
