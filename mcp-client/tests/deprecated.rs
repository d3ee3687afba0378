//! Dynamic Client Registration, deprecated by MCP 2026-07-28 (Client ID
//! Metadata Documents replace it), warns once per process when the client
//! really registers, and never when it signs in as a pre-registered client
//! or with a metadata document.
//!
//! A binary of its own: the warning is once per process, caught by the
//! global subscriber this test installs.
#![cfg(feature = "auth")]

mod support;

use mcp_test_support::deprecations::Warnings;
use serde_json::json;
use support::oauth_server::{connect, protected_notes, read_note, signing_in, Script};

#[tokio::test]
async fn dynamic_client_registration_warns_once_when_a_client_registers() {
    let warnings = Warnings::install();

    // Signed in without registering: a pre-registered client, then a
    // metadata document the issuer takes. Nothing deprecated was used.
    let (url, a) = protected_notes(Script::default()).await;
    let client = connect(
        signing_in().client(a.url.as_str(), "pre-registered", None),
        &url,
    )
    .await;
    assert_eq!(read_note(&client).await, "hello");
    client.close().await;
    let (url, _) = protected_notes(Script {
        meta: json!({"client_id_metadata_document_supported": true}),
        ..Script::default()
    })
    .await;
    let metadata =
        signing_in().client_metadata_url("https://client.example.com/oauth/metadata.json");
    let client = connect(metadata, &url).await;
    assert_eq!(read_note(&client).await, "hello");
    client.close().await;
    assert_eq!(warnings.take(), [], "no registration was made");

    // Two clients that register, each with an issuer of its own: one warning.
    for _ in 0..2 {
        let (url, a) = protected_notes(Script::default()).await;
        let client = connect(signing_in(), &url).await;
        assert_eq!(read_note(&client).await, "hello");
        client.close().await;
        assert_eq!(
            a.seen.lock().unwrap().count("POST /register"),
            1,
            "it registered"
        );
    }
    let seen = warnings.take();
    assert_eq!(seen.len(), 1, "{seen:?}");
    let (feature, message) = &seen[0];
    assert_eq!(feature, "Dynamic Client Registration");
    assert!(
        message.contains("deprecated since MCP 2026-07-28")
            && message.contains("Client ID Metadata Document"),
        "the warning names the revision and the replacement: {message}"
    );
}
