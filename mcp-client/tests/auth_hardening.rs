//! The OAuth client's hardening (issue 23), on real sockets on 127.0.0.1 only: the token file, secrets kept out of `Debug` and logs, credentials pinned to their issuer, the loopback redirect listener, https for the authorization server, server-sent lifetimes.
#![cfg(feature = "auth")]
#![allow(clippy::too_many_lines, clippy::unused_self, unreachable_pub)]

mod support;

use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use oxmcp_client::auth::{AuthError, Authorizer, LoopbackAuthorizer, OAuth, Stored, TokenStore};
use serde_json::json;
use support::oauth_server::{
    connect, get, json_reply, protected_notes, read_note, refusal, signing_in, As, Script,
};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// The scratch authorization server issuing a client secret at
/// registration and tokens living `expires_in` seconds.
fn confidential(expires_in: u64) -> Script {
    Script {
        expires_in,
        client_secret: true,
        ..Script::default()
    }
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
    let store = oxmcp_client::auth::FileTokenStore::new(&path);
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
    let store = oxmcp_client::auth::FileTokenStore::new(&path2);
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
        token_type: Some("DPoP".into()),
        dpop_key: Some("the-dpop-private-key".into()),
    };
    let shown = format!("{stored:?} {stored:#?}");
    for secret in [
        "the-client-secret",
        "the-access-token",
        "the-refresh-token",
        "the-dpop-private-key",
    ] {
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
    let (url, a) = protected_notes(confidential(10)).await;
    let client = connect(signing_in(), &url).await;
    for _ in 0..2 {
        assert_eq!(read_note(&client).await, "hello");
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

/// The application's own handle on a loopback authorizer it also gives
/// the client (so the authorizer outlives a failed connection).
struct Shared(Arc<LoopbackAuthorizer>);

impl Authorizer for Shared {
    fn redirect_uri(&self) -> oxmcp_client::auth::BoxFuture<'_, Result<String, AuthError>> {
        self.0.redirect_uri()
    }

    fn authorize<'a>(
        &'a self,
        url: &'a str,
    ) -> oxmcp_client::auth::BoxFuture<'a, Result<oxmcp_client::auth::RedirectParams, AuthError>>
    {
        self.0.authorize(url)
    }

    fn release(&self) -> oxmcp_client::auth::BoxFuture<'_, ()> {
        self.0.release()
    }
}

#[tokio::test]
async fn a_sign_in_that_fails_before_the_redirect_closes_the_loopback_port() {
    // No dynamic registration and no client id: the sign-in fails after
    // the redirect URI was made, before the user is sent anywhere.
    let (url, _as) = protected_notes(Script {
        meta: json!({"registration_endpoint": null}),
        ..Script::default()
    })
    .await;
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let authorizer = Arc::new(LoopbackAuthorizer::new().port(port));
    let oauth = OAuth::new("test-client").authorizer(Shared(Arc::clone(&authorizer)));
    let why = refusal(oauth, &url).await;
    assert!(why.contains("registration"), "{why}");
    assert!(
        tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_err(),
        "the redirect port is still bound after the sign-in failed"
    );
    drop(authorizer);
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
        oxmcp_wire::oauth::percent_encode(&redirect_uri)
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
    let (url, a) = protected_notes(confidential(u64::MAX)).await;
    let client = connect(signing_in(), &url).await;
    assert_eq!(read_note(&client).await, "hello");
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

#[tokio::test]
async fn pre_registered_credentials_are_never_sent_to_an_issuer_other_than_their_own() {
    let honest = As::start(confidential(600), "http://127.0.0.1:1/mcp").await;
    let attacker = As::start(confidential(600), "http://127.0.0.1:1/mcp").await;
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
                oxmcp_client::auth::Algorithm::ES256,
            )
            .unwrap(),
        signing_in().client(&honest.url, "app-id", Some("the-secret".into())),
        signing_in().client(&honest.url, "public-app-id", None),
    ];
    for oauth in pinned {
        let message = refusal(oauth, &url).await;
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
    let (url, a) = protected_notes(confidential(600)).await;
    for issuer in [
        oxmcp_client::auth::Issuer::new(&a.url),
        oxmcp_client::auth::Issuer::danger_named_by_server(),
    ] {
        let oauth = OAuth::new("machine").client_credentials(issuer, "machine-id", "the-secret");
        let client = connect(oauth, &url).await;
        assert_eq!(read_note(&client).await, "hello");
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
        let script = Script {
            meta: json!({ field: bad }),
            ..confidential(600)
        };
        let a = As::start(script, "http://127.0.0.1:1/mcp").await;
        let url = resource_naming(&a.url, None).await;
        let message = refusal(signing_in(), &url).await;
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
    let message = refusal(signing_in(), &url).await;
    assert!(
        message.contains("`http://as.example` is not https"),
        "{message}"
    );
    let url = resource_naming(
        "http://as.example",
        Some("http://as.example/.well-known/oauth-protected-resource"),
    )
    .await;
    let message = refusal(signing_in(), &url).await;
    assert!(
        message.contains("`http://as.example/.well-known/oauth-protected-resource` is not https"),
        "{message}"
    );
}
