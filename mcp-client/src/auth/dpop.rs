//! DPoP (RFC 9449): the client's proof key, the proofs it signs (token
//! requests and every request to the server), and the nonces servers hand
//! out, remembered per origin.

use std::collections::HashMap;
use std::sync::Mutex;

use http::header::{HeaderMap, HeaderValue};
use oxmcp_wire::dpop::{access_token_hash, b64url, DPOP_NONCE, PROOF_TYPE};
use ring::rand::SystemRandom;
use ring::signature::{EcdsaKeyPair, KeyPair as _, ECDSA_P256_SHA256_FIXED_SIGNING};
use serde_json::{json, Value};

use super::flow::{now, random_b64};
use super::AuthError;

/// The signing algorithm of the client's proofs.
pub(super) const ALG: &str = "ES256";

/// The client's DPoP key: an ES256 (P-256) pair, kept as PKCS#8 with the
/// tokens it binds, so a refresh token stays usable across runs.
pub(crate) struct DpopKey {
    pair: EcdsaKeyPair,
    /// The public key as a JWK (the proofs' `jwk` header).
    jwk: Value,
    /// The PKCS#8 document, base64url, as the token store keeps it.
    pkcs8: String,
    rng: SystemRandom,
}

impl std::fmt::Debug for DpopKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DpopKey")
            .field("jwk", &self.jwk)
            .finish_non_exhaustive()
    }
}

fn key_error(what: &str) -> AuthError {
    AuthError::Unsupported(format!("the DPoP key {what}"))
}

impl DpopKey {
    /// A new key pair.
    pub(super) fn generate() -> Result<Self, AuthError> {
        let rng = SystemRandom::new();
        let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng)
            .map_err(|_| key_error("cannot be generated"))?;
        Self::from_pkcs8(&b64url(pkcs8.as_ref()))
    }

    /// The key kept by [`DpopKey::pkcs8`].
    pub(super) fn from_pkcs8(pkcs8: &str) -> Result<Self, AuthError> {
        use base64::Engine as _;
        let der = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(pkcs8)
            .map_err(|_| key_error("kept with the tokens is not base64url"))?;
        let rng = SystemRandom::new();
        let pair = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &der, &rng)
            .map_err(|_| key_error("kept with the tokens is not a P-256 PKCS#8 key"))?;
        // An uncompressed point: 0x04 || x || y.
        let point = pair.public_key().as_ref();
        if point.len() != 65 {
            return Err(key_error("has an unexpected public key"));
        }
        let jwk = json!({
            "kty": "EC",
            "crv": "P-256",
            "x": b64url(&point[1..33]),
            "y": b64url(&point[33..]),
        });
        Ok(DpopKey {
            pair,
            jwk,
            pkcs8: pkcs8.to_owned(),
            rng,
        })
    }

    /// The key as the token store keeps it.
    pub(super) fn pkcs8(&self) -> &str {
        &self.pkcs8
    }

    /// A proof for one request (RFC 9449 §4.2): `method` on `url` (its
    /// query and fragment left out of `htu`), with the server's `nonce`
    /// when it gave one, and `ath` when an access token goes with it.
    pub(crate) fn proof(
        &self,
        method: &str,
        url: &str,
        nonce: Option<&str>,
        access_token: Option<&str>,
    ) -> Result<HeaderValue, AuthError> {
        let htu = url.split(['?', '#']).next().unwrap_or(url);
        let header = json!({ "typ": PROOF_TYPE, "alg": ALG, "jwk": self.jwk });
        let mut claims = json!({
            "jti": random_b64(16)?,
            "htm": method,
            "htu": htu,
            "iat": now(),
        });
        if let Some(nonce) = nonce {
            claims["nonce"] = json!(nonce);
        }
        if let Some(token) = access_token {
            claims["ath"] = json!(access_token_hash(token));
        }
        let signing_input = format!(
            "{}.{}",
            b64url(header.to_string().as_bytes()),
            b64url(claims.to_string().as_bytes())
        );
        let signature = self
            .pair
            .sign(&self.rng, signing_input.as_bytes())
            .map_err(|_| key_error("cannot sign"))?;
        let proof = format!("{signing_input}.{}", b64url(signature.as_ref()));
        HeaderValue::from_str(&proof).map_err(|_| key_error("made a proof that is no header"))
    }
}

/// The nonces servers gave (RFC 9449 §8, §9), one per origin: the last
/// `DPoP-Nonce` an origin sent replaces the one before.
#[derive(Debug, Default)]
pub(super) struct Nonces(Mutex<HashMap<String, String>>);

/// The origin (`scheme://authority`, lowercased) a nonce is kept under.
fn origin(url: &str) -> Option<String> {
    oxmcp_wire::oauth::split_url(url).map(|(origin, _)| origin.to_ascii_lowercase())
}

impl Nonces {
    /// The nonce to put in a proof for `url`.
    pub(super) fn get(&self, url: &str) -> Option<String> {
        let origin = origin(url)?;
        oxmcp_wire::sync::lock(&self.0).get(&origin).cloned()
    }

    /// Remembers the `DPoP-Nonce` of an answer from `url`, if it has one;
    /// says whether it did.
    pub(super) fn note(&self, url: &str, headers: &HeaderMap) -> bool {
        let Some(nonce) = headers.get(DPOP_NONCE).and_then(|v| v.to_str().ok()) else {
            return false;
        };
        // RFC 9449 §8.1: a nonce is 1*NQCHAR (visible ASCII but `"` and `\`).
        if nonce.is_empty()
            || !nonce
                .bytes()
                .all(|b| b.is_ascii_graphic() && b != b'"' && b != b'\\')
        {
            return false;
        }
        let Some(origin) = origin(url) else {
            return false;
        };
        oxmcp_wire::sync::lock(&self.0).insert(origin, nonce.to_owned());
        true
    }
}

#[cfg(test)]
mod tests {
    use super::{DpopKey, Nonces};
    use base64::Engine as _;
    use serde_json::Value;

    fn part(proof: &str, i: usize) -> Value {
        let text = proof.split('.').nth(i).unwrap();
        serde_json::from_slice(
            &base64::engine::general_purpose::URL_SAFE_NO_PAD
                .decode(text)
                .unwrap(),
        )
        .unwrap()
    }

    #[test]
    fn a_proof_carries_the_public_key_and_the_request() {
        let key = DpopKey::generate().unwrap();
        let proof = key
            .proof(
                "POST",
                "https://h.example/mcp?q=1#f",
                Some("n1"),
                Some("tok"),
            )
            .unwrap();
        let proof = proof.to_str().unwrap();
        let header = part(proof, 0);
        assert_eq!(header["typ"], "dpop+jwt");
        assert_eq!(header["alg"], "ES256");
        assert_eq!(header["jwk"]["kty"], "EC");
        assert!(header["jwk"].get("d").is_none(), "no private part");
        let claims = part(proof, 1);
        assert_eq!(claims["htm"], "POST");
        assert_eq!(claims["htu"], "https://h.example/mcp");
        assert_eq!(claims["nonce"], "n1");
        assert_eq!(claims["ath"], oxmcp_wire::dpop::access_token_hash("tok"));
        let again = key
            .proof("POST", "https://h.example/mcp", None, None)
            .unwrap();
        let again = part(again.to_str().unwrap(), 1);
        assert_ne!(again["jti"], claims["jti"], "a fresh jti each time");
        assert!(again.get("ath").is_none() && again.get("nonce").is_none());
        // The key survives being kept.
        let kept = DpopKey::from_pkcs8(key.pkcs8()).unwrap();
        assert_eq!(kept.jwk, key.jwk);
    }

    #[test]
    fn nonces_are_kept_per_origin_and_replaced() {
        let nonces = Nonces::default();
        let mut headers = http::HeaderMap::new();
        headers.insert("dpop-nonce", "first".parse().unwrap());
        assert!(nonces.note("https://A.example/token", &headers));
        assert_eq!(
            nonces.get("https://a.example/mcp").as_deref(),
            Some("first")
        );
        assert_eq!(nonces.get("https://b.example/mcp"), None);
        headers.insert("dpop-nonce", "second".parse().unwrap());
        nonces.note("https://a.example/x", &headers);
        assert_eq!(nonces.get("https://a.example/").as_deref(), Some("second"));
        headers.insert("dpop-nonce", "bad\"one".parse().unwrap());
        assert!(!nonces.note("https://a.example/x", &headers));
    }
}
