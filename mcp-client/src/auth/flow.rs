//! The sign-in itself, for one connection: the token in use, what a 401 or
//! a 403 leads to (sign in, refresh, step up), and the state kept between
//! them. Discovery is in `discovery`, the grants in `grants`.

use std::sync::{Arc, RwLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use http::header::{self, HeaderMap, HeaderName, HeaderValue};
use http::{Method, StatusCode, Uri};
use oxmcp_wire::http_client::HttpClient;
use oxmcp_wire::oauth::{AuthorizationServerMetadata, Challenge, ProtectedResourceMetadata};
use serde::Deserialize;

use super::dpop::{DpopKey, Nonces, ALG};
use super::{AuthError, Authorizer, LoopbackAuthorizer, OAuth, Stored};

/// How long an exchange with the authorization server may take.
pub(super) const TIMEOUT: Duration = Duration::from_secs(30);
/// Refresh a token this long before it expires.
const EARLY_REFRESH: u64 = 30;

pub(super) fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default()
        .as_secs()
}

pub(super) fn random_b64(len: usize) -> Result<String, AuthError> {
    let mut bytes = vec![0u8; len];
    getrandom::fill(&mut bytes)
        .map_err(|e| AuthError::Redirect(format!("no randomness for PKCE and state: {e}")))?;
    Ok(base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes))
}

/// What the transport should do after an answer.
pub(crate) enum Next {
    /// Use this answer.
    Done,
    /// Send the request again (with the new token).
    Retry,
}

/// What one request went through so far (the transport keeps one per
/// request, across its retries).
#[derive(Debug, Default)]
pub(crate) struct Attempt {
    /// It led to a sign-in (at most one per request).
    signed_in: bool,
    /// It was sent again with a server's new DPoP nonce (at most once).
    nonce_retried: bool,
}

/// The token in use.
#[derive(Clone)]
struct Current {
    header: HeaderValue,
    expires_at: Option<u64>,
    /// For a DPoP-bound token: its key, and the token (each proof's `ath`).
    bound: Option<(Arc<DpopKey>, String)>,
}

/// Where the client stands with one server's authorization server.
pub(super) struct Found {
    /// The resource indicator (RFC 8707) sent on every request.
    pub(super) resource: String,
    /// Where the Protected Resource Metadata was found.
    pub(super) prm_url: Option<String>,
    pub(super) prm: Option<ProtectedResourceMetadata>,
    pub(super) meta: AuthorizationServerMetadata,
    /// Whether `meta` was discovered (not the 2025-03-26 default endpoints).
    pub(super) discovered: bool,
    pub(super) store_key: String,
}

#[derive(Default)]
pub(super) struct Flow {
    pub(super) found: Option<Found>,
    pub(super) stored: Stored,
    /// Authorizations since the last answer that was neither 401 nor 403.
    pub(super) step_ups: u32,
    /// The DPoP key of `stored.dpop_key`, once loaded or generated.
    pub(super) dpop: Option<Arc<DpopKey>>,
}

/// The token response (RFC 6749 §5.1).
#[derive(Deserialize)]
pub(super) struct TokenResponse {
    pub(super) access_token: String,
    #[serde(default)]
    pub(super) expires_in: Option<u64>,
    #[serde(default)]
    pub(super) refresh_token: Option<String>,
    #[serde(default)]
    pub(super) scope: Option<String>,
    /// `Bearer`, or `DPoP` for a token bound to the proof's key (RFC 9449 §5).
    #[serde(default)]
    pub(super) token_type: Option<String>,
}

/// Whether a token type names a DPoP-bound token.
pub(super) fn is_dpop(token_type: Option<&str>) -> bool {
    token_type.is_some_and(|t| t.eq_ignore_ascii_case("dpop"))
}

/// A registration's answer (RFC 7591 §3.2.1).
#[derive(Deserialize)]
pub(super) struct Registered {
    pub(super) client_id: String,
    #[serde(default)]
    pub(super) client_secret: Option<String>,
}

/// An error answer (RFC 6749 §5.2).
#[derive(Deserialize)]
pub(super) struct ErrorResponse {
    pub(super) error: String,
    #[serde(default)]
    pub(super) error_description: Option<String>,
}

/// How the client authenticates at the token endpoint.
pub(super) enum TokenAuth<'a> {
    None(&'a str),
    Basic(&'a str, &'a str),
    Post(&'a str, &'a str),
    Assertion(&'a str, String),
}

/// Signs in to one server, and keeps the token its requests carry.
pub(crate) struct Authenticator {
    pub(super) oauth: OAuth,
    pub(super) client: HttpClient,
    pub(super) server_url: String,
    pub(super) authorizer: Arc<dyn Authorizer>,
    flow: tokio::sync::Mutex<Flow>,
    current: RwLock<Option<Current>>,
    /// True while an authorization waits for the user.
    pub(super) busy: tokio::sync::watch::Sender<bool>,
    /// The DPoP nonces servers gave, per origin.
    pub(super) nonces: Nonces,
}

impl std::fmt::Debug for Authenticator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Authenticator")
            .field("server_url", &self.server_url)
            .finish_non_exhaustive()
    }
}

impl Authenticator {
    pub(crate) fn new(oauth: OAuth, server_url: &str) -> Arc<Self> {
        let client = oauth
            .http
            .clone()
            .unwrap_or_else(super::default_http_client);
        let authorizer = oauth
            .authorizer
            .clone()
            .unwrap_or_else(|| Arc::new(LoopbackAuthorizer::new()));
        let server_url = server_url
            .split(['?', '#'])
            .next()
            .unwrap_or(server_url)
            .to_owned();
        Arc::new(Authenticator {
            oauth,
            client,
            server_url,
            authorizer,
            flow: tokio::sync::Mutex::new(Flow::default()),
            current: RwLock::new(None),
            busy: tokio::sync::watch::Sender::new(false),
            nonces: Nonces::default(),
        })
    }

    /// While an authorization waits for the user, a future that ends when
    /// it is over.
    pub(crate) fn signing_in(&self) -> Option<super::BoxFuture<'_, ()>> {
        if !*self.busy.borrow() {
            return None;
        }
        let mut rx = self.busy.subscribe();
        Some(Box::pin(async move {
            let _ = rx.wait_for(|busy| !busy).await;
        }))
    }

    /// The `Authorization` header for the next request, if signed in.
    pub(crate) fn bearer(&self) -> Option<HeaderValue> {
        oxmcp_wire::sync::read(&self.current)
            .as_ref()
            .map(|c| c.header.clone())
    }

    /// Puts the credentials for a request (`method` on `url`) in
    /// `headers`: the `Authorization` header, and for a DPoP-bound token a
    /// fresh proof with the origin's latest nonce. Gives the
    /// `Authorization` value used, if signed in.
    pub(crate) fn authorize(
        &self,
        method: &Method,
        url: &Uri,
        headers: &mut HeaderMap,
    ) -> Option<HeaderValue> {
        let current = oxmcp_wire::sync::read(&self.current).clone()?;
        headers.insert(header::AUTHORIZATION, current.header.clone());
        if let Some((key, token)) = &current.bound {
            let url = url.to_string();
            let nonce = self.nonces.get(&url);
            match key.proof(method.as_str(), &url, nonce.as_deref(), Some(token)) {
                Ok(proof) => {
                    headers.insert(HeaderName::from_static(oxmcp_wire::dpop::DPOP), proof);
                }
                Err(e) => {
                    tracing::warn!(error = %e, "no DPoP proof for this request; the server will refuse it");
                }
            }
        }
        Some(current.header)
    }

    /// Keeps the `DPoP-Nonce` of an answer from the server, if any.
    pub(crate) fn note_nonce(&self, headers: &HeaderMap) {
        self.nonces.note(&self.server_url, headers);
    }

    /// Uses `token` from now on, bound to `key` (DPoP) or as a bearer
    /// token; its header value is marked sensitive (kept out of `Debug` and
    /// HTTP/2 header compression tables), and every request's
    /// `Authorization` is a clone of it.
    fn set_token(
        &self,
        token: &str,
        expires_at: Option<u64>,
        key: Option<Arc<DpopKey>>,
    ) -> Result<(), AuthError> {
        let scheme = if key.is_some() { "DPoP" } else { "Bearer" };
        let mut header = HeaderValue::from_str(&format!("{scheme} {token}")).map_err(|_| {
            AuthError::Refused {
                error: "invalid_token".into(),
                description: Some("the access token is not a valid header value".into()),
            }
        })?;
        header.set_sensitive(true);
        let bound = key.map(|key| (key, token.to_owned()));
        *oxmcp_wire::sync::write(&self.current) = Some(Current {
            header,
            expires_at,
            bound,
        });
        Ok(())
    }

    /// The DPoP key for a token request, if tokens are to be bound: those
    /// held are bound already (their refresh token too), else as
    /// [`OAuth::dpop`] says, by default when the issuer advertises `ES256`.
    pub(super) fn dpop_for(&self, flow: &mut Flow) -> Result<Option<Arc<DpopKey>>, AuthError> {
        if is_dpop(flow.stored.token_type.as_deref()) && flow.stored.dpop_key.is_some() {
            return kept_key(flow).map(Some);
        }
        let meta = &found_in(flow)?.meta;
        let advertised: Option<Vec<&str>> = meta
            .extra
            .get("dpop_signing_alg_values_supported")
            .and_then(serde_json::Value::as_array)
            .map(|algs| algs.iter().filter_map(serde_json::Value::as_str).collect());
        if !self.oauth.dpop.unwrap_or(advertised.is_some()) {
            return Ok(None);
        }
        if advertised.is_some_and(|algs| !algs.contains(&ALG)) {
            if self.oauth.dpop == Some(true) {
                return Err(AuthError::Unsupported(format!(
                    "the issuer `{}` does not accept DPoP proofs signed with {ALG}",
                    meta.issuer
                )));
            }
            return Ok(None);
        }
        kept_key(flow).map(Some)
    }

    /// Refreshes a token about to expire, before a request uses it.
    pub(crate) async fn before_request(&self) {
        let expiring = oxmcp_wire::sync::read(&self.current)
            .as_ref()
            .and_then(|c| c.expires_at)
            .is_some_and(|at| at <= now().saturating_add(EARLY_REFRESH));
        if !expiring {
            return;
        }
        let mut flow = self.flow.lock().await;
        let still = oxmcp_wire::sync::read(&self.current)
            .as_ref()
            .and_then(|c| c.expires_at)
            .is_some_and(|at| at <= now().saturating_add(EARLY_REFRESH));
        if still && flow.stored.refresh_token.is_some() {
            if let Err(e) = self.refresh(&mut flow).await {
                tracing::debug!(error = %oxmcp_types::error::Chain(&e), "refreshing the token failed; the server will say if it is still good");
            }
        }
    }

    /// Decides what an answer means for authorization: after a 401 asking
    /// for a DPoP nonce it gave, send again (once per request); after
    /// another 401, sign in (once per request: `attempt` says what was done
    /// already); after a 403 `insufficient_scope`, ask for more scope. A
    /// `DPoP-Nonce` on any answer replaces the one kept for the server.
    pub(crate) async fn answer(
        &self,
        status: StatusCode,
        headers: &HeaderMap,
        used: Option<&HeaderValue>,
        attempt: &mut Attempt,
    ) -> Result<Next, AuthError> {
        let new_nonce = self.nonces.note(&self.server_url, headers);
        let challenges: Vec<Challenge> = headers
            .get_all(header::WWW_AUTHENTICATE)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(Challenge::parse_all)
            .collect();
        let wants_nonce = challenges
            .iter()
            .any(|c| c.is_dpop() && c.get("error") == Some(oxmcp_wire::dpop::USE_DPOP_NONCE));
        if status == StatusCode::UNAUTHORIZED && wants_nonce && new_nonce && !attempt.nonce_retried
        {
            // RFC 9449 §9: the same request again, its proof with the nonce.
            attempt.nonce_retried = true;
            return Ok(Next::Retry);
        }
        let challenge = challenges
            .into_iter()
            .find(|c| c.is_bearer() || c.is_dpop());
        match status {
            StatusCode::UNAUTHORIZED if !attempt.signed_in => {
                attempt.signed_in = true;
                self.unauthorized(challenge.as_ref(), used).await?;
                Ok(Next::Retry)
            }
            StatusCode::FORBIDDEN
                if challenge
                    .as_ref()
                    .and_then(|c| c.get("error"))
                    .is_some_and(|e| e == "insufficient_scope") =>
            {
                if let Some(c) = &challenge {
                    self.step_up(c).await?;
                }
                Ok(Next::Retry)
            }
            _ => {
                if status != StatusCode::FORBIDDEN && status != StatusCode::UNAUTHORIZED {
                    self.flow.lock().await.step_ups = 0;
                }
                Ok(Next::Done)
            }
        }
    }

    async fn unauthorized(
        &self,
        challenge: Option<&Challenge>,
        used: Option<&HeaderValue>,
    ) -> Result<(), AuthError> {
        let mut flow = self.flow.lock().await;
        let current = self.bearer();
        if current.is_some() && current.as_ref() != used {
            // Another request signed in meanwhile.
            return Ok(());
        }
        if used.is_some() {
            // A token was refused: the resource may have moved to another
            // authorization server (SEP-2352), so its metadata is read
            // again, and a registration with the old one is not reused.
            flow.found = None;
        }
        self.discover(&mut flow, challenge).await?;
        let stored = flow.stored.clone();
        if let Some(token) = &stored.access_token {
            let fresh = stored
                .expires_at
                .is_none_or(|at| at > now().saturating_add(EARLY_REFRESH));
            let failed = used.is_some_and(|u| u.as_bytes().ends_with(token.as_bytes()));
            if fresh && !failed {
                let key = if is_dpop(stored.token_type.as_deref()) {
                    Some(kept_key(&mut flow)?)
                } else {
                    None
                };
                return self.set_token(token, stored.expires_at, key);
            }
        }
        if stored.refresh_token.is_some() {
            match self.refresh(&mut flow).await {
                Ok(()) => return Ok(()),
                Err(e) => {
                    tracing::info!(error = %oxmcp_types::error::Chain(&e), "refreshing failed; signing in again");
                }
            }
        }
        let scope = challenge
            .and_then(|c| c.get("scope"))
            .map(str::to_owned)
            .or_else(|| {
                let found = flow.found.as_ref()?;
                let scopes = found.prm.as_ref()?.scopes_supported.as_ref()?;
                (!scopes.is_empty()).then(|| scopes.join(" "))
            });
        Self::count_authorization(&mut flow, self.oauth.max_step_ups)?;
        self.obtain(&mut flow, scope).await
    }

    /// Counts one more authorization for the request at hand: the first
    /// sign-in and each step-up, at most `max` before an answer other than
    /// 401 or 403 resets the count.
    fn count_authorization(flow: &mut Flow, max: u32) -> Result<(), AuthError> {
        flow.step_ups += 1;
        if flow.step_ups > max {
            return Err(AuthError::StepUpLimit(max));
        }
        Ok(())
    }

    async fn step_up(&self, challenge: &Challenge) -> Result<(), AuthError> {
        let mut flow = self.flow.lock().await;
        Self::count_authorization(&mut flow, self.oauth.max_step_ups)?;
        self.discover(&mut flow, Some(challenge)).await?;
        // The union of what was asked before and what is challenged now.
        let challenged: Vec<String> = challenge
            .get("scope")
            .unwrap_or_default()
            .split_whitespace()
            .map(str::to_owned)
            .collect();
        let scope = union(flow.stored.scope.as_deref(), &challenged);
        tracing::info!(scope = ?scope, "the server asks for more scope; authorizing again");
        self.obtain(&mut flow, scope).await
    }

    /// Gets a new token: the client-credentials grant for a machine client,
    /// else the authorization code flow.
    async fn obtain(&self, flow: &mut Flow, scope: Option<String>) -> Result<(), AuthError> {
        let mut scope = union(scope.as_deref(), &self.oauth.extra_scopes);
        if let Some(shape) = &self.oauth.shape_scopes {
            let asked = scope
                .as_deref()
                .unwrap_or_default()
                .split_whitespace()
                .map(str::to_owned)
                .collect();
            scope = union(None, &shape(asked));
        }
        let token = if self.oauth.credentials.is_some() {
            self.client_credentials(flow, scope.as_deref()).await?
        } else {
            self.authorization_code(flow, scope.as_deref()).await?
        };
        flow.stored.scope = token.scope.clone().or(scope);
        self.keep(flow, token).await
    }

    pub(super) async fn keep(
        &self,
        flow: &mut Flow,
        token: TokenResponse,
    ) -> Result<(), AuthError> {
        // `expires_in` is the server's: any number, u64::MAX included.
        let expires_at = token.expires_in.map(|s| now().saturating_add(s));
        let key = if is_dpop(token.token_type.as_deref()) {
            // Bound to the key of the proof sent with the token request.
            Some(flow.dpop.clone().ok_or_else(|| {
                AuthError::Unsupported(
                    "the issuer answered with a DPoP-bound token to a request without a proof"
                        .into(),
                )
            })?)
        } else {
            None
        };
        self.set_token(&token.access_token, expires_at, key)?;
        flow.stored.access_token = Some(token.access_token);
        flow.stored.token_type = token.token_type;
        flow.stored.expires_at = expires_at;
        if token.refresh_token.is_some() {
            flow.stored.refresh_token = token.refresh_token;
        }
        if let Some(found) = &flow.found {
            self.oauth
                .store
                .save(&found.store_key, flow.stored.clone())
                .await;
        }
        Ok(())
    }
}

/// The scopes of `scope` and then those of `more` not already in it, each
/// once; `None` when there are none.
fn union(scope: Option<&str>, more: &[String]) -> Option<String> {
    let mut all: Vec<&str> = scope.unwrap_or_default().split_whitespace().collect();
    for s in more {
        if !all.contains(&s.as_str()) {
            all.push(s);
        }
    }
    (!all.is_empty()).then(|| all.join(" "))
}

/// The DPoP key kept with the tokens (loaded once), or a new one, kept.
fn kept_key(flow: &mut Flow) -> Result<Arc<DpopKey>, AuthError> {
    if let (Some(key), Some(kept)) = (&flow.dpop, &flow.stored.dpop_key) {
        if key.pkcs8() == kept {
            return Ok(Arc::clone(key));
        }
    }
    let key = Arc::new(match &flow.stored.dpop_key {
        Some(kept) => DpopKey::from_pkcs8(kept)?,
        None => DpopKey::generate()?,
    });
    flow.stored.dpop_key = Some(key.pkcs8().to_owned());
    flow.dpop = Some(Arc::clone(&key));
    Ok(key)
}

/// What discovery found (it runs before anything needs it).
pub(super) fn found_in(flow: &Flow) -> Result<&Found, AuthError> {
    flow.found
        .as_ref()
        .ok_or_else(|| AuthError::Discovery("the server's metadata was not read yet".into()))
}

#[cfg(test)]
mod tests {
    use super::{Authenticator, OAuth};

    #[test]
    fn the_bearer_header_is_marked_sensitive() {
        let auth = Authenticator::new(OAuth::new("test"), "http://127.0.0.1:1/mcp");
        auth.set_token("the-access-token", None, None).unwrap();
        let header = auth.bearer().unwrap();
        assert!(header.is_sensitive());
        assert!(!format!("{header:?}").contains("the-access-token"));
    }
}
