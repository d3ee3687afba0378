//! Prompts, resources, templates and resource subscriptions over Streamable
//! HTTP on a real socket (127.0.0.1), in both eras: paging and invented
//! cursors, a missing prompt argument, a `requestState` used twice, legacy
//! `resources/subscribe` heard on exactly the subscribed session's GET
//! stream, a 2026-07-28 `subscriptions/listen` resource filter, and a
//! legacy batch whose call asks the client.
#![cfg(feature = "http")]
#![allow(clippy::too_many_lines, clippy::format_push_string)]

use mcp_test_support::server as support;

use std::time::Duration;

use oxmcp_server::http::HttpConfig;
use oxmcp_server::types::sampling::{CreateMessageParams, SamplingMessage};
use oxmcp_server::{
    ask::Elicited, prompt::PromptEntry, tool, Context, RequestError, Server, ServerHandle,
    ToolError,
};
use serde_json::{json, Value};
use support::{
    as_refs, http_request, legacy_headers, modern_meta, modern_meta_with, with_json, HttpServer,
    Response, Stream,
};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Name {
    /// Your name
    name: String,
}

#[derive(Debug)]
pub struct Shelf;

#[tool(description = "A shelf of books, as prompts and resources")]
impl Shelf {
    #[prompt]
    #[describe("Greet a reader")]
    pub fn greet(&self, #[param("Who")] name: String) -> String {
        format!("Hello {name}")
    }

    #[prompt]
    #[describe("Say goodbye")]
    pub fn farewell(&self) -> &'static str {
        "Goodbye"
    }

    #[prompt]
    #[describe("Asks the reader's name first")]
    pub async fn interview(&self, ctx: Context) -> Result<String, RequestError> {
        match ctx.elicit::<Name>("Your name?").await? {
            Elicited::Accepted(n) => Ok(format!("Interview {}", n.name)),
            _ => Ok("no interview".into()),
        }
    }

    #[resource(uri = "shelf://a", mime_type = "text/plain")]
    #[describe("Shelf A")]
    pub fn a(&self) -> &'static str {
        "A"
    }

    #[resource(uri = "shelf://b", mime_type = "text/plain")]
    #[describe("Shelf B")]
    pub fn b(&self) -> &'static str {
        "B"
    }

    #[resource(template = "shelf://books/{id}", mime_type = "text/plain")]
    #[describe("A book")]
    pub fn book(&self, id: u32) -> String {
        format!("book {id}")
    }

    #[resource(template = "shelf://authors/{name}", mime_type = "text/plain")]
    #[describe("An author")]
    pub fn author(&self, name: String) -> String {
        format!("author {name}")
    }

    #[describe("Asks the client's model")]
    pub async fn ask(
        &self,
        #[param("The question")] q: String,
        ctx: Context,
    ) -> Result<String, ToolError> {
        #[allow(deprecated)] // sampling, tested on purpose
        let answer = ctx
            .sample(CreateMessageParams::new(
                vec![SamplingMessage::user_text(q)],
                10,
            ))
            .await?;
        Ok(format!(
            "model: {}",
            answer.content.text().unwrap_or_default()
        ))
    }
}

const LEGACY: &str = "2025-11-25";

/// The shelf (pages of one) on a real socket, and its handle.
struct Http {
    server: HttpServer,
    handle: ServerHandle,
}

impl Http {
    async fn start() -> Http {
        let server = Server::builder("shelf", "1.0")
            .toolbox(Shelf)
            .page_size(1)
            .build();
        let handle = server.handle();
        Http {
            server: HttpServer::start(server, HttpConfig::default()).await,
            handle,
        }
    }

    async fn stop(self) {
        self.server.shutdown().await;
    }

    /// Sends one request to `/mcp` and returns its open SSE stream, after the head.
    async fn open(&self, method: &str, headers: &[(&str, &str)], body: &str) -> Stream {
        let raw = http_request(method, "/mcp", self.server.port(), headers, body.as_bytes());
        let stream = self.server.open(&raw).await;
        assert_eq!(stream.head.status, 200, "{:?}", stream.head);
        assert!(stream.head.is_sse(), "not a stream: {:?}", stream.head);
        stream
    }

    /// A legacy session with these client capabilities; its id.
    async fn session(&self, version: &str, capabilities: Value) -> String {
        self.server.session_with(version, &capabilities).await
    }

    async fn legacy_raw(&self, sid: &str, version: &str, body: &Value) -> Response {
        self.server
            .post_json(&as_refs(&legacy_headers(sid, version)), body)
            .await
    }

    /// A legacy request on a session: its response (HTTP 200 even for errors).
    async fn legacy(&self, sid: &str, id: i64, method: &str, params: Value) -> Value {
        let r = self
            .legacy_raw(
                sid,
                LEGACY,
                &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}),
            )
            .await;
        assert_eq!(r.status, 200, "{method}: {r:?}");
        r.last()
    }

    /// A 2026-07-28 request, with its `_meta` and its headers.
    async fn modern(
        &self,
        id: i64,
        method: &str,
        mut params: Value,
        capabilities: Value,
    ) -> Response {
        params["_meta"] = modern_meta_with(&capabilities);
        let name = params
            .get("name")
            .or_else(|| params.get("uri"))
            .and_then(Value::as_str)
            .map(str::to_owned);
        let mut headers = vec![
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", method),
        ];
        if let Some(name) = &name {
            headers.push(("Mcp-Name", name));
        }
        self.server
            .post_json(
                &headers,
                &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}),
            )
            .await
    }

    /// A request in either era (`sid` `None`: 2026-07-28): its response.
    async fn request(&self, sid: Option<&str>, id: i64, method: &str, params: Value) -> Value {
        if let Some(sid) = sid {
            return self.legacy(sid, id, method, params).await;
        }
        let r = self.modern(id, method, params, json!({})).await;
        let v = r.last();
        // 2026-07-28 says errors in the status too.
        if v.get("error").is_some() {
            assert_eq!(r.status, 400, "{method}: {r:?}");
        } else {
            assert_eq!(r.status, 200, "{method}: {r:?}");
        }
        v
    }

    /// A legacy session's standalone GET stream.
    async fn get_stream(&self, sid: &str) -> Stream {
        self.open(
            "GET",
            &[("Accept", "text/event-stream"), ("mcp-session-id", sid)],
            "",
        )
        .await
    }
}

/// How many messages of `method` arrived on `stream` so far.
fn count(stream: &Stream, method: &str) -> usize {
    stream
        .messages()
        .iter()
        .filter(|m| m["method"] == method)
        .count()
}

fn code(v: &Value) -> i64 {
    v["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("not an error: {v}"))
}

/// Every page of a list: the keys of its items, and how many pages.
async fn all_pages(
    http: &Http,
    sid: Option<&str>,
    method: &str,
    key: &str,
    field: &str,
) -> (Vec<String>, usize) {
    let mut names = Vec::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    loop {
        let params = match &cursor {
            Some(c) => json!({"cursor": c}),
            None => json!({}),
        };
        let r = http.request(sid, 10, method, params).await;
        let items = r["result"][key]
            .as_array()
            .unwrap_or_else(|| panic!("{method}: {r}"));
        assert_eq!(items.len(), 1, "page size 1: {r}");
        names.push(items[0][field].as_str().unwrap().to_owned());
        pages += 1;
        match r["result"].get("nextCursor").and_then(Value::as_str) {
            Some(next) => cursor = Some(next.to_owned()),
            None => break,
        }
        assert!(pages < 10, "{method} never ends");
    }
    (names, pages)
}

#[tokio::test]
async fn lists_page_and_bad_inputs_are_refused_over_http_in_both_eras() {
    let http = Http::start().await;
    let sid = http.session(LEGACY, json!({})).await;
    for era in [Some(sid.as_str()), None] {
        let (prompts, pages) = all_pages(&http, era, "prompts/list", "prompts", "name").await;
        assert_eq!(prompts, ["farewell", "greet", "interview"], "{era:?}");
        assert_eq!(pages, 3);
        let (resources, _) = all_pages(&http, era, "resources/list", "resources", "uri").await;
        assert_eq!(resources, ["shelf://a", "shelf://b"], "{era:?}");
        let (templates, _) = all_pages(
            &http,
            era,
            "resources/templates/list",
            "resourceTemplates",
            "uriTemplate",
        )
        .await;
        assert_eq!(
            templates,
            ["shelf://authors/{name}", "shelf://books/{id}"],
            "{era:?}"
        );
        for method in ["prompts/list", "resources/list", "resources/templates/list"] {
            let r = http
                .request(era, 11, method, json!({"cursor": "not-ours"}))
                .await;
            assert_eq!(code(&r), -32602, "{era:?} {method}: {r}");
            assert_eq!(r["id"], 11);
        }
        // A required argument missing, and one that is not a string.
        let r = http
            .request(era, 12, "prompts/get", json!({"name": "greet"}))
            .await;
        assert_eq!(code(&r), -32602, "{era:?}: {r}");
        assert!(
            r["error"]["message"].as_str().unwrap().contains("`name`"),
            "{r}"
        );
        let r = http
            .request(
                era,
                13,
                "prompts/get",
                json!({"name": "greet", "arguments": {"name": 7}}),
            )
            .await;
        assert_eq!(code(&r), -32602, "{era:?}: {r}");
        // ...and the server still serves.
        let r = http
            .request(
                era,
                14,
                "prompts/get",
                json!({"name": "greet", "arguments": {"name": "Ada"}}),
            )
            .await;
        assert_eq!(
            r["result"]["messages"][0]["content"]["text"], "Hello Ada",
            "{era:?}: {r}"
        );
        let r = http
            .request(era, 15, "resources/read", json!({"uri": "shelf://books/4"}))
            .await;
        assert_eq!(r["result"]["contents"][0]["text"], "book 4", "{era:?}: {r}");
    }
    http.stop().await;
}

#[tokio::test]
async fn a_prompt_asks_the_client_and_a_request_state_is_used_once_over_http() {
    let http = Http::start().await;
    // 2026-07-28: an input round; the signed state answers once.
    let caps = json!({"elicitation": {}});
    let r1 = http
        .modern(1, "prompts/get", json!({"name": "interview"}), caps.clone())
        .await;
    let v1 = r1.last();
    assert_eq!(v1["result"]["resultType"], "input_required", "{r1:?}");
    let (key, asked) = v1["result"]["inputRequests"]
        .as_object()
        .unwrap()
        .iter()
        .next()
        .map(|(k, v)| (k.clone(), v.clone()))
        .unwrap();
    assert_eq!(asked["method"], "elicitation/create");
    let state = v1["result"]["requestState"].as_str().unwrap().to_owned();
    let retry = json!({"name": "interview",
        "inputResponses": {key: {"action": "accept", "content": {"name": "Ada"}}},
        "requestState": state});
    let r2 = http
        .modern(2, "prompts/get", retry.clone(), caps.clone())
        .await;
    let v2 = r2.last();
    assert_eq!(
        v2["result"]["messages"][0]["content"]["text"], "Interview Ada",
        "{r2:?}"
    );
    let replayed = http.modern(3, "prompts/get", retry, caps.clone()).await;
    assert_eq!(replayed.status, 400, "{replayed:?}");
    let v3 = replayed.last();
    assert_eq!(code(&v3), -32602, "{v3}");
    assert_eq!(v3["id"], 3);
    // A state from another prompt's round is no key to this one either.
    let other = http
        .modern(
            4,
            "prompts/get",
            json!({"name": "greet", "arguments": {"name": "x"}, "requestState": state_of(&http, &caps).await}),
            caps,
        )
        .await;
    assert_eq!(code(&other.last()), -32602, "{other:?}");

    // Legacy: the question is a request on the POST's stream, answered by
    // another POST; the prompt then renders on the first stream.
    let sid = http.session(LEGACY, json!({"elicitation": {}})).await;
    let body = json!({"jsonrpc": "2.0", "id": 5, "method": "prompts/get", "params": {"name": "interview"}});
    let mut call = http
        .open(
            "POST",
            &with_json(&[("mcp-session-id", &sid), ("mcp-protocol-version", LEGACY)]),
            &body.to_string(),
        )
        .await;
    call.until("elicitation/create").await;
    let asked = call
        .messages()
        .into_iter()
        .find(|m| m["method"] == "elicitation/create")
        .unwrap();
    let answer = http
        .legacy_raw(
            &sid,
            LEGACY,
            &json!({"jsonrpc": "2.0", "id": asked["id"], "result": {"action": "accept", "content": {"name": "Grace"}}}),
        )
        .await;
    assert_eq!(answer.status, 202, "{answer:?}");
    call.until("Interview Grace").await;
    let done = call.messages().pop().unwrap();
    assert_eq!(done["id"], 5, "{done}");
    http.stop().await;
}

/// A fresh `requestState` of the interview prompt.
async fn state_of(http: &Http, caps: &Value) -> String {
    let r = http
        .modern(9, "prompts/get", json!({"name": "interview"}), caps.clone())
        .await;
    r.last()["result"]["requestState"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[tokio::test]
async fn resource_updates_reach_only_the_subscribed_session_and_listener_over_http() {
    let http = Http::start().await;
    let a = http.session(LEGACY, json!({})).await;
    let b = http.session(LEGACY, json!({})).await;
    let mut a_stream = http.get_stream(&a).await;
    let mut b_stream = http.get_stream(&b).await;

    let missing = http
        .legacy(&a, 1, "resources/subscribe", json!({"uri": "shelf://nope"}))
        .await;
    assert_eq!(code(&missing), -32602, "{missing}");
    assert_eq!(missing["error"]["data"]["uri"], "shelf://nope", "{missing}");
    let ok = http
        .legacy(
            &a,
            2,
            "resources/subscribe",
            json!({"uri": "shelf://books/1"}),
        )
        .await;
    assert_eq!(ok["result"], json!({}), "{ok}");

    http.handle.resource_updated("shelf://books/1");
    a_stream.until("notifications/resources/updated").await;
    let updates: Vec<Value> = a_stream
        .messages()
        .into_iter()
        .filter(|m| m["method"] == "notifications/resources/updated")
        .collect();
    assert_eq!(
        updates,
        [
            json!({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": "shelf://books/1"}})
        ]
    );
    // A list change after the update reaches both sessions: b's stream got
    // there without hearing of the update.
    http.handle
        .add_prompt(
            PromptEntry::dynamic("later", "Added later", Vec::new(), |_a, _c| async { "x" })
                .unwrap(),
        )
        .unwrap();
    b_stream.until("notifications/prompts/list_changed").await;
    a_stream.until("notifications/prompts/list_changed").await;
    assert_eq!(
        count(&b_stream, "notifications/resources/updated"),
        0,
        "{:?}",
        b_stream.seen()
    );

    // Unsubscribed: no more updates for a.
    let r = http
        .legacy(
            &a,
            3,
            "resources/unsubscribe",
            json!({"uri": "shelf://books/1"}),
        )
        .await;
    assert_eq!(r["result"], json!({}), "{r}");
    http.handle.resource_updated("shelf://books/1");
    assert!(http.handle.remove_prompt("later"));
    a_stream
        .until_times("notifications/prompts/list_changed", 2)
        .await;
    assert_eq!(
        count(&a_stream, "notifications/resources/updated"),
        1,
        "{:?}",
        a_stream.seen()
    );

    // 2026-07-28: a listen stream whose filter names a resource (one that
    // does not exist is not agreed) hears its updates, tagged.
    let listen = json!({"jsonrpc": "2.0", "id": "sub-1", "method": "subscriptions/listen", "params": {
        "notifications": {"resourceSubscriptions": ["shelf://a", "shelf://nope"]},
        "_meta": modern_meta()}});
    let mut sub = http
        .open(
            "POST",
            &with_json(&[
                ("MCP-Protocol-Version", "2026-07-28"),
                ("Mcp-Method", "subscriptions/listen"),
            ]),
            &listen.to_string(),
        )
        .await;
    sub.until("notifications/subscriptions/acknowledged").await;
    let ack = sub.messages().pop().unwrap();
    assert_eq!(
        ack["params"]["notifications"]["resourceSubscriptions"],
        json!(["shelf://a"]),
        "{ack}"
    );
    http.handle.resource_updated("shelf://b");
    http.handle.resource_updated("shelf://a");
    sub.until("notifications/resources/updated").await;
    let updates: Vec<Value> = sub
        .messages()
        .into_iter()
        .filter(|m| m["method"] == "notifications/resources/updated")
        .collect();
    assert_eq!(updates.len(), 1, "{:?}", sub.seen());
    assert_eq!(updates[0]["params"]["uri"], "shelf://a");
    assert_eq!(
        updates[0]["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        "sub-1"
    );
    // The legacy sessions subscribed to neither.
    assert_eq!(count(&a_stream, "notifications/resources/updated"), 1);
    drop((a_stream, b_stream, sub));
    http.stop().await;
}

/// A 2025-03-26 batch whose call asks the client (sampling): the question
/// must reach the client, and the batch must be answered.
#[tokio::test]
async fn a_legacy_batch_whose_call_asks_the_client_does_not_hang() {
    let http = Http::start().await;
    let sid = http.session("2025-03-26", json!({"sampling": {}})).await;
    let batch = json!([
        {"jsonrpc": "2.0", "id": 1, "method": "ping"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "ask", "arguments": {"q": "Capital?"}}}
    ]);
    let mut call = tokio::time::timeout(
        Duration::from_secs(10),
        http.open(
            "POST",
            &with_json(&[
                ("mcp-session-id", &sid),
                ("mcp-protocol-version", "2025-03-26"),
            ]),
            &batch.to_string(),
        ),
    )
    .await
    .expect("the batch's response never started: the question is stuck");
    call.until("sampling/createMessage").await;
    let asked = call
        .messages()
        .into_iter()
        .find(|m| m["method"] == "sampling/createMessage")
        .unwrap();
    assert_eq!(
        asked["params"]["messages"][0]["content"]["text"],
        "Capital?"
    );
    let answer = http
        .legacy_raw(
            &sid,
            "2025-03-26",
            &json!({"jsonrpc": "2.0", "id": asked["id"], "result": {"role": "assistant", "content": {"type": "text", "text": "Paris"}, "model": "m"}}),
        )
        .await;
    assert_eq!(answer.status, 202, "{answer:?}");
    call.until("model: Paris").await;
    // Every request of the batch is answered, as one array.
    let replies = call.messages().pop().unwrap();
    let replies = replies.as_array().unwrap_or_else(|| panic!("{replies}"));
    let mut ids: Vec<i64> = replies.iter().map(|r| r["id"].as_i64().unwrap()).collect();
    ids.sort_unstable();
    assert_eq!(ids, [1, 2], "{replies:?}");
    // A batch that asks nothing is still one JSON array.
    let quiet = http
        .server
        .post_json(
            &as_refs(&legacy_headers(&sid, "2025-03-26")),
            &json!([{"jsonrpc": "2.0", "id": 3, "method": "ping"}, {"jsonrpc": "2.0", "id": 4, "method": "prompts/get", "params": {"name": "farewell"}}]),
        )
        .await;
    assert_eq!(quiet.header("content-type"), Some("application/json"));
    assert_eq!(
        quiet.messages()[0].as_array().unwrap().len(),
        2,
        "{quiet:?}"
    );
    http.stop().await;
}
