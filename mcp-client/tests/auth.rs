//! Signing in, against our protected server and a scripted authorization
//! server on 127.0.0.1 (ES256 JWT access tokens, PKCE checked, refresh
//! tokens): the code flow, refreshing before expiry without a second
//! sign-in, the step-up for a tool's scope with the union of scopes, and the
//! authorization responses and issuers the client must refuse.
#![allow(clippy::too_many_lines, clippy::unused_self, unreachable_pub)]

use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use mcp_client::auth::{HeadlessAuthorizer, OAuth};
use mcp_client::{Chain, Client};
use mcp_server::auth::{Authorization, JwtVerifier};
use mcp_server::http::HttpConfig;
use mcp_server::{tool, Server};
use serde_json::{json, Value};
use sha2::Digest;

struct Notes;

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

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// How the scripted authorization server behaves.
#[derive(Clone)]
struct Script {
    pkce_advertised: bool,
    /// The `iss` of the authorization response (`None`: the issuer's own).
    iss: Option<String>,
    tamper_state: bool,
    expires_in: u64,
}

impl Default for Script {
    fn default() -> Self {
        Script {
            pkce_advertised: true,
            iss: None,
            tamper_state: false,
            expires_in: 600,
        }
    }
}

/// What the authorization server saw.
#[derive(Default)]
struct Seen {
    authorizations: Vec<Vec<(String, String)>>,
    challenge: Option<String>,
    code_grants: usize,
    refresh_grants: usize,
    /// Access tokens the introspection endpoint calls inactive.
    revoked: Vec<String>,
    /// Access tokens issued, in order.
    issued: Vec<String>,
}

/// The scripted authorization server.
struct As {
    url: String,
    resource: String,
    script: Script,
    key: EncodingKey,
    jwk: Value,
    seen: Mutex<Seen>,
}

fn form(text: &str) -> Vec<(String, String)> {
    mcp_wire::oauth::form_decode(text)
}

fn get<'a>(pairs: &'a [(String, String)], name: &str) -> Option<&'a str> {
    pairs
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

fn json_reply(status: u16, v: &Value) -> http::Response<String> {
    http::Response::builder()
        .status(status)
        .header("content-type", "application/json")
        .body(v.to_string())
        .unwrap()
}

impl As {
    async fn start(script: Script, resource: &str) -> Arc<As> {
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
        let (meta, keys, approve, tokens, introspect) = (
            Arc::clone(&a),
            Arc::clone(&a),
            Arc::clone(&a),
            Arc::clone(&a),
            Arc::clone(&a),
        );
        let app = axum::Router::new()
            .route(
                "/.well-known/oauth-authorization-server",
                axum::routing::get(move || std::future::ready(meta.metadata())),
            )
            .route(
                "/jwks",
                axum::routing::get(move || {
                    std::future::ready(json_reply(200, &json!({"keys": [keys.jwk]})))
                }),
            )
            .route(
                "/register",
                axum::routing::post(|| async { json_reply(201, &json!({"client_id": "c1"})) }),
            )
            .route(
                "/authorize",
                axum::routing::get(move |uri: http::Uri| {
                    std::future::ready(approve.authorize(uri.query().unwrap_or_default()))
                }),
            )
            .route(
                "/token",
                axum::routing::post(move |body: String| std::future::ready(tokens.token(&body))),
            )
            .route(
                "/introspect",
                axum::routing::post(move |body: String| {
                    std::future::ready(introspect.introspect(&body))
                }),
            );
        tokio::spawn(async move { axum::serve(listener, app).await });
        a
    }

    fn metadata(&self) -> http::Response<String> {
        let url = &self.url;
        let mut m = json!({
            "issuer": url,
            "authorization_endpoint": format!("{url}/authorize"),
            "token_endpoint": format!("{url}/token"),
            "registration_endpoint": format!("{url}/register"),
            "jwks_uri": format!("{url}/jwks"),
            "response_types_supported": ["code"],
            "authorization_response_iss_parameter_supported": true,
        });
        if self.script.pkce_advertised {
            m["code_challenge_methods_supported"] = json!(["S256"]);
        }
        json_reply(200, &m)
    }

    /// Approves at once: the code carries the scope asked for.
    fn authorize(&self, query: &str) -> http::Response<String> {
        let q = form(query);
        let mut seen = self.seen.lock().unwrap();
        seen.challenge = get(&q, "code_challenge").map(str::to_owned);
        seen.authorizations.push(q.clone());
        let state = if self.script.tamper_state {
            "forged".to_owned()
        } else {
            get(&q, "state").unwrap_or_default().to_owned()
        };
        let iss = self.script.iss.clone().unwrap_or_else(|| self.url.clone());
        let scope = get(&q, "scope").unwrap_or_default();
        let location = format!(
            "{}?{}",
            get(&q, "redirect_uri").unwrap(),
            mcp_wire::oauth::form_encode(&[
                ("code", &b64(scope.as_bytes())),
                ("state", &state),
                ("iss", &iss)
            ])
        );
        http::Response::builder()
            .status(302)
            .header("location", location)
            .body(String::new())
            .unwrap()
    }

    fn token(&self, body: &str) -> http::Response<String> {
        let f = form(body);
        let mut seen = self.seen.lock().unwrap();
        if get(&f, "resource") != Some(self.resource.as_str()) {
            return json_reply(400, &json!({"error": "invalid_target"}));
        }
        let scope = match get(&f, "grant_type") {
            Some("authorization_code") => {
                // PKCE: the verifier must hash to the challenge.
                let verifier = get(&f, "code_verifier").unwrap_or_default();
                let hashed = b64(&sha2::Sha256::digest(verifier.as_bytes()));
                if seen.challenge.as_deref() != Some(hashed.as_str()) {
                    return json_reply(
                        400,
                        &json!({"error": "invalid_grant", "error_description": "PKCE"}),
                    );
                }
                seen.code_grants += 1;
                let code = get(&f, "code").unwrap_or_default();
                String::from_utf8(
                    base64::engine::general_purpose::URL_SAFE_NO_PAD
                        .decode(code)
                        .unwrap(),
                )
                .unwrap()
            }
            Some("refresh_token") => {
                seen.refresh_grants += 1;
                get(&f, "refresh_token").unwrap_or_default().to_owned()
            }
            _ => return json_reply(400, &json!({"error": "unsupported_grant_type"})),
        };
        let claims = json!({"iss": self.url, "aud": self.resource, "sub": "alice",
            "scope": scope, "exp": now() + self.script.expires_in, "iat": now()});
        let mut header = Header::new(Algorithm::ES256);
        header.kid = Some("k1".into());
        let token = jsonwebtoken::encode(&header, &claims, &self.key).unwrap();
        seen.issued.push(token.clone());
        json_reply(
            200,
            &json!({"access_token": token, "token_type": "Bearer",
                "expires_in": self.script.expires_in, "refresh_token": scope, "scope": scope}),
        )
    }
}

impl As {
    /// RFC 7662: the claims of a token issued here and not revoked.
    fn introspect(&self, body: &str) -> http::Response<String> {
        let f = form(body);
        let token = get(&f, "token").unwrap_or_default();
        let seen = self.seen.lock().unwrap();
        if !seen.issued.iter().any(|t| t == token) || seen.revoked.iter().any(|t| t == token) {
            return json_reply(200, &json!({"active": false}));
        }
        let payload = token.split('.').nth(1).unwrap_or_default();
        let mut claims: Value = serde_json::from_slice(
            &base64::engine::general_purpose::URL_SAFE_NO_PAD
                .decode(payload)
                .unwrap(),
        )
        .unwrap();
        claims["active"] = json!(true);
        json_reply(200, &claims)
    }
}

/// The protected notes server and its authorization server.
async fn setup(script: Script) -> (String, Arc<As>) {
    setup_with(script, false).await
}

/// As [`setup`]; with `introspect`, the server asks the authorization
/// server about every token (so a revoked one is refused at once).
async fn setup_with(script: Script, introspect: bool) -> (String, Arc<As>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let a = As::start(script, &url).await;
    let auth = if introspect {
        let verifier = mcp_server::auth::Introspection::new(format!("{}/introspect", a.url), &url)
            .cache_for(std::time::Duration::ZERO);
        Authorization::new(&url, verifier)
    } else {
        Authorization::new(&url, JwtVerifier::new(a.url.clone(), &url))
    };
    let auth = auth
        .unwrap()
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

fn oauth() -> OAuth {
    OAuth::new("test-client").authorizer(HeadlessAuthorizer::new("http://127.0.0.1:9/cb"))
}

fn text(r: &mcp_client::types::CallToolResult) -> String {
    r.content.iter().filter_map(|c| c.as_text()).collect()
}

#[tokio::test]
async fn signs_in_steps_up_with_the_union_and_refreshes_without_a_second_sign_in() {
    // Tokens live 10 s: under the 30 s margin, so each request refreshes first.
    let (url, a) = setup(Script {
        expires_in: 10,
        ..Script::default()
    })
    .await;
    let client = Client::builder()
        .oauth(oauth())
        .connect_http(&url)
        .await
        .unwrap();
    let names: Vec<String> = client
        .list_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name)
        .collect();
    assert_eq!(
        names,
        ["read_note"],
        "the first token has the challenged scope only"
    );
    assert_eq!(
        text(&client.call_tool("read_note", json!({})).await.unwrap()),
        "hello"
    );
    // Step-up: the 403 names notes:read notes:write; the client asks for the union.
    let r = client.call_tool("delete_note", json!({})).await.unwrap();
    assert_eq!(text(&r), "deleted");
    client.close().await;
    let seen = a.seen.lock().unwrap();
    let scopes: Vec<&str> = seen
        .authorizations
        .iter()
        .map(|q| get(q, "scope").unwrap_or_default())
        .collect();
    assert_eq!(scopes, ["notes:read", "notes:read notes:write"]);
    for q in &seen.authorizations {
        assert_eq!(get(q, "code_challenge_method"), Some("S256"));
        assert_eq!(get(q, "resource"), Some(url.as_str()));
        assert_eq!(get(q, "client_id"), Some("c1"));
    }
    assert_eq!(seen.code_grants, 2);
    assert!(seen.refresh_grants >= 1, "short-lived tokens are refreshed");
}

#[tokio::test]
async fn a_token_refused_with_401_is_refreshed_without_a_second_sign_in() {
    let (url, a) = setup_with(Script::default(), true).await;
    let client = Client::builder()
        .oauth(oauth())
        .connect_http(&url)
        .await
        .unwrap();
    assert_eq!(
        text(&client.call_tool("read_note", json!({})).await.unwrap()),
        "hello"
    );
    // The issuer revokes the access token; the refresh token still works.
    {
        let mut seen = a.seen.lock().unwrap();
        let last = seen.issued.last().unwrap().clone();
        seen.revoked.push(last);
    }
    assert_eq!(
        text(&client.call_tool("read_note", json!({})).await.unwrap()),
        "hello"
    );
    client.close().await;
    let seen = a.seen.lock().unwrap();
    assert_eq!(seen.authorizations.len(), 1, "no second sign-in");
    assert_eq!((seen.code_grants, seen.refresh_grants), (1, 1));
}

async fn refused(script: Script, expected: &str) {
    let (url, a) = setup(script).await;
    let err = Client::builder()
        .oauth(oauth())
        .connect_http(&url)
        .await
        .expect_err("the sign-in must fail");
    let message = Chain(&err).to_string();
    assert!(message.contains(expected), "{message}");
    assert_eq!(
        a.seen.lock().unwrap().code_grants,
        0,
        "no code was ever redeemed"
    );
}

#[tokio::test]
async fn an_authorization_response_from_another_issuer_is_refused() {
    refused(
        Script {
            iss: Some("http://127.0.0.1:1".into()),
            ..Script::default()
        },
        "comes from the issuer `http://127.0.0.1:1`",
    )
    .await;
}

#[tokio::test]
async fn an_authorization_response_with_another_state_is_refused() {
    refused(
        Script {
            tamper_state: true,
            ..Script::default()
        },
        "`state` does not match",
    )
    .await;
}

#[tokio::test]
async fn an_issuer_without_pkce_is_refused() {
    let (url, a) = setup(Script {
        pkce_advertised: false,
        ..Script::default()
    })
    .await;
    let err = Client::builder()
        .oauth(oauth())
        .connect_http(&url)
        .await
        .expect_err("the sign-in must fail");
    assert!(
        Chain(&err)
            .to_string()
            .contains("does not advertise PKCE with S256"),
        "{}",
        Chain(&err)
    );
    assert!(
        a.seen.lock().unwrap().authorizations.is_empty(),
        "the user was never sent there"
    );
}

#[tokio::test]
async fn an_unprotected_server_needs_no_sign_in() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let server = Server::builder("open", "1").toolbox(Notes).build();
    tokio::spawn(server.serve_http_on(listener, HttpConfig::default(), std::future::pending()));
    let client = Client::builder()
        .oauth(oauth())
        .connect_http(&url)
        .await
        .unwrap();
    assert_eq!(client.list_tools().await.unwrap().len(), 2);
    client.close().await;
}
