//! OAuth scopes on prompts, resources and templates, on real sockets
//! (127.0.0.1): a token without them is not shown them, and every request
//! that reaches one is answered with the step-up challenge before any
//! handler runs, in both eras; a token with them is served; without
//! authorization nothing changes.
#![cfg(feature = "auth")]
#![allow(clippy::too_many_lines, clippy::unused_self, unreachable_pub)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http::Request;
use http_body_util::{BodyExt, Full};
use oxmcp_server::auth::{Authorization, Identity, TokenError, TokenVerifier, VerifyFuture};
use oxmcp_server::http::HttpConfig;
use oxmcp_server::types::{Resource, ResourceTemplate};
use oxmcp_server::{
    prompt::PromptEntry, prompt::StringArgs, resource::ResourceEntry, resource::TemplateEntry,
    tool, Server,
};
use oxmcp_wire::http_client::{http_client, send, Fetched, HttpClient};
use oxmcp_wire::oauth::Challenge;
use oxmcp_wire::route::NameParam;
use serde_json::{json, Value};

/// `library:read`.
const READER: &str = "reader";
/// `library:read`, `letters:write`, `vault:read`.
const KEEPER: &str = "keeper";
/// `vault:read` only.
const VAULT: &str = "vault";

/// The fixed test tokens, each an identity with its scopes.
struct Tokens;

impl TokenVerifier for Tokens {
    fn verify<'a>(&'a self, token: &'a str) -> VerifyFuture<'a> {
        Box::pin(async move {
            let scopes: &[&str] = match token {
                READER => &["library:read"],
                KEEPER => &["library:read", "letters:write", "vault:read"],
                VAULT => &["vault:read"],
                _ => return Err(TokenError::invalid("unknown token")),
            };
            Ok(Identity::new()
                .with_subject(token)
                .with_scopes(scopes.iter().copied()))
        })
    }
}

/// Every item needs `library:read` (the block's scopes); some need more.
struct Library {
    /// How many times a prompt, resource or completion function ran.
    ran: Arc<AtomicUsize>,
}

#[tool(description = "A library behind OAuth", scopes("library:read"))]
impl Library {
    #[describe("Open the library")]
    pub fn open(&self) -> String {
        "open".into()
    }

    #[prompt]
    #[describe("Greet a visitor")]
    pub fn greet(&self) -> String {
        self.ran();
        "Welcome.".into()
    }

    #[prompt]
    #[describe("Draft a letter")]
    #[tool(scopes("letters:write"))]
    pub fn draft(&self, #[param("To whom")] to: String) -> String {
        self.ran();
        format!("Dear {to},")
    }

    #[complete(draft, to)]
    fn people(&self, typed: &str) -> Vec<String> {
        self.ran();
        ["ada", "alan"]
            .into_iter()
            .filter(|p| p.starts_with(typed))
            .map(str::to_owned)
            .collect()
    }

    #[resource(uri = "library://catalog")]
    #[describe("The catalog")]
    pub fn catalog(&self) -> String {
        self.ran();
        "catalog".into()
    }

    #[resource(uri = "vault://secret")]
    #[describe("The secret")]
    #[tool(scopes("vault:read"))]
    pub fn secret(&self) -> String {
        self.ran();
        "secret".into()
    }

    #[resource(template = "vault://boxes/{id}")]
    #[describe("A safe box")]
    #[tool(scopes("vault:read"))]
    pub fn safe_box(&self, id: String) -> String {
        self.ran();
        format!("box {id}")
    }

    #[complete(safe_box, id)]
    fn box_ids(&self, typed: &str) -> Vec<String> {
        self.ran();
        ["7", "8"]
            .into_iter()
            .filter(|b| b.starts_with(typed))
            .map(str::to_owned)
            .collect()
    }

    fn ran(&self) {
        self.ran.fetch_add(1, Ordering::SeqCst);
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Era {
    /// 2026-07-28: stateless, `_meta` and the `Mcp-*` headers.
    Modern,
    /// 2025-11-25: `initialize`, then `Mcp-Session-Id`.
    Legacy,
}

/// A server on 127.0.0.1, protected by [`Tokens`] or not.
struct Site {
    base: String,
    client: HttpClient,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
}

impl Site {
    async fn start(server: Server, protected: bool) -> Site {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let mut config = HttpConfig::default();
        if protected {
            let auth = Authorization::new(format!("{base}/mcp"), Tokens).unwrap();
            config = config.authorization(auth);
        }
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        tokio::spawn(server.serve_http_on(listener, config, async {
            let _ = stopped.await;
        }));
        Site {
            base,
            client: http_client(Duration::from_secs(5), None),
            stop: Some(stop),
        }
    }

    /// Someone calling in `era` with `token` (a legacy session opened for it).
    async fn caller(&self, era: Era, token: Option<&'static str>) -> Caller<'_> {
        let mut caller = Caller {
            site: self,
            era,
            token,
            session: None,
        };
        if era == Era::Legacy {
            let init = json!({"protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"}});
            let r = caller.send("initialize", init).await;
            assert_eq!(r.status.as_u16(), 200, "{}", text(&r));
            let id = r.headers.get("mcp-session-id").expect("a session id");
            caller.session = Some(id.to_str().unwrap().to_owned());
        }
        caller
    }
}

impl Drop for Site {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

struct Caller<'a> {
    site: &'a Site,
    era: Era,
    token: Option<&'static str>,
    session: Option<String>,
}

impl Caller<'_> {
    /// A request in this caller's era: the `_meta` and `Mcp-*` headers of
    /// 2026-07-28, or the legacy session's id.
    fn request(&self, method: &str, mut params: Value) -> Request<Full<Bytes>> {
        let mut req = Request::builder()
            .method("POST")
            .uri(format!("{}/mcp", self.site.base))
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream");
        if let Some(token) = self.token {
            req = req.header("authorization", format!("Bearer {token}"));
        }
        match (self.era, &self.session) {
            (Era::Modern, _) => {
                params["_meta"] = json!({
                    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                    "io.modelcontextprotocol/clientCapabilities": {},
                    "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"}
                });
                req = req
                    .header("mcp-protocol-version", "2026-07-28")
                    .header("mcp-method", method);
                if let Some(key) = NameParam::of(method).map(NameParam::key) {
                    req = req.header("mcp-name", params[key].as_str().unwrap());
                }
            }
            (Era::Legacy, Some(session)) => {
                req = req
                    .header("mcp-session-id", session.as_str())
                    .header("mcp-protocol-version", "2025-11-25");
            }
            (Era::Legacy, None) => {}
        }
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        req.body(Full::new(Bytes::from(body.to_string()))).unwrap()
    }

    async fn send(&self, method: &str, params: Value) -> Fetched {
        let req = self.request(method, params);
        send(&self.site.client, req, Duration::from_secs(10))
            .await
            .unwrap()
    }

    /// The result of a request that must be served.
    async fn result(&self, method: &str, params: Value) -> Value {
        let r = self.send(method, params).await;
        let what = format!("{method} as {:?} in {:?}", self.token, self.era);
        assert_eq!(r.status.as_u16(), 200, "{what}: {}", text(&r));
        let reply = message(&r);
        assert!(reply.get("error").is_none(), "{what}: {reply}");
        reply["result"].clone()
    }

    /// The `scope` of the step-up challenge a request must be answered with.
    async fn denied(&self, method: &str, params: Value) -> String {
        let r = self.send(method, params).await;
        let what = format!("{method} as {:?} in {:?}", self.token, self.era);
        assert_eq!(r.status.as_u16(), 403, "{what}: {}", text(&r));
        let value = r.headers["www-authenticate"].to_str().unwrap();
        let challenge = Challenge::parse_all(value).remove(0);
        assert!(challenge.is_bearer(), "{what}: {value}");
        assert_eq!(
            challenge.get("error"),
            Some("insufficient_scope"),
            "{what}: {value}"
        );
        assert!(
            challenge.get("resource_metadata").is_some(),
            "{what}: {value}"
        );
        challenge.get("scope").unwrap_or_default().to_owned()
    }

    /// The JSON-RPC error of a request about something that does not exist:
    /// not a scope question.
    async fn not_found(&self, method: &str, params: Value) -> Value {
        let r = self.send(method, params).await;
        let what = format!("{method} as {:?} in {:?}", self.token, self.era);
        assert_ne!(r.status.as_u16(), 403, "{what}");
        assert!(r.headers.get("www-authenticate").is_none(), "{what}");
        let reply = message(&r);
        assert!(reply.get("error").is_some(), "{what}: {reply}");
        reply["error"].clone()
    }

    /// The names (or URIs) a `*/list` shows.
    async fn list(&self, method: &str) -> Vec<String> {
        let (field, key) = match method {
            "prompts/list" => ("prompts", "name"),
            "resources/list" => ("resources", "uri"),
            "resources/templates/list" => ("resourceTemplates", "uriTemplate"),
            _ => ("tools", "name"),
        };
        let result = self.result(method, json!({})).await;
        result[field]
            .as_array()
            .unwrap_or_else(|| panic!("{method}: {result}"))
            .iter()
            .map(|item| item[key].as_str().unwrap().to_owned())
            .collect()
    }

    /// Opens a 2026-07-28 `subscriptions/listen` stream, which must be
    /// served: the resources its acknowledgement agrees to follow.
    async fn listen(&self, uris: &[&str]) -> Value {
        let params = json!({"notifications": {"resourceSubscriptions": uris}});
        let req = self.request("subscriptions/listen", params);
        let read = async {
            let response = self.site.client.request(req).await.unwrap();
            assert_eq!(response.status().as_u16(), 200);
            let mut body = response.into_body();
            let mut seen = String::new();
            while let Some(frame) = body.frame().await {
                if let Ok(data) = frame.unwrap().into_data() {
                    seen.push_str(&String::from_utf8_lossy(&data));
                }
                let ack = sse_messages(&seen)
                    .into_iter()
                    .find(|m| m["method"] == "notifications/subscriptions/acknowledged");
                if let Some(ack) = ack {
                    return ack["params"]["notifications"]["resourceSubscriptions"].clone();
                }
            }
            panic!("the stream ended unacknowledged: {seen}")
        };
        tokio::time::timeout(Duration::from_secs(10), read)
            .await
            .expect("an acknowledgement within 10 s")
    }
}

fn text(r: &Fetched) -> String {
    String::from_utf8_lossy(&r.body).into_owned()
}

/// The response of a request: the JSON body, or the last message of an SSE one.
fn message(r: &Fetched) -> Value {
    let sse = r
        .headers
        .get("content-type")
        .is_some_and(|c| c.as_bytes().starts_with(b"text/event-stream"));
    if sse {
        sse_messages(&text(r)).pop().expect("a message")
    } else {
        serde_json::from_slice(&r.body).unwrap_or_else(|e| panic!("{e}: {}", text(r)))
    }
}

fn sse_messages(text: &str) -> Vec<Value> {
    text.lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .filter(|d| !d.trim().is_empty())
        .filter_map(|d| serde_json::from_str(d.trim()).ok())
        .collect()
}

fn get(name: &str, arguments: &Value) -> Value {
    json!({"name": name, "arguments": arguments})
}

fn read(uri: &str) -> Value {
    json!({"uri": uri})
}

fn complete_prompt(name: &str, argument: &str) -> Value {
    json!({"ref": {"type": "ref/prompt", "name": name}, "argument": {"name": argument, "value": ""}})
}

fn complete_template(uri_template: &str, argument: &str) -> Value {
    json!({"ref": {"type": "ref/resource", "uri": uri_template}, "argument": {"name": argument, "value": ""}})
}

fn library() -> (Server, Arc<AtomicUsize>) {
    let ran = Arc::new(AtomicUsize::new(0));
    let library = Library {
        ran: Arc::clone(&ran),
    };
    (
        Server::builder("library", "1").toolbox(library).build(),
        ran,
    )
}

#[tokio::test]
async fn prompts_resources_and_templates_need_their_scopes_in_both_eras() {
    let (server, ran) = library();
    let site = Site::start(server, true).await;
    let no_args = json!({});
    let to_ada = json!({"to": "ada"});
    for era in [Era::Modern, Era::Legacy] {
        let reader = site.caller(era, Some(READER)).await;

        // The lists leave out what the token lacks scopes for.
        assert_eq!(reader.list("tools/list").await, ["open"], "{era:?}");
        assert_eq!(reader.list("prompts/list").await, ["greet"], "{era:?}");
        assert_eq!(
            reader.list("resources/list").await,
            ["library://catalog"],
            "{era:?}"
        );
        assert!(
            reader.list("resources/templates/list").await.is_empty(),
            "{era:?}"
        );

        // Each request that reaches such an item is the step-up answer,
        // naming the block's scopes and the item's own.
        let letters = "library:read letters:write";
        let vault = "library:read vault:read";
        assert_eq!(
            reader.denied("prompts/get", get("draft", &to_ada)).await,
            letters
        );
        assert_eq!(
            reader
                .denied("resources/read", read("vault://secret"))
                .await,
            vault
        );
        assert_eq!(
            reader
                .denied("resources/read", read("vault://boxes/7"))
                .await,
            vault,
            "a URI the template matches needs the template's scopes"
        );
        assert_eq!(
            reader
                .denied("completion/complete", complete_prompt("draft", "to"))
                .await,
            letters
        );
        assert_eq!(
            reader
                .denied(
                    "completion/complete",
                    complete_template("vault://boxes/{id}", "id")
                )
                .await,
            vault
        );
        match era {
            Era::Legacy => {
                for uri in ["vault://secret", "vault://boxes/7"] {
                    assert_eq!(reader.denied("resources/subscribe", read(uri)).await, vault);
                }
            }
            Era::Modern => {
                let asked = json!({"notifications": {"resourceSubscriptions": ["library://catalog", "vault://boxes/7"]}});
                assert_eq!(reader.denied("subscriptions/listen", asked).await, vault);
            }
        }
        // The block's scopes guard its prompts and resources too.
        let vault_only = site.caller(era, Some(VAULT)).await;
        assert!(vault_only.list("prompts/list").await.is_empty(), "{era:?}");
        assert_eq!(
            vault_only
                .denied("prompts/get", get("greet", &no_args))
                .await,
            "library:read"
        );
        assert_eq!(
            vault_only
                .denied("resources/read", read("library://catalog"))
                .await,
            "library:read"
        );
        assert_eq!(
            vault_only
                .denied("resources/read", read("vault://secret"))
                .await,
            vault
        );

        // What does not exist is not a scope question.
        reader
            .not_found("prompts/get", get("no_such_prompt", &no_args))
            .await;
        reader
            .not_found("resources/read", read("vault://nothing"))
            .await;
        reader
            .not_found(
                "completion/complete",
                complete_prompt("no_such_prompt", "to"),
            )
            .await;
        assert_eq!(ran.load(Ordering::SeqCst), 0, "no handler ran ({era:?})");

        // What the token has scopes for is served.
        let greeting = reader.result("prompts/get", get("greet", &no_args)).await;
        assert_eq!(greeting["messages"][0]["content"]["text"], "Welcome.");
        let catalog = reader
            .result("resources/read", read("library://catalog"))
            .await;
        assert_eq!(catalog["contents"][0]["text"], "catalog");
        if era == Era::Modern {
            assert_eq!(
                catalog["cacheScope"], "private",
                "what a token opened is not for shared caches"
            );
        }

        // A token with every scope sees and gets everything.
        let keeper = site.caller(era, Some(KEEPER)).await;
        assert_eq!(keeper.list("prompts/list").await, ["draft", "greet"]);
        assert_eq!(
            keeper.list("resources/list").await,
            ["library://catalog", "vault://secret"]
        );
        assert_eq!(
            keeper.list("resources/templates/list").await,
            ["vault://boxes/{id}"]
        );
        let letter = keeper.result("prompts/get", get("draft", &to_ada)).await;
        assert_eq!(letter["messages"][0]["content"]["text"], "Dear ada,");
        let secret = keeper
            .result("resources/read", read("vault://secret"))
            .await;
        assert_eq!(secret["contents"][0]["text"], "secret");
        let safe_box = keeper
            .result("resources/read", read("vault://boxes/7"))
            .await;
        assert_eq!(safe_box["contents"][0]["text"], "box 7");
        let people = keeper
            .result("completion/complete", complete_prompt("draft", "to"))
            .await;
        assert_eq!(people["completion"]["values"], json!(["ada", "alan"]));
        let boxes = keeper
            .result(
                "completion/complete",
                complete_template("vault://boxes/{id}", "id"),
            )
            .await;
        assert_eq!(boxes["completion"]["values"], json!(["7", "8"]));
        match era {
            Era::Legacy => {
                keeper
                    .result("resources/subscribe", read("vault://boxes/7"))
                    .await;
            }
            Era::Modern => {
                let agreed = keeper.listen(&["vault://secret", "vault://boxes/7"]).await;
                assert_eq!(agreed, json!(["vault://secret", "vault://boxes/7"]));
                let agreed = reader.listen(&["library://catalog"]).await;
                assert_eq!(agreed, json!(["library://catalog"]));
            }
        }
        assert_eq!(ran.swap(0, Ordering::SeqCst), 7, "{era:?}");
    }
}

#[tokio::test]
async fn hand_built_prompts_resources_and_templates_take_scopes_too() {
    let ran = Arc::new(AtomicUsize::new(0));
    let (p, r, t) = (Arc::clone(&ran), Arc::clone(&ran), Arc::clone(&ran));
    let prompt = PromptEntry::dynamic("memo", "A memo", vec![], move |_: StringArgs, _| {
        p.fetch_add(1, Ordering::SeqCst);
        async { "memo" }
    })
    .unwrap()
    .with_scopes(["memo:read"]);
    let resource = ResourceEntry::dynamic(Resource::new("memo://today", "today"), move |_, _| {
        r.fetch_add(1, Ordering::SeqCst);
        async { "today" }
    })
    .unwrap()
    .with_scopes(["memo:read"]);
    let template = TemplateEntry::dynamic(
        ResourceTemplate::new("memo://days/{day}", "day"),
        move |_, _| {
            t.fetch_add(1, Ordering::SeqCst);
            async { "a day" }
        },
    )
    .unwrap()
    .with_scopes(["memo:read", "memo:archive"]);
    assert_eq!(
        template.scopes().collect::<Vec<_>>(),
        ["memo:read", "memo:archive"]
    );
    let server = Server::builder("memos", "1")
        .prompt(prompt)
        .resource(resource)
        .resource_template(template)
        .build();
    let site = Site::start(server, true).await;
    let reader = site.caller(Era::Modern, Some(READER)).await;
    assert!(reader.list("prompts/list").await.is_empty());
    assert!(reader.list("resources/list").await.is_empty());
    assert!(reader.list("resources/templates/list").await.is_empty());
    assert_eq!(
        reader.denied("prompts/get", get("memo", &json!({}))).await,
        "memo:read"
    );
    assert_eq!(
        reader.denied("resources/read", read("memo://today")).await,
        "memo:read"
    );
    assert_eq!(
        reader
            .denied("resources/read", read("memo://days/monday"))
            .await,
        "memo:read memo:archive"
    );
    assert_eq!(ran.load(Ordering::SeqCst), 0, "no handler ran");
}

#[tokio::test]
async fn without_authorization_scopes_change_nothing() {
    let (server, ran) = library();
    let site = Site::start(server, false).await;
    for era in [Era::Modern, Era::Legacy] {
        let anyone = site.caller(era, None).await;
        assert_eq!(anyone.list("prompts/list").await, ["draft", "greet"]);
        assert_eq!(
            anyone.list("resources/list").await,
            ["library://catalog", "vault://secret"]
        );
        assert_eq!(
            anyone.list("resources/templates/list").await,
            ["vault://boxes/{id}"]
        );
        let letter = anyone
            .result("prompts/get", get("draft", &json!({"to": "ada"})))
            .await;
        assert_eq!(letter["messages"][0]["content"]["text"], "Dear ada,");
        let safe_box = anyone
            .result("resources/read", read("vault://boxes/7"))
            .await;
        assert_eq!(safe_box["contents"][0]["text"], "box 7");
        let people = anyone
            .result("completion/complete", complete_prompt("draft", "to"))
            .await;
        assert_eq!(people["completion"]["values"], json!(["ada", "alan"]));
        if era == Era::Modern {
            assert_eq!(
                anyone.listen(&["vault://secret"]).await,
                json!(["vault://secret"])
            );
        } else {
            anyone
                .result("resources/subscribe", read("vault://secret"))
                .await;
        }
    }
    assert_eq!(ran.load(Ordering::SeqCst), 6);
}
