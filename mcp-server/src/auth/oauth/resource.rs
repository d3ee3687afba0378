//! [`Authorization`]: the server as an OAuth protected resource.

use std::sync::Arc;

use http::header::{self, HeaderMap};
use http::{Method, StatusCode, Uri};
use oxmcp_wire::oauth::{
    protected_resource_path, split_url, Challenge, ProtectedResourceMetadata,
    PROTECTED_RESOURCE_WELL_KNOWN,
};
use sha2::Digest as _;

use super::dpop::{algorithm_names, Dpop, DpopState, Proof, Refusal};
use super::{Identity, TokenError, TokenVerifier, Verified};
use crate::state::Store;

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
/// use oxmcp_server::auth::{Authorization, JwtVerifier};
/// use oxmcp_server::http::HttpConfig;
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
    dpop: Option<DpopState>,
}

/// How a request presents its token.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Scheme {
    Bearer,
    Dpop,
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
                dpop: None,
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

    /// Accepts DPoP-bound tokens (RFC 9449), checking their proofs as
    /// [`Dpop`] says; the metadata then names the proof algorithms
    /// (`dpop_signing_alg_values_supported`) and, when [`Dpop::required`],
    /// says `dpop_bound_access_tokens_required`.
    #[must_use]
    pub fn dpop(mut self, dpop: Dpop) -> Self {
        let inner = self.inner_mut();
        inner.metadata.extra.insert(
            "dpop_signing_alg_values_supported".into(),
            algorithm_names().into(),
        );
        if dpop.required {
            inner
                .metadata
                .extra
                .insert("dpop_bound_access_tokens_required".into(), true.into());
        } else {
            inner
                .metadata
                .extra
                .remove("dpop_bound_access_tokens_required");
        }
        inner.dpop = Some(DpopState::new(dpop));
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

    /// The challenges of a 401: `Bearer` (unless DPoP is required) and,
    /// with DPoP, `DPoP` with the algorithms; `error` (a code and its
    /// description) on the one of the scheme the request used.
    fn challenges(&self, used: Scheme, error: Option<(&str, &str)>) -> Vec<Challenge> {
        let scope = self.challenge_scopes();
        let dress = |mut c: Challenge, mine: bool| {
            if let Some(scope) = &scope {
                c = c.param("scope", scope.clone());
            }
            if let (true, Some((code, description))) = (mine, error) {
                c = c
                    .param("error", code)
                    .param("error_description", description);
            }
            c
        };
        let dpop = self.inner.dpop.as_ref();
        let mut out = Vec::new();
        if dpop.is_none_or(|d| !d.config.required) {
            out.push(dress(self.challenge(), used == Scheme::Bearer));
        }
        if dpop.is_some() {
            let c = Challenge::dpop()
                .param("algs", algorithm_names().join(" "))
                .param("resource_metadata", self.inner.metadata_url.clone());
            out.push(dress(c, used == Scheme::Dpop || out.is_empty()));
        }
        out
    }

    /// Checks a request's credentials: the `Authorization` header (a bearer
    /// token, or with [`dpop`](Self::dpop) a DPoP-bound one and its proof
    /// for `method` on `uri`), and no token in the query.
    pub async fn authenticate(
        &self,
        method: &Method,
        uri: &Uri,
        headers: &HeaderMap,
    ) -> Result<Identity, Denied> {
        self.verify_request(method, uri, headers, None)
            .await
            .map(|v| Identity::clone(&v.identity))
    }

    /// [`authenticate`](Self::authenticate), also giving the token's SHA-256
    /// (what owns a session opened by a token that names nobody) and a DPoP
    /// nonce to send back. With `store` (the one the instances of the
    /// service share), a DPoP proof is also claimed there, so that it is
    /// accepted once across the instances.
    pub(crate) async fn verify_request(
        &self,
        method: &Method,
        uri: &Uri,
        headers: &HeaderMap,
        store: Option<&dyn Store>,
    ) -> Result<Verified, Denied> {
        let (scheme, token) = self.credentials(uri, headers)?;
        let dpop = self.inner.dpop.as_ref();
        let proof = match (scheme, dpop) {
            (Scheme::Dpop, Some(dpop)) => Some(self.proof(dpop, method, uri, headers, token)?),
            (Scheme::Bearer, Some(dpop)) if dpop.config.required => {
                return Err(self.refused_token(
                    scheme,
                    "this server accepts DPoP-bound tokens only (Authorization: DPoP, with a proof)",
                ));
            }
            _ => None,
        };
        let mut identity = match self.inner.verifier.verify(token).await {
            Ok(identity) => identity,
            Err(TokenError::Invalid(reason)) => return Err(self.refused_token(scheme, &reason)),
            Err(e @ TokenError::Unavailable { .. }) => return Err(unavailable(&e)),
        };
        let dpop_nonce = self.bind(scheme, proof.as_ref(), &identity)?;
        if let (Some(proof), Some(dpop), Some(store)) = (&proof, dpop, store) {
            dpop.claim(proof, store)
                .await
                .map_err(|r| self.refused_proof(&r))?;
        }
        identity.imply(&self.inner.implies);
        let required: Vec<&str> = self.inner.required.iter().map(String::as_str).collect();
        let missing = identity.missing_scopes(&required);
        let dpop = scheme == Scheme::Dpop;
        if !missing.is_empty() {
            return Err(self.insufficient_scope_for(dpop, &required));
        }
        let carry = dpop_nonce
            .and_then(|n| http::HeaderValue::from_str(&n).ok())
            .map(|n| {
                (
                    http::HeaderName::from_static(oxmcp_wire::dpop::DPOP_NONCE),
                    n,
                )
            });
        Ok(Verified {
            identity: Arc::new(identity),
            gate: Arc::new(self.clone()),
            token: sha2::Sha256::digest(token.as_bytes()).into(),
            dpop,
            carry,
        })
    }

    /// The scheme and token of the request's one `Authorization` header, or
    /// the answer to a request that has none fit to verify (a token in the
    /// query string, two headers, an unknown scheme, a malformed token).
    fn credentials<'h>(
        &self,
        uri: &Uri,
        headers: &'h HeaderMap,
    ) -> Result<(Scheme, &'h str), Denied> {
        if uri.query().is_some_and(|q| {
            oxmcp_wire::oauth::form_decode(q)
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
        let scheme = if scheme.eq_ignore_ascii_case("bearer") {
            Scheme::Bearer
        } else if scheme.eq_ignore_ascii_case("dpop") && self.inner.dpop.is_some() {
            Scheme::Dpop
        } else {
            return Err(self.unauthorized(None));
        };
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
        Ok((scheme, token))
    }

    /// The request's DPoP proof, checked against the request and `token`
    /// (not yet against the token's key, nor for replay).
    fn proof(
        &self,
        dpop: &DpopState,
        method: &Method,
        uri: &Uri,
        headers: &HeaderMap,
        token: &str,
    ) -> Result<Proof, Denied> {
        let mut values = headers.get_all(oxmcp_wire::dpop::DPOP).iter();
        let (Some(value), None) = (values.next(), values.next()) else {
            return Err(self.refused_proof(&Refusal::Invalid(
                "a DPoP-bound token needs exactly one DPoP proof header".into(),
            )));
        };
        let Ok(proof) = value.to_str() else {
            return Err(self.refused_proof(&Refusal::Invalid("the DPoP proof is not text".into())));
        };
        // The URL as this server is reached: the resource's scheme and
        // host, the request's path.
        let origin = split_url(&self.inner.metadata.resource).map_or("", |(origin, _)| origin);
        let url = format!("{origin}{}", uri.path());
        dpop.check(proof, method.as_str(), &url, token)
            .map_err(|refusal| self.refused_proof(&refusal))
    }

    /// Checks how the verified token was presented against its binding
    /// (`cnf.jkt`): a bound token only with a proof made with its key, an
    /// unbound one only as a bearer token. Then records the proof against
    /// replay, and gives the nonce to send back, if any.
    fn bind(
        &self,
        scheme: Scheme,
        proof: Option<&Proof>,
        identity: &Identity,
    ) -> Result<Option<String>, Denied> {
        let jkt = identity
            .claims()
            .get("cnf")
            .and_then(|cnf| cnf.get("jkt"))
            .and_then(serde_json::Value::as_str);
        match (proof, jkt, self.inner.dpop.as_ref()) {
            (None, None, _) => Ok(None),
            (None, Some(_), _) => Err(self.refused_token(
                scheme,
                "this token is DPoP-bound: present it as Authorization: DPoP, with a proof",
            )),
            (Some(_), None, _) => Err(self.refused_token(
                scheme,
                "this token is not DPoP-bound: it cannot be presented with the DPoP scheme",
            )),
            (Some(proof), Some(jkt), Some(dpop)) => {
                if proof.jkt != jkt {
                    return Err(self.refused_proof(&Refusal::Invalid(
                        "the proof's key is not the one the token is bound to".into(),
                    )));
                }
                dpop.record(proof).map_err(|r| self.refused_proof(&r))?;
                Ok(proof.next_nonce.clone())
            }
            (Some(_), Some(_), None) => Err(self.unauthorized(None)),
        }
    }

    fn unauthorized(&self, invalid: Option<String>) -> Denied {
        match invalid {
            Some(reason) => self.refused_token(Scheme::Bearer, &reason),
            None => Denied {
                status: StatusCode::UNAUTHORIZED,
                challenges: self.challenges(Scheme::Bearer, None),
                message: "authorization required: send a bearer token".into(),
                retry_after: None,
                dpop_nonce: None,
            },
        }
    }

    /// 401 `invalid_token`, on the challenge of the scheme used.
    fn refused_token(&self, scheme: Scheme, reason: &str) -> Denied {
        Denied {
            status: StatusCode::UNAUTHORIZED,
            challenges: self.challenges(scheme, Some(("invalid_token", reason))),
            message: format!("invalid token: {reason}"),
            retry_after: None,
            dpop_nonce: None,
        }
    }

    /// 401 `invalid_dpop_proof` or `use_dpop_nonce` (with the nonce), or
    /// 503 when the replay record is full or the shared store failed.
    fn refused_proof(&self, refusal: &Refusal) -> Denied {
        let (error, reason, nonce) = match refusal {
            Refusal::Invalid(reason) => {
                (oxmcp_wire::dpop::INVALID_DPOP_PROOF, reason.clone(), None)
            }
            Refusal::UseNonce(nonce) => (
                oxmcp_wire::dpop::USE_DPOP_NONCE,
                "the DPoP proof must carry the nonce in DPoP-Nonce".to_owned(),
                Some(nonce.clone()),
            ),
            Refusal::Full => {
                return Denied {
                    status: StatusCode::SERVICE_UNAVAILABLE,
                    challenges: Vec::new(),
                    message: "too many DPoP proofs to remember; try again later".into(),
                    retry_after: Some(std::time::Duration::from_secs(1)),
                    dpop_nonce: None,
                }
            }
            Refusal::Store(e) => {
                tracing::warn!(error = %oxmcp_types::error::Chain(e), "a DPoP proof could not be recorded in the shared store");
                return Denied {
                    status: StatusCode::SERVICE_UNAVAILABLE,
                    challenges: Vec::new(),
                    message: format!(
                        "DPoP proofs cannot be recorded now ({} unavailable); try again later",
                        e.store()
                    ),
                    retry_after: Some(std::time::Duration::from_secs(2)),
                    dpop_nonce: None,
                };
            }
        };
        Denied {
            status: StatusCode::UNAUTHORIZED,
            challenges: self.challenges(Scheme::Dpop, Some((error, &reason))),
            message: format!("DPoP proof refused: {reason}"),
            retry_after: None,
            dpop_nonce: nonce,
        }
    }

    fn bad_request(&self, reason: &str) -> Denied {
        Denied {
            status: StatusCode::BAD_REQUEST,
            challenges: vec![self
                .challenge()
                .param("error", "invalid_request")
                .param("error_description", reason)],
            message: reason.into(),
            retry_after: None,
            dpop_nonce: None,
        }
    }

    /// The 403 step-up answer: the token lacks some of `needed` (all of
    /// them, and those every request needs, are named).
    pub fn insufficient_scope(&self, needed: &[&str]) -> Denied {
        self.insufficient_scope_for(false, needed)
    }

    /// [`insufficient_scope`](Self::insufficient_scope) for a request that
    /// presented its token with the `DPoP` scheme when `dpop`: the
    /// challenge is then a `DPoP` one, naming the algorithms.
    pub(crate) fn insufficient_scope_for(&self, dpop: bool, needed: &[&str]) -> Denied {
        let mut scopes: Vec<&str> = self.inner.required.iter().map(String::as_str).collect();
        for s in needed {
            if !scopes.contains(s) {
                scopes.push(s);
            }
        }
        let scope = scopes.join(" ");
        Denied {
            status: StatusCode::FORBIDDEN,
            challenges: vec![(if dpop {
                Challenge::dpop().param("algs", algorithm_names().join(" "))
            } else {
                Challenge::bearer()
            })
            .param("error", "insufficient_scope")
            .param("scope", scope.clone())
            .param("resource_metadata", self.inner.metadata_url.clone())
            .param(
                "error_description",
                format!("this needs the scopes: {scope}"),
            )],
            message: format!("insufficient scope: this needs {scope}"),
            retry_after: None,
            dpop_nonce: None,
        }
    }
}

/// A refused request: its status, its `WWW-Authenticate` challenge, and a
/// message for the JSON-RPC error body.
#[derive(Debug, Clone)]
pub struct Denied {
    /// 400, 401, 403 or 503.
    pub status: StatusCode,
    /// The challenges sent, each in a `WWW-Authenticate` header (`Bearer`,
    /// and `DPoP` when DPoP tokens are accepted).
    pub challenges: Vec<Challenge>,
    /// What went wrong, for people.
    pub message: String,
    /// When to try again (a 503 while the issuer cannot be reached), sent
    /// as `Retry-After` in whole seconds.
    pub retry_after: Option<std::time::Duration>,
    /// The nonce a DPoP proof must carry (RFC 9449 §9), sent as `DPoP-Nonce`.
    pub dpop_nonce: Option<String>,
}

impl Denied {
    /// The response's parts: status, headers, and a JSON-RPC error body.
    pub fn into_parts(self) -> (StatusCode, HeaderMap, Vec<u8>) {
        let mut headers = HeaderMap::new();
        headers.insert(
            header::CONTENT_TYPE,
            http::HeaderValue::from_static("application/json"),
        );
        for challenge in &self.challenges {
            if let Ok(value) = http::HeaderValue::from_str(&challenge.to_header_value()) {
                headers.append(header::WWW_AUTHENTICATE, value);
            }
        }
        if let Some(value) = self
            .dpop_nonce
            .and_then(|n| http::HeaderValue::from_str(&n).ok())
        {
            headers.insert(oxmcp_wire::dpop::DPOP_NONCE, value);
        }
        if let Some(after) = self.retry_after {
            // Rounded up: "0" would invite an immediate retry.
            let secs = after.as_secs() + u64::from(after.subsec_nanos() > 0);
            headers.insert(header::RETRY_AFTER, http::HeaderValue::from(secs.max(1)));
        }
        let body = serde_json::to_vec(&serde_json::json!({
            "jsonrpc": "2.0",
            "id": null,
            "error": { "code": oxmcp_types::jsonrpc::code::INVALID_REQUEST, "message": self.message }
        }))
        .unwrap_or_default();
        (self.status, headers, body)
    }
}

/// The answer when the verifier cannot check a token now (its issuer or
/// introspection endpoint unreachable): 503, with the verifier's
/// `Retry-After` when it gave one.
fn unavailable(e: &TokenError) -> Denied {
    tracing::warn!(error = %oxmcp_types::error::Chain(e), "a token could not be checked");
    let retry_after = match e {
        TokenError::Unavailable { retry_after, .. } => *retry_after,
        TokenError::Invalid(_) => None,
    };
    Denied {
        status: StatusCode::SERVICE_UNAVAILABLE,
        challenges: Vec::new(),
        message: "the token cannot be checked now; try again later".into(),
        retry_after,
        dpop_nonce: None,
    }
}
