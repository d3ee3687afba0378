//! A server behind DPoP-bound tokens (RFC 9449) and a client's proofs, for
//! the DPoP tests (oxmcp-server's, and the replay record shared on Redis in
//! oxmcp-redis's): the proof key, the claims, the served instance and what to
//! read off its answers. Proofs are made here with jsonwebtoken's signer and
//! a thumbprint written out by hand, not with the code under test.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use jsonwebtoken::{Algorithm, EncodingKey};
use oxmcp_server::auth::{Authorization, Dpop, JwtVerifier};
use oxmcp_server::http::HttpConfig;
use oxmcp_server::{tool, Server};
use oxmcp_wire::http_client::{http_client, Fetched, HttpClient};
use oxmcp_wire::oauth::Challenge;
use serde_json::{json, Value};
use sha2::Digest;

use super::issuer::{self, b64, now, Issuer};

/// Counts the tool's runs.
pub struct Notes(pub Arc<AtomicUsize>);

#[tool(description = "Notes behind DPoP")]
impl Notes {
    #[describe("Read the note")]
    pub fn read_note(&self) -> String {
        self.0.fetch_add(1, Ordering::SeqCst);
        "hello".into()
    }

    #[describe("Delete the note")]
    #[tool(scopes("notes:write"))]
    pub fn delete_note(&self) -> String {
        self.0.fetch_add(1, Ordering::SeqCst);
        "deleted".into()
    }
}

/// A client's proof key (ES256, or `EdDSA` with Ed25519) and its public JWK.
pub struct ProofKey {
    encoding: EncodingKey,
    alg: Algorithm,
    pub jwk: Value,
}

impl ProofKey {
    /// A fresh ES256 key.
    #[allow(
        clippy::new_without_default,
        reason = "each call makes a new random key: nothing about it is a default"
    )]
    pub fn new() -> ProofKey {
        let pair = rcgen::KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256).unwrap();
        let raw = pair.public_key_raw().to_vec();
        ProofKey {
            encoding: EncodingKey::from_ec_der(&pair.serialize_der()),
            alg: Algorithm::ES256,
            jwk: json!({"kty": "EC", "crv": "P-256",
                "x": b64(&raw[1..33]), "y": b64(&raw[33..])}),
        }
    }

    pub fn ed25519() -> ProofKey {
        let pair = rcgen::KeyPair::generate_for(&rcgen::PKCS_ED25519).unwrap();
        ProofKey {
            encoding: EncodingKey::from_ed_der(&pair.serialize_der()),
            alg: Algorithm::EdDSA,
            jwk: json!({"kty": "OKP", "crv": "Ed25519", "x": b64(pair.public_key_raw())}),
        }
    }

    /// The RFC 7638 thumbprint, written out for each key type.
    pub fn thumbprint(&self) -> String {
        let s = |name: &str| self.jwk[name].as_str().unwrap();
        let canonical = if self.jwk["kty"] == "OKP" {
            format!(r#"{{"crv":"Ed25519","kty":"OKP","x":"{}"}}"#, s("x"))
        } else {
            format!(
                r#"{{"crv":"P-256","kty":"EC","x":"{}","y":"{}"}}"#,
                s("x"),
                s("y")
            )
        };
        b64(&sha2::Sha256::digest(canonical.as_bytes()))
    }

    /// A proof with this JOSE header and these claims, signed with the key.
    pub fn sign(&self, header: &Value, claims: &Value) -> String {
        let enc = |v: &Value| b64(v.to_string().as_bytes());
        let input = format!("{}.{}", enc(header), enc(claims));
        let signature =
            jsonwebtoken::crypto::sign(input.as_bytes(), &self.encoding, self.alg).unwrap();
        format!("{input}.{signature}")
    }

    pub fn header(&self) -> Value {
        json!({"typ": "dpop+jwt", "alg": format!("{:?}", self.alg), "jwk": self.jwk})
    }
}

pub fn ath(token: &str) -> String {
    b64(&sha2::Sha256::digest(token.as_bytes()))
}

pub fn random_jti() -> String {
    let mut bytes = [0u8; 12];
    getrandom::fill(&mut bytes).unwrap();
    b64(&bytes)
}

/// The claims of a good proof of `POST url` with `token`.
pub fn claims(url: &str, token: &str) -> Value {
    json!({"jti": random_jti(), "htm": "POST", "htu": url, "iat": now(), "ath": ath(token)})
}

pub struct Served {
    pub base: String,
    pub url: String,
    pub client: HttpClient,
    pub ran: Arc<AtomicUsize>,
    _stop: tokio::sync::oneshot::Sender<()>,
}

pub async fn serve(issuer: &Issuer, dpop: Dpop) -> Served {
    serve_with(issuer, dpop, None, HttpConfig::default()).await
}

/// [`serve`] with `config`, as the resource `resource` (default: its own
/// URL; instances of one service are one resource).
pub async fn serve_with(
    issuer: &Issuer,
    dpop: Dpop,
    resource: Option<&str>,
    config: HttpConfig,
) -> Served {
    let ran = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&ran);
    let (base, stop) = issuer::serve_on_loopback(|url| {
        let url = resource.unwrap_or(url);
        let auth = Authorization::new(url, JwtVerifier::new(issuer.url.clone(), url))
            .unwrap()
            .authorization_server(issuer.url.clone())
            .dpop(dpop);
        let server = Server::builder("notes", "1")
            .toolbox(Notes(counter))
            .build();
        (server, config.authorization(auth))
    })
    .await;
    let url = format!("{base}/mcp");
    Served {
        base,
        url,
        client: http_client(Duration::from_secs(5), None),
        ran,
        _stop: stop,
    }
}

impl Served {
    /// A 2026-07-28 `tools/call` of `read_note` with these extra headers.
    pub async fn call(&self, headers: &[(&str, &str)]) -> Fetched {
        self.call_tool("read_note", headers).await
    }

    /// A 2026-07-28 `tools/call` of `tool` with these extra headers.
    pub async fn call_tool(&self, tool: &str, headers: &[(&str, &str)]) -> Fetched {
        let body = json!({"jsonrpc":"2.0","id":1,"method":"tools/call",
            "params":{"name":tool,"arguments":{},"_meta":super::modern_meta()}});
        let mut all = vec![
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", tool),
        ];
        all.extend_from_slice(headers);
        issuer::request(
            &self.client,
            "POST",
            &self.url,
            &all,
            &body.to_string(),
            Duration::from_secs(10),
        )
        .await
    }

    /// `token` presented with the DPoP scheme and `proof`.
    pub async fn dpop_call(&self, token: &str, proof: &str) -> Fetched {
        let auth = format!("DPoP {token}");
        self.call(&[("authorization", &auth), ("dpop", proof)])
            .await
    }
}

/// Every challenge of an answer.
pub fn challenges(r: &Fetched) -> Vec<Challenge> {
    r.headers
        .get_all("www-authenticate")
        .iter()
        .flat_map(|v| Challenge::parse_all(v.to_str().unwrap()))
        .collect()
}

/// The `error` of the challenge of `scheme` (`DPoP` or `Bearer`).
pub fn error_of(r: &Fetched, dpop: bool) -> Option<String> {
    challenges(r)
        .into_iter()
        .find(|c| if dpop { c.is_dpop() } else { c.is_bearer() })
        .and_then(|c| c.get("error").map(str::to_owned))
}

/// The tool ran and answered.
pub fn assert_served(r: &Fetched) {
    assert_eq!(
        r.status.as_u16(),
        200,
        "{}",
        String::from_utf8_lossy(&r.body)
    );
    assert_eq!(text_of(r), "hello");
}

pub fn text_of(r: &Fetched) -> String {
    let v: Value = serde_json::from_slice(&r.body).unwrap();
    v["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

/// A token for `aud`, bound to `jkt` when given.
pub fn token(issuer: &Issuer, aud: &str, jkt: Option<&str>) -> String {
    let mut claims = issuer.claims(aud, "notes:read");
    if let Some(jkt) = jkt {
        claims["cnf"] = json!({ "jkt": jkt });
    }
    issuer.sign(&claims, "k1")
}
