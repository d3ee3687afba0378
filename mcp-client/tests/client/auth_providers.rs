//! Signing in as identity providers require, against our protected server
//! and the scratch authorization server: the order of the client's
//! identities (pre-registered, then a Client ID Metadata Document where the
//! issuer supports them, then Dynamic Client Registration), an issuer
//! without a registration endpoint, and the `resource` parameter and scopes
//! shaped per provider (Entra ID: no `resource`, `api://.../.default`
//! scopes, the API's client id in `aud`; Auth0: another resource identifier).
#![allow(clippy::too_many_lines, unreachable_pub)]

use crate::support;

use serde_json::json;
use support::oauth_server::{
    connect, get, protected_notes, read_note, refusal, signing_in, ResourceRule, Script,
};

const CIMD_URL: &str = "https://client.example.com/oauth/metadata.json";

/// An issuer offering both Client ID Metadata Documents and DCR.
fn offering_everything() -> Script {
    Script {
        meta: json!({"client_id_metadata_document_supported": true}),
        ..Script::default()
    }
}

#[tokio::test]
async fn a_pre_registered_client_comes_before_metadata_documents_and_registration() {
    let (url, a) = protected_notes(offering_everything()).await;
    let oauth = signing_in()
        .client(a.url.as_str(), "pre-registered", None)
        .client_metadata_url(CIMD_URL);
    let client = connect(oauth, &url).await;
    assert_eq!(read_note(&client).await, "hello");
    client.close().await;
    let seen = a.seen.lock().unwrap();
    assert_eq!(seen.count("POST /register"), 0, "no registration");
    assert_eq!(
        get(&seen.authorizations[0], "client_id"),
        Some("pre-registered")
    );
}

#[tokio::test]
async fn a_metadata_document_comes_before_registration_where_the_issuer_supports_them() {
    let (url, a) = protected_notes(offering_everything()).await;
    let client = connect(signing_in().client_metadata_url(CIMD_URL), &url).await;
    assert_eq!(read_note(&client).await, "hello");
    client.close().await;
    let seen = a.seen.lock().unwrap();
    assert_eq!(seen.count("POST /register"), 0, "no registration");
    assert_eq!(get(&seen.authorizations[0], "client_id"), Some(CIMD_URL));
}

#[tokio::test]
async fn a_client_known_by_its_metadata_document_refreshes_without_a_second_sign_in() {
    // Tokens live 10 s, under the 30 s margin: each request refreshes first,
    // authenticating with the same URL as client id.
    let (url, a) = protected_notes(Script {
        expires_in: 10,
        ..offering_everything()
    })
    .await;
    let client = connect(signing_in().client_metadata_url(CIMD_URL), &url).await;
    assert_eq!(read_note(&client).await, "hello");
    assert_eq!(read_note(&client).await, "hello");
    client.close().await;
    let seen = a.seen.lock().unwrap();
    assert_eq!(seen.authorizations.len(), 1, "no second sign-in");
    assert!(seen.refresh_grants >= 1, "short-lived tokens are refreshed");
}

#[tokio::test]
async fn without_the_issuer_saying_so_a_metadata_document_is_not_used_and_dcr_is() {
    let (url, a) = protected_notes(Script::default()).await;
    let client = connect(signing_in().client_metadata_url(CIMD_URL), &url).await;
    assert_eq!(read_note(&client).await, "hello");
    client.close().await;
    let seen = a.seen.lock().unwrap();
    assert_eq!(seen.count("POST /register"), 1);
    assert_eq!(get(&seen.authorizations[0], "client_id"), Some("c1"));
}

#[tokio::test]
async fn an_issuer_without_registration_takes_a_pre_registered_client_and_is_never_sent_one() {
    let no_registration = || Script {
        meta: json!({"registration_endpoint": null}),
        ..Script::default()
    };
    let (url, a) = protected_notes(no_registration()).await;
    let client = connect(signing_in().client(a.url.as_str(), "pre", None), &url).await;
    assert_eq!(read_note(&client).await, "hello");
    client.close().await;
    assert_eq!(a.seen.lock().unwrap().count("POST /register"), 0);

    // Nothing pre-registered, no metadata document: a clear refusal, and
    // no registration attempted anywhere.
    let (url, a) = protected_notes(no_registration()).await;
    let message = refusal(signing_in(), &url).await;
    assert!(
        message.contains("offers no dynamic registration")
            && message.contains("pre-register a client"),
        "{message}"
    );
    let seen = a.seen.lock().unwrap();
    assert_eq!(seen.count("POST /register"), 0);
    assert!(
        seen.authorizations.is_empty(),
        "the user was never sent there"
    );
}

#[tokio::test]
async fn entra_style_no_resource_default_scopes_and_the_client_id_in_aud() {
    // The issuer refuses `resource`, grants with `.default` every
    // permission the client holds for the API, and writes the API's client
    // id in `aud`; the server accepts that audience.
    let (url, a) = protected_notes(Script {
        meta: json!({"registration_endpoint": null}),
        resource: ResourceRule::Absent,
        aud: Some("app-client-id".into()),
        server_audiences: vec!["app-client-id".into()],
        grants: Some("notes:read".into()),
        ..Script::default()
    })
    .await;
    let oauth = signing_in()
        .client(a.url.as_str(), "app-client-id", None)
        .without_resource()
        .shape_scopes(|asked| {
            assert_eq!(asked, ["notes:read"], "what the server named");
            vec!["api://notes/.default".into(), "offline_access".into()]
        });
    let client = connect(oauth, &url).await;
    assert_eq!(read_note(&client).await, "hello");
    client.close().await;
    let seen = a.seen.lock().unwrap();
    let q = &seen.authorizations[0];
    assert_eq!(get(q, "resource"), None, "no resource parameter");
    assert_eq!(get(q, "scope"), Some("api://notes/.default offline_access"));
    assert_eq!(
        seen.code_grants, 1,
        "the token request had no resource either"
    );
}

#[tokio::test]
async fn an_issuer_silent_about_pkce_is_used_only_when_the_application_names_it() {
    // Entra ID's metadata has no `code_challenge_methods_supported`.
    let silent = || Script {
        meta: json!({"code_challenge_methods_supported": null}),
        ..Script::default()
    };
    let (url, a) = protected_notes(silent()).await;
    let client = connect(signing_in().assume_pkce_s256(a.url.as_str()), &url).await;
    assert_eq!(read_note(&client).await, "hello");
    client.close().await;
    let method = get(
        &a.seen.lock().unwrap().authorizations[0],
        "code_challenge_method",
    )
    .map(str::to_owned);
    assert_eq!(method.as_deref(), Some("S256"));

    // Named for another issuer: refused as the spec asks, the user never sent.
    let (url, a) = protected_notes(silent()).await;
    let message = refusal(
        signing_in().assume_pkce_s256("https://login.example.com"),
        &url,
    )
    .await;
    assert!(
        message.contains("does not advertise PKCE with S256")
            && message.contains("OAuth::assume_pkce_s256"),
        "{message}"
    );
    assert!(a.seen.lock().unwrap().authorizations.is_empty());

    // Methods listed without S256: refused even when named.
    let (url, a) = protected_notes(Script {
        meta: json!({"code_challenge_methods_supported": ["plain"]}),
        ..Script::default()
    })
    .await;
    let message = refusal(signing_in().assume_pkce_s256(a.url.as_str()), &url).await;
    assert!(
        message.contains("does not advertise PKCE with S256"),
        "{message}"
    );
    assert!(a.seen.lock().unwrap().authorizations.is_empty());
}

#[tokio::test]
async fn the_same_client_with_the_resource_parameter_is_refused_by_an_entra_style_issuer() {
    let (url, a) = protected_notes(Script {
        resource: ResourceRule::Absent,
        ..Script::default()
    })
    .await;
    let message = refusal(signing_in(), &url).await;
    assert!(message.contains("invalid_target"), "{message}");
    assert_eq!(a.seen.lock().unwrap().code_grants, 0);
}

#[tokio::test]
async fn a_resource_override_is_sent_instead_of_the_servers() {
    // Auth0-style: the API is known by its identifier, which `aud` carries.
    let api = "https://api.notes.example.com";
    let (url, a) = protected_notes(Script {
        resource: ResourceRule::Exactly(api.into()),
        aud: Some(api.into()),
        server_audiences: vec![api.into()],
        ..Script::default()
    })
    .await;
    let client = connect(signing_in().resource(api), &url).await;
    assert_eq!(read_note(&client).await, "hello");
    client.close().await;
    let seen = a.seen.lock().unwrap();
    assert_eq!(get(&seen.authorizations[0], "resource"), Some(api));
    assert_eq!(seen.code_grants, 1);
}

#[tokio::test]
async fn a_token_for_an_audience_the_server_does_not_accept_is_refused() {
    // The issuer writes the client id in `aud`, the server accepts only its
    // resource URI: the sign-in succeeds, the server keeps refusing.
    let (url, _a) = protected_notes(Script {
        aud: Some("app-client-id".into()),
        ..Script::default()
    })
    .await;
    let message = refusal(signing_in(), &url).await;
    assert!(
        message.contains("HTTP 401")
            && message.contains("the token was issued for another resource"),
        "{message}"
    );
}
