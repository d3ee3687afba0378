//! [`Authorization`]: the server as an OAuth protected resource.

use std::sync::Arc;

use http::header::{self, HeaderMap};
use http::{StatusCode, Uri};
use mcp_wire::oauth::{
    protected_resource_path, split_url, Challenge, ProtectedResourceMetadata,
    PROTECTED_RESOURCE_WELL_KNOWN,
};
use sha2::Digest as _;

use super::{Identity, TokenError, TokenVerifier};

/// The HTTP server as an OAuth 2.1 protected resource (MCP
/// `basic/authorization`, 2025-06-18 and later): its Protected Resource
/// Metadata (RFC 9728) at the well-known URLs, and a bearer token checked
/// on every request to the MCP endpoints.
///
/// A request without a token (or with `Bearer` and nothing after it) is
/// answered 401 with a `WWW-Authenticate` challenge naming the metadata and
/// the scopes to ask for; an invalid one
/// 401 with `error="invalid_token"`; a token without a scope the request
/// needs 403 with `error="insufficient_scope"` and the scopes needed. A
/// token in the query string is refused (400). A token that cannot be
/// checked now (the issuer unreachable) is answered 503, with `Retry-After`
/// when the verifier is backing off. The verified [`Identity`] reaches
/// hooks, middleware and tools.
///
/// ```no_run
/// use mcp_server::auth::{Authorization, JwtVerifier};
/// use mcp_server::http::HttpConfig;
///
/// let resource = "https://mcp.example.com/mcp";
/// let auth = Authorization::new(resource, JwtVerifier::new("https://auth.example.com", resource))
///     .expect("an absolute https URL")
///     .authorization_server("https://auth.example.com")
///     .scopes_supported(["notes:read"])
///     .scope_implies("notes:write", ["notes:read"]);
/// let config = HttpConfig::default().allow_host("mcp.example.com").authorization(auth);
/// # let _ = config;
/// ```
#[derive(Clone)]
pub struct Authorization {
    inner: Arc<Inner>,
}

struct Inner {
    metadata: ProtectedResourceMetadata,
    /// The path of the metadata at the endpoint's path.
    metadata_path: String,
    /// Its absolute URL, named in every challenge.
    metadata_url: String,
    verifier: Arc<dyn TokenVerifier>,
    required: Vec<String>,
    implies: Vec<(String, Vec<String>)>,
}

impl std::fmt::Debug for Authorization {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Authorization")
            .field("resource", &self.inner.metadata.resource)
            .field(
                "authorization_servers",
                &self.inner.metadata.authorization_servers,
            )
            .finish_non_exhaustive()
    }
}

/// The resource URI given to [`Authorization::new`] is not an absolute
/// `http(s)` URL without query or fragment.
#[derive(Debug, thiserror::Error)]
#[error("`{0}` is not an absolute http(s) URL without query or fragment")]
pub struct InvalidResource(String);

impl Authorization {
    /// Protects the resource `resource` (the MCP endpoint's canonical URL,
    /// such as `https://mcp.example.com/mcp`), checking tokens with `verifier`.
    pub fn new(
        resource: impl Into<String>,
        verifier: impl TokenVerifier,
    ) -> Result<Self, InvalidResource> {
        let resource = resource.into();
        let Some((origin, path)) = split_url(&resource) else {
            return Err(InvalidResource(resource));
        };
        if resource.contains(['?', '#']) {
            return Err(InvalidResource(resource));
        }
        let metadata_path = protected_resource_path(path);
        let metadata_url = format!("{origin}{metadata_path}");
        Ok(Authorization {
            inner: Arc::new(Inner {
                metadata: ProtectedResourceMetadata {
                    resource,
                    authorization_servers: Vec::new(),
                    scopes_supported: None,
                    bearer_methods_supported: Some(vec!["header".into()]),
                    resource_name: None,
                    resource_documentation: None,
                    extra: serde_json::Map::new(),
                },
                metadata_path,
                metadata_url,
                verifier: Arc::new(verifier),
                required: Vec::new(),
                implies: Vec::new(),
            }),
        })
    }

    fn inner_mut(&mut self) -> &mut Inner {
        Arc::get_mut(&mut self.inner).expect("configured before it is shared")
    }

    /// Names an authorization server (its issuer URL) in the metadata.
    #[must_use]
    pub fn authorization_server(mut self, issuer: impl Into<String>) -> Self {
        self.inner_mut()
            .metadata
            .authorization_servers
            .push(issuer.into());
        self
    }

    /// The scopes a client should ask for first (`scopes_supported`, and the
    /// `scope` of a 401 challenge).
    #[must_use]
    pub fn scopes_supported<S: Into<String>>(
        mut self,
        scopes: impl IntoIterator<Item = S>,
    ) -> Self {
        self.inner_mut().metadata.scopes_supported =
            Some(scopes.into_iter().map(Into::into).collect());
        self
    }

    /// Scopes every request needs (none by default: a valid token is enough,
    /// and tools may ask for more).
    #[must_use]
    pub fn require_scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.inner_mut()
            .required
            .extend(scopes.into_iter().map(Into::into));
        self
    }

    /// Says that `broad` implies each of `narrower` (a token with
    /// `notes:write` may do what `notes:read` allows, say).
    #[must_use]
    pub fn scope_implies<S: Into<String>>(
        mut self,
        broad: impl Into<String>,
        narrower: impl IntoIterator<Item = S>,
    ) -> Self {
        let narrower = narrower.into_iter().map(Into::into).collect();
        self.inner_mut().implies.push((broad.into(), narrower));
        self
    }

    /// A name for people, in the metadata.
    #[must_use]
    pub fn resource_name(mut self, name: impl Into<String>) -> Self {
        self.inner_mut().metadata.resource_name = Some(name.into());
        self
    }

    /// The Protected Resource Metadata served.
    pub fn metadata(&self) -> &ProtectedResourceMetadata {
        &self.inner.metadata
    }

    /// The metadata's absolute URL (at the endpoint's path), as challenges name it.
    pub fn metadata_url(&self) -> &str {
        &self.inner.metadata_url
    }

    /// Whether `path` is one of the metadata's well-known paths (at the
    /// endpoint's path, or at the root).
    pub fn is_metadata_path(&self, path: &str) -> bool {
        path == self.inner.metadata_path || path == PROTECTED_RESOURCE_WELL_KNOWN
    }

    /// The scopes a 401 challenge asks for: those every request needs, else
    /// `scopes_supported`.
    fn challenge_scopes(&self) -> Option<String> {
        if !self.inner.required.is_empty() {
            return Some(self.inner.required.join(" "));
        }
        self.inner
            .metadata
            .scopes_supported
            .as_ref()
            .filter(|s| !s.is_empty())
            .map(|s| s.join(" "))
    }

    fn challenge(&self) -> Challenge {
        Challenge::bearer().param("resource_metadata", self.inner.metadata_url.clone())
    }

    /// Checks a request's credentials: the `Authorization: Bearer` header,
    /// and no token in the query.
    pub async fn authenticate(&self, uri: &Uri, headers: &HeaderMap) -> Result<Identity, Denied> {
        self.verify_request(uri, headers).await.map(|(who, _)| who)
    }

    /// [`authenticate`](Self::authenticate), also giving the token's SHA-256
    /// (what owns a session opened by a token that names nobody).
    pub(crate) async fn verify_request(
        &self,
        uri: &Uri,
        headers: &HeaderMap,
    ) -> Result<(Identity, [u8; 32]), Denied> {
        if uri.query().is_some_and(|q| {
            mcp_wire::oauth::form_decode(q)
                .iter()
                .any(|(name, _)| name == "access_token")
        }) {
            return Err(self.bad_request("access tokens are not accepted in the query string"));
        }
        let mut values = headers.get_all(header::AUTHORIZATION).iter();
        let (Some(value), None) = (values.next(), values.next()) else {
            if headers.contains_key(header::AUTHORIZATION) {
                return Err(self.bad_request("more than one Authorization header"));
            }
            return Err(self.unauthorized(None));
        };
        let Ok(value) = value.to_str() else {
            return Err(self.bad_request("the Authorization header is not text"));
        };
        let (scheme, token) = value.split_once(' ').unwrap_or((value, ""));
        if !scheme.eq_ignore_ascii_case("bearer") {
            return Err(self.unauthorized(None));
        }
        let token = token.trim();
        if token.is_empty() {
            // `Bearer` and nothing: a client without a token yet. The
            // challenge (no error code, RFC 6750 §3.1) is what starts its
            // sign-in; the TypeScript and Python SDKs answer the same.
            return Err(self.unauthorized(None));
        }
        let well_formed = token
            .trim_end_matches('=')
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-._~+/".contains(&b));
        if !well_formed {
            return Err(self.bad_request("the bearer token is malformed"));
        }
        let mut identity = match self.inner.verifier.verify(token).await {
            Ok(identity) => identity,
            Err(TokenError::Invalid(reason)) => return Err(self.unauthorized(Some(reason))),
            Err(e @ TokenError::Unavailable { .. }) => {
                tracing::warn!(error = %mcp_types::error::Chain(&e), "a token could not be checked");
                let retry_after = match &e {
                    TokenError::Unavailable { retry_after, .. } => *retry_after,
                    TokenError::Invalid(_) => None,
                };
                return Err(Denied {
                    status: StatusCode::SERVICE_UNAVAILABLE,
                    challenge: None,
                    message: "the token cannot be checked now; try again later".into(),
                    retry_after,
                });
            }
        };
        identity.imply(&self.inner.implies);
        let required: Vec<&str> = self.inner.required.iter().map(String::as_str).collect();
        let missing = identity.missing_scopes(&required);
        if !missing.is_empty() {
            return Err(self.insufficient_scope(&required));
        }
        let digest = sha2::Sha256::digest(token.as_bytes()).into();
        Ok((identity, digest))
    }

    fn unauthorized(&self, invalid: Option<String>) -> Denied {
        let mut challenge = self.challenge();
        if let Some(scope) = self.challenge_scopes() {
            challenge = challenge.param("scope", scope);
        }
        let message = match &invalid {
            Some(reason) => format!("invalid token: {reason}"),
            None => "authorization required: send a bearer token".into(),
        };
        if let Some(reason) = invalid {
            challenge = challenge
                .param("error", "invalid_token")
                .param("error_description", reason);
        }
        Denied {
            status: StatusCode::UNAUTHORIZED,
            challenge: Some(challenge),
            message,
            retry_after: None,
        }
    }

    fn bad_request(&self, reason: &str) -> Denied {
        Denied {
            status: StatusCode::BAD_REQUEST,
            challenge: Some(
                self.challenge()
                    .param("error", "invalid_request")
                    .param("error_description", reason),
            ),
            message: reason.into(),
            retry_after: None,
        }
    }

    /// The 403 step-up answer: the token lacks some of `needed` (all of
    /// them, and those every request needs, are named).
    pub fn insufficient_scope(&self, needed: &[&str]) -> Denied {
        let mut scopes: Vec<&str> = self.inner.required.iter().map(String::as_str).collect();
        for s in needed {
            if !scopes.contains(s) {
                scopes.push(s);
            }
        }
        let scope = scopes.join(" ");
        Denied {
            status: StatusCode::FORBIDDEN,
            challenge: Some(
                Challenge::bearer()
                    .param("error", "insufficient_scope")
                    .param("scope", scope.clone())
                    .param("resource_metadata", self.inner.metadata_url.clone())
                    .param(
                        "error_description",
                        format!("this needs the scopes: {scope}"),
                    ),
            ),
            message: format!("insufficient scope: this needs {scope}"),
            retry_after: None,
        }
    }
}

/// A refused request: its status, its `WWW-Authenticate` challenge, and a
/// message for the JSON-RPC error body.
#[derive(Debug, Clone)]
pub struct Denied {
    /// 400, 401, 403 or 503.
    pub status: StatusCode,
    /// The challenge sent in `WWW-Authenticate`.
    pub challenge: Option<Challenge>,
    /// What went wrong, for people.
    pub message: String,
    /// When to try again (a 503 while the issuer cannot be reached), sent
    /// as `Retry-After` in whole seconds.
    pub retry_after: Option<std::time::Duration>,
}

impl Denied {
    /// The response's parts: status, headers, and a JSON-RPC error body.
    pub fn into_parts(self) -> (StatusCode, HeaderMap, Vec<u8>) {
        let mut headers = HeaderMap::new();
        headers.insert(
            header::CONTENT_TYPE,
            http::HeaderValue::from_static("application/json"),
        );
        if let Some(value) = self
            .challenge
            .and_then(|c| http::HeaderValue::from_str(&c.to_header_value()).ok())
        {
            headers.insert(header::WWW_AUTHENTICATE, value);
        }
        if let Some(after) = self.retry_after {
            // Rounded up: "0" would invite an immediate retry.
            let secs = after.as_secs() + u64::from(after.subsec_nanos() > 0);
            headers.insert(header::RETRY_AFTER, http::HeaderValue::from(secs.max(1)));
        }
        let body = serde_json::to_vec(&serde_json::json!({
            "jsonrpc": "2.0",
            "id": null,
            "error": { "code": mcp_types::jsonrpc::code::INVALID_REQUEST, "message": self.message }
        }))
        .unwrap_or_default();
        (self.status, headers, body)
    }
}
