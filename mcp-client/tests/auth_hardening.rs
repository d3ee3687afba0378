//! The OAuth client's hardening (issue 23), on real sockets on 127.0.0.1 only: the token file, secrets kept out of `Debug` and logs, credentials pinned to their issuer, the loopback redirect listener, https for the authorization server, server-sent lifetimes.
#![cfg(feature = "auth")]
#![allow(clippy::too_many_lines, clippy::unused_self, unreachable_pub)]

use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use mcp_client::auth::{
    AuthError, Authorizer, HeadlessAuthorizer, LoopbackAuthorizer, OAuth, Stored, TokenStore,
};
use mcp_client::{Chain, Client};
use mcp_server::auth::{Authorization, JwtVerifier};
use mcp_server::http::HttpConfig;
use mcp_server::{tool, Server};
use serde_json::{json, Value};
use sha2::Digest;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

struct Notes;

#[tool(description = "A note behind OAuth")]
impl Notes {
    #[describe("Read the note")]
    pub fn read_note(&self) -> String {
        "hello".into()
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

/// A fresh random string (unique per call).
fn random(prefix: &str) -> String {
    let mut bytes = [0u8; 12];
    getrandom::fill(&mut bytes).unwrap();
    format!("{prefix}-{}", b64(&bytes))
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

/// What the scratch authorization server saw and handed out.
#[derive(Default)]
struct Seen {
    /// Every request, as `METHOD /path`.
    requests: Vec<String>,
    /// Every secret issued or received: client secrets, codes, PKCE
    /// verifiers, access and refresh tokens.
    secrets: Vec<String>,
    /// The registered client's secret.
    client_secret: Option<String>,
    /// PKCE challenges by code.
    codes: Vec<(String, String)>,
    code_grants: usize,
    refresh_grants: usize,
    client_credentials_grants: usize,
}

impl Seen {
    fn count(&self, request: &str) -> usize {
        self.requests.iter().filter(|r| *r == request).count()
    }
}

/// A scratch authorization server on 127.0.0.1: metadata, JWKS, Dynamic
/// Client Registration issuing a secret, an authorization endpoint that
/// approves at once, and a token endpoint (code with PKCE, refresh, client
/// credentials) issuing ES256 JWTs for `resource`.
struct As {
    url: String,
    resource: String,
    /// `expires_in` of every token response.
    expires_in: u64,
    /// Fields that replace the metadata's own.
    meta_override: Value,
    key: EncodingKey,
    jwk: Value,
    seen: Mutex<Seen>,
}

impl As {
    async fn start(resource: &str, expires_in: u64, meta_override: Value) -> Arc<As> {
        let pair = rcgen::KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256).unwrap();
        let raw = pair.public_key_raw().to_vec();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let a = Arc::new(As {
            url: format!("http://{}", listener.local_addr().unwrap()),
            resource: resource.to_owned(),
            expires_in,
            meta_override,
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
        let body = String::from_utf8_lossy(&body).into_owned();
        let path = parts.uri.path().to_owned();
        let query = mcp_wire::oauth::form_decode(parts.uri.query().unwrap_or_default());
        self.seen
            .lock()
            .unwrap()
            .requests
            .push(format!("{} {path}", parts.method));
        match path.as_str() {
            "/.well-known/oauth-authorization-server" => self.metadata(),
            "/jwks" => json_reply(200, &json!({"keys": [self.jwk]})),
            "/register" => self.register(),
            "/authorize" => self.authorize(&query),
            "/token" => self.token(&parts.headers, &mcp_wire::oauth::form_decode(&body)),
            _ => json_reply(404, &json!({"error": "not_found"})),
        }
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
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["client_secret_basic"],
            "authorization_response_iss_parameter_supported": true,
        });
        if let Some(fields) = self.meta_override.as_object() {
            for (k, v) in fields {
                m[k] = v.clone();
            }
        }
        json_reply(200, &m)
    }

    fn register(&self) -> http::Response<String> {
        let secret = random("client-secret");
        let mut seen = self.seen.lock().unwrap();
        seen.client_secret = Some(secret.clone());
        seen.secrets.push(secret.clone());
        json_reply(
            201,
            &json!({"client_id": "registered-client", "client_secret": secret}),
        )
    }

    /// Approves at once with a fresh code.
    fn authorize(&self, q: &[(String, String)]) -> http::Response<String> {
        let code = random("code");
        let mut seen = self.seen.lock().unwrap();
        seen.secrets.push(code.clone());
        let challenge = get(q, "code_challenge").unwrap_or_default().to_owned();
        seen.codes.push((code.clone(), challenge));
        let location = format!(
            "{}?{}",
            get(q, "redirect_uri").unwrap(),
            mcp_wire::oauth::form_encode(&[
                ("code", &code),
                ("state", get(q, "state").unwrap_or_default()),
                ("iss", &self.url)
            ])
        );
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
                base64::engine::general_purpose::STANDARD
                    .encode(format!("registered-client:{secret}"))
            );
            if headers.get("authorization").and_then(|v| v.to_str().ok()) != Some(&expected) {
                return json_reply(401, &json!({"error": "invalid_client"}));
            }
        }
        match get(f, "grant_type") {
            Some("authorization_code") => {
                let code = get(f, "code").unwrap_or_default();
                let verifier = get(f, "code_verifier").unwrap_or_default().to_owned();
                let hashed = b64(&sha2::Sha256::digest(verifier.as_bytes()));
                if !seen.codes.iter().any(|(c, h)| c == code && *h == hashed) {
                    return json_reply(400, &json!({"error": "invalid_grant"}));
                }
                seen.secrets.push(verifier);
                seen.code_grants += 1;
            }
            Some("refresh_token") => {
                let refresh = get(f, "refresh_token").unwrap_or_default();
                if !seen.secrets.iter().any(|s| s == refresh) {
                    return json_reply(400, &json!({"error": "invalid_grant"}));
                }
                seen.refresh_grants += 1;
            }
            Some("client_credentials") => seen.client_credentials_grants += 1,
            _ => return json_reply(400, &json!({"error": "unsupported_grant_type"})),
        }
        let claims = json!({"iss": self.url, "aud": self.resource, "sub": "alice",
            "exp": now() + self.expires_in.min(3600), "iat": now()});
        let mut header = Header::new(Algorithm::ES256);
        header.kid = Some("k1".into());
        let token = jsonwebtoken::encode(&header, &claims, &self.key).unwrap();
        let refresh = random("refresh");
        seen.secrets.push(token.clone());
        seen.secrets.push(refresh.clone());
        json_reply(
            200,
            &json!({"access_token": token, "token_type": "Bearer",
                "expires_in": self.expires_in, "refresh_token": refresh}),
        )
    }
}

/// The notes server on 127.0.0.1 protected by the scratch authorization
/// server, which issues tokens living `expires_in` seconds.
async fn protected_notes(expires_in: u64) -> (String, Arc<As>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let a = As::start(&url, expires_in, json!({})).await;
    let auth = Authorization::new(&url, JwtVerifier::new(a.url.clone(), &url))
        .unwrap()
        .authorization_server(a.url.clone());
    let server = Server::builder("notes", "1").toolbox(Notes).build();
    tokio::spawn(server.serve_http_on(
        listener,
        HttpConfig::default().authorization(auth),
        std::future::pending(),
    ));
    (url, a)
}

fn signing_in() -> OAuth {
    OAuth::new("hardening-client").authorizer(HeadlessAuthorizer::new("http://127.0.0.1:9/cb"))
}

fn text(r: &mcp_client::types::CallToolResult) -> String {
    r.content.iter().filter_map(|c| c.as_text()).collect()
}

/// A directory of its own under the system's temporary directory.
#[cfg(unix)]
fn scratch_dir(name: &str) -> std::path::PathBuf {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let dir =
        std::env::temp_dir().join(format!("mcp-client-{name}-{}-{nanos}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[cfg(unix)]
fn tokens(access: &str) -> Stored {
    Stored {
        client_id: Some("c1".into()),
        access_token: Some(access.into()),
        refresh_token: Some("the-refresh-token".into()),
        ..Stored::default()
    }
}

#[cfg(unix)]
#[tokio::test]
async fn the_token_file_is_a_fresh_0600_file_whatever_was_planted_at_the_old_temporary_name() {
    use std::os::unix::fs::PermissionsExt as _;

    // A leftover world-readable tokens.tmp.
    let dir = scratch_dir("planted-tmp");
    let path = dir.join("tokens.json");
    std::fs::write(dir.join("tokens.tmp"), "old").unwrap();
    std::fs::set_permissions(
        dir.join("tokens.tmp"),
        std::fs::Permissions::from_mode(0o644),
    )
    .unwrap();
    let store = mcp_client::auth::FileTokenStore::new(&path);
    store.save("issuer resource", tokens("access-1")).await;
    let meta = std::fs::symlink_metadata(&path).unwrap();
    assert!(meta.file_type().is_file());
    assert_eq!(meta.permissions().mode() & 0o777, 0o600);
    assert!(std::fs::read_to_string(&path).unwrap().contains("access-1"));
    assert_eq!(
        store.load("issuer resource").await,
        Some(tokens("access-1"))
    );

    // tokens.tmp is a link to another file.
    let dir2 = scratch_dir("planted-link");
    let path2 = dir2.join("tokens.json");
    let victim = dir2.join("victim.txt");
    std::fs::write(&victim, "the victim's content").unwrap();
    std::os::unix::fs::symlink(&victim, dir2.join("tokens.tmp")).unwrap();
    let store = mcp_client::auth::FileTokenStore::new(&path2);
    store.save("issuer resource", tokens("access-2")).await;
    let meta = std::fs::symlink_metadata(&path2).unwrap();
    assert!(meta.file_type().is_file(), "tokens.json is not a link");
    assert_eq!(meta.permissions().mode() & 0o777, 0o600);
    assert!(std::fs::read_to_string(&path2)
        .unwrap()
        .contains("access-2"));
    assert_eq!(
        std::fs::read_to_string(&victim).unwrap(),
        "the victim's content"
    );
    // A second save replaces the file, and no temporary file is left.
    store.save("issuer resource", tokens("access-3")).await;
    let mut names: Vec<String> = std::fs::read_dir(&dir2)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["tokens.json", "tokens.tmp", "victim.txt"]);
    assert_eq!(
        store.load("issuer resource").await,
        Some(tokens("access-3"))
    );
    std::fs::remove_dir_all(&dir).unwrap();
    std::fs::remove_dir_all(&dir2).unwrap();
}

#[test]
fn the_debug_of_stored_tokens_shows_no_secret() {
    let stored = Stored {
        client_id: Some("the-client-id".into()),
        client_secret: Some("the-client-secret".into()),
        access_token: Some("the-access-token".into()),
        refresh_token: Some("the-refresh-token".into()),
        expires_at: Some(42),
        scope: Some("notes:read".into()),
    };
    let shown = format!("{stored:?} {stored:#?}");
    for secret in ["the-client-secret", "the-access-token", "the-refresh-token"] {
        assert!(!shown.contains(secret), "{shown}");
    }
    assert!(shown.contains("the-client-id") && shown.contains("notes:read"));
    assert!(shown.contains("<redacted>"), "{shown}");
    let oauth = OAuth::new("machine").client_credentials(
        "https://auth.example.com",
        "the-client-id",
        "the-client-secret",
    );
    let shown = format!("{oauth:?}");
    assert!(!shown.contains("the-client-secret"), "{shown}");
}

/// A `tracing` writer into a shared buffer.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for Captured {
    type Writer = Captured;

    fn make_writer(&'a self) -> Captured {
        self.clone()
    }
}

/// Everything every thread of this test program logs from now on, at TRACE.
fn capture_logs() -> &'static Captured {
    static CAPTURED: OnceLock<Captured> = OnceLock::new();
    CAPTURED.get_or_init(|| {
        let captured = Captured::default();
        let subscriber = tracing_subscriber::fmt()
            .with_max_level(tracing::Level::TRACE)
            .with_ansi(false)
            .with_writer(captured.clone())
            .finish();
        tracing::subscriber::set_global_default(subscriber).unwrap();
        captured
    })
}

#[tokio::test]
async fn a_whole_sign_in_logged_at_trace_shows_no_token_secret_code_or_verifier() {
    let captured = capture_logs();

    // Tokens live 10 s: under the client's 30 s margin, so it refreshes.
    let (url, a) = protected_notes(10).await;
    let client = Client::builder()
        .oauth(signing_in())
        .connect_http(&url)
        .await
        .unwrap();
    for _ in 0..2 {
        assert_eq!(
            text(&client.call_tool("read_note", json!({})).await.unwrap()),
            "hello"
        );
    }
    client.close().await;

    let seen = a.seen.lock().unwrap();
    assert_eq!(seen.count("POST /register"), 1);
    assert!(seen.client_secret.is_some());
    assert_eq!(seen.code_grants, 1);
    assert!(seen.refresh_grants >= 1, "the token was refreshed");
    let log = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
    assert!(
        log.contains("registered with the authorization server"),
        "the log is captured: {log}"
    );
    assert!(seen.secrets.len() >= 6);
    for secret in &seen.secrets {
        assert!(!log.contains(secret.as_str()), "`{secret}` is in the log");
    }
}

/// Writes `request` on a new connection to `port` and reads the answer
/// (until the server closes, at most 5 s).
async fn exchange(port: u16, request: &str) -> String {
    let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(5), stream.read_to_end(&mut answer))
        .await
        .expect("the listener answers within 5 s")
        .unwrap();
    String::from_utf8_lossy(&answer).into_owned()
}

#[tokio::test]
async fn the_loopback_listener_ignores_stray_and_stalled_callbacks_and_closes_when_done() {
    let authorizer = Arc::new(LoopbackAuthorizer::new().timeout(Duration::from_secs(60)));
    let redirect_uri = authorizer.redirect_uri().await.unwrap();
    let port: u16 = redirect_uri
        .strip_prefix("http://127.0.0.1:")
        .and_then(|rest| rest.strip_suffix("/callback"))
        .unwrap()
        .parse()
        .unwrap();
    let url = format!(
        "http://127.0.0.1:1/authorize?response_type=code&client_id=c1&state=the-state&redirect_uri={}",
        mcp_wire::oauth::percent_encode(&redirect_uri)
    );
    let waiting = tokio::spawn({
        let authorizer = Arc::clone(&authorizer);
        async move { authorizer.authorize(&url).await }
    });

    // Half a request head, then silence: it must not hold up the others.
    let mut stalled = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .unwrap();
    stalled
        .write_all(b"GET /callback?code=stalled&state=the-state HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        .await
        .unwrap();

    // A callback with another state is refused, and the wait goes on.
    let stray = exchange(
        port,
        "GET /callback?code=stray&state=another-state HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
    )
    .await;
    assert!(stray.starts_with("HTTP/1.1 400"), "{stray}");
    let elsewhere = exchange(port, "GET /favicon.ico HTTP/1.1\r\n\r\n").await;
    assert!(elsewhere.starts_with("HTTP/1.1 404"), "{elsewhere}");
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(!waiting.is_finished(), "a stray callback ended the wait");

    // The right one ends it, with its parameters.
    let right = exchange(
        port,
        "GET /callback?code=the-code&state=the-state&iss=x HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
    )
    .await;
    assert!(right.starts_with("HTTP/1.1 200"), "{right}");
    let params = tokio::time::timeout(Duration::from_secs(5), waiting)
        .await
        .expect("the wait ends with the right callback")
        .unwrap()
        .unwrap();
    assert_eq!(get(&params, "code"), Some("the-code"));
    assert_eq!(get(&params, "state"), Some("the-state"));
    drop(stalled);

    // The listener is closed...
    let refused = tokio::net::TcpStream::connect(("127.0.0.1", port)).await;
    assert!(refused.is_err(), "the port still accepts connections");
    // ...and a later sign-in listens on the same port again.
    assert_eq!(authorizer.redirect_uri().await.unwrap(), redirect_uri);
    assert!(tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .is_ok());
}

#[tokio::test]
async fn a_token_lifetime_of_u64_max_is_taken_without_overflow_and_the_token_used() {
    let (url, a) = protected_notes(u64::MAX).await;
    let client = Client::builder()
        .oauth(signing_in())
        .connect_http(&url)
        .await
        .unwrap();
    assert_eq!(
        text(&client.call_tool("read_note", json!({})).await.unwrap()),
        "hello"
    );
    client.close().await;
    let seen = a.seen.lock().unwrap();
    assert_eq!(seen.code_grants, 1);
    assert_eq!(seen.refresh_grants, 0, "the token was used, not refreshed");
}

/// A protected resource on 127.0.0.1 that answers 401 to everything but its
/// metadata, which names `issuer`; the challenge points to `prm_url`, or to
/// that metadata.
async fn resource_naming(issuer: &str, prm_url: Option<&str>) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let origin = format!("http://{}", listener.local_addr().unwrap());
    let url = format!("{origin}/mcp");
    let metadata = json!({"resource": url, "authorization_servers": [issuer]});
    let prm_url = prm_url.map_or_else(
        || format!("{origin}/.well-known/oauth-protected-resource/mcp"),
        str::to_owned,
    );
    let app = axum::Router::new()
        .route(
            "/.well-known/oauth-protected-resource/mcp",
            axum::routing::get(move || std::future::ready(json_reply(200, &metadata))),
        )
        .fallback(move || {
            std::future::ready(
                http::Response::builder()
                    .status(401)
                    .header(
                        "www-authenticate",
                        format!("Bearer resource_metadata=\"{prm_url}\""),
                    )
                    .body(String::new())
                    .unwrap(),
            )
        });
    tokio::spawn(async move { axum::serve(listener, app).await });
    url
}

async fn refused(oauth: OAuth, url: &str) -> String {
    let err = Client::builder()
        .oauth(oauth)
        .connect_http(url)
        .await
        .expect_err("the sign-in must fail");
    Chain(&err).to_string()
}

#[tokio::test]
async fn pre_registered_credentials_are_never_sent_to_an_issuer_other_than_their_own() {
    let honest = As::start("http://127.0.0.1:1/mcp", 600, json!({})).await;
    let attacker = As::start("http://127.0.0.1:1/mcp", 600, json!({})).await;
    // The server's metadata names the attacker's authorization server.
    let url = resource_naming(&attacker.url, None).await;
    let pem = rcgen::KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256)
        .unwrap()
        .serialize_pem();
    let pinned = [
        OAuth::new("machine").client_credentials(&honest.url, "machine-id", "the-secret"),
        OAuth::new("machine")
            .client_credentials_key(
                &honest.url,
                "machine-id",
                pem.as_bytes(),
                mcp_client::auth::Algorithm::ES256,
            )
            .unwrap(),
        signing_in().client(&honest.url, "app-id", Some("the-secret".into())),
        signing_in().client(&honest.url, "public-app-id", None),
    ];
    for oauth in pinned {
        let message = refused(oauth, &url).await;
        assert!(
            message.contains(&format!("registered with the issuer `{}`", honest.url))
                && message.contains(&format!("names the issuer `{}`", attacker.url)),
            "{message}"
        );
    }
    let seen = attacker.seen.lock().unwrap();
    assert!(
        seen.requests
            .iter()
            .all(|r| r == "GET /.well-known/oauth-authorization-server"),
        "the attacker's server got only metadata requests: {:?}",
        seen.requests
    );
    assert_eq!(seen.count("POST /token"), 0);
    assert!(honest.seen.lock().unwrap().requests.is_empty());
}

#[tokio::test]
async fn a_machine_client_signs_in_with_its_own_issuer_or_one_it_lets_the_server_name() {
    let (url, a) = protected_notes(600).await;
    for issuer in [
        mcp_client::auth::Issuer::new(&a.url),
        mcp_client::auth::Issuer::danger_named_by_server(),
    ] {
        let oauth = OAuth::new("machine").client_credentials(issuer, "machine-id", "the-secret");
        let client = Client::builder()
            .oauth(oauth)
            .connect_http(&url)
            .await
            .unwrap();
        assert_eq!(
            text(&client.call_tool("read_note", json!({})).await.unwrap()),
            "hello"
        );
        client.close().await;
    }
    assert_eq!(a.seen.lock().unwrap().client_credentials_grants, 2);
}

#[test]
fn the_issuer_mismatch_error_names_both_issuers() {
    let e = AuthError::WrongIssuer {
        registered: "https://honest.example".into(),
        named: "https://attacker.example".into(),
    };
    let message = e.to_string();
    assert!(
        message.contains("`https://honest.example`")
            && message.contains("`https://attacker.example`")
    );
}

#[tokio::test]
async fn plain_http_authorization_server_urls_are_refused_before_any_request() {
    // Endpoints of an issuer on 127.0.0.1 (its own http URL is fine: loopback).
    for (field, bad) in [
        ("token_endpoint", "http://as.example/token"),
        ("authorization_endpoint", "http://as.example/authorize"),
        ("registration_endpoint", "http://as.example/register"),
    ] {
        let a = As::start("http://127.0.0.1:1/mcp", 600, json!({ field: bad })).await;
        let url = resource_naming(&a.url, None).await;
        let message = refused(signing_in(), &url).await;
        assert!(
            message.contains(&format!("`{bad}` is not https"))
                && message.contains("must use https"),
            "{message}"
        );
        assert_eq!(
            a.seen.lock().unwrap().requests,
            ["GET /.well-known/oauth-authorization-server"],
            "only the metadata was read"
        );
    }
    // An issuer, and resource metadata, at plain http URLs.
    let url = resource_naming("http://as.example", None).await;
    let message = refused(signing_in(), &url).await;
    assert!(
        message.contains("`http://as.example` is not https"),
        "{message}"
    );
    let url = resource_naming(
        "http://as.example",
        Some("http://as.example/.well-known/oauth-protected-resource"),
    )
    .await;
    let message = refused(signing_in(), &url).await;
    assert!(
        message.contains("`http://as.example/.well-known/oauth-protected-resource` is not https"),
        "{message}"
    );
}
