//! Signing in, against our protected server and a scripted authorization
//! server on 127.0.0.1 (ES256 JWT access tokens, PKCE checked, refresh
//! tokens): the code flow, refreshing before expiry without a second
//! sign-in, the step-up for a tool's scope with the union of scopes, and the
//! authorization responses and issuers the client must refuse.
#![allow(clippy::too_many_lines, clippy::unused_self, unreachable_pub)]

use crate::support;

use oxmcp_server::http::HttpConfig;
use oxmcp_server::Server;
use serde_json::json;
use support::oauth_server::{
    connect, get, protected_notes, read_note, refusal, signing_in, text, Notes, Script,
};

#[tokio::test]
async fn signs_in_steps_up_with_the_union_and_refreshes_without_a_second_sign_in() {
    // Tokens live 10 s: under the 30 s margin, so each request refreshes first.
    let (url, a) = protected_notes(Script {
        expires_in: 10,
        ..Script::default()
    })
    .await;
    let client = connect(signing_in(), &url).await;
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
    assert_eq!(read_note(&client).await, "hello");
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
    let (url, a) = protected_notes(Script {
        introspect: true,
        ..Script::default()
    })
    .await;
    let client = connect(signing_in(), &url).await;
    assert_eq!(read_note(&client).await, "hello");
    // The issuer revokes the access token; the refresh token still works.
    {
        let mut seen = a.seen.lock().unwrap();
        let last = seen.issued.last().unwrap().clone();
        seen.revoked.push(last);
    }
    assert_eq!(read_note(&client).await, "hello");
    client.close().await;
    let seen = a.seen.lock().unwrap();
    assert_eq!(seen.authorizations.len(), 1, "no second sign-in");
    assert_eq!((seen.code_grants, seen.refresh_grants), (1, 1));
}

async fn refused(script: Script, expected: &str) {
    let (url, a) = protected_notes(script).await;
    let message = refusal(signing_in(), &url).await;
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
    let (url, a) = protected_notes(Script {
        meta: json!({"code_challenge_methods_supported": null}),
        ..Script::default()
    })
    .await;
    let message = refusal(signing_in(), &url).await;
    assert!(
        message.contains("does not advertise PKCE with S256"),
        "{message}"
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
    let client = connect(signing_in(), &url).await;
    assert_eq!(client.list_tools().await.unwrap().len(), 2);
    client.close().await;
}
