//! A scratch authorization server on 127.0.0.1 for the authorization tests:
//! its metadata, a JWKS whose keys can be rotated and whose answers can be
//! made to fail, lag or carry a `Cache-Control`, an introspection endpoint,
//! and ES256 tokens signed with any of its keys, published or not.
#![allow(dead_code, unreachable_pub)]

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use oxmcp_wire::http_client::{send, Fetched, HttpClient};
use serde_json::{json, Value};

pub fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

pub fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// One signing key.
struct Key {
    encoding: EncodingKey,
    jwk: Value,
    published: bool,
}

/// How the JWKS endpoint answers.
#[derive(Clone, Debug)]
pub struct Jwks {
    /// The HTTP status (200 serves the published keys).
    pub status: u16,
    /// How long it takes to answer.
    pub delay: Duration,
    /// Its `Cache-Control`, if any.
    pub cache_control: Option<String>,
}

impl Default for Jwks {
    fn default() -> Self {
        Jwks {
            status: 200,
            delay: Duration::ZERO,
            cache_control: None,
        }
    }
}

/// An issuer on 127.0.0.1: its metadata, its JWKS (counting fetches), an
/// introspection endpoint, and its signing keys (`k1` at first).
pub struct Issuer {
    pub url: String,
    keys: Arc<Mutex<BTreeMap<String, Key>>>,
    jwks: Arc<Mutex<Jwks>>,
    /// The public key of `k1` as the JWKS gives it (x || y), for the HMAC attack.
    pub public: Vec<u8>,
    pub jwks_fetches: Arc<AtomicUsize>,
    pub introspections: Arc<AtomicUsize>,
}

fn new_key(kid: &str) -> (Key, Vec<u8>) {
    let pair = rcgen::KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256).unwrap();
    let raw = pair.public_key_raw().to_vec();
    assert_eq!((raw.len(), raw[0]), (65, 4), "an uncompressed P-256 point");
    let jwk = json!({
        "kty": "EC", "crv": "P-256", "use": "sig", "alg": "ES256", "kid": kid,
        "x": b64(&raw[1..33]), "y": b64(&raw[33..])
    });
    let key = Key {
        encoding: EncodingKey::from_ec_der(&pair.serialize_der()),
        jwk,
        published: true,
    };
    (key, raw[1..].to_vec())
}

impl Issuer {
    pub async fn start() -> Issuer {
        Issuer::start_with(|url| format!("{url}/jwks")).await
    }

    /// An issuer whose metadata names `jwks_uri(its own URL)` as its key set.
    pub async fn start_with(jwks_uri: impl FnOnce(&str) -> String) -> Issuer {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let (k1, public) = new_key("k1");
        let keys = Arc::new(Mutex::new(BTreeMap::from([("k1".to_owned(), k1)])));
        let jwks = Arc::new(Mutex::new(Jwks::default()));
        let jwks_fetches = Arc::new(AtomicUsize::new(0));
        let introspections = Arc::new(AtomicUsize::new(0));
        let jwks_uri = jwks_uri(&url);
        let metadata = json!({
            "issuer": url,
            "authorization_endpoint": format!("{url}/authorize"),
            "token_endpoint": format!("{url}/token"),
            "jwks_uri": jwks_uri,
            "introspection_endpoint": format!("{url}/introspect"),
            "response_types_supported": ["code"],
            "code_challenge_methods_supported": ["S256"]
        });
        let fetches = Arc::clone(&jwks_fetches);
        let asked = Arc::clone(&introspections);
        let (held, how) = (Arc::clone(&keys), Arc::clone(&jwks));
        let app = axum::Router::new()
            .route(
                "/.well-known/oauth-authorization-server",
                axum::routing::get(move || async move { json_reply(&metadata) }),
            )
            .route(
                "/jwks",
                axum::routing::get(move || {
                    fetches.fetch_add(1, Ordering::SeqCst);
                    let how = how.lock().unwrap().clone();
                    let published: Vec<Value> = held
                        .lock()
                        .unwrap()
                        .values()
                        .filter(|k| k.published)
                        .map(|k| k.jwk.clone())
                        .collect();
                    async move {
                        tokio::time::sleep(how.delay).await;
                        let mut response = axum::response::IntoResponse::into_response(json_reply(
                            &json!({ "keys": published }),
                        ));
                        *response.status_mut() = http::StatusCode::from_u16(how.status).unwrap();
                        if let Some(cc) = how.cache_control {
                            response
                                .headers_mut()
                                .insert(http::header::CACHE_CONTROL, cc.parse().unwrap());
                        }
                        response
                    }
                }),
            )
            .route(
                "/introspect",
                axum::routing::post(move |headers: http::HeaderMap, body: String| {
                    asked.fetch_add(1, Ordering::SeqCst);
                    async move { json_reply(&introspect(&headers, &body)) }
                }),
            );
        tokio::spawn(async move { axum::serve(listener, app).await });
        Issuer {
            url,
            keys,
            jwks,
            public,
            jwks_fetches,
            introspections,
        }
    }

    /// A token with these claims, signed with the key `kid` (`ES256`).
    pub fn sign(&self, claims: &Value, kid: &str) -> String {
        let mut header = Header::new(Algorithm::ES256);
        header.kid = Some(kid.into());
        self.sign_with(&header, claims)
    }

    /// A token with this header, signed with the key its `kid` names.
    pub fn sign_with(&self, header: &Header, claims: &Value) -> String {
        let keys = self.keys.lock().unwrap();
        let kid = header.kid.clone().unwrap_or_else(|| "k1".into());
        let key = &keys.get(&kid).unwrap_or(&keys["k1"]).encoding;
        jsonwebtoken::encode(header, claims, key).unwrap()
    }

    /// Publishes a new key.
    pub fn add_key(&self, kid: &str) {
        let (key, _) = new_key(kid);
        self.keys.lock().unwrap().insert(kid.to_owned(), key);
    }

    /// Stops publishing `kid` (rotated out); it can still sign, as a thief could.
    pub fn withdraw(&self, kid: &str) {
        self.keys.lock().unwrap().get_mut(kid).unwrap().published = false;
    }

    /// How the JWKS endpoint answers from now on.
    pub fn set_jwks(&self, jwks: Jwks) {
        *self.jwks.lock().unwrap() = jwks;
    }

    pub fn fetches(&self) -> usize {
        self.jwks_fetches.load(Ordering::SeqCst)
    }

    /// The registered claims of a token for `aud`, for the subject alice.
    pub fn claims(&self, aud: &str, scope: &str) -> Value {
        json!({
            "iss": self.url, "aud": aud, "sub": "alice", "client_id": "cli",
            "scope": scope, "iat": now(), "exp": now() + 600
        })
    }
}

/// Serves what `build` makes of the resource URL (`http://127.0.0.1:PORT/mcp`)
/// on a fresh port of 127.0.0.1, until the sender given back is dropped or
/// used; gives the server's base URL too.
pub async fn serve_on_loopback(
    build: impl FnOnce(&str) -> (oxmcp_server::Server, oxmcp_server::http::HttpConfig),
) -> (String, tokio::sync::oneshot::Sender<()>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let (server, config) = build(&format!("{base}/mcp"));
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(server.serve_http_on(listener, config, async {
        let _ = stopped.await;
    }));
    (base, stop)
}

/// Sends `method` on `url` with a JSON body and these headers (the MCP
/// `Accept` included), waiting at most `wait`.
pub async fn request(
    client: &HttpClient,
    method: &str,
    url: &str,
    headers: &[(&str, &str)],
    body: &str,
    wait: Duration,
) -> Fetched {
    let mut req = http::Request::builder()
        .method(method)
        .uri(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream");
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let req = req
        .body(http_body_util::Full::new(bytes::Bytes::from(
            body.to_owned(),
        )))
        .unwrap();
    send(client, req, wait).await.unwrap()
}

pub fn json_reply(v: &Value) -> ([(http::HeaderName, &'static str); 1], String) {
    (
        [(http::header::CONTENT_TYPE, "application/json")],
        v.to_string(),
    )
}

/// The issuer's introspection: `good.<base64url of an audience>` is active
/// for that audience, anything else inactive; the caller must
/// authenticate as `mcp`:`secret`.
fn introspect(headers: &http::HeaderMap, body: &str) -> Value {
    let expected = format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode("mcp:secret")
    );
    if headers.get("authorization").and_then(|v| v.to_str().ok()) != Some(expected.as_str()) {
        return json!({"active": false});
    }
    let form = oxmcp_wire::oauth::form_decode(body);
    let token = form
        .iter()
        .find(|(k, _)| k == "token")
        .map(|(_, v)| v.as_str());
    match token {
        Some(t) if t.starts_with("good.") => {
            let aud = base64::engine::general_purpose::URL_SAFE_NO_PAD
                .decode(t.trim_start_matches("good."))
                .unwrap();
            json!({
                "active": true, "sub": "ivan", "scope": "notes:read", "client_id": "cli",
                "aud": String::from_utf8(aud).unwrap(), "exp": now() + 600
            })
        }
        _ => json!({"active": false}),
    }
}
