//! The HTTP server as an OAuth protected resource, on real sockets: an
//! issuer on 127.0.0.1 publishes its metadata and keys, tokens are signed
//! here (ES256), and every hostile request is answered with its status and
//! challenge without the tool ever running; a valid token is still served
//! afterwards, in both eras, on HTTP+SSE, behind the tower layer in axum,
//! and with introspection.
#![allow(clippy::too_many_lines, clippy::unused_self, unreachable_pub)]

use mcp_test_support::server as support;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use jsonwebtoken::{Algorithm, EncodingKey, Header};
use oxmcp_server::auth::{Authorization, Introspection, JwtVerifier};
use oxmcp_server::http::HttpConfig;
use oxmcp_server::{tool, Context, Server};
use oxmcp_wire::http_client::{http_client, Fetched, HttpClient};
use oxmcp_wire::oauth::Challenge;
use serde_json::{json, Value};
use support::issuer::{self, b64, now, Issuer};

static RAN: AtomicUsize = AtomicUsize::new(0);

struct Notes;

#[tool(description = "Notes behind OAuth", scopes("notes:read"))]
impl Notes {
    #[describe("Read the note")]
    pub fn read_note(&self) -> String {
        RAN.fetch_add(1, Ordering::SeqCst);
        "hello".into()
    }

    #[describe("Delete the note")]
    #[tool(scopes("notes:write"))]
    pub fn delete_note(&self) -> String {
        RAN.fetch_add(1, Ordering::SeqCst);
        "deleted".into()
    }

    #[describe("Who is calling")]
    pub fn whoami(&self, ctx: Context) -> String {
        let who = ctx.identity().expect("an identity on a protected server");
        format!(
            "{}:{}",
            who.subject().unwrap_or("-"),
            who.scopes().join(",")
        )
    }
}

struct Protected {
    base: String,
    resource: String,
    client: HttpClient,
    stop: tokio::sync::oneshot::Sender<()>,
}

async fn serve(issuer: &Issuer, verifier: impl FnOnce(&str) -> Authorization) -> Protected {
    let (base, stop) = issuer::serve_on_loopback(|resource| {
        let auth = verifier(resource)
            .authorization_server(issuer.url.clone())
            .scopes_supported(["notes:read"])
            .scope_implies("notes:admin", ["notes:read", "notes:write"]);
        let server = Server::builder("notes", "1").toolbox(Notes).build();
        let config = HttpConfig::default().authorization(auth).page(
            "/healthz",
            "text/plain; charset=utf-8",
            || "ok",
        );
        (server, config)
    })
    .await;
    let resource = format!("{base}/mcp");
    Protected {
        base,
        resource,
        client: http_client(Duration::from_secs(5), None),
        stop,
    }
}

fn claims(issuer: &Issuer, aud: &str, scope: &str) -> Value {
    issuer.claims(aud, scope)
}

impl Protected {
    async fn request(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &str,
    ) -> Fetched {
        let url = format!("{}{path}", self.base);
        issuer::request(
            &self.client,
            method,
            &url,
            headers,
            body,
            Duration::from_secs(10),
        )
        .await
    }

    /// A 2026-07-28 `tools/call` with `auth` as the Authorization header.
    async fn call(&self, tool: &str, auth: Option<&str>) -> Fetched {
        let body = json!({"jsonrpc":"2.0","id":1,"method":"tools/call",
            "params":{"name":tool,"arguments":{},"_meta":support::modern_meta()}});
        let mut headers = vec![
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", tool),
        ];
        if let Some(a) = auth {
            headers.push(("Authorization", a));
        }
        self.request("POST", "/mcp", &headers, &body.to_string())
            .await
    }

    async fn list(&self, auth: &str) -> Vec<String> {
        let body = json!({"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":support::modern_meta()}});
        let r = self
            .request(
                "POST",
                "/mcp",
                &[
                    ("MCP-Protocol-Version", "2026-07-28"),
                    ("Mcp-Method", "tools/list"),
                    ("Authorization", auth),
                ],
                &body.to_string(),
            )
            .await;
        assert_eq!(r.status.as_u16(), 200);
        let v: Value = serde_json::from_slice(&r.body).unwrap();
        v["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_owned())
            .collect()
    }
}

fn challenge(r: &Fetched) -> Challenge {
    let value = r
        .headers
        .get("www-authenticate")
        .unwrap_or_else(|| panic!("no WWW-Authenticate on a {}", r.status.as_u16()))
        .to_str()
        .unwrap();
    let mut all = Challenge::parse_all(value);
    assert_eq!(all.len(), 1, "{value}");
    let c = all.remove(0);
    assert!(c.is_bearer(), "{value}");
    c
}

/// The text of a `tools/call` answer (also for `auth_audiences`).
pub fn text_of(r: &Fetched) -> String {
    let v: Value = serde_json::from_slice(&r.body).unwrap();
    v["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

#[tokio::test]
async fn hostile_requests_never_reach_a_tool_and_valid_ones_are_served() {
    let issuer = Issuer::start().await;
    let issuer_url = issuer.url.clone();
    let s = serve(&issuer, |resource| {
        Authorization::new(resource, JwtVerifier::new(issuer_url, resource)).unwrap()
    })
    .await;
    let metadata_url = format!("{}/.well-known/oauth-protected-resource/mcp", s.base);

    // The metadata, at the endpoint's path and at the root.
    for path in [
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-protected-resource",
    ] {
        let r = s.request("GET", path, &[], "").await;
        assert_eq!(r.status.as_u16(), 200, "{path}");
        let m: Value = serde_json::from_slice(&r.body).unwrap();
        assert_eq!(m["resource"], s.resource);
        assert_eq!(m["authorization_servers"], json!([issuer.url]));
        assert_eq!(m["scopes_supported"], json!(["notes:read"]));
        assert_eq!(m["bearer_methods_supported"], json!(["header"]));
    }

    // A page the program mounted asks for no token; it is read-only.
    let r = s.request("GET", "/healthz", &[], "").await;
    assert_eq!(r.status.as_u16(), 200, "{r:?}");
    assert_eq!(&r.body[..], b"ok");
    assert_eq!(
        r.headers
            .get("content-type")
            .map(http::HeaderValue::as_bytes),
        Some(&b"text/plain; charset=utf-8"[..])
    );
    let r = s.request("POST", "/healthz", &[], "{}").await;
    assert_eq!(r.status.as_u16(), 405, "{r:?}");
    assert_eq!(
        r.headers.get("allow").map(http::HeaderValue::as_bytes),
        Some(&b"GET"[..])
    );

    let valid = issuer.sign(&claims(&issuer, &s.resource, "notes:read"), "k1");
    let bearer = |t: &str| format!("Bearer {t}");
    let mut expired = claims(&issuer, &s.resource, "notes:read");
    expired["exp"] = json!(now() - 120);
    let mut early = claims(&issuer, &s.resource, "notes:read");
    early["nbf"] = json!(now() + 600);
    let mut wrong_issuer = claims(&issuer, &s.resource, "notes:read");
    wrong_issuer["iss"] = json!("http://127.0.0.1:1");
    let none = format!(
        "{}.{}.",
        b64(br#"{"alg":"none","typ":"JWT"}"#),
        b64(claims(&issuer, &s.resource, "notes:read")
            .to_string()
            .as_bytes())
    );
    let hs256 = jsonwebtoken::encode(
        &{
            let mut h = Header::new(Algorithm::HS256);
            h.kid = Some("k1".into());
            h
        },
        &claims(&issuer, &s.resource, "notes:read"),
        &EncodingKey::from_secret(&issuer.public),
    )
    .unwrap();
    let tampered = {
        let mut parts: Vec<String> = valid.split('.').map(str::to_owned).collect();
        parts[1] = b64(claims(&issuer, &s.resource, "notes:admin")
            .to_string()
            .as_bytes());
        parts.join(".")
    };

    // (what is sent, status, the challenge's `error`)
    let table: Vec<(&str, Option<String>, u16, Option<&str>)> = vec![
        ("no token", None, 401, None),
        (
            "another scheme",
            Some("Basic YWxpY2U6cHc=".into()),
            401,
            None,
        ),
        (
            "malformed bearer",
            Some("Bearer a b c".into()),
            400,
            Some("invalid_request"),
        ),
        // A client without a token yet: the challenge starts its sign-in.
        ("empty bearer", Some("Bearer ".into()), 401, None),
        ("bare bearer", Some("Bearer".into()), 401, None),
        (
            "not a JWT",
            Some(bearer("abc.def")),
            401,
            Some("invalid_token"),
        ),
        (
            "expired",
            Some(bearer(&issuer.sign(&expired, "k1"))),
            401,
            Some("invalid_token"),
        ),
        (
            "not yet valid",
            Some(bearer(&issuer.sign(&early, "k1"))),
            401,
            Some("invalid_token"),
        ),
        (
            "wrong issuer",
            Some(bearer(&issuer.sign(&wrong_issuer, "k1"))),
            401,
            Some("invalid_token"),
        ),
        (
            "wrong audience",
            Some(bearer(&issuer.sign(
                &claims(&issuer, "https://elsewhere.example/mcp", "notes:read"),
                "k1",
            ))),
            401,
            Some("invalid_token"),
        ),
        (
            "another resource on this host",
            Some(bearer(&issuer.sign(
                &claims(&issuer, &format!("{}/other", s.base), "notes:read"),
                "k1",
            ))),
            401,
            Some("invalid_token"),
        ),
        ("alg none", Some(bearer(&none)), 401, Some("invalid_token")),
        (
            "HS256 with the public key",
            Some(bearer(&hs256)),
            401,
            Some("invalid_token"),
        ),
        (
            "tampered",
            Some(bearer(&tampered)),
            401,
            Some("invalid_token"),
        ),
    ];
    for (what, auth, status, error) in &table {
        let r = s.call("read_note", auth.as_deref()).await;
        assert_eq!(
            r.status.as_u16(),
            *status,
            "{what}: {}",
            String::from_utf8_lossy(&r.body)
        );
        let c = challenge(&r);
        assert_eq!(
            c.get("resource_metadata"),
            Some(metadata_url.as_str()),
            "{what}"
        );
        assert_eq!(c.get("error"), *error, "{what}");
        if *status == 401 {
            assert_eq!(c.get("scope"), Some("notes:read"), "{what}");
        }
        let body: Value = serde_json::from_slice(&r.body).unwrap();
        assert!(body["error"]["message"].is_string(), "{what}: {body}");
    }

    // An unknown `kid`: the keys are fetched once more, then refused; a
    // second unknown `kid` right after fetches nothing.
    let before = issuer.jwks_fetches.load(Ordering::SeqCst);
    assert_eq!(before, 1, "the keys were fetched once, at the first token");
    let r = s
        .call(
            "read_note",
            Some(&bearer(
                &issuer.sign(&claims(&issuer, &s.resource, "notes:read"), "k2"),
            )),
        )
        .await;
    assert_eq!(
        (r.status.as_u16(), challenge(&r).get("error")),
        (401, Some("invalid_token"))
    );
    assert_eq!(issuer.jwks_fetches.load(Ordering::SeqCst), 2);
    let r = s
        .call(
            "read_note",
            Some(&bearer(
                &issuer.sign(&claims(&issuer, &s.resource, "notes:read"), "k3"),
            )),
        )
        .await;
    assert_eq!(r.status.as_u16(), 401);
    assert_eq!(
        issuer.jwks_fetches.load(Ordering::SeqCst),
        2,
        "refreshes are bounded"
    );
    // A `kid` that is not ASCII is quoted in the reason; the challenge still
    // goes out (it went without WWW-Authenticate, as no header value).
    let r = s
        .call(
            "read_note",
            Some(&bearer(
                &issuer.sign(&claims(&issuer, &s.resource, "notes:read"), "ключ"),
            )),
        )
        .await;
    assert_eq!(
        (r.status.as_u16(), challenge(&r).get("error")),
        (401, Some("invalid_token"))
    );

    // A token in the query string.
    let body = json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_note","arguments":{},"_meta":support::modern_meta()}});
    let r = s
        .request(
            "POST",
            &format!("/mcp?access_token={valid}"),
            &[
                ("MCP-Protocol-Version", "2026-07-28"),
                ("Mcp-Method", "tools/call"),
                ("Mcp-Name", "read_note"),
            ],
            &body.to_string(),
        )
        .await;
    assert_eq!(
        (r.status.as_u16(), challenge(&r).get("error")),
        (400, Some("invalid_request"))
    );

    // Insufficient scope: the step-up answer names the scopes the tool needs.
    let r = s.call("delete_note", Some(&bearer(&valid))).await;
    assert_eq!(
        r.status.as_u16(),
        403,
        "{}",
        String::from_utf8_lossy(&r.body)
    );
    let c = challenge(&r);
    assert_eq!(c.get("error"), Some("insufficient_scope"));
    assert_eq!(c.get("scope"), Some("notes:read notes:write"));
    assert_eq!(c.get("resource_metadata"), Some(metadata_url.as_str()));
    // An unknown tool is not a scope question.
    let r = s.call("no_such_tool", Some(&bearer(&valid))).await;
    assert_ne!(r.status.as_u16(), 403);

    assert_eq!(
        RAN.load(Ordering::SeqCst),
        0,
        "no hostile request reached a tool"
    );

    // The valid token is still served, sees only what its scopes allow, and
    // the tool knows whom it serves.
    assert_eq!(s.list(&bearer(&valid)).await, ["read_note", "whoami"]);
    let r = s.call("read_note", Some(&bearer(&valid))).await;
    assert_eq!((r.status.as_u16(), text_of(&r).as_str()), (200, "hello"));
    let r = s.call("whoami", Some(&bearer(&valid))).await;
    assert_eq!(text_of(&r), "alice:notes:read");
    // A broader scope implies the narrower ones.
    let admin = issuer.sign(&claims(&issuer, &s.resource, "notes:admin"), "k1");
    assert_eq!(
        s.list(&bearer(&admin)).await,
        ["delete_note", "read_note", "whoami"]
    );
    let r = s.call("delete_note", Some(&bearer(&admin))).await;
    assert_eq!((r.status.as_u16(), text_of(&r).as_str()), (200, "deleted"));
    // Upper-case scheme and host name the same resource.
    let upper = s.resource.replace("http://", "HTTP://");
    let r = s
        .call(
            "read_note",
            Some(&bearer(
                &issuer.sign(&claims(&issuer, &upper, "notes:read"), "k1"),
            )),
        )
        .await;
    assert_eq!(r.status.as_u16(), 200);

    // The legacy era: initialize needs the token too, and the session's
    // calls are checked the same way.
    let init = json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}).to_string();
    let r = s.request("POST", "/mcp", &[], &init).await;
    assert_eq!(r.status.as_u16(), 401);
    let auth = bearer(&valid);
    let r = s
        .request("POST", "/mcp", &[("Authorization", &auth)], &init)
        .await;
    assert_eq!(r.status.as_u16(), 200);
    let session = r
        .headers
        .get("mcp-session-id")
        .unwrap()
        .to_str()
        .unwrap()
        .to_owned();
    let h = [
        ("Authorization", auth.as_str()),
        ("Mcp-Session-Id", session.as_str()),
        ("MCP-Protocol-Version", "2025-11-25"),
    ];
    let call = |name: &str| {
        json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":name,"arguments":{}}})
            .to_string()
    };
    let r = s.request("POST", "/mcp", &h, &call("delete_note")).await;
    assert_eq!(
        (r.status.as_u16(), challenge(&r).get("error")),
        (403, Some("insufficient_scope"))
    );
    let r = s.request("POST", "/mcp", &h, &call("whoami")).await;
    assert_eq!(
        (r.status.as_u16(), text_of(&r).as_str()),
        (200, "alice:notes:read")
    );
    let r = s
        .request(
            "POST",
            "/mcp",
            &[("Mcp-Session-Id", session.as_str())],
            &call("whoami"),
        )
        .await;
    assert_eq!(r.status.as_u16(), 401, "a session is no credential");
    // Another subject's valid token cannot use alice's session.
    let mut bob = claims(&issuer, &s.resource, "notes:read");
    bob["sub"] = json!("bob");
    let bob = bearer(&issuer.sign(&bob, "k1"));
    let as_bob = [
        ("Authorization", bob.as_str()),
        ("Mcp-Session-Id", session.as_str()),
        ("MCP-Protocol-Version", "2025-11-25"),
    ];
    let r = s.request("POST", "/mcp", &as_bob, &call("whoami")).await;
    assert_eq!(
        r.status.as_u16(),
        404,
        "a session belongs to the subject that opened it"
    );
    let r = s.request("DELETE", "/mcp", &as_bob, "").await;
    assert_eq!(r.status.as_u16(), 404);
    let r = s.request("POST", "/mcp", &h, &call("whoami")).await;
    assert_eq!(text_of(&r), "alice:notes:read", "alice's session lives on");

    // HTTP+SSE: the stream needs the token as well.
    let r = s.request("GET", "/sse", &[], "").await;
    assert_eq!(r.status.as_u16(), 401);

    let _ = s.stop.send(());
}

#[tokio::test]
async fn introspection_checks_activity_and_audience_and_caches() {
    let issuer = Issuer::start().await;
    let endpoint = format!("{}/introspect", issuer.url);
    let s = serve(&issuer, |resource| {
        let verifier = Introspection::new(endpoint, resource).client_credentials("mcp", "secret");
        Authorization::new(resource, verifier).unwrap()
    })
    .await;
    let good = format!("good.{}", b64(s.resource.as_bytes()));
    let r = s.call("whoami", Some(&format!("Bearer {good}"))).await;
    assert_eq!(
        (r.status.as_u16(), text_of(&r).as_str()),
        (200, "ivan:notes:read")
    );
    let r = s.call("whoami", Some(&format!("Bearer {good}"))).await;
    assert_eq!(r.status.as_u16(), 200);
    assert_eq!(
        issuer.introspections.load(Ordering::SeqCst),
        1,
        "the answer was cached"
    );
    for (what, token) in [
        ("inactive", "bad".to_owned()),
        (
            "another resource",
            format!("good.{}", b64(b"http://127.0.0.1:1/mcp")),
        ),
    ] {
        let r = s.call("whoami", Some(&format!("Bearer {token}"))).await;
        assert_eq!(
            (r.status.as_u16(), challenge(&r).get("error")),
            (401, Some("invalid_token")),
            "{what}"
        );
    }
    let _ = s.stop.send(());
}

#[tokio::test]
async fn the_tower_layer_protects_an_axum_app() {
    let issuer = Issuer::start().await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let resource = format!("{base}/mcp");
    let auth = Authorization::new(&resource, JwtVerifier::new(issuer.url.clone(), &resource))
        .unwrap()
        .authorization_server(issuer.url.clone());
    let mcp = Server::builder("notes", "1")
        .toolbox(Notes)
        .build()
        .http_service(HttpConfig::default());
    let app = axum::Router::new()
        .route_service("/mcp", mcp)
        .route("/me", axum::routing::get(|| async { "me" }))
        .fallback(|| async { (http::StatusCode::NOT_FOUND, "no such page") })
        .layer(auth.layer());
    tokio::spawn(async move { axum::serve(listener, app).await });
    let s = Protected {
        base,
        resource: resource.clone(),
        client: http_client(Duration::from_secs(5), None),
        stop: tokio::sync::oneshot::channel::<()>().0,
    };
    let r = s
        .request("GET", "/.well-known/oauth-protected-resource/mcp", &[], "")
        .await;
    assert_eq!(r.status.as_u16(), 200);
    let r = s.call("whoami", None).await;
    assert_eq!(r.status.as_u16(), 401);
    assert!(challenge(&r).get("resource_metadata").is_some());
    let r = s.request("GET", "/me", &[], "").await;
    assert_eq!(
        r.status.as_u16(),
        401,
        "the app's own routes are protected too"
    );
    let token = issuer.sign(&claims(&issuer, &resource, "notes:read"), "k1");
    let r = s.call("whoami", Some(&format!("Bearer {token}"))).await;
    assert_eq!(
        (r.status.as_u16(), text_of(&r).as_str()),
        (200, "alice:notes:read")
    );
    let r = s
        .call("delete_note", Some(&format!("Bearer {token}")))
        .await;
    assert_eq!(
        (r.status.as_u16(), challenge(&r).get("scope")),
        (403, Some("notes:read notes:write"))
    );
}

#[tokio::test]
async fn a_remembered_token_still_expires() {
    let issuer = Issuer::start().await;
    let issuer_url = issuer.url.clone();
    let s = serve(&issuer, |resource| {
        let verifier = JwtVerifier::new(issuer_url, resource).leeway(Duration::ZERO);
        Authorization::new(resource, verifier).unwrap()
    })
    .await;
    let mut short = claims(&issuer, &s.resource, "notes:read");
    short["exp"] = json!(now() + 2);
    let token = format!("Bearer {}", issuer.sign(&short, "k1"));
    // Verified once, then remembered: served twice.
    for _ in 0..2 {
        let r = s.call("whoami", Some(&token)).await;
        assert_eq!(r.status.as_u16(), 200);
    }
    tokio::time::sleep(Duration::from_secs(4)).await;
    let r = s.call("whoami", Some(&token)).await;
    assert_eq!(
        (r.status.as_u16(), challenge(&r).get("error")),
        (401, Some("invalid_token"))
    );
    let _ = s.stop.send(());
}
