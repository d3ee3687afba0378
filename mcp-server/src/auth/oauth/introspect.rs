//! [`Introspection`]: opaque tokens checked with the issuer (RFC 7662).

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use oxmcp_types::JsonObject;
use oxmcp_wire::http_client::{form_request, send, HttpClient};
use oxmcp_wire::oauth::{is_secure_or_loopback, percent_encode};
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::audience::{self, InvalidAudience};
use super::{Identity, TokenError, TokenVerifier, VerifyFuture};

/// The most answers kept; past it, the cache is emptied.
const MAX_CACHED: usize = 10_000;

/// Verifies tokens by asking the issuer's introspection endpoint (RFC 7662),
/// authenticating as a confidential client (`client_secret_basic`). The
/// endpoint must be `https` (plain `http` only on a loopback address).
///
/// A token is accepted when the answer says `active`, its `exp` (if given)
/// is in the future, its `aud` names this server's resource URI (or another
/// audience set with [`audiences`](Self::audiences)), and (when
/// set) its `iss` is the expected issuer. Answers are cached for a short
/// time (default 30 s, never past `exp`), keyed by the token's SHA-256.
///
/// ```no_run
/// use oxmcp_server::auth::Introspection;
///
/// let verifier = Introspection::new(
///     "https://auth.example.com/introspect",
///     "https://mcp.example.com/mcp",
/// )
/// .client_credentials("oxmcp-server", "s3cret")
/// .issuer("https://auth.example.com");
/// # let _ = verifier;
/// ```
pub struct Introspection {
    endpoint: String,
    /// The `aud` values accepted (by default the resource URI alone).
    audiences: Vec<String>,
    issuer: Option<String>,
    credentials: Option<(String, String)>,
    ttl: Duration,
    timeout: Duration,
    client: HttpClient,
    cache: Mutex<HashMap<[u8; 32], (Identity, Instant)>>,
}

impl std::fmt::Debug for Introspection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Introspection")
            .field("endpoint", &self.endpoint)
            .field("audiences", &self.audiences)
            .finish_non_exhaustive()
    }
}

impl Introspection {
    /// Asks `endpoint` about tokens meant for the resource `audience`.
    pub fn new(endpoint: impl Into<String>, audience: impl Into<String>) -> Self {
        Introspection {
            endpoint: endpoint.into(),
            audiences: vec![audience.into()],
            issuer: None,
            credentials: None,
            ttl: Duration::from_secs(30),
            timeout: Duration::from_secs(10),
            client: oxmcp_wire::http_client::http_client(Duration::from_secs(5), None),
            cache: Mutex::new(HashMap::new()),
        }
    }

    /// Accepts tokens whose `aud` names any of `audiences`, instead of the
    /// one given to [`new`](Self::new), as
    /// [`JwtVerifier::audiences`](super::JwtVerifier::audiences) does (the
    /// same comparison, the same refusals).
    pub fn audiences<S: Into<String>>(
        mut self,
        audiences: impl IntoIterator<Item = S>,
    ) -> Result<Self, InvalidAudience> {
        self.audiences = audience::checked(audiences)?;
        Ok(self)
    }

    /// Authenticates to the endpoint with HTTP Basic (RFC 6749 §2.3.1).
    #[must_use]
    pub fn client_credentials(mut self, id: impl Into<String>, secret: impl Into<String>) -> Self {
        self.credentials = Some((id.into(), secret.into()));
        self
    }

    /// Refuses answers whose `iss` is another issuer.
    #[must_use]
    pub fn issuer(mut self, issuer: impl Into<String>) -> Self {
        self.issuer = Some(issuer.into());
        self
    }

    /// How long an answer is reused (default 30 s; zero asks every time).
    #[must_use]
    pub fn cache_for(mut self, ttl: Duration) -> Self {
        self.ttl = ttl;
        self
    }

    /// The HTTP client used to reach the endpoint (for a custom TLS setup).
    #[must_use]
    pub fn http_client(mut self, client: HttpClient) -> Self {
        self.client = client;
        self
    }

    fn cached(&self, key: &[u8; 32]) -> Option<Identity> {
        let mut cache = oxmcp_wire::sync::lock(&self.cache);
        match cache.get(key) {
            Some((who, until)) if *until > Instant::now() => Some(who.clone()),
            Some(_) => {
                cache.remove(key);
                None
            }
            None => None,
        }
    }

    async fn check(&self, token: &str) -> Result<Identity, TokenError> {
        let key: [u8; 32] = Sha256::digest(token.as_bytes()).into();
        if let Some(who) = self.cached(&key) {
            return Ok(who);
        }
        if !is_secure_or_loopback(&self.endpoint) {
            // The token and the server's own credentials would cross the
            // network in the clear.
            return Err(TokenError::unavailable(format!(
                "the introspection endpoint {} is not https (plain http is accepted on loopback addresses only)",
                self.endpoint
            )));
        }
        let mut request = form_request(
            &self.endpoint,
            &[("token", token), ("token_type_hint", "access_token")],
        )
        .map_err(TokenError::unavailable)?;
        if let Some((id, secret)) = &self.credentials {
            let pair = format!("{}:{}", percent_encode(id), percent_encode(secret));
            let value = format!(
                "Basic {}",
                base64::engine::general_purpose::STANDARD.encode(pair)
            );
            if let Ok(mut value) = http::HeaderValue::from_str(&value) {
                value.set_sensitive(true);
                request
                    .headers_mut()
                    .insert(http::header::AUTHORIZATION, value);
            }
        }
        let answer: JsonObject = send(&self.client, request, self.timeout)
            .await
            .and_then(|r| r.json(&self.endpoint))
            .map_err(TokenError::unavailable)?;
        let who = self.judge(answer)?;
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default()
            .as_secs();
        let life = who.expires_at().map_or(self.ttl, |exp| {
            self.ttl.min(Duration::from_secs(exp.saturating_sub(now)))
        });
        if !life.is_zero() {
            let mut cache = oxmcp_wire::sync::lock(&self.cache);
            if cache.len() >= MAX_CACHED {
                cache.clear();
            }
            cache.insert(key, (who.clone(), Instant::now() + life));
        }
        Ok(who)
    }

    /// Reads an introspection answer.
    fn judge(&self, answer: JsonObject) -> Result<Identity, TokenError> {
        if answer.get("active").and_then(Value::as_bool) != Some(true) {
            return Err(TokenError::invalid("the token is not active"));
        }
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default()
            .as_secs();
        if answer
            .get("exp")
            .and_then(Value::as_u64)
            .is_some_and(|exp| exp <= now)
        {
            return Err(TokenError::invalid("the token has expired"));
        }
        let Some(accepted) = audience::accepted(answer.get("aud"), &self.audiences) else {
            return Err(TokenError::invalid(
                "the token was issued for another resource",
            ));
        };
        let accepted = accepted.to_owned();
        if let Some(issuer) = &self.issuer {
            if answer.get("iss").and_then(Value::as_str) != Some(issuer.as_str()) {
                return Err(TokenError::invalid(
                    "the token was issued by another issuer",
                ));
            }
        }
        Ok(Identity::from_claims(answer).with_audience(accepted))
    }
}

impl TokenVerifier for Introspection {
    fn verify<'a>(&'a self, token: &'a str) -> VerifyFuture<'a> {
        Box::pin(self.check(token))
    }
}
