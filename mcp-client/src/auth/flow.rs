//! The sign-in itself: discovery, registration, the grants, refreshing and
//! stepping up, for one connection.

use std::sync::{Arc, RwLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use bytes::Bytes;
use http::header::{self, HeaderMap, HeaderValue};
use http::{Method, Request, StatusCode};
use http_body_util::Full;
use mcp_wire::http_client::{fetch_json, form_request, send, Fetched, HttpClient};
use mcp_wire::oauth::{
    authorization_server_metadata_urls, form_encode, percent_encode,
    protected_resource_metadata_urls, split_url, AuthorizationServerMetadata, Challenge,
    ProtectedResourceMetadata,
};
use serde::Deserialize;
use serde_json::json;
use sha2::{Digest, Sha256};

use super::{AuthError, Authorizer, Credentials, LoopbackAuthorizer, OAuth, Stored};

/// How long an exchange with the authorization server may take.
const TIMEOUT: Duration = Duration::from_secs(30);
/// Refresh a token this long before it expires.
const EARLY_REFRESH: u64 = 30;

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default()
        .as_secs()
}

fn random_b64(len: usize) -> Result<String, AuthError> {
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

/// The token in use.
#[derive(Clone)]
struct Current {
    header: HeaderValue,
    expires_at: Option<u64>,
}

/// Where the client stands with one server's authorization server.
struct Found {
    /// The resource indicator (RFC 8707) sent on every request.
    resource: String,
    /// Where the Protected Resource Metadata was found.
    prm_url: Option<String>,
    prm: Option<ProtectedResourceMetadata>,
    meta: AuthorizationServerMetadata,
    /// Whether `meta` was discovered (not the 2025-03-26 default endpoints).
    discovered: bool,
    store_key: String,
}

#[derive(Default)]
struct Flow {
    found: Option<Found>,
    stored: Stored,
    /// Authorizations since the last answer that was neither 401 nor 403.
    step_ups: u32,
}

/// The token response (RFC 6749 §5.1).
#[derive(Deserialize)]
struct TokenResponse {
    access_token: String,
    #[serde(default)]
    expires_in: Option<u64>,
    #[serde(default)]
    refresh_token: Option<String>,
    #[serde(default)]
    scope: Option<String>,
}

/// A registration's answer (RFC 7591 §3.2.1).
#[derive(Deserialize)]
struct Registered {
    client_id: String,
    #[serde(default)]
    client_secret: Option<String>,
}

/// An error answer (RFC 6749 §5.2).
#[derive(Deserialize)]
struct ErrorResponse {
    error: String,
    #[serde(default)]
    error_description: Option<String>,
}

/// How the client authenticates at the token endpoint.
enum TokenAuth<'a> {
    None(&'a str),
    Basic(&'a str, &'a str),
    Post(&'a str, &'a str),
    Assertion(&'a str, String),
}

/// Signs in to one server, and keeps the token its requests carry.
pub(crate) struct Authenticator {
    oauth: OAuth,
    client: HttpClient,
    server_url: String,
    authorizer: Arc<dyn Authorizer>,
    flow: tokio::sync::Mutex<Flow>,
    current: RwLock<Option<Current>>,
    /// True while an authorization waits for the user.
    busy: tokio::sync::watch::Sender<bool>,
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
        mcp_wire::sync::read(&self.current)
            .as_ref()
            .map(|c| c.header.clone())
    }

    fn set_token(&self, token: &str, expires_at: Option<u64>) -> Result<(), AuthError> {
        let header =
            HeaderValue::from_str(&format!("Bearer {token}")).map_err(|_| AuthError::Refused {
                error: "invalid_token".into(),
                description: Some("the access token is not a valid header value".into()),
            })?;
        *mcp_wire::sync::write(&self.current) = Some(Current { header, expires_at });
        Ok(())
    }

    /// Refreshes a token about to expire, before a request uses it.
    pub(crate) async fn before_request(&self) {
        let expiring = mcp_wire::sync::read(&self.current)
            .as_ref()
            .and_then(|c| c.expires_at)
            .is_some_and(|at| at <= now() + EARLY_REFRESH);
        if !expiring {
            return;
        }
        let mut flow = self.flow.lock().await;
        let still = mcp_wire::sync::read(&self.current)
            .as_ref()
            .and_then(|c| c.expires_at)
            .is_some_and(|at| at <= now() + EARLY_REFRESH);
        if still && flow.stored.refresh_token.is_some() {
            if let Err(e) = self.refresh(&mut flow).await {
                tracing::debug!(error = %mcp_types::error::Chain(&e), "refreshing the token failed; the server will say if it is still good");
            }
        }
    }

    /// Decides what an answer means for authorization: after a 401, sign in
    /// (once per request: `signed_in` says it was done already); after a
    /// 403 `insufficient_scope`, ask for more scope.
    pub(crate) async fn answer(
        &self,
        status: StatusCode,
        headers: &HeaderMap,
        used: Option<&HeaderValue>,
        signed_in: &mut bool,
    ) -> Result<Next, AuthError> {
        let challenge = headers
            .get_all(header::WWW_AUTHENTICATE)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(Challenge::parse_all)
            .find(Challenge::is_bearer);
        match status {
            StatusCode::UNAUTHORIZED if !*signed_in => {
                *signed_in = true;
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
        self.discover(&mut flow, challenge).await?;
        let stored = flow.stored.clone();
        if let Some(token) = &stored.access_token {
            let fresh = stored
                .expires_at
                .is_none_or(|at| at > now() + EARLY_REFRESH);
            let failed = used.is_some_and(|u| u.as_bytes().ends_with(token.as_bytes()));
            if fresh && !failed {
                return self.set_token(token, stored.expires_at);
            }
        }
        if stored.refresh_token.is_some() {
            match self.refresh(&mut flow).await {
                Ok(()) => return Ok(()),
                Err(e) => {
                    tracing::info!(error = %mcp_types::error::Chain(&e), "refreshing failed; signing in again");
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

    /// Finds the resource's metadata and its authorization server's.
    async fn discover(
        &self,
        flow: &mut Flow,
        challenge: Option<&Challenge>,
    ) -> Result<(), AuthError> {
        let named = challenge.and_then(|c| c.get("resource_metadata"));
        if let Some(found) = &flow.found {
            if named.is_none() || named == found.prm_url.as_deref() {
                return Ok(());
            }
        }
        let candidates = match named {
            Some(url) => vec![url.to_owned()],
            None => protected_resource_metadata_urls(&self.server_url),
        };
        let mut prm = None;
        for url in candidates {
            match fetch_json::<ProtectedResourceMetadata>(&self.client, &url, TIMEOUT).await {
                Ok(doc) => {
                    prm = Some((url, doc));
                    break;
                }
                Err(e) => {
                    tracing::debug!(%url, error = %mcp_types::error::Chain(&e), "no resource metadata here");
                }
            }
        }
        let found = match prm {
            Some((url, doc)) => self.with_resource_metadata(url, doc).await?,
            None => self.legacy_discovery().await?,
        };
        let stored = self
            .oauth
            .store
            .load(&found.store_key)
            .await
            .unwrap_or_default();
        flow.stored = stored;
        flow.found = Some(found);
        Ok(())
    }

    async fn with_resource_metadata(
        &self,
        url: String,
        prm: ProtectedResourceMetadata,
    ) -> Result<Found, AuthError> {
        if !covers(&prm.resource, &self.server_url) {
            return Err(AuthError::Discovery(format!(
                "the resource metadata at {url} is for `{}`, not for `{}`",
                prm.resource, self.server_url
            )));
        }
        let issuer = prm.authorization_servers.first().cloned().ok_or_else(|| {
            AuthError::Discovery(format!(
                "the resource metadata at {url} names no authorization server"
            ))
        })?;
        let meta = self.issuer_metadata(&issuer).await?;
        Ok(Found {
            store_key: format!("{issuer} {}", prm.resource),
            resource: prm.resource.clone(),
            prm_url: Some(url),
            prm: Some(prm),
            meta,
            discovered: true,
        })
    }

    /// An issuer's metadata, from the first of the spec's URLs that has it;
    /// its `issuer` must be the one asked for.
    async fn issuer_metadata(
        &self,
        issuer: &str,
    ) -> Result<AuthorizationServerMetadata, AuthError> {
        let mut last = None;
        for url in authorization_server_metadata_urls(issuer) {
            match fetch_json::<AuthorizationServerMetadata>(&self.client, &url, TIMEOUT).await {
                Ok(meta) if meta.issuer == issuer => return Ok(meta),
                Ok(meta) => {
                    return Err(AuthError::Discovery(format!(
                        "the metadata at {url} is for the issuer `{}`, not `{issuer}`",
                        meta.issuer
                    )))
                }
                Err(e) => last = Some(e),
            }
        }
        Err(match last {
            Some(e) => AuthError::Discovery(format!(
                "no metadata for the issuer `{issuer}`: {}",
                mcp_types::error::Chain(&e)
            )),
            None => AuthError::Discovery(format!("`{issuer}` is not an http(s) issuer URL")),
        })
    }

    /// 2025-03-26: no resource metadata; the authorization server is the MCP
    /// server's origin, its metadata at the root, else the default endpoints.
    async fn legacy_discovery(&self) -> Result<Found, AuthError> {
        let (origin, _) = split_url(&self.server_url).ok_or_else(|| {
            AuthError::Discovery(format!("`{}` is not an http(s) URL", self.server_url))
        })?;
        let origin = origin.to_owned();
        let url = format!("{origin}/.well-known/oauth-authorization-server");
        let (meta, discovered) = match fetch_json::<AuthorizationServerMetadata>(
            &self.client,
            &url,
            TIMEOUT,
        )
        .await
        {
            Ok(meta) => (meta, true),
            Err(e) => {
                tracing::debug!(error = %mcp_types::error::Chain(&e), "no authorization server metadata; using the default endpoints");
                let meta = AuthorizationServerMetadata {
                    issuer: origin.clone(),
                    authorization_endpoint: Some(format!("{origin}/authorize")),
                    token_endpoint: Some(format!("{origin}/token")),
                    registration_endpoint: Some(format!("{origin}/register")),
                    ..AuthorizationServerMetadata::default()
                };
                (meta, false)
            }
        };
        Ok(Found {
            store_key: format!("{} {}", meta.issuer, self.server_url),
            resource: self.server_url.clone(),
            prm_url: None,
            prm: None,
            meta,
            discovered,
        })
    }

    /// Gets a new token: the client-credentials grant for a machine client,
    /// else the authorization code flow.
    async fn obtain(&self, flow: &mut Flow, scope: Option<String>) -> Result<(), AuthError> {
        let scope = union(scope.as_deref(), &self.oauth.extra_scopes);
        let token = if self.oauth.credentials.is_some() {
            self.client_credentials(flow, scope.as_deref()).await?
        } else {
            self.authorization_code(flow, scope.as_deref()).await?
        };
        flow.stored.scope = token.scope.clone().or(scope);
        self.keep(flow, token).await
    }

    async fn keep(&self, flow: &mut Flow, token: TokenResponse) -> Result<(), AuthError> {
        let expires_at = token.expires_in.map(|s| now() + s);
        self.set_token(&token.access_token, expires_at)?;
        flow.stored.access_token = Some(token.access_token);
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

    async fn refresh(&self, flow: &mut Flow) -> Result<(), AuthError> {
        let Some(refresh) = flow.stored.refresh_token.clone() else {
            return Err(AuthError::Registration("no refresh token".into()));
        };
        let found = found_in(flow)?;
        let (client_id, secret) = self.known_identity(flow)?;
        let auth = self.token_auth(found, &client_id, secret.as_deref())?;
        let form = vec![
            ("grant_type", "refresh_token".to_owned()),
            ("refresh_token", refresh),
            ("resource", found.resource.clone()),
        ];
        let token = self.token_request(found, form, auth).await?;
        self.keep(flow, token).await
    }

    /// The client's id and secret when already known (configured, or
    /// registered before).
    fn known_identity(&self, flow: &Flow) -> Result<(String, Option<String>), AuthError> {
        if let Some(id) = &self.oauth.client_id {
            return Ok((id.clone(), self.oauth.client_secret.clone()));
        }
        if let Some(id) = &flow.stored.client_id {
            return Ok((id.clone(), flow.stored.client_secret.clone()));
        }
        Err(AuthError::Registration(
            "the client is not registered".into(),
        ))
    }

    /// The client's identity for the authorization code flow, in the spec's
    /// order: pre-registered, a metadata document URL where the issuer
    /// supports them, a registration made before, Dynamic Client
    /// Registration.
    async fn identity(
        &self,
        flow: &mut Flow,
        redirect_uri: &str,
    ) -> Result<(String, Option<String>), AuthError> {
        if let Some(id) = &self.oauth.client_id {
            return Ok((id.clone(), self.oauth.client_secret.clone()));
        }
        let found = found_in(flow)?;
        if let (Some(url), Some(true)) = (
            &self.oauth.metadata_url,
            found.meta.client_id_metadata_document_supported,
        ) {
            return Ok((url.clone(), None));
        }
        if let Some(id) = &flow.stored.client_id {
            return Ok((id.clone(), flow.stored.client_secret.clone()));
        }
        let Some(endpoint) = found.meta.registration_endpoint.clone() else {
            return Err(AuthError::Registration(format!(
                "the issuer `{}` offers no dynamic registration{}: pre-register a client and give its id",
                found.meta.issuer,
                if self.oauth.metadata_url.is_some() { " and no client metadata documents" } else { "" }
            )));
        };
        let body = json!({
            "client_name": self.oauth.client_name,
            "redirect_uris": [redirect_uri],
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": "none",
        });
        let request = Request::builder()
            .method(Method::POST)
            .uri(&endpoint)
            .header(header::CONTENT_TYPE, "application/json")
            .header(header::ACCEPT, "application/json")
            .body(Full::new(Bytes::from(body.to_string())))
            .map_err(|_| {
                AuthError::Registration(format!("invalid registration endpoint {endpoint}"))
            })?;
        let answer = send(&self.client, request, TIMEOUT).await?;
        if !answer.status.is_success() {
            return Err(refused(&answer));
        }
        let registered: Registered = answer.json(&endpoint)?;
        tracing::info!(client_id = %registered.client_id, "registered with the authorization server");
        flow.stored.client_id = Some(registered.client_id.clone());
        flow.stored
            .client_secret
            .clone_from(&registered.client_secret);
        Ok((registered.client_id, registered.client_secret))
    }

    /// How to authenticate at the token endpoint with this identity.
    fn token_auth<'a>(
        &self,
        found: &Found,
        client_id: &'a str,
        secret: Option<&'a str>,
    ) -> Result<TokenAuth<'a>, AuthError> {
        if let Some(Credentials::PrivateKey { key, alg }) = &self.oauth.credentials {
            let claims = json!({
                "iss": client_id, "sub": client_id, "aud": found.meta.issuer,
                "iat": now(), "exp": now() + 300, "jti": random_b64(16)?,
            });
            let assertion = jsonwebtoken::encode(&jsonwebtoken::Header::new(*alg), &claims, key)
                .map_err(|e| {
                    AuthError::Registration(format!("cannot sign the client assertion: {e}"))
                })?;
            return Ok(TokenAuth::Assertion(client_id, assertion));
        }
        let Some(secret) = secret else {
            return Ok(TokenAuth::None(client_id));
        };
        let methods = found.meta.token_endpoint_auth_methods_supported.as_deref();
        let offers = |m: &str| methods.is_some_and(|list| list.iter().any(|x| x == m));
        Ok(if methods.is_none() || offers("client_secret_basic") {
            TokenAuth::Basic(client_id, secret)
        } else if offers("client_secret_post") {
            TokenAuth::Post(client_id, secret)
        } else {
            TokenAuth::Basic(client_id, secret)
        })
    }

    async fn token_request(
        &self,
        found: &Found,
        mut form: Vec<(&'static str, String)>,
        auth: TokenAuth<'_>,
    ) -> Result<TokenResponse, AuthError> {
        let endpoint = found.meta.token_endpoint.clone().ok_or_else(|| {
            AuthError::Unsupported(format!(
                "the issuer `{}` has no token endpoint",
                found.meta.issuer
            ))
        })?;
        let mut basic = None;
        match auth {
            TokenAuth::None(id) => form.push(("client_id", id.to_owned())),
            TokenAuth::Post(id, secret) => {
                form.push(("client_id", id.to_owned()));
                form.push(("client_secret", secret.to_owned()));
            }
            TokenAuth::Basic(id, secret) => {
                let pair = format!("{}:{}", percent_encode(id), percent_encode(secret));
                basic = Some(format!(
                    "Basic {}",
                    base64::engine::general_purpose::STANDARD.encode(pair)
                ));
            }
            TokenAuth::Assertion(id, assertion) => {
                form.push(("client_id", id.to_owned()));
                form.push((
                    "client_assertion_type",
                    "urn:ietf:params:oauth:client-assertion-type:jwt-bearer".to_owned(),
                ));
                form.push(("client_assertion", assertion));
            }
        }
        let pairs: Vec<(&str, &str)> = form.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let mut request = form_request(&endpoint, &pairs)?;
        if let Some(value) = basic.and_then(|b| HeaderValue::from_str(&b).ok()) {
            request.headers_mut().insert(header::AUTHORIZATION, value);
        }
        let answer = send(&self.client, request, TIMEOUT).await?;
        if !answer.status.is_success() {
            return Err(refused(&answer));
        }
        Ok(answer.json(&endpoint)?)
    }

    async fn client_credentials(
        &self,
        flow: &mut Flow,
        scope: Option<&str>,
    ) -> Result<TokenResponse, AuthError> {
        let found = found_in(flow)?;
        let (client_id, secret) = self.known_identity(flow)?;
        let auth = self.token_auth(found, &client_id, secret.as_deref())?;
        let mut form = vec![
            ("grant_type", "client_credentials".to_owned()),
            ("resource", found.resource.clone()),
        ];
        if let Some(scope) = scope {
            form.push(("scope", scope.to_owned()));
        }
        self.token_request(found, form, auth).await
    }

    async fn authorization_code(
        &self,
        flow: &mut Flow,
        scope: Option<&str>,
    ) -> Result<TokenResponse, AuthError> {
        let redirect_uri = self.authorizer.redirect_uri().await?;
        let (client_id, secret) = self.identity(flow, &redirect_uri).await?;
        let found = found_in(flow)?;
        let meta = &found.meta;
        match &meta.code_challenge_methods_supported {
            Some(methods) if methods.iter().any(|m| m == "S256") => {}
            // The 2025-03-26 default endpoints come without metadata to say.
            None if !found.discovered => {}
            _ => {
                return Err(AuthError::Unsupported(format!(
                    "the issuer `{}` does not advertise PKCE with S256",
                    meta.issuer
                )))
            }
        }
        let endpoint = meta.authorization_endpoint.clone().ok_or_else(|| {
            AuthError::Unsupported(format!(
                "the issuer `{}` has no authorization endpoint",
                meta.issuer
            ))
        })?;
        let verifier = random_b64(32)?;
        let challenge = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .encode(Sha256::digest(verifier.as_bytes()));
        let state = random_b64(16)?;
        let mut query = vec![
            ("response_type", "code"),
            ("client_id", client_id.as_str()),
            ("redirect_uri", redirect_uri.as_str()),
            ("state", state.as_str()),
            ("code_challenge", challenge.as_str()),
            ("code_challenge_method", "S256"),
            ("resource", found.resource.as_str()),
        ];
        if let Some(scope) = scope {
            query.push(("scope", scope));
        }
        let separator = if endpoint.contains('?') { '&' } else { '?' };
        let url = format!("{endpoint}{separator}{}", form_encode(&query));
        let params = {
            // Cleared however the wait ends (answered, failed, dropped).
            struct Busy<'a>(&'a tokio::sync::watch::Sender<bool>);
            impl Drop for Busy<'_> {
                fn drop(&mut self) {
                    self.0.send_replace(false);
                }
            }
            self.busy.send_replace(true);
            let _busy = Busy(&self.busy);
            self.authorizer.authorize(&url).await?
        };
        let param = |name: &str| {
            params
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.as_str())
        };
        // RFC 9207: the issuer of the answer, before anything else is read.
        match (
            meta.authorization_response_iss_parameter_supported,
            param("iss"),
        ) {
            (_, Some(iss)) if iss != meta.issuer => {
                return Err(AuthError::Redirect(format!(
                    "the authorization response comes from the issuer `{iss}`, not `{}`",
                    meta.issuer
                )))
            }
            (Some(true), None) => {
                return Err(AuthError::Redirect(
                    "the authorization response lacks the `iss` its issuer promises".into(),
                ))
            }
            _ => {}
        }
        if param("state") != Some(state.as_str()) {
            return Err(AuthError::Redirect(
                "the authorization response's `state` does not match".into(),
            ));
        }
        if let Some(error) = param("error") {
            return Err(AuthError::Refused {
                error: error.to_owned(),
                description: param("error_description").map(str::to_owned),
            });
        }
        let code = param("code")
            .ok_or_else(|| AuthError::Redirect("the authorization response has no code".into()))?
            .to_owned();
        let auth = self.token_auth(found, &client_id, secret.as_deref())?;
        let form = vec![
            ("grant_type", "authorization_code".to_owned()),
            ("code", code),
            ("redirect_uri", redirect_uri.clone()),
            ("code_verifier", verifier),
            ("resource", found.resource.clone()),
        ];
        self.token_request(found, form, auth).await
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

/// What discovery found (it runs before anything needs it).
fn found_in(flow: &Flow) -> Result<&Found, AuthError> {
    flow.found
        .as_ref()
        .ok_or_else(|| AuthError::Discovery("the server's metadata was not read yet".into()))
}

/// An error answer from the authorization server.
fn refused(answer: &Fetched) -> AuthError {
    match serde_json::from_slice::<ErrorResponse>(&answer.body) {
        Ok(e) => AuthError::Refused {
            error: e.error,
            description: e.error_description,
        },
        Err(_) => AuthError::Refused {
            error: format!("HTTP {}", answer.status),
            description: None,
        },
    }
}

/// Whether the resource identifier `resource` covers the endpoint `url`:
/// the same origin (scheme and host without case), and the endpoint's path
/// at or under the resource's.
fn covers(resource: &str, url: &str) -> bool {
    let (Some((r_origin, r_path)), Some((u_origin, u_path))) =
        (split_url(resource), split_url(url))
    else {
        return false;
    };
    if !r_origin.eq_ignore_ascii_case(u_origin) {
        return false;
    }
    let r_path = r_path.trim_end_matches('/');
    u_path == r_path || u_path.starts_with(&format!("{r_path}/")) || r_path.is_empty()
}

#[cfg(test)]
mod tests {
    use super::covers;

    #[test]
    fn a_resource_covers_its_own_paths_only() {
        assert!(covers("http://h:1/mcp", "http://h:1/mcp"));
        assert!(covers("HTTP://H:1", "http://h:1/mcp"));
        assert!(covers("http://h:1/", "http://h:1/mcp"));
        assert!(!covers("http://h:1/other", "http://h:1/mcp"));
        assert!(!covers("http://h:1/mc", "http://h:1/mcp"));
        assert!(!covers("http://evil:1/mcp", "http://h:1/mcp"));
    }
}
