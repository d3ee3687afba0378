//! The grants: registration (pre-registered, metadata document URL, or
//! Dynamic Client Registration), authentication at the token endpoint, the
//! authorization code flow with PKCE, client credentials, refreshing.

use base64::Engine as _;
use bytes::Bytes;
use http::header::{self, HeaderName, HeaderValue};
use http::{Method, Request};
use http_body_util::Full;
use oxmcp_wire::http_client::{form_request, send, Fetched};
use oxmcp_wire::oauth::{form_encode, percent_encode, AuthorizationServerMetadata};
use serde_json::json;
use sha2::{Digest, Sha256};

use super::dpop::DpopKey;
use super::flow::{
    found_in, now, random_b64, Authenticator, ErrorResponse, Flow, Found, Registered, TokenAuth,
    TokenResponse, TIMEOUT,
};
use super::{AuthError, Credentials, RedirectParams};

/// The JWT-bearer grant type (RFC 7523).
const JWT_BEARER: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";
/// The token type of an identity assertion grant (SEP-990).
const ID_JAG: &str = "urn:ietf:params:oauth:token-type:id-jag";

impl Authenticator {
    pub(super) async fn refresh(&self, flow: &mut Flow) -> Result<(), AuthError> {
        let Some(refresh) = flow.stored.refresh_token.clone() else {
            return Err(AuthError::Registration("no refresh token".into()));
        };
        let key = self.dpop_for(flow)?;
        let found = found_in(flow)?;
        let (client_id, secret) = self.registered_identity(flow)?;
        let auth = self.token_auth(found, &client_id, secret.as_deref())?;
        let mut form = vec![
            ("grant_type", "refresh_token".to_owned()),
            ("refresh_token", refresh),
        ];
        form.extend(self.resource_parameter(found).map(|r| ("resource", r)));
        let token = self
            .token_request(found, form, auth, key.as_deref())
            .await?;
        self.keep(flow, token).await
    }

    /// The `resource` parameter of authorization and token requests: the
    /// resource the server's metadata names, unless [`OAuth::resource`]
    /// gives another or [`OAuth::without_resource`] none.
    ///
    /// [`OAuth::resource`]: super::OAuth::resource
    /// [`OAuth::without_resource`]: super::OAuth::without_resource
    fn resource_parameter(&self, found: &Found) -> Option<String> {
        match &self.oauth.resource {
            super::ResourceParameter::Discovered => Some(found.resource.clone()),
            super::ResourceParameter::Given(resource) => Some(resource.clone()),
            super::ResourceParameter::Omitted => None,
        }
    }

    /// The pre-registered id and secret, if any, once the issuer found is
    /// the one they are registered with (else nothing carrying them is sent).
    fn pre_registered(&self, found: &Found) -> Result<Option<(String, Option<String>)>, AuthError> {
        let Some(client) = &self.oauth.pre_registered else {
            return Ok(None);
        };
        if !client.issuer.admits(&found.meta.issuer) {
            return Err(AuthError::WrongIssuer {
                registered: client.issuer.to_string(),
                named: found.meta.issuer.clone(),
            });
        }
        Ok(Some((client.id.clone(), client.secret.clone())))
    }

    /// The client's id and secret when already known, in the spec's order:
    /// pre-registered with this issuer, a metadata document URL where the
    /// issuer supports them, or a registration made with it before (the
    /// store keeps registrations per issuer). The code flow, refreshing and
    /// the client-credentials grant all use this one answer.
    fn known_identity(&self, flow: &Flow) -> Result<Option<(String, Option<String>)>, AuthError> {
        let found = found_in(flow)?;
        if let Some(identity) = self.pre_registered(found)? {
            return Ok(Some(identity));
        }
        if let (Some(url), Some(true)) = (
            &self.oauth.metadata_url,
            found.meta.client_id_metadata_document_supported,
        ) {
            return Ok(Some((url.clone(), None)));
        }
        Ok(flow
            .stored
            .client_id
            .clone()
            .map(|id| (id, flow.stored.client_secret.clone())))
    }

    /// [`known_identity`](Self::known_identity), which must be known.
    fn registered_identity(&self, flow: &Flow) -> Result<(String, Option<String>), AuthError> {
        self.known_identity(flow)?
            .ok_or_else(|| AuthError::Registration("the client is not registered".into()))
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
        if let Some(identity) = self.known_identity(flow)? {
            return Ok(identity);
        }
        let found = found_in(flow)?;
        let Some(endpoint) = found.meta.registration_endpoint.clone() else {
            return Err(AuthError::Registration(format!(
                "the issuer `{}` offers no dynamic registration{}: pre-register a client and give its id",
                found.meta.issuer,
                if self.oauth.metadata_url.is_some() { " and no client metadata documents" } else { "" }
            )));
        };
        oxmcp_wire::deprecated::used(oxmcp_wire::deprecated::Feature::DynamicClientRegistration);
        // SEP-837: a client that receives its code on a loopback redirect
        // is a native application; one with an https redirect, a web one.
        let native = ["http://127.0.0.1", "http://localhost", "http://[::1]"]
            .iter()
            .any(|loopback| redirect_uri.starts_with(loopback));
        let body = json!({
            "client_name": self.oauth.client_name,
            "application_type": if native { "native" } else { "web" },
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
                "iat": now(), "exp": now().saturating_add(300), "jti": random_b64(16)?,
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

    /// A request to the token endpoint, with a DPoP proof made with `dpop`
    /// when tokens are bound; a `use_dpop_nonce` refusal that brings a
    /// nonce is sent again once with it (RFC 9449 §8).
    async fn token_request(
        &self,
        found: &Found,
        mut form: Vec<(&'static str, String)>,
        auth: TokenAuth<'_>,
        dpop: Option<&DpopKey>,
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
            TokenAuth::Basic(id, secret) => basic = basic_authorization(id, secret),
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
        let mut retried = false;
        loop {
            let mut request = form_request(&endpoint, &pairs)?;
            if let Some(value) = &basic {
                request
                    .headers_mut()
                    .insert(header::AUTHORIZATION, value.clone());
            }
            if let Some(key) = dpop {
                let nonce = self.nonces.get(&endpoint);
                let proof = key.proof("POST", &endpoint, nonce.as_deref(), None)?;
                request
                    .headers_mut()
                    .insert(HeaderName::from_static(oxmcp_wire::dpop::DPOP), proof);
            }
            let answer = send(&self.client, request, TIMEOUT).await?;
            let new_nonce = self.nonces.note(&endpoint, &answer.headers);
            if answer.status.is_success() {
                return Ok(answer.json(&endpoint)?);
            }
            let refusal = refused(&answer);
            let wants_nonce = matches!(&refusal, AuthError::Refused { error, .. } if error == oxmcp_wire::dpop::USE_DPOP_NONCE);
            if dpop.is_none() || !wants_nonce || !new_nonce || retried {
                return Err(refusal);
            }
            retried = true;
        }
    }

    /// The ID-JAG for this issuer and resource: the user's ID token
    /// exchanged at the enterprise identity provider (RFC 8693, SEP-990).
    async fn identity_assertion_grant(
        &self,
        idp: &super::EnterpriseIdp,
        found: &Found,
    ) -> Result<String, AuthError> {
        #[derive(serde::Deserialize)]
        struct Exchanged {
            access_token: String,
            #[serde(default)]
            issued_token_type: Option<String>,
        }
        oxmcp_wire::oauth::is_secure_or_loopback(&idp.token_endpoint)
            .then_some(())
            .ok_or_else(|| AuthError::Insecure(idp.token_endpoint.clone()))?;
        let id_token = (idp.id_token)();
        let resource = self.resource_parameter(found);
        let mut form = vec![
            (
                "grant_type",
                "urn:ietf:params:oauth:grant-type:token-exchange",
            ),
            ("subject_token", id_token.as_str()),
            (
                "subject_token_type",
                "urn:ietf:params:oauth:token-type:id_token",
            ),
            ("requested_token_type", ID_JAG),
            ("audience", found.meta.issuer.as_str()),
        ];
        if let Some(resource) = &resource {
            form.push(("resource", resource.as_str()));
        }
        if let Some(id) = &idp.client_id {
            form.push(("client_id", id.as_str()));
        }
        let request = form_request(&idp.token_endpoint, &form)?;
        let answer = send(&self.client, request, TIMEOUT).await?;
        if !answer.status.is_success() {
            return Err(refused(&answer));
        }
        let exchanged: Exchanged = answer.json(&idp.token_endpoint)?;
        if exchanged
            .issued_token_type
            .as_deref()
            .is_some_and(|t| t != ID_JAG)
        {
            return Err(AuthError::Unsupported(format!(
                "the identity provider issued a {:?}, not an identity assertion grant",
                exchanged.issued_token_type
            )));
        }
        Ok(exchanged.access_token)
    }

    pub(super) async fn client_credentials(
        &self,
        flow: &mut Flow,
        scope: Option<&str>,
    ) -> Result<TokenResponse, AuthError> {
        let key = self.dpop_for(flow)?;
        let found = found_in(flow)?;
        let (client_id, secret) = self.registered_identity(flow)?;
        let mut form: Vec<(&'static str, String)> = self
            .resource_parameter(found)
            .map(|r| ("resource", r))
            .into_iter()
            .collect();
        let jwt_bearer = || ("grant_type", JWT_BEARER.to_owned());
        let auth = match &self.oauth.credentials {
            Some(Credentials::Workload(assertion)) => {
                form.push(jwt_bearer());
                form.push(("assertion", assertion()));
                TokenAuth::None(&client_id)
            }
            Some(Credentials::Enterprise(idp)) => {
                let grant = self.identity_assertion_grant(idp, found).await?;
                form.push(jwt_bearer());
                form.push(("assertion", grant));
                let secret = secret.as_deref().unwrap_or_default();
                TokenAuth::Basic(&client_id, secret)
            }
            _ => {
                form.push(("grant_type", "client_credentials".to_owned()));
                self.token_auth(found, &client_id, secret.as_deref())?
            }
        };
        if let Some(scope) = scope {
            form.push(("scope", scope.to_owned()));
        }
        self.token_request(found, form, auth, key.as_deref()).await
    }

    pub(super) async fn authorization_code(
        &self,
        flow: &mut Flow,
        scope: Option<&str>,
    ) -> Result<TokenResponse, AuthError> {
        let redirect_uri = self.authorizer.redirect_uri().await?;
        let request = match self.authorization_request(flow, scope, &redirect_uri).await {
            Ok(request) => request,
            Err(e) => {
                // The user is never sent anywhere: the redirect's listener goes.
                self.authorizer.release().await;
                return Err(e);
            }
        };
        let params = self.wait_for_user(&request.url).await?;
        let key = self.dpop_for(flow)?;
        let found = found_in(flow)?;
        let code = code_from(&found.meta, &params, &request.state)?;
        let auth = self.token_auth(found, &request.client_id, request.secret.as_deref())?;
        let mut form = vec![
            ("grant_type", "authorization_code".to_owned()),
            ("code", code),
            ("redirect_uri", redirect_uri.clone()),
            ("code_verifier", request.verifier),
        ];
        form.extend(self.resource_parameter(found).map(|r| ("resource", r)));
        self.token_request(found, form, auth, key.as_deref()).await
    }

    /// The authorization request for the code flow: the client's identity
    /// (registering if need be), PKCE and `state`, and the URL to send the
    /// user to.
    async fn authorization_request(
        &self,
        flow: &mut Flow,
        scope: Option<&str>,
        redirect_uri: &str,
    ) -> Result<AuthorizationRequest, AuthError> {
        let (client_id, secret) = self.identity(flow, redirect_uri).await?;
        let found = found_in(flow)?;
        let endpoint = authorization_endpoint(found, self.oauth.assumed_pkce.as_ref())?;
        let verifier = random_b64(32)?;
        let challenge = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .encode(Sha256::digest(verifier.as_bytes()));
        let state = random_b64(16)?;
        let resource = self.resource_parameter(found);
        let mut query = vec![
            ("response_type", "code"),
            ("client_id", client_id.as_str()),
            ("redirect_uri", redirect_uri),
            ("state", state.as_str()),
            ("code_challenge", challenge.as_str()),
            ("code_challenge_method", "S256"),
        ];
        if let Some(resource) = &resource {
            query.push(("resource", resource.as_str()));
        }
        if let Some(scope) = scope {
            query.push(("scope", scope));
        }
        let separator = if endpoint.contains('?') { '&' } else { '?' };
        let url = format!("{endpoint}{separator}{}", form_encode(&query));
        Ok(AuthorizationRequest {
            url,
            state,
            verifier,
            client_id,
            secret,
        })
    }

    /// Sends the user to `url` and waits for the redirect; meanwhile
    /// request time limits wait too ([`Authenticator::signing_in`]).
    async fn wait_for_user(&self, url: &str) -> Result<RedirectParams, AuthError> {
        // Cleared however the wait ends (answered, failed, dropped).
        struct Busy<'a>(&'a tokio::sync::watch::Sender<bool>);
        impl Drop for Busy<'_> {
            fn drop(&mut self) {
                self.0.send_replace(false);
            }
        }
        self.busy.send_replace(true);
        let _busy = Busy(&self.busy);
        self.authorizer.authorize(url).await
    }
}

/// The `Authorization` value of `client_secret_basic` (RFC 6749 §2.3.1),
/// marked sensitive; `None` if it cannot be a header value.
fn basic_authorization(id: &str, secret: &str) -> Option<HeaderValue> {
    let pair = format!("{}:{}", percent_encode(id), percent_encode(secret));
    let encoded = base64::engine::general_purpose::STANDARD.encode(pair);
    let mut value = HeaderValue::from_str(&format!("Basic {encoded}")).ok()?;
    value.set_sensitive(true);
    Some(value)
}

/// An authorization request ready to send the user to, and what the
/// answer is checked and redeemed with.
struct AuthorizationRequest {
    url: String,
    state: String,
    verifier: String,
    client_id: String,
    secret: Option<String>,
}

/// The authorization endpoint, once the issuer is known to do PKCE with
/// S256: its metadata says so, or (metadata silent) the application said
/// so of this very issuer (`assumed`).
fn authorization_endpoint(
    found: &Found,
    assumed: Option<&super::Issuer>,
) -> Result<String, AuthError> {
    let meta = &found.meta;
    match &meta.code_challenge_methods_supported {
        Some(methods) if methods.iter().any(|m| m == "S256") => {}
        // The 2025-03-26 default endpoints come without metadata to say.
        None if !found.discovered => {}
        None if assumed.is_some_and(|issuer| issuer.admits(&meta.issuer)) => {}
        _ => {
            return Err(AuthError::Unsupported(format!(
                "the issuer `{}` does not advertise PKCE with S256 (an issuer documented to do it \
                 without saying so in its metadata, such as Entra ID, can be named with \
                 OAuth::assume_pkce_s256)",
                meta.issuer
            )))
        }
    }
    meta.authorization_endpoint.clone().ok_or_else(|| {
        AuthError::Unsupported(format!(
            "the issuer `{}` has no authorization endpoint",
            meta.issuer
        ))
    })
}

/// The code of an authorization response, after the RFC 9207 issuer check
/// (before anything else is read), the `state` check and any `error`.
fn code_from(
    meta: &AuthorizationServerMetadata,
    params: &RedirectParams,
    state: &str,
) -> Result<String, AuthError> {
    let param = |name: &str| {
        params
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    };
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
    if param("state") != Some(state) {
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
    param("code")
        .map(str::to_owned)
        .ok_or_else(|| AuthError::Redirect("the authorization response has no code".into()))
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

#[cfg(test)]
mod tests {
    use super::basic_authorization;

    #[test]
    fn the_basic_authorization_header_is_marked_sensitive() {
        let value = basic_authorization("client", "the-client-secret").unwrap();
        assert!(value.is_sensitive());
        assert!(value.to_str().unwrap().starts_with("Basic "));
    }
}
