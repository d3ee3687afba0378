//! DPoP's replay record shared by the instances of one service on a real
//! Redis: a proof served by one instance is refused by another sharing its
//! store, and a proof the store cannot record is refused, not served. The
//! rest of DPoP is oxmcp-server's `protocol::dpop`; both build their server
//! and proofs with `mcp_test_support::server::dpop`.

use std::sync::atomic::Ordering;

use mcp_test_support::redis_server::RedisServer;
use mcp_test_support::server::dpop::{
    assert_served, claims, error_of, random_jti, serve_with, token, ProofKey,
};
use mcp_test_support::server::issuer::Issuer;
use oxmcp_redis::RedisStore;
use oxmcp_server::auth::Dpop;
use oxmcp_server::http::HttpConfig;

/// The replay record crosses instances when they share a store: a proof
/// served by instance A, replayed at instance B (the same resource, the
/// same Redis), is refused there, and the tool does not run again. Before,
/// each instance remembered only the proofs it had seen itself.
#[tokio::test]
async fn a_proof_served_by_one_instance_is_refused_by_another_sharing_its_store() {
    let redis = RedisServer::start();
    let store = RedisStore::connect(&redis.url()).await.expect("connecting");
    let issuer = Issuer::start().await;
    let config = || HttpConfig::default().store(store.clone());
    let a = serve_with(&issuer, Dpop::new(), None, config()).await;
    let b = serve_with(&issuer, Dpop::new(), Some(&a.url), config()).await;
    let key = ProofKey::new();
    let bound = token(&issuer, &a.url, Some(&key.thumbprint()));
    let proof = key.sign(&key.header(), &claims(&a.url, &bound));
    assert_served(&a.dpop_call(&bound, &proof).await);

    let r = b.dpop_call(&bound, &proof).await;
    assert_eq!(
        r.status.as_u16(),
        401,
        "{}",
        String::from_utf8_lossy(&r.body)
    );
    assert_eq!(error_of(&r, true).as_deref(), Some("invalid_dpop_proof"));
    assert_eq!(b.ran.load(Ordering::SeqCst), 0);
    // A fresh proof is served by B, and B refuses its replay as A does.
    let fresh = key.sign(&key.header(), &claims(&a.url, &bound));
    assert_served(&b.dpop_call(&bound, &fresh).await);
    let r = a.dpop_call(&bound, &fresh).await;
    assert_eq!(r.status.as_u16(), 401);
    assert_eq!(a.ran.load(Ordering::SeqCst), 1);
}

/// A proof the shared store cannot record (Redis paused) is not accepted
/// unrecorded: 503 with `Retry-After`, the tool does not run; once the
/// store answers again, a new proof is served.
#[tokio::test]
async fn a_proof_the_shared_store_cannot_record_is_a_503_and_not_served() {
    let redis = RedisServer::start();
    let store = RedisStore::connect(&redis.url()).await.expect("connecting");
    let issuer = Issuer::start().await;
    let s = serve_with(
        &issuer,
        Dpop::new(),
        None,
        HttpConfig::default().store(store),
    )
    .await;
    let key = ProofKey::new();
    let bound = token(&issuer, &s.url, Some(&key.thumbprint()));
    let claims = claims(&s.url, &bound);
    let proof = key.sign(&key.header(), &claims);
    redis.pause();
    let r = s.dpop_call(&bound, &proof).await;
    redis.resume();
    assert_eq!(
        r.status.as_u16(),
        503,
        "{}",
        String::from_utf8_lossy(&r.body)
    );
    assert!(r.headers.contains_key("retry-after"));
    assert_eq!(s.ran.load(Ordering::SeqCst), 0);
    // A new proof is served once the store answers.
    let mut claims = claims;
    claims["jti"] = random_jti().into();
    let proof = key.sign(&key.header(), &claims);
    assert_served(&s.dpop_call(&bound, &proof).await);
}
