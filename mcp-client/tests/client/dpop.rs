//! DPoP end to end (RFC 9449): `oxmcp_client` signs in to our protected
//! server (DPoP required, with nonces) through a scratch authorization
//! server on 127.0.0.1 that advertises DPoP, wants a nonce of its own and
//! binds its tokens to the proof's key (checking each proof itself). The
//! client gets bound tokens, refreshes them with the same key, and calls a
//! tool; a client told not to use DPoP gets bearer tokens.
#![allow(clippy::too_many_lines, clippy::unused_self, unreachable_pub)]

use crate::support;

use std::time::Duration;

use oxmcp_server::auth::Dpop;
use support::oauth_server::{connect, protected_notes, read_note, signing_in, IssuerDpop, Script};

#[tokio::test]
async fn dpop_bound_tokens_with_nonces_reach_a_server_that_requires_them() {
    // Tokens live 10 s: under the 30 s margin, so each request refreshes first.
    let (url, a) = protected_notes(Script {
        expires_in: 10,
        dpop: Some(IssuerDpop {
            nonce: Some("as-nonce-1".into()),
        }),
        server_dpop: Some(Dpop::new().required().nonces(Duration::from_secs(300))),
        ..Script::default()
    })
    .await;
    let client = connect(signing_in(), &url).await;
    // The server wants its nonce: served only once the client has retried
    // with the one the server's first refusal gave.
    assert_eq!(read_note(&client).await, "hello");
    assert_eq!(read_note(&client).await, "hello");
    client.close().await;
    let seen = a.seen.lock().unwrap();
    assert_eq!(seen.code_grants, 1, "one sign-in");
    assert!(seen.refresh_grants >= 1, "short-lived tokens are refreshed");
    assert_eq!(seen.without_proof, 0, "every token request has a proof");
    assert!(
        seen.nonce_challenges >= 1,
        "the issuer asked for its nonce first"
    );
    let first = &seen.dpop_jkts[0];
    assert!(
        seen.dpop_jkts.iter().all(|j| j == first),
        "refreshes keep the key: {:?}",
        seen.dpop_jkts
    );
    assert_eq!(
        seen.dpop_jkts.len(),
        seen.code_grants + seen.refresh_grants,
        "each token granted went to a proof with the nonce"
    );
}

#[tokio::test]
async fn the_servers_nonce_costs_a_retry_not_a_new_token() {
    // The server's nonce changes every second.
    let (url, a) = protected_notes(Script {
        dpop: Some(IssuerDpop::default()),
        server_dpop: Some(Dpop::new().required().nonces(Duration::from_secs(1))),
        ..Script::default()
    })
    .await;
    let client = connect(signing_in(), &url).await;
    // The first request with the token (the 2026-07-28 probe) is refused
    // for want of the nonce and sent again with it: the probe succeeds, so
    // the client speaks the modern era.
    assert_eq!(
        client.protocol_version(),
        oxmcp_client::types::ProtocolVersion::V2026_07_28
    );
    assert_eq!(read_note(&client).await, "hello");
    // Two changes later the nonce kept is stale: refused, then sent again
    // with the new one, the token kept.
    tokio::time::sleep(Duration::from_millis(2200)).await;
    assert_eq!(read_note(&client).await, "hello");
    client.close().await;
    let seen = a.seen.lock().unwrap();
    assert_eq!((seen.code_grants, seen.refresh_grants), (1, 0));
    assert_eq!(seen.dpop_jkts.len(), 1);
}

#[tokio::test]
async fn a_client_told_not_to_use_dpop_gets_bearer_tokens() {
    let (url, a) = protected_notes(Script {
        // The issuer advertises DPoP but binds tokens only when given a proof.
        meta: serde_json::json!({"dpop_signing_alg_values_supported": ["ES256"]}),
        server_dpop: Some(Dpop::new()),
        ..Script::default()
    })
    .await;
    let client = connect(signing_in().dpop(false), &url).await;
    assert_eq!(read_note(&client).await, "hello");
    client.close().await;
    let seen = a.seen.lock().unwrap();
    assert_eq!(seen.code_grants, 1);
    assert!(seen.dpop_jkts.is_empty());
    assert_eq!(seen.without_proof, seen.code_grants + seen.refresh_grants);
}

#[tokio::test]
async fn the_legacy_era_signs_every_request_too() {
    let (url, a) = protected_notes(Script {
        dpop: Some(IssuerDpop::default()),
        server_dpop: Some(Dpop::new().required().nonces(Duration::from_secs(300))),
        ..Script::default()
    })
    .await;
    let client = oxmcp_client::Client::builder()
        .protocol(oxmcp_client::Era::Legacy)
        .oauth(signing_in())
        .connect_http(&url)
        .await
        .unwrap();
    assert_eq!(
        client.protocol_version(),
        oxmcp_client::types::ProtocolVersion::V2025_11_25
    );
    assert_eq!(read_note(&client).await, "hello");
    assert_eq!(read_note(&client).await, "hello");
    client.close().await;
    let seen = a.seen.lock().unwrap();
    assert_eq!((seen.code_grants, seen.refresh_grants), (1, 0));
}
