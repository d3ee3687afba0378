//! What a security review of the protected server found, each on real
//! sockets against a scratch issuer on 127.0.0.1: a session belongs to
//! whoever opened it whatever claims the token has, one identity cannot hold
//! every session or open streams without end, a stream ends with its token,
//! failed key fetches are shared, throttled and answered at once, a key the
//! issuer withdraws stops being trusted, `allow_any_host` still checks
//! Origin, `typ` is checked when asked, no log line carries a token, a
//! retry refused for its scopes has not used its `requestState`, and
//! plain-http key sets and introspection endpoints are refused without a
//! byte sent (inside a network namespace the test makes).
#![allow(clippy::too_many_lines, clippy::unused_self, unreachable_pub)]

use mcp_test_support::server as support;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http::Request;
use http_body_util::Full;
use jsonwebtoken::{Algorithm, Header};
use oxmcp_server::auth::{Authorization, Introspection, JwtVerifier, TokenVerifier};
use oxmcp_server::http::HttpConfig;
use oxmcp_server::{tool, Context, Server};
use oxmcp_wire::http_client::{http_client, send, Fetched, HttpClient};
use oxmcp_wire::oauth::Challenge;
use serde_json::{json, Value};
use support::issuer::{self, b64, now, Issuer, Jwks};
use support::{http_request, HttpConn};

struct Notes;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Answer {
    /// Yes or no
    answer: String,
}

#[tool(description = "Notes behind OAuth")]
impl Notes {
    #[describe("Asks the user to confirm")]
    pub async fn confirm(&self, ctx: Context) -> Result<String, oxmcp_server::ToolError> {
        match ctx.elicit::<Answer>("Sure?").await? {
            oxmcp_server::ask::Elicited::Accepted(a) => Ok(a.answer),
            _ => Ok("declined".into()),
        }
    }

    #[describe("Asks the user to confirm a change")]
    #[tool(scopes("notes:write"))]
    pub async fn confirm_change(&self, ctx: Context) -> Result<String, oxmcp_server::ToolError> {
        self.confirm(ctx).await
    }

    #[describe("Who is calling")]
    pub fn whoami(&self, ctx: Context) -> String {
        let who = ctx.identity().expect("an identity on a protected server");
        who.subject()
            .or(who.client_id())
            .unwrap_or("nobody")
            .to_owned()
    }
}

/// The protected server under test.
struct Served {
    base: String,
    resource: String,
    client: HttpClient,
    _stop: tokio::sync::oneshot::Sender<()>,
}

/// A server checking JWTs from `issuer` (set up by `jwt`).
async fn serve(
    issuer: &Issuer,
    jwt: impl FnOnce(JwtVerifier) -> JwtVerifier,
    config: HttpConfig,
) -> Served {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let resource = format!("{base}/mcp");
    let verifier = jwt(JwtVerifier::new(issuer.url.clone(), &resource));
    let auth = Authorization::new(&resource, verifier)
        .unwrap()
        .authorization_server(issuer.url.clone());
    let server = Server::builder("notes", "1").toolbox(Notes).build();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(
        server.serve_http_on(listener, config.authorization(auth), async {
            let _ = stopped.await;
        }),
    );
    Served {
        base,
        resource,
        client: http_client(Duration::from_secs(5), None),
        _stop: stop,
    }
}

fn bearer(token: &str) -> String {
    format!("Bearer {token}")
}

impl Served {
    async fn request(&self, method: &str, headers: &[(&str, &str)], body: &str) -> Fetched {
        let url = format!("{}/mcp", self.base);
        issuer::request(
            &self.client,
            method,
            &url,
            headers,
            body,
            Duration::from_secs(20),
        )
        .await
    }

    /// A 2026-07-28 `whoami` call with this token.
    async fn call(&self, token: &str) -> Fetched {
        let body = json!({"jsonrpc":"2.0","id":1,"method":"tools/call",
            "params":{"name":"whoami","arguments":{},"_meta":support::modern_meta()}});
        let auth = bearer(token);
        self.request(
            "POST",
            &[
                ("MCP-Protocol-Version", "2026-07-28"),
                ("Mcp-Method", "tools/call"),
                ("Mcp-Name", "whoami"),
                ("Authorization", &auth),
            ],
            &body.to_string(),
        )
        .await
    }

    /// A 2026-07-28 call of `tool` from a client that can answer
    /// elicitations, with this token and `extra` params (a retry's
    /// `inputResponses` and `requestState`).
    async fn call_asking(&self, tool: &str, token: &str, extra: Value) -> Fetched {
        let mut meta = support::modern_meta();
        meta["io.modelcontextprotocol/clientCapabilities"] = json!({"elicitation": {}});
        let mut params = json!({"name": tool, "arguments": {}, "_meta": meta});
        for (k, v) in extra.as_object().unwrap() {
            params[k] = v.clone();
        }
        let body = json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":params});
        let auth = bearer(token);
        self.request(
            "POST",
            &[
                ("MCP-Protocol-Version", "2026-07-28"),
                ("Mcp-Method", "tools/call"),
                ("Mcp-Name", tool),
                ("Authorization", &auth),
            ],
            &body.to_string(),
        )
        .await
    }

    /// A legacy session opened with this token: its id, or the status.
    async fn initialize(&self, token: &str) -> Result<String, u16> {
        let init = json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{
            "protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}});
        let r = self
            .request(
                "POST",
                &[("Authorization", &bearer(token))],
                &init.to_string(),
            )
            .await;
        match r.headers.get("mcp-session-id") {
            Some(id) if r.status == 200 => Ok(id.to_str().unwrap().to_owned()),
            _ => Err(r.status.as_u16()),
        }
    }

    /// `whoami` in a legacy session, with this token: the status and the text.
    async fn call_in(&self, session: &str, token: &str) -> (u16, String) {
        let body = json!({"jsonrpc":"2.0","id":2,"method":"tools/call",
            "params":{"name":"whoami","arguments":{}}});
        let auth = bearer(token);
        let r = self
            .request(
                "POST",
                &[
                    ("Authorization", &auth),
                    ("Mcp-Session-Id", session),
                    ("MCP-Protocol-Version", "2025-11-25"),
                ],
                &body.to_string(),
            )
            .await;
        (r.status.as_u16(), text_of(&r))
    }

    /// Opens a session's standalone GET stream on a connection of its own
    /// (closed by the server when the stream ends).
    async fn open_stream(&self, session: &str, token: &str) -> HttpConn {
        let addr: std::net::SocketAddr = self.base.trim_start_matches("http://").parse().unwrap();
        let mut conn = HttpConn::connect(addr).await;
        let auth = bearer(token);
        let headers = [
            ("Accept", "text/event-stream"),
            ("Authorization", auth.as_str()),
            ("Mcp-Session-Id", session),
            ("MCP-Protocol-Version", "2025-11-25"),
            ("Connection", "close"),
        ];
        conn.write(&http_request("GET", "/mcp", addr.port(), &headers, b""))
            .await;
        let head = conn.read_head().await.expect("the stream's head");
        assert_eq!(head.status, 200, "{head:?}");
        conn
    }
}

fn text_of(r: &Fetched) -> String {
    serde_json::from_slice::<Value>(&r.body).map_or_else(
        |_| String::new(),
        |v| {
            v["result"]["content"][0]["text"]
                .as_str()
                .unwrap_or_default()
                .to_owned()
        },
    )
}

fn challenge(r: &Fetched) -> Option<Challenge> {
    let value = r.headers.get("www-authenticate")?.to_str().ok()?;
    Challenge::parse_all(value).into_iter().next()
}

/// Claims for `aud` with some members removed or set.
fn claims_with(issuer: &Issuer, aud: &str, remove: &[&str], set: &Value) -> Value {
    let mut c = issuer.claims(aud, "notes:read");
    for name in remove {
        c.as_object_mut().unwrap().remove(*name);
    }
    for (k, v) in set.as_object().unwrap() {
        c[k] = v.clone();
    }
    c
}

#[tokio::test]
async fn a_session_belongs_to_its_opener_whatever_claims_its_token_has() {
    let issuer = Issuer::start().await;
    let s = serve(&issuer, |v| v, HttpConfig::default()).await;
    let aud = s.resource.clone();
    let token =
        |remove: &[&str], set: Value| issuer.sign(&claims_with(&issuer, &aud, remove, &set), "k1");

    // No `sub`: the session is the client's.
    let client = token(&["sub"], json!({}));
    let same_client = token(&["sub"], json!({"exp": now() + 601}));
    let other_client = token(&["sub"], json!({"client_id": "other"}));
    let bob = token(&[], json!({"sub": "bob"}));
    let nobody = token(&["sub", "client_id"], json!({}));
    let nobody_else = token(&["sub", "client_id"], json!({"exp": now() + 601}));

    let session = s.initialize(&client).await.unwrap();
    assert_eq!(s.call_in(&session, &client).await, (200, "cli".into()));
    for (who, t) in [
        ("another subject", &bob),
        ("another client", &other_client),
        ("a token naming nobody", &nobody),
    ] {
        assert_eq!(
            s.call_in(&session, t).await.0,
            404,
            "{who} cannot use a session opened by a client's token without `sub`"
        );
    }
    assert_eq!(
        s.call_in(&session, &same_client).await,
        (200, "cli".into()),
        "the same client with a new token can"
    );

    // Neither `sub` nor a client: the session is the token's.
    let session = s.initialize(&nobody).await.unwrap();
    assert_eq!(s.call_in(&session, &nobody).await, (200, "nobody".into()));
    for (who, t) in [
        ("another token naming nobody", &nobody_else),
        ("a subject", &bob),
        ("a client", &client),
    ] {
        assert_eq!(
            s.call_in(&session, t).await.0,
            404,
            "{who} cannot use a session opened by a token naming nobody"
        );
    }
    let r = s
        .request(
            "DELETE",
            &[
                ("Authorization", &bearer(&nobody_else)),
                ("Mcp-Session-Id", &session),
            ],
            "",
        )
        .await;
    assert_eq!(r.status.as_u16(), 404, "nor end it");
    assert_eq!(s.call_in(&session, &nobody).await.0, 200);
}

#[tokio::test]
async fn one_identity_cannot_hold_every_session() {
    let issuer = Issuer::start().await;
    let s = serve(
        &issuer,
        |v| v,
        HttpConfig::default().max_sessions_per_owner(2),
    )
    .await;
    let alice = issuer.sign(&issuer.claims(&s.resource, "notes:read"), "k1");
    let alice_again = issuer.sign(
        &claims_with(&issuer, &s.resource, &[], &json!({"exp": now() + 601})),
        "k1",
    );
    let bob = issuer.sign(
        &claims_with(&issuer, &s.resource, &[], &json!({"sub": "bob"})),
        "k1",
    );
    let first = s.initialize(&alice).await.unwrap();
    s.initialize(&alice_again).await.unwrap();
    assert_eq!(
        s.initialize(&alice).await,
        Err(429),
        "a third session for alice, whatever her token"
    );
    s.initialize(&bob).await.expect("bob is another identity");
    let r = s
        .request(
            "DELETE",
            &[
                ("Authorization", &bearer(&alice)),
                ("Mcp-Session-Id", &first),
            ],
            "",
        )
        .await;
    assert_eq!(r.status.as_u16(), 200);
    s.initialize(&alice)
        .await
        .expect("an ended session frees its place");
}

#[tokio::test]
async fn a_session_keeps_one_standalone_stream() {
    let issuer = Issuer::start().await;
    let s = serve(&issuer, |v| v, HttpConfig::default()).await;
    let token = issuer.sign(&issuer.claims(&s.resource, "notes:read"), "k1");
    let session = s.initialize(&token).await.unwrap();
    let mut first = s.open_stream(&session, &token).await;
    assert!(!first.is_closed_within(Duration::from_millis(300)).await);
    let mut second = s.open_stream(&session, &token).await;
    assert!(
        first.is_closed_within(Duration::from_secs(10)).await,
        "a new GET stream replaces the session's one before"
    );
    assert!(!second.is_closed_within(Duration::from_millis(500)).await);
}

#[tokio::test]
async fn a_stream_ends_when_its_token_expires() {
    let issuer = Issuer::start().await;
    let s = serve(&issuer, |v| v, HttpConfig::default()).await;
    let exp = now() + 4;
    let short = issuer.sign(
        &claims_with(&issuer, &s.resource, &[], &json!({"exp": exp})),
        "k1",
    );
    let session = s.initialize(&short).await.unwrap();
    let mut stream = s.open_stream(&session, &short).await;
    // Open while the token lives (however long the setup took on a busy
    // machine: the second before `exp` is left out, as whole seconds round).
    let alive = exp.saturating_sub(now()).saturating_sub(1);
    if alive > 0 {
        assert!(!stream.is_closed_within(Duration::from_secs(alive)).await);
    }
    assert!(
        stream.is_closed_within(Duration::from_secs(10)).await,
        "the stream outlived the token that opened it"
    );
}

#[tokio::test]
async fn a_request_state_is_accepted_from_the_caller_it_was_issued_to_only() {
    let issuer = Issuer::start().await;
    let s = serve(&issuer, |v| v, HttpConfig::default()).await;
    let alice = issuer.sign(&issuer.claims(&s.resource, "notes:read"), "k1");
    let mallory = issuer.sign(
        &claims_with(&issuer, &s.resource, &[], &json!({"sub": "mallory"})),
        "k1",
    );
    let call = |token: &str, extra: Value| {
        let s = &s;
        let token = token.to_owned();
        async move {
            let r = s.call_asking("confirm", &token, extra).await;
            serde_json::from_slice::<Value>(&r.body).unwrap()
        }
    };
    let first = call(&alice, json!({})).await;
    assert_eq!(first["result"]["resultType"], "input_required", "{first}");
    let key = support::first_input_key(&first["result"]);
    let state = first["result"]["requestState"].as_str().unwrap().to_owned();
    let answer = json!({"inputResponses": {key: {"action": "accept", "content": {"answer": "yes"}}},
        "requestState": state});
    let stolen = call(&mallory, answer.clone()).await;
    assert_eq!(stolen["error"]["code"], -32602, "{stolen}");
    assert!(
        stolen["error"]["message"]
            .as_str()
            .unwrap()
            .contains("another caller"),
        "{stolen}"
    );
    let resumed = call(&alice, answer).await;
    assert_eq!(resumed["result"]["content"][0]["text"], "yes", "{resumed}");
}

/// The scope step-up comes before the `requestState` claim in the store the
/// instances share: a retry refused for its token's scopes has not used its
/// state, and the same retry with a token that has them is served.
#[tokio::test]
async fn a_retry_refused_for_its_scopes_has_not_used_its_state() {
    let issuer = Issuer::start().await;
    let config = HttpConfig::default().store(oxmcp_server::state::MemoryStore::new());
    let s = serve(&issuer, |v| v, config).await;
    // The same subject (alice), with and without the scope the tool needs.
    let writer = issuer.sign(&issuer.claims(&s.resource, "notes:read notes:write"), "k1");
    let reader = issuer.sign(&issuer.claims(&s.resource, "notes:read"), "k1");
    let first = s.call_asking("confirm_change", &writer, json!({})).await;
    let first: Value = serde_json::from_slice(&first.body).unwrap();
    assert_eq!(first["result"]["resultType"], "input_required", "{first}");
    let key = support::first_input_key(&first["result"]);
    let state = first["result"]["requestState"].as_str().unwrap().to_owned();
    let answer = json!({"inputResponses": {key: {"action": "accept", "content": {"answer": "yes"}}},
        "requestState": state});

    let refused = s
        .call_asking("confirm_change", &reader, answer.clone())
        .await;
    assert_eq!(refused.status.as_u16(), 403, "{refused:?}");
    let c = challenge(&refused).expect("a step-up challenge");
    assert_eq!(c.get("error"), Some("insufficient_scope"), "{c:?}");

    let resumed = s
        .call_asking("confirm_change", &writer, answer.clone())
        .await;
    let resumed: Value = serde_json::from_slice(&resumed.body).unwrap();
    assert_eq!(resumed["result"]["content"][0]["text"], "yes", "{resumed}");
    // And the state is used now: once across the instances.
    let replayed = s.call_asking("confirm_change", &writer, answer).await;
    let replayed: Value = serde_json::from_slice(&replayed.body).unwrap();
    assert_eq!(replayed["error"]["code"], -32602, "{replayed}");
}

/// A token no key verifies (it need not be signed) naming the key `kid`.
fn junk(aud: &str, kid: &str) -> String {
    let header = json!({"alg": "ES256", "typ": "JWT", "kid": kid});
    let claims = json!({"iss": "x", "aud": aud, "exp": now() + 60});
    format!(
        "{}.{}.{}",
        b64(header.to_string().as_bytes()),
        b64(claims.to_string().as_bytes()),
        b64(&[7; 64])
    )
}

#[tokio::test]
async fn failed_key_fetches_are_shared_throttled_and_answered_at_once() {
    let issuer = Issuer::start().await;
    let lag = Duration::from_secs(2);
    issuer.set_jwks(Jwks {
        status: 500,
        delay: lag,
        cache_control: None,
    });
    let s = Arc::new(serve(&issuer, |v| v, HttpConfig::default()).await);

    // Eight junk tokens at once while the issuer is down and slow: one
    // fetch, shared; every one answered 503 with Retry-After, none queued
    // behind the others' timeouts.
    let started = Instant::now();
    let calls: Vec<_> = (0..8)
        .map(|i| {
            let s = Arc::clone(&s);
            let token = junk(&s.resource, &format!("zz{i}"));
            tokio::spawn(async move {
                let r = s.call(&token).await;
                (r, started.elapsed())
            })
        })
        .collect();
    for call in calls {
        let (r, took) = call.await.unwrap();
        assert_eq!(
            r.status.as_u16(),
            503,
            "{}",
            String::from_utf8_lossy(&r.body)
        );
        let retry: u64 = r.headers["retry-after"].to_str().unwrap().parse().unwrap();
        assert!((1..=60).contains(&retry), "Retry-After: {retry}");
        assert!(
            took < lag * 3,
            "a request waited {took:?}: behind other requests' fetches"
        );
    }
    assert_eq!(
        issuer.fetches(),
        1,
        "one fetch served every waiting request"
    );

    // While backing off, nothing is fetched and the answer comes at once.
    let r = s.call(&junk(&s.resource, "zz9")).await;
    assert_eq!(r.status.as_u16(), 503);
    assert!(r.headers.contains_key("retry-after"));
    assert_eq!(issuer.fetches(), 1, "no fetch during the back-off");

    // Once the issuer is back and the back-off has passed, tokens verify.
    issuer.set_jwks(Jwks::default());
    tokio::time::sleep(Duration::from_millis(1200)).await;
    let valid = issuer.sign(&issuer.claims(&s.resource, "notes:read"), "k1");
    let r = s.call(&valid).await;
    assert_eq!(
        (r.status.as_u16(), text_of(&r).as_str()),
        (200, "alice"),
        "{}",
        String::from_utf8_lossy(&r.body)
    );
    assert_eq!(issuer.fetches(), 2);
}

#[tokio::test]
async fn a_key_the_issuer_withdraws_stops_being_trusted() {
    // The issuer says how long its set may be kept; or it says a day and
    // the ceiling wins.
    for (cache_control, ceiling) in [
        ("max-age=1", Duration::from_secs(3600)),
        ("public, max-age=86400", Duration::from_secs(1)),
    ] {
        let issuer = Issuer::start().await;
        issuer.set_jwks(Jwks {
            cache_control: Some(cache_control.into()),
            ..Jwks::default()
        });
        let s = serve(
            &issuer,
            move |v| v.key_set_max_age(Duration::from_secs(600), ceiling),
            HttpConfig::default(),
        )
        .await;
        let old = issuer.sign(&issuer.claims(&s.resource, "notes:read"), "k1");
        assert_eq!(s.call(&old).await.status.as_u16(), 200, "{cache_control}");
        assert_eq!(s.call(&old).await.status.as_u16(), 200, "remembered");

        // k1 is rotated out (compromised, say); k2 signs from now on.
        issuer.add_key("k2");
        issuer.withdraw("k1");
        tokio::time::sleep(Duration::from_millis(1500)).await;
        let r = s.call(&old).await;
        assert_eq!(
            (
                r.status.as_u16(),
                challenge(&r).and_then(|c| c.get("error").map(str::to_owned))
            ),
            (401, Some("invalid_token".into())),
            "{cache_control}: a token verified with a withdrawn key is forgotten"
        );
        let forged = issuer.sign(&issuer.claims(&s.resource, "notes:read"), "k1");
        assert_eq!(
            s.call(&forged).await.status.as_u16(),
            401,
            "{cache_control}"
        );
        let new = issuer.sign(&issuer.claims(&s.resource, "notes:read"), "k2");
        assert_eq!(s.call(&new).await.status.as_u16(), 200, "{cache_control}");
    }
}

#[tokio::test]
async fn allow_any_host_still_checks_origin() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = Server::builder("notes", "1").toolbox(Notes).build();
    tokio::spawn(
        server.serve_http_on(
            listener,
            HttpConfig::default()
                .allow_any_host()
                .allow_origin("https://app.example.com"),
            std::future::pending(),
        ),
    );
    let client = http_client(Duration::from_secs(5), None);
    let init = json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{
        "protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})
    .to_string();
    let post = |host: &'static str, origin: Option<&'static str>| {
        let mut req = Request::builder()
            .method("POST")
            .uri(format!("http://{addr}/mcp"))
            .header("host", host)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream");
        if let Some(o) = origin {
            req = req.header("origin", o);
        }
        let req = req.body(Full::new(Bytes::from(init.clone()))).unwrap();
        let client = client.clone();
        async move {
            send(&client, req, Duration::from_secs(10))
                .await
                .unwrap()
                .status
                .as_u16()
        }
    };
    // A DNS-rebinding page: Host and Origin both name the attacker.
    assert_eq!(post("evil.example", Some("http://evil.example")).await, 403);
    assert_eq!(post("evil.example", None).await, 200, "any Host");
    assert_eq!(
        post("evil.example", Some("https://app.example.com")).await,
        200,
        "an origin allowed by name"
    );
    assert_eq!(
        post("mcp.example", Some("http://localhost:5173")).await,
        200,
        "an origin on a listed host"
    );
}

#[tokio::test]
async fn the_access_token_type_is_checked_when_asked() {
    let issuer = Issuer::start().await;
    let s = serve(
        &issuer,
        JwtVerifier::require_access_token_type,
        HttpConfig::default(),
    )
    .await;
    let claims = issuer.claims(&s.resource, "notes:read");
    let typed = |typ: Option<&str>| {
        let mut h = Header::new(Algorithm::ES256);
        h.kid = Some("k1".into());
        h.typ = typ.map(str::to_owned);
        issuer.sign_with(&h, &claims)
    };
    for (typ, status) in [
        (Some("at+jwt"), 200),
        (Some("application/at+JWT"), 200),
        (Some("JWT"), 401),
        (None, 401),
    ] {
        assert_eq!(s.call(&typed(typ)).await.status.as_u16(), status, "{typ:?}");
    }
}

/// Everything written by the `tracing` subscriber of the test's thread.
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

#[tokio::test(flavor = "current_thread")]
async fn no_log_line_at_any_level_carries_a_token() {
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);

    let issuer = Issuer::start().await;
    // Keys kept a second: the outage below is met by a fetch that fails.
    let s = serve(
        &issuer,
        |v| v.key_set_max_age(Duration::from_secs(1), Duration::from_secs(1)),
        HttpConfig::default(),
    )
    .await;
    let valid = issuer.sign(&issuer.claims(&s.resource, "notes:read"), "k1");
    let expired = issuer.sign(
        &claims_with(&issuer, &s.resource, &[], &json!({"exp": now() - 600})),
        "k1",
    );
    let foreign = issuer.sign(&issuer.claims("https://elsewhere.example/mcp", "x"), "k1");
    let unknown_key = junk(&s.resource, "nope");
    let mut tokens = vec![valid.clone(), expired, foreign, unknown_key];
    for t in &tokens {
        s.call(t).await;
    }
    let session = s.initialize(&valid).await.unwrap();
    s.call_in(&session, &valid).await;
    // The issuer goes down: the keys cannot be fetched again.
    issuer.set_jwks(Jwks {
        status: 500,
        ..Jwks::default()
    });
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let down = junk(&s.resource, "later");
    assert_eq!(s.call(&down).await.status.as_u16(), 503);
    tokens.push(down);

    // Introspection sends the token to the issuer; it must not log it either.
    let endpoint = format!("{}/introspect", issuer.url);
    let verifier = Introspection::new(endpoint, &s.resource).client_credentials("mcp", "secret");
    let good = format!("good.{}", b64(s.resource.as_bytes()));
    verifier.verify(&good).await.unwrap();
    tokens.push(good);

    let logs = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
    assert!(
        logs.contains("fetched the issuer's keys") && logs.contains("TRACE"),
        "the capture sees the server's and its dependencies' logs at every level"
    );
    for token in &tokens {
        // Any recognisable piece: each of the JWT's parts, or the whole.
        for part in token.split('.').filter(|p| p.len() >= 16) {
            assert!(!logs.contains(part), "a log line carries a token: …{part}…");
        }
    }
    assert!(
        !logs.contains("secret"),
        "a log line carries the client secret"
    );
}

#[test]
fn plain_http_key_sets_and_introspection_are_refused_and_nothing_is_sent() {
    support::netns::in_network_namespace(
        "auth_review::plain_http_in_a_namespace",
        &["10.9.9.9/32"],
    );
}

#[tokio::test]
#[ignore = "run by plain_http_key_sets_and_introspection_are_refused_and_nothing_is_sent, inside a network namespace"]
async fn plain_http_in_a_namespace() {
    support::netns::assert_in_network_namespace();
    // A host that is not loopback, inside the namespace: it counts what reaches it.
    let remote = tokio::net::TcpListener::bind("10.9.9.9:0").await.unwrap();
    let remote_addr = remote.local_addr().unwrap();
    let reached = Arc::new(Mutex::new(0usize));
    let count = Arc::clone(&reached);
    tokio::spawn(async move {
        while let Ok((_tcp, _)) = remote.accept().await {
            *count.lock().unwrap() += 1;
        }
    });

    // An issuer on loopback whose metadata names a plain-http key set there.
    let issuer = Issuer::start_with(move |_| format!("http://{remote_addr}/jwks")).await;
    let s = serve(&issuer, |v| v, HttpConfig::default()).await;
    let token = issuer.sign(&issuer.claims(&s.resource, "notes:read"), "k1");
    assert_eq!(
        s.call(&token).await.status.as_u16(),
        503,
        "plain-http jwks_uri"
    );

    // The key set named directly, and the issuer itself on plain http there.
    let remote_issuer = format!("http://{remote_addr}");
    for verifier in [
        JwtVerifier::new(&issuer.url, &s.resource).jwks_uri(format!("{remote_issuer}/jwks")),
        JwtVerifier::new(&remote_issuer, &s.resource),
    ] {
        assert!(matches!(
            verifier.verify(&token).await,
            Err(oxmcp_server::auth::TokenError::Unavailable { .. })
        ));
    }
    let introspection = Introspection::new(format!("{remote_issuer}/introspect"), &s.resource)
        .client_credentials("mcp", "secret");
    assert!(matches!(
        introspection.verify("some-token").await,
        Err(oxmcp_server::auth::TokenError::Unavailable { .. })
    ));
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(
        *reached.lock().unwrap(),
        0,
        "nothing was sent to {remote_addr}"
    );

    // The address does answer: anything sent would have been seen.
    drop(tokio::net::TcpStream::connect(remote_addr).await.unwrap());
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(*reached.lock().unwrap(), 1);
}
