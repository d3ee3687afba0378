//! A scratch OAuth authorization server on 127.0.0.1 set up by a [`Script`], the notes server it protects, and the helpers the sign-in tests share.
#![allow(clippy::unused_self)] // the notes tools take `&self` as tools do

use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use oxmcp_client::auth::{HeadlessAuthorizer, OAuth};
use oxmcp_client::{types::error::Chain, Client};
use oxmcp_server::auth::{Authorization, JwtVerifier};
use oxmcp_server::http::HttpConfig;
use oxmcp_server::{tool, Server};
use serde_json::{json, Value};
use sha2::Digest;

pub struct Notes;

#[tool(description = "Notes behind OAuth", scopes("notes:read"))]
impl Notes {
    #[describe("Read the note")]
    pub fn read_note(&self) -> String {
        "hello".into()
    }

    #[describe("Delete the note")]
    #[tool(scopes("notes:write"))]
    pub fn delete_note(&self) -> String {
        "deleted".into()
    }
}

pub fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

fn b64_decode(text: &str) -> Vec<u8> {
    base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(text)
        .unwrap()
}

pub fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// A fresh random string (unique per call).
pub fn random(prefix: &str) -> String {
    let mut bytes = [0u8; 12];
    getrandom::fill(&mut bytes).unwrap();
    format!("{prefix}-{}", b64(&bytes))
}

pub fn get<'a>(pairs: &'a [(String, String)], name: &str) -> Option<&'a str> {
    pairs
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

pub fn json_reply(status: u16, v: &Value) -> http::Response<String> {
    http::Response::builder()
        .status(status)
        .header("content-type", "application/json")
        .body(v.to_string())
        .unwrap()
}

pub fn text(r: &oxmcp_client::types::CallToolResult) -> String {
    r.content.iter().filter_map(|c| c.as_text()).collect()
}

/// A client of `url` signed in with `oauth`.
pub async fn connect(oauth: OAuth, url: &str) -> Client {
    Client::builder()
        .oauth(oauth)
        .connect_http(url)
        .await
        .unwrap()
}

/// Why signing in to `url` with `oauth` fails (it must).
pub async fn refusal(oauth: OAuth, url: &str) -> String {
    let err = Client::builder()
        .oauth(oauth)
        .connect_http(url)
        .await
        .expect_err("the sign-in must fail");
    Chain(&err).to_string()
}

/// What `read_note` answers.
pub async fn read_note(client: &Client) -> String {
    text(&client.call_tool("read_note", json!({})).await.unwrap())
}

/// A client signing in through a headless authorizer.
pub fn signing_in() -> OAuth {
    OAuth::new("test-client").authorizer(HeadlessAuthorizer::new("http://127.0.0.1:9/cb"))
}

/// How the scratch authorization server behaves.
#[derive(Clone)]
pub struct Script {
    /// `expires_in` of every token response (the tokens live at most an hour).
    pub expires_in: u64,
    /// Fields that replace the metadata's own (`null` removes one).
    pub meta: Value,
    /// Whether registration issues a client secret, then required at the
    /// token endpoint (`client_secret_basic`).
    pub client_secret: bool,
    /// The `iss` of the authorization response (`None`: the issuer's own).
    pub iss: Option<String>,
    /// Whether the authorization response carries another `state`.
    pub tamper_state: bool,
    /// Whether the protected server asks the introspection endpoint about
    /// every token (so a revoked one is refused at once) rather than
    /// checking the JWT itself.
    pub introspect: bool,
    /// DPoP at the issuer: it advertises it (`ES256`), wants a valid
    /// proof with every token request and binds its tokens to the proof's key.
    pub dpop: Option<IssuerDpop>,
    /// DPoP on the protected server.
    pub server_dpop: Option<oxmcp_server::auth::Dpop>,
    /// The `resource` the token endpoint wants (else `invalid_target`).
    pub resource: ResourceRule,
    /// The `aud` of the tokens issued (`None`: the protected server's resource).
    pub aud: Option<String>,
    /// The audiences the protected server accepts (empty: its resource URI).
    pub server_audiences: Vec<String>,
    /// The scope every token grants, whatever was asked (Entra ID's
    /// `.default`: all the permissions the client was granted); `None`: the
    /// scope asked for.
    pub grants: Option<String>,
}

/// What the scratch authorization server wants in `resource`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ResourceRule {
    /// The protected server's resource URI (RFC 8707, as the spec asks).
    TheServers,
    /// Exactly this value.
    Exactly(String),
    /// None at all (Entra ID beside `.default` scopes).
    Absent,
}

impl Default for Script {
    fn default() -> Self {
        Script {
            expires_in: 600,
            meta: json!({}),
            client_secret: false,
            iss: None,
            tamper_state: false,
            introspect: false,
            dpop: None,
            server_dpop: None,
            resource: ResourceRule::TheServers,
            aud: None,
            server_audiences: Vec::new(),
            grants: None,
        }
    }
}

/// How the scratch issuer does DPoP.
#[derive(Clone, Default)]
pub struct IssuerDpop {
    /// The nonce it wants in proofs (`use_dpop_nonce` without it).
    pub nonce: Option<String>,
}

/// A code handed out by the authorization endpoint.
pub struct Code {
    pub value: String,
    pub challenge: String,
    pub scope: String,
}

/// What the scratch authorization server saw and handed out.
#[derive(Default)]
pub struct Seen {
    /// Every request, as `METHOD /path`.
    pub requests: Vec<String>,
    /// The query of every authorization request.
    pub authorizations: Vec<Vec<(String, String)>>,
    /// Every secret issued or received: client secrets, codes, PKCE
    /// verifiers, access and refresh tokens.
    pub secrets: Vec<String>,
    /// The registered client's secret.
    pub client_secret: Option<String>,
    pub codes: Vec<Code>,
    /// Refresh tokens issued, with their scope.
    pub refresh_tokens: Vec<(String, String)>,
    pub code_grants: usize,
    pub refresh_grants: usize,
    pub client_credentials_grants: usize,
    /// Access tokens issued, in order.
    pub issued: Vec<String>,
    /// Access tokens the introspection endpoint calls inactive.
    pub revoked: Vec<String>,
    /// The key thumbprint of each token request's DPoP proof.
    pub dpop_jkts: Vec<String>,
    /// Token requests refused with `use_dpop_nonce`.
    pub nonce_challenges: usize,
    /// Token requests that came without a DPoP proof.
    pub without_proof: usize,
}

impl Seen {
    pub fn count(&self, request: &str) -> usize {
        self.requests.iter().filter(|r| *r == request).count()
    }
}

/// A scratch authorization server on 127.0.0.1: metadata, JWKS, Dynamic
/// Client Registration of the client `c1`, an authorization endpoint that
/// approves at once with the scope asked for, a token endpoint (code with
/// PKCE, refresh, client credentials) issuing ES256 JWTs for `resource`, and
/// RFC 7662 introspection.
pub struct As {
    pub url: String,
    pub resource: String,
    pub script: Script,
    key: EncodingKey,
    jwk: Value,
    pub seen: Mutex<Seen>,
}

impl As {
    pub async fn start(script: Script, resource: &str) -> Arc<As> {
        let pair = rcgen::KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256).unwrap();
        let raw = pair.public_key_raw().to_vec();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let a = Arc::new(As {
            url: format!("http://{}", listener.local_addr().unwrap()),
            resource: resource.to_owned(),
            script,
            key: EncodingKey::from_ec_der(&pair.serialize_der()),
            jwk: json!({"kty":"EC","crv":"P-256","alg":"ES256","kid":"k1","use":"sig",
                "x": b64(&raw[1..33]), "y": b64(&raw[33..])}),
            seen: Mutex::new(Seen::default()),
        });
        let handler = Arc::clone(&a);
        let app = axum::Router::new().fallback(move |request: axum::extract::Request| {
            let a = Arc::clone(&handler);
            async move { a.handle(request).await }
        });
        tokio::spawn(async move { axum::serve(listener, app).await });
        a
    }

    async fn handle(&self, request: axum::extract::Request) -> http::Response<String> {
        let (parts, body) = request.into_parts();
        let body = axum::body::to_bytes(body, 1 << 20).await.unwrap();
        let body = oxmcp_wire::oauth::form_decode(&String::from_utf8_lossy(&body));
        let path = parts.uri.path().to_owned();
        let query = oxmcp_wire::oauth::form_decode(parts.uri.query().unwrap_or_default());
        self.seen
            .lock()
            .unwrap()
            .requests
            .push(format!("{} {path}", parts.method));
        match path.as_str() {
            "/.well-known/oauth-authorization-server" => self.metadata(),
            "/jwks" => json_reply(200, &json!({"keys": [self.jwk]})),
            "/register" => self.register(),
            "/authorize" => self.authorize(query),
            "/token" => self.token(&parts.headers, &body),
            "/introspect" => self.introspect(&body),
            _ => json_reply(404, &json!({"error": "not_found"})),
        }
    }

    fn metadata(&self) -> http::Response<String> {
        let url = &self.url;
        let dpop = self.script.dpop.as_ref().map(|_| json!(["ES256"]));
        let mut m = json!({
            "dpop_signing_alg_values_supported": dpop,
            "issuer": url,
            "authorization_endpoint": format!("{url}/authorize"),
            "token_endpoint": format!("{url}/token"),
            "registration_endpoint": format!("{url}/register"),
            "jwks_uri": format!("{url}/jwks"),
            "response_types_supported": ["code"],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["client_secret_basic"],
            "authorization_response_iss_parameter_supported": true,
        });
        if self.script.dpop.is_none() {
            m.as_object_mut()
                .unwrap()
                .remove("dpop_signing_alg_values_supported");
        }
        if let (Some(fields), Some(own)) = (self.script.meta.as_object(), m.as_object_mut()) {
            for (k, v) in fields {
                if v.is_null() {
                    own.remove(k);
                } else {
                    own.insert(k.clone(), v.clone());
                }
            }
        }
        json_reply(200, &m)
    }

    fn register(&self) -> http::Response<String> {
        if !self.script.client_secret {
            return json_reply(201, &json!({"client_id": "c1"}));
        }
        let secret = random("client-secret");
        let mut seen = self.seen.lock().unwrap();
        seen.client_secret = Some(secret.clone());
        seen.secrets.push(secret.clone());
        json_reply(201, &json!({"client_id": "c1", "client_secret": secret}))
    }

    /// Approves at once with a fresh code for the scope asked for.
    fn authorize(&self, q: Vec<(String, String)>) -> http::Response<String> {
        let code = random("code");
        let state = if self.script.tamper_state {
            "forged"
        } else {
            get(&q, "state").unwrap_or_default()
        };
        let iss = self.script.iss.as_deref().unwrap_or(&self.url);
        let location = format!(
            "{}?{}",
            get(&q, "redirect_uri").unwrap(),
            oxmcp_wire::oauth::form_encode(&[("code", &code), ("state", state), ("iss", iss)])
        );
        let mut seen = self.seen.lock().unwrap();
        seen.secrets.push(code.clone());
        seen.codes.push(Code {
            value: code,
            challenge: get(&q, "code_challenge").unwrap_or_default().to_owned(),
            scope: get(&q, "scope").unwrap_or_default().to_owned(),
        });
        seen.authorizations.push(q);
        http::Response::builder()
            .status(302)
            .header("location", location)
            .body(String::new())
            .unwrap()
    }

    fn token(&self, headers: &http::HeaderMap, f: &[(String, String)]) -> http::Response<String> {
        let mut seen = self.seen.lock().unwrap();
        if let Some(secret) = &seen.client_secret {
            let expected = format!(
                "Basic {}",
                base64::engine::general_purpose::STANDARD.encode(format!("c1:{secret}"))
            );
            if headers.get("authorization").and_then(|v| v.to_str().ok()) != Some(&expected) {
                return json_reply(401, &json!({"error": "invalid_client"}));
            }
        }
        let wanted = match &self.script.resource {
            ResourceRule::TheServers => Some(self.resource.as_str()),
            ResourceRule::Exactly(r) => Some(r.as_str()),
            ResourceRule::Absent => None,
        };
        if get(f, "resource") != wanted {
            return json_reply(400, &json!({"error": "invalid_target"}));
        }
        let proof = headers.get("dpop").and_then(|v| v.to_str().ok());
        if proof.is_none() {
            seen.without_proof += 1;
        }
        let jkt = match (&self.script.dpop, proof) {
            (None, _) => None,
            (Some(_), None) => {
                return json_reply(400, &json!({"error": "invalid_dpop_proof"}));
            }
            (Some(dpop), Some(proof)) => match check_proof(proof, &format!("{}/token", self.url)) {
                Err(e) => {
                    return json_reply(
                        400,
                        &json!({"error": "invalid_dpop_proof", "error_description": e}),
                    )
                }
                Ok((_, nonce)) if dpop.nonce.is_some() && nonce != dpop.nonce => {
                    seen.nonce_challenges += 1;
                    let mut r = json_reply(400, &json!({"error": "use_dpop_nonce"}));
                    r.headers_mut()
                        .insert("dpop-nonce", dpop.nonce.clone().unwrap().parse().unwrap());
                    return r;
                }
                Ok((jkt, _)) => {
                    seen.dpop_jkts.push(jkt.clone());
                    Some(jkt)
                }
            },
        };
        let scope = match get(f, "grant_type") {
            Some("authorization_code") => {
                // PKCE: the verifier must hash to the code's challenge.
                let code = get(f, "code").unwrap_or_default();
                let verifier = get(f, "code_verifier").unwrap_or_default().to_owned();
                let hashed = b64(&sha2::Sha256::digest(verifier.as_bytes()));
                let Some(scope) = seen
                    .codes
                    .iter()
                    .find(|c| c.value == code && c.challenge == hashed)
                    .map(|c| c.scope.clone())
                else {
                    return json_reply(
                        400,
                        &json!({"error": "invalid_grant", "error_description": "PKCE"}),
                    );
                };
                seen.secrets.push(verifier);
                seen.code_grants += 1;
                scope
            }
            Some("refresh_token") => {
                let refresh = get(f, "refresh_token").unwrap_or_default();
                let Some(scope) = seen
                    .refresh_tokens
                    .iter()
                    .find(|(r, _)| r == refresh)
                    .map(|(_, scope)| scope.clone())
                else {
                    return json_reply(400, &json!({"error": "invalid_grant"}));
                };
                seen.refresh_grants += 1;
                scope
            }
            Some("client_credentials") => {
                seen.client_credentials_grants += 1;
                get(f, "scope").unwrap_or_default().to_owned()
            }
            _ => return json_reply(400, &json!({"error": "unsupported_grant_type"})),
        };
        let scope = self.script.grants.clone().unwrap_or(scope);
        let aud = self.script.aud.as_deref().unwrap_or(&self.resource);
        let mut claims = json!({"iss": self.url, "aud": aud, "sub": "alice",
            "exp": now() + self.script.expires_in.min(3600), "iat": now()});
        let mut header = Header::new(Algorithm::ES256);
        header.kid = Some("k1".into());
        let refresh = random("refresh");
        let mut answer = json!({"token_type": "Bearer",
            "expires_in": self.script.expires_in, "refresh_token": refresh});
        if let Some(jkt) = jkt {
            claims["cnf"] = json!({ "jkt": jkt });
            answer["token_type"] = json!("DPoP");
        }
        if !scope.is_empty() {
            claims["scope"] = json!(scope);
            answer["scope"] = json!(scope);
        }
        let token = jsonwebtoken::encode(&header, &claims, &self.key).unwrap();
        answer["access_token"] = json!(token);
        seen.issued.push(token.clone());
        seen.secrets.push(token);
        seen.secrets.push(refresh.clone());
        seen.refresh_tokens.push((refresh, scope));
        json_reply(200, &answer)
    }

    /// RFC 7662: the claims of a token issued here and not revoked.
    fn introspect(&self, f: &[(String, String)]) -> http::Response<String> {
        let token = get(f, "token").unwrap_or_default();
        let seen = self.seen.lock().unwrap();
        if !seen.issued.iter().any(|t| t == token) || seen.revoked.iter().any(|t| t == token) {
            return json_reply(200, &json!({"active": false}));
        }
        let payload = token.split('.').nth(1).unwrap_or_default();
        let mut claims: Value = serde_json::from_slice(&b64_decode(payload)).unwrap();
        claims["active"] = json!(true);
        json_reply(200, &claims)
    }
}

/// The notes server on 127.0.0.1 (`notes:read` advertised, `notes:write`
/// implying it) protected by a scratch authorization server playing
/// `script`; its URL and that server.
pub async fn protected_notes(script: Script) -> (String, Arc<As>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let introspect = script.introspect;
    let server_dpop = script.server_dpop.clone();
    let audiences = script.server_audiences.clone();
    let a = As::start(script, &url).await;
    let auth = if introspect {
        let verifier =
            oxmcp_server::auth::Introspection::new(format!("{}/introspect", a.url), &url)
                .cache_for(std::time::Duration::ZERO);
        Authorization::new(&url, verifier)
    } else {
        let mut verifier = JwtVerifier::new(a.url.clone(), &url);
        if !audiences.is_empty() {
            verifier = verifier.audiences(audiences).unwrap();
        }
        Authorization::new(&url, verifier)
    };
    let mut auth = auth.unwrap();
    if let Some(dpop) = server_dpop {
        auth = auth.dpop(dpop);
    }
    let auth = auth
        .authorization_server(a.url.clone())
        .scopes_supported(["notes:read"])
        .scope_implies("notes:write", ["notes:read"]);
    let server = Server::builder("notes", "1").toolbox(Notes).build();
    tokio::spawn(server.serve_http_on(
        listener,
        HttpConfig::default().authorization(auth),
        std::future::pending(),
    ));
    (url, a)
}

/// The issuer's own check of a token request's DPoP proof (RFC 9449 §4.3,
/// written here apart from the code under test): `typ`, ES256 with the
/// public `jwk`, `htm` POST, `htu` the token endpoint, a recent `iat`, a
/// `jti`. Gives the key's thumbprint and the proof's nonce.
fn check_proof(proof: &str, token_endpoint: &str) -> Result<(String, Option<String>), String> {
    let header: Value = serde_json::from_slice(&b64_decode(proof.split('.').next().unwrap_or("")))
        .map_err(|e| format!("header: {e}"))?;
    if header["typ"] != "dpop+jwt" || header["alg"] != "ES256" {
        return Err(format!("typ or alg: {header}"));
    }
    let jwk = &header["jwk"];
    if jwk.get("d").is_some() {
        return Err("a private key".into());
    }
    let parsed: jsonwebtoken::jwk::Jwk =
        serde_json::from_value(jwk.clone()).map_err(|e| format!("jwk: {e}"))?;
    let key = jsonwebtoken::DecodingKey::from_jwk(&parsed).map_err(|e| format!("jwk: {e}"))?;
    let mut validation = jsonwebtoken::Validation::new(Algorithm::ES256);
    validation.validate_exp = false;
    validation.required_spec_claims.clear();
    let claims = jsonwebtoken::decode::<Value>(proof, &key, &validation)
        .map_err(|e| format!("signature: {e}"))?
        .claims;
    if claims["htm"] != "POST" || claims["htu"] != token_endpoint {
        return Err(format!("htm or htu: {claims}"));
    }
    if !claims["jti"].is_string()
        || claims["iat"]
            .as_u64()
            .is_none_or(|iat| iat.abs_diff(now()) > 60)
    {
        return Err(format!("jti or iat: {claims}"));
    }
    if claims.get("ath").is_some() {
        return Err("an ath at the token endpoint".into());
    }
    let canonical = format!(
        r#"{{"crv":"{}","kty":"EC","x":"{}","y":"{}"}}"#,
        jwk["crv"].as_str().unwrap_or_default(),
        jwk["x"].as_str().unwrap_or_default(),
        jwk["y"].as_str().unwrap_or_default()
    );
    let jkt = b64(&sha2::Sha256::digest(canonical.as_bytes()));
    Ok((jkt, claims["nonce"].as_str().map(str::to_owned)))
}
