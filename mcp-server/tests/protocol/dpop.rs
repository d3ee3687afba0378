//! DPoP-bound tokens (RFC 9449) on a protected server, on real sockets
//! against a scratch issuer on 127.0.0.1: a valid proof is served; each
//! hostile proof or presentation is refused with its status and error (and
//! the tool never runs); the server keeps serving afterwards; with DPoP
//! required a bearer token is refused; with nonces a proof without the
//! current one gets `use_dpop_nonce` and the nonce, then passes with it,
//! and a rotated nonce is replaced in the answer (the proof replayed at
//! another instance sharing a Redis store: oxmcp-redis's `dpop_replay`).
//! Proofs are made with `support::dpop` (jsonwebtoken's signer and a
//! thumbprint written out by hand), not with the code under test.
#![allow(clippy::too_many_lines, unreachable_pub)]

use mcp_test_support::server as support;

use std::sync::atomic::Ordering;
use std::time::Duration;

use base64::Engine as _;
use bytes::Bytes;
use http::Request;
use http_body_util::Full;
use jsonwebtoken::{Algorithm, EncodingKey};
use oxmcp_server::auth::Dpop;
use oxmcp_wire::oauth::Challenge;
use serde_json::{json, Value};
use support::dpop::{
    assert_served, ath, challenges, claims, error_of, serve, text_of, token, ProofKey,
};
use support::issuer::{b64, now, Issuer};

#[tokio::test]
async fn a_valid_proof_is_served_and_every_hostile_one_is_refused() {
    let issuer = Issuer::start().await;
    let s = serve(&issuer, Dpop::new()).await;
    let key = ProofKey::new();
    let other = ProofKey::new();
    let bound = token(&issuer, &s.url, Some(&key.thumbprint()));
    let unbound = token(&issuer, &s.url, None);

    // The metadata names the proof algorithms, and does not require DPoP.
    let meta = s
        .client
        .request(
            Request::get(format!(
                "{}/.well-known/oauth-protected-resource/mcp",
                s.base
            ))
            .body(Full::new(Bytes::new()))
            .unwrap(),
        )
        .await
        .unwrap();
    let meta: Value = serde_json::from_slice(
        &http_body_util::BodyExt::collect(meta.into_body())
            .await
            .unwrap()
            .to_bytes(),
    )
    .unwrap();
    assert!(meta["dpop_signing_alg_values_supported"]
        .as_array()
        .unwrap()
        .contains(&json!("ES256")));
    assert!(meta.get("dpop_bound_access_tokens_required").is_none());

    // A valid proof is served; so is an unbound token as a bearer token.
    let valid = key.sign(&key.header(), &claims(&s.url, &bound));
    let r = s.dpop_call(&bound, &valid).await;
    assert_served(&r);
    let r = s
        .call(&[("authorization", &format!("Bearer {unbound}"))])
        .await;
    assert_eq!(r.status.as_u16(), 200);
    // So is a proof signed with EdDSA (Ed25519), for a token bound to its key.
    let ed = ProofKey::ed25519();
    let ed_bound = token(&issuer, &s.url, Some(&ed.thumbprint()));
    let r = s
        .dpop_call(
            &ed_bound,
            &ed.sign(&ed.header(), &claims(&s.url, &ed_bound)),
        )
        .await;
    assert_served(&r);
    // No token: both schemes are offered, DPoP with its algorithms.
    let r = s.call(&[]).await;
    assert_eq!(r.status.as_u16(), 401);
    let offered = challenges(&r);
    assert!(offered.iter().any(Challenge::is_bearer));
    let dpop = offered
        .iter()
        .find(|c| c.is_dpop())
        .expect("a DPoP challenge");
    assert!(dpop.get("algs").unwrap().split(' ').any(|a| a == "ES256"));
    let ran_before = s.ran.load(Ordering::SeqCst);

    let good = || claims(&s.url, &bound);
    let with = |f: &dyn Fn(&mut Value)| {
        let mut c = good();
        f(&mut c);
        key.sign(&key.header(), &c)
    };
    let with_header = |f: &dyn Fn(&mut Value)| {
        let mut h = key.header();
        f(&mut h);
        key.sign(&h, &good())
    };
    let unsigned = |header: &Value| {
        let enc = |v: &Value| b64(v.to_string().as_bytes());
        format!("{}.{}.", enc(header), enc(&good()))
    };
    let hs256 = {
        let header = json!({"typ": "dpop+jwt", "alg": "HS256", "jwk": key.jwk});
        let enc = |v: &Value| b64(v.to_string().as_bytes());
        let input = format!("{}.{}", enc(&header), enc(&good()));
        // The public key's x as the HMAC secret: the classic confusion.
        let secret = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(key.jwk["x"].as_str().unwrap())
            .unwrap();
        let signature = jsonwebtoken::crypto::sign(
            input.as_bytes(),
            &EncodingKey::from_secret(&secret),
            Algorithm::HS256,
        )
        .unwrap();
        format!("{input}.{signature}")
    };
    let tampered = {
        let mut proof = key.sign(&key.header(), &good());
        let last = proof.pop().unwrap();
        proof.push(if last == 'A' { 'B' } else { 'A' });
        proof
    };

    // Each row: what it is, the Authorization and DPoP headers, the status,
    // the scheme whose challenge carries the error, and the error.
    let proof_rows: Vec<(&str, String)> = vec![
        ("wrong htm", with(&|c| c["htm"] = json!("GET"))),
        (
            "wrong htu (path)",
            with(&|c| c["htu"] = json!(format!("{}/other", s.base))),
        ),
        (
            "wrong htu (port)",
            with(&|c| c["htu"] = json!(s.url.replacen("127.0.0.1:", "127.0.0.1:1", 1))),
        ),
        (
            "htu with a query",
            with(&|c| c["htu"] = json!(format!("{}?x=1", s.url))),
        ),
        ("stale iat", with(&|c| c["iat"] = json!(now() - 120))),
        ("future iat", with(&|c| c["iat"] = json!(now() + 60))),
        ("no iat", with(&|c| c["iat"] = Value::Null)),
        ("no jti", with(&|c| c["jti"] = Value::Null)),
        (
            "missing ath",
            with(&|c| {
                c.as_object_mut().unwrap().remove("ath");
            }),
        ),
        ("wrong ath", with(&|c| c["ath"] = json!(ath(&unbound)))),
        (
            "jwk whose thumbprint is not cnf.jkt",
            other.sign(&other.header(), &good()),
        ),
        (
            "private key material in jwk",
            with_header(&|h| h["jwk"]["d"] = json!(b64(b"not really a private key"))),
        ),
        (
            "typ not dpop+jwt",
            with_header(&|h| h["typ"] = json!("JWT")),
        ),
        ("no jwk", with_header(&|h| h["jwk"] = Value::Null)),
        (
            "alg none",
            unsigned(&json!({"typ": "dpop+jwt", "alg": "none", "jwk": key.jwk})),
        ),
        ("alg HS256", hs256),
        ("bad signature", tampered),
        ("not a JWT", "garbage".to_owned()),
    ];
    for (what, proof) in &proof_rows {
        let r = s.dpop_call(&bound, proof).await;
        assert_eq!(
            r.status.as_u16(),
            401,
            "{what}: {}",
            String::from_utf8_lossy(&r.body)
        );
        assert_eq!(
            error_of(&r, true).as_deref(),
            Some("invalid_dpop_proof"),
            "{what}: {:?}",
            challenges(&r)
        );
        let dpop = challenges(&r).into_iter().find(Challenge::is_dpop).unwrap();
        assert!(dpop.get("algs").is_some(), "{what}: the algs are named");
    }

    // A replayed proof: the first use is served, the second refused.
    let once = key.sign(&key.header(), &good());
    assert_eq!(s.dpop_call(&bound, &once).await.status.as_u16(), 200);
    let r = s.dpop_call(&bound, &once).await;
    assert_eq!(r.status.as_u16(), 401, "replayed jti");
    assert_eq!(error_of(&r, true).as_deref(), Some("invalid_dpop_proof"));

    // No proof, or two.
    let auth = format!("DPoP {bound}");
    let r = s.call(&[("authorization", &auth)]).await;
    assert_eq!(r.status.as_u16(), 401, "no proof");
    assert_eq!(error_of(&r, true).as_deref(), Some("invalid_dpop_proof"));
    let (p1, p2) = (
        key.sign(&key.header(), &good()),
        key.sign(&key.header(), &good()),
    );
    let r = s
        .call(&[("authorization", &auth), ("dpop", &p1), ("dpop", &p2)])
        .await;
    assert_eq!(r.status.as_u16(), 401, "two proofs");
    assert_eq!(error_of(&r, true).as_deref(), Some("invalid_dpop_proof"));

    // The presentation: a bound token as a bearer token, an unbound one with DPoP.
    let r = s
        .call(&[("authorization", &format!("Bearer {bound}"))])
        .await;
    assert_eq!(r.status.as_u16(), 401, "bound token sent as Bearer");
    assert_eq!(error_of(&r, false).as_deref(), Some("invalid_token"));
    let proof = key.sign(&key.header(), &claims(&s.url, &unbound));
    let r = s.dpop_call(&unbound, &proof).await;
    assert_eq!(r.status.as_u16(), 401, "unbound token sent with DPoP");
    assert_eq!(error_of(&r, true).as_deref(), Some("invalid_token"));

    // A scope the token lacks: the step-up answer, on a DPoP challenge.
    let proof = key.sign(&key.header(), &good());
    let r = s
        .call_tool("delete_note", &[("authorization", &auth), ("dpop", &proof)])
        .await;
    assert_eq!(r.status.as_u16(), 403, "insufficient scope");
    assert_eq!(error_of(&r, true).as_deref(), Some("insufficient_scope"));

    // Only the replayed proof's first use ran the tool.
    assert_eq!(s.ran.load(Ordering::SeqCst), ran_before + 1);
    // The server still serves.
    let r = s.dpop_call(&bound, &key.sign(&key.header(), &good())).await;
    assert_eq!(r.status.as_u16(), 200);
    assert_eq!(text_of(&r), "hello");
}

#[tokio::test]
async fn with_dpop_required_and_nonces_a_bearer_token_is_refused_and_the_nonce_is_asked_for() {
    let issuer = Issuer::start().await;
    let s = serve(
        &issuer,
        Dpop::new().required().nonces(Duration::from_secs(2)),
    )
    .await;
    let key = ProofKey::new();
    let bound = token(&issuer, &s.url, Some(&key.thumbprint()));
    let unbound = token(&issuer, &s.url, None);

    // No token: the DPoP challenge only.
    let r = s.call(&[]).await;
    assert_eq!(r.status.as_u16(), 401);
    let offered = challenges(&r);
    assert!(offered.iter().all(Challenge::is_dpop), "{offered:?}");
    // A bearer token, bound or not, is refused.
    for t in [&unbound, &bound] {
        let r = s.call(&[("authorization", &format!("Bearer {t}"))]).await;
        assert_eq!(r.status.as_u16(), 401);
        assert_eq!(error_of(&r, true).as_deref(), Some("invalid_token"));
    }

    // A proof without the nonce: use_dpop_nonce, and the nonce.
    let r = s
        .dpop_call(&bound, &key.sign(&key.header(), &claims(&s.url, &bound)))
        .await;
    assert_eq!(r.status.as_u16(), 401);
    assert_eq!(error_of(&r, true).as_deref(), Some("use_dpop_nonce"));
    let nonce = r.headers["dpop-nonce"].to_str().unwrap().to_owned();
    // A wrong nonce gets the same answer.
    let mut c = claims(&s.url, &bound);
    c["nonce"] = json!("not-the-nonce");
    let r = s.dpop_call(&bound, &key.sign(&key.header(), &c)).await;
    assert_eq!(error_of(&r, true).as_deref(), Some("use_dpop_nonce"));
    // The same request with the nonce is served.
    let with_nonce = |n: &str| {
        let mut c = claims(&s.url, &bound);
        c["nonce"] = json!(n);
        key.sign(&key.header(), &c)
    };
    let r = s.dpop_call(&bound, &with_nonce(&nonce)).await;
    assert_served(&r);

    // The nonce rotates: the one before is still good, and the answer
    // carries the new one; once rotated twice it is refused.
    tokio::time::sleep(Duration::from_millis(2100)).await;
    let r = s.dpop_call(&bound, &with_nonce(&nonce)).await;
    assert_eq!(r.status.as_u16(), 200);
    let next = r.headers["dpop-nonce"].to_str().unwrap().to_owned();
    assert_ne!(next, nonce);
    tokio::time::sleep(Duration::from_millis(2100)).await;
    let r = s.dpop_call(&bound, &with_nonce(&nonce)).await;
    assert_eq!(r.status.as_u16(), 401);
    assert_eq!(error_of(&r, true).as_deref(), Some("use_dpop_nonce"));
    let newest = r.headers["dpop-nonce"].to_str().unwrap().to_owned();
    let r = s.dpop_call(&bound, &with_nonce(&newest)).await;
    assert_eq!(r.status.as_u16(), 200);
}

#[tokio::test]
async fn a_full_replay_record_refuses_rather_than_forgets() {
    let issuer = Issuer::start().await;
    let s = serve(&issuer, Dpop::new().replay_capacity(2)).await;
    let key = ProofKey::new();
    let bound = token(&issuer, &s.url, Some(&key.thumbprint()));
    for _ in 0..2 {
        let r = s
            .dpop_call(&bound, &key.sign(&key.header(), &claims(&s.url, &bound)))
            .await;
        assert_served(&r);
    }
    // Two proofs still in their window fill the record: a third is refused.
    let r = s
        .dpop_call(&bound, &key.sign(&key.header(), &claims(&s.url, &bound)))
        .await;
    assert_eq!(r.status.as_u16(), 503);
    assert!(r.headers.contains_key("retry-after"));
    assert_eq!(s.ran.load(Ordering::SeqCst), 2);
}
