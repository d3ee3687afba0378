//! A protected resource accepting a set of audiences, on real sockets: the
//! resource URI beside what identity providers write in `aud` instead (an
//! API's client id, an `api://` URI). A token naming none of them is
//! refused with the spec's 401 challenge before any tool runs; one whose
//! `aud` lists several values, one of them accepted, is served; the tool
//! sees which audience the token was accepted for. An empty set or a
//! malformed audience is refused when the verifier is configured, naming
//! the setting.
#![allow(clippy::too_many_lines, clippy::unused_self, unreachable_pub)]

use mcp_test_support::server as support;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use base64::Engine as _;
use oxmcp_server::auth::{Authorization, Introspection, InvalidAudience, JwtVerifier};
use oxmcp_server::http::HttpConfig;
use oxmcp_server::{tool, Context, Server};
use oxmcp_wire::http_client::{http_client, Fetched};
use oxmcp_wire::oauth::Challenge;
use serde_json::{json, Value};
use support::issuer::{self, Issuer};

use crate::auth::text_of;

/// The Entra-style audiences: the API application's client id (a GUID)
/// and its application ID URI.
const CLIENT_ID: &str = "6b2f0c3e-8d4a-4f7e-9a51-3c2d1e0f9b8a";
const APP_URI: &str = "api://calculator";

static RAN: AtomicUsize = AtomicUsize::new(0);

struct Audiences;

#[tool(description = "Says which audience the caller's token was accepted for")]
impl Audiences {
    #[describe("The accepted audience and the subject")]
    pub fn audience(&self, ctx: Context) -> String {
        RAN.fetch_add(1, Ordering::SeqCst);
        let who = ctx.identity().expect("an identity on a protected server");
        format!(
            "{}|{}",
            who.audience().unwrap_or("-"),
            who.subject().unwrap_or("-")
        )
    }
}

/// Serves the toolbox behind `auth(resource)`; its base URL and stopper.
async fn serve(
    issuer: &Issuer,
    auth: impl FnOnce(&str) -> Authorization,
) -> (String, tokio::sync::oneshot::Sender<()>) {
    issuer::serve_on_loopback(|resource| {
        let auth = auth(resource).authorization_server(issuer.url.clone());
        let server = Server::builder("audiences", "1").toolbox(Audiences).build();
        (server, HttpConfig::default().authorization(auth))
    })
    .await
}

/// A 2026-07-28 `tools/call` of `audience` with this bearer token.
async fn call(base: &str, token: &str) -> Fetched {
    let body = json!({"jsonrpc":"2.0","id":1,"method":"tools/call",
        "params":{"name":"audience","arguments":{},"_meta":support::modern_meta()}});
    let auth = format!("Bearer {token}");
    issuer::request(
        &http_client(Duration::from_secs(5), None),
        "POST",
        &format!("{base}/mcp"),
        &[
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", "audience"),
            ("Authorization", &auth),
        ],
        &body.to_string(),
        Duration::from_secs(10),
    )
    .await
}

#[tokio::test]
async fn a_set_of_audiences_accepts_any_of_them_and_says_which() {
    let issuer = Issuer::start().await;
    let issuer_url = issuer.url.clone();
    let (base, _stop) = serve(&issuer, |resource| {
        let verifier = JwtVerifier::new(issuer_url, resource)
            .audiences([resource, APP_URI, CLIENT_ID])
            .unwrap();
        Authorization::new(resource, verifier).unwrap()
    })
    .await;
    let resource = format!("{base}/mcp");
    let metadata_url = format!("{base}/.well-known/oauth-protected-resource/mcp");
    let token = |aud: Value| {
        let mut claims = issuer.claims("", "");
        claims["aud"] = aud;
        issuer.sign(&claims, "k1")
    };

    // (what, `aud`, the audience the tool is told, or None: refused)
    let table: Vec<(&str, Value, Option<&str>)> = vec![
        ("the resource URI", json!(resource), Some(&resource)),
        (
            "the resource URI, another spelling",
            json!(format!("{}/", resource.replace("http://", "HTTP://"))),
            Some(&resource),
        ),
        ("the API's client id", json!(CLIENT_ID), Some(CLIENT_ID)),
        ("the application ID URI", json!(APP_URI), Some(APP_URI)),
        (
            "several values, one accepted",
            json!(["https://graph.example.com", CLIENT_ID, "urn:other"]),
            Some(CLIENT_ID),
        ),
        (
            "several values, two accepted: the first of the set",
            json!([CLIENT_ID, resource]),
            Some(&resource),
        ),
        (
            "an audience not in the set",
            json!("api://another-app"),
            None,
        ),
        (
            "a client id differing in case",
            json!(CLIENT_ID.to_uppercase()),
            None,
        ),
        (
            "several values, none accepted",
            json!(["https://graph.example.com", "urn:other"]),
            None,
        ),
        ("an empty list", json!([]), None),
        // Not a string nor a list: refused before the set is consulted.
        ("not a string", json!(42), None),
        (
            "another resource on this host",
            json!(format!("{base}/other")),
            None,
        ),
    ];
    for (what, aud, accepted) in table {
        let before = RAN.load(Ordering::SeqCst);
        let r = call(&base, &token(aud)).await;
        if let Some(audience) = accepted {
            assert_eq!(r.status.as_u16(), 200, "{what}: {r:?}");
            assert_eq!(text_of(&r), format!("{audience}|alice"), "{what}");
        } else {
            assert_eq!(r.status.as_u16(), 401, "{what}: {r:?}");
            assert_eq!(RAN.load(Ordering::SeqCst), before, "{what}: the tool ran");
            let value = r.headers["www-authenticate"].to_str().unwrap();
            let c = Challenge::parse_all(value).remove(0);
            assert!(c.is_bearer(), "{what}: {value}");
            assert_eq!(c.get("error"), Some("invalid_token"), "{what}");
            assert_eq!(
                c.get("resource_metadata"),
                Some(metadata_url.as_str()),
                "{what}"
            );
            let expected = if what == "not a string" {
                "the token has no `aud` claim"
            } else {
                "the token was issued for another resource"
            };
            assert_eq!(c.get("error_description"), Some(expected), "{what}");
        }
    }
}

#[tokio::test]
async fn by_default_only_the_resource_uri_is_accepted() {
    let issuer = Issuer::start().await;
    let issuer_url = issuer.url.clone();
    let (base, _stop) = serve(&issuer, |resource| {
        Authorization::new(resource, JwtVerifier::new(issuer_url, resource)).unwrap()
    })
    .await;
    let resource = format!("{base}/mcp");
    let r = call(&base, &issuer.sign(&issuer.claims(&resource, ""), "k1")).await;
    assert_eq!(r.status.as_u16(), 200, "{r:?}");
    assert_eq!(text_of(&r), format!("{resource}|alice"));
    let r = call(&base, &issuer.sign(&issuer.claims(CLIENT_ID, ""), "k1")).await;
    assert_eq!(r.status.as_u16(), 401, "{r:?}");
}

#[tokio::test]
async fn introspection_accepts_the_set_and_says_which() {
    let issuer = Issuer::start().await;
    let endpoint = format!("{}/introspect", issuer.url);
    let (base, _stop) = serve(&issuer, |resource| {
        let verifier = Introspection::new(endpoint, resource)
            .client_credentials("mcp", "secret")
            .audiences([resource, CLIENT_ID])
            .unwrap();
        Authorization::new(resource, verifier).unwrap()
    })
    .await;
    // The scratch issuer's introspection: `good.<base64url of aud>` is active.
    let good = |aud: &str| {
        format!(
            "good.{}",
            base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(aud)
        )
    };
    let r = call(&base, &good(CLIENT_ID)).await;
    assert_eq!(r.status.as_u16(), 200, "{r:?}");
    assert_eq!(text_of(&r), format!("{CLIENT_ID}|ivan"));
    let r = call(&base, &good(APP_URI)).await;
    assert_eq!(r.status.as_u16(), 401, "{r:?}");
}

#[test]
fn an_empty_set_or_a_malformed_audience_is_refused_naming_the_setting() {
    let resource = "https://mcp.example.com/mcp";
    let jwt = || JwtVerifier::new("https://auth.example.com", resource);
    let e = jwt().audiences(Vec::<String>::new()).unwrap_err();
    assert_eq!(e, InvalidAudience::Empty);
    assert_eq!(
        e.to_string(),
        "`audiences` is empty: name at least one audience (by default the server's resource URI)"
    );
    for bad in [
        "",
        "api://calc ulator",
        "https://",
        "https://mcp.example.com/mcp#x",
        "1x:y",
    ] {
        let e = jwt().audiences([resource, bad]).unwrap_err();
        assert_eq!(e, InvalidAudience::Malformed(bad.into()), "{bad}");
        assert!(
            e.to_string()
                .starts_with(&format!("`audiences`: `{bad}` is not an audience")),
            "{e}"
        );
        let e = Introspection::new("https://auth.example.com/introspect", resource)
            .audiences([bad])
            .unwrap_err();
        assert_eq!(e, InvalidAudience::Malformed(bad.into()), "{bad}");
    }
}
