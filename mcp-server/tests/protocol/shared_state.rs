//! Several instances, one service, in one process: two servers (each its
//! own `Server`, as two processes would be) behind their own sockets share
//! a `MemoryStore`, and every request goes to the instance the test names.
//! (`oxmcp-redis` and `tests/several` do the same with Redis, processes and a
//! proxy.)
#![allow(clippy::too_many_lines, clippy::format_push_string)]

use mcp_test_support::server as support;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use oxmcp_server::http::HttpConfig;
use oxmcp_server::state::{
    Append, BusEvent, MemoryStore, SigningKeys, Store, StoreResult, StreamLog,
};
use oxmcp_server::{policy::BoxFuture, tool, Context, Server, ServerHandle};
use serde_json::{json, Value};
use support::{
    first_input_key, http_request, initialize_request, initialize_request_with, modern_meta,
    modern_meta_with, with_json, Asking, HttpServer, Stream, TaskJobs,
};
use tokio::sync::mpsc;

#[derive(Debug)]
pub struct Shared;

#[tool(description = "Tools for instances that share a store")]
impl Shared {
    #[describe("Waits until cancelled")]
    pub async fn wait(&self, ctx: Context) -> String {
        ctx.cancelled().await;
        "cancelled".into()
    }

    #[describe("Logs at info and at warning")]
    pub fn chatty(&self, ctx: Context) -> String {
        #[allow(deprecated)] // logging, tested on purpose
        ctx.info("an info line");
        #[allow(deprecated)] // logging, tested on purpose
        ctx.warning("a warning line");
        "done".into()
    }

    #[describe("Works for a moment; may run as a task")]
    #[tool(task = optional)]
    pub async fn slow(&self, ctx: Context) -> String {
        tokio::select! {
            () = tokio::time::sleep(Duration::from_millis(300)) => "slow done".into(),
            () = ctx.cancelled() => "cancelled".into(),
        }
    }

    #[resource(uri = "mem://thing", mime_type = "text/plain")]
    #[describe("A thing that changes")]
    pub fn thing(&self) -> String {
        "thing".into()
    }
}

/// One instance: its own server on its own socket (stopped when dropped).
struct Instance {
    server: HttpServer,
    handle: ServerHandle,
}

async fn instance(config: HttpConfig) -> Instance {
    // The same requestState keys on every instance, as a deployment has.
    let server = Server::builder("shared", "1")
        .toolbox(Shared)
        .toolbox(Asking)
        .toolbox(TaskJobs)
        .request_state_keys(SigningKeys::new("k1", [7u8; 32]))
        .build();
    let handle = server.handle();
    Instance {
        server: HttpServer::start(server, config).await,
        handle,
    }
}

async fn pair(store: impl Store + Clone) -> (Instance, Instance) {
    (
        instance(HttpConfig::default().store(store.clone())).await,
        instance(HttpConfig::default().store(store)).await,
    )
}

/// The `id:` of the first SSE event on `stream`.
fn first_event_id(stream: &Stream) -> Option<String> {
    stream
        .seen()
        .lines()
        .find_map(|l| l.strip_prefix("id: ").map(str::to_owned))
}

impl Instance {
    /// Sends one request to `/mcp`; its response, to be read as it arrives.
    async fn send(&self, method: &str, headers: &[(&str, &str)], body: &str) -> Stream {
        let port = self.server.port();
        self.server
            .open(&http_request(
                method,
                "/mcp",
                port,
                headers,
                body.as_bytes(),
            ))
            .await
    }

    /// A POST of JSON (`Content-Type` and `Accept` added).
    async fn post_json(&self, headers: &[(&str, &str)], body: &Value) -> Stream {
        self.send("POST", &with_json(headers), &body.to_string())
            .await
    }

    async fn post(&self, session: Option<&str>, body: &Value) -> Stream {
        let mut headers = vec![("MCP-Protocol-Version", "2025-11-25")];
        if let Some(s) = session {
            headers.push(("Mcp-Session-Id", s));
        }
        self.post_json(&headers, body).await
    }

    async fn request(&self, session: &str, id: u64, method: &str, params: Value) -> Vec<Value> {
        let r = self
            .post(
                Some(session),
                &json!({"jsonrpc":"2.0","id":id,"method":method,"params":params}),
            )
            .await;
        assert_eq!(r.head.status, 200, "{method}: {:?}", r.head);
        r.finish().await.messages()
    }

    async fn open(&self) -> String {
        let r = self
            .post(
                None,
                &initialize_request_with(&json!(0), "2025-11-25", &json!({"elicitation": {}})),
            )
            .await;
        assert_eq!(r.head.status, 200, "{:?}", r.head);
        let id = r
            .head
            .header("mcp-session-id")
            .expect("a session id")
            .to_owned();
        let n = self
            .post(
                Some(&id),
                &json!({"jsonrpc":"2.0","method":"notifications/initialized"}),
            )
            .await;
        assert_eq!(n.head.status, 202);
        id
    }

    async fn get_stream(&self, session: &str, last_event: Option<&str>) -> Stream {
        let mut headers = vec![
            ("Accept", "text/event-stream"),
            ("Mcp-Session-Id", session),
            ("MCP-Protocol-Version", "2025-11-25"),
        ];
        if let Some(last) = last_event {
            headers.push(("Last-Event-ID", last));
        }
        self.send("GET", &headers, "").await
    }
}

fn text_of(messages: &[Value]) -> String {
    let last = messages.last().expect("a response");
    last["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text in {last}"))
        .to_owned()
}

#[tokio::test]
async fn a_session_opened_on_one_is_served_by_the_other_until_deleted() {
    let (a, b) = pair(MemoryStore::new()).await;
    let sid = a.open().await;
    let tools = b.request(&sid, 1, "tools/list", json!({})).await;
    assert_eq!(tools[0]["result"]["tools"].as_array().unwrap().len(), 6);
    assert_eq!(
        text_of(
            &b.request(&sid, 2, "tools/call", json!({"name":"chatty"}))
                .await
        ),
        "done"
    );
    // A DELETE on one is a 404 on every instance from then on, answering
    // the request by its id (JSON-RPC 2.0 section 5: null only when the id
    // cannot be read).
    let deleted = b.send("DELETE", &[("Mcp-Session-Id", &sid)], "").await;
    assert_eq!(deleted.head.status, 200);
    for (on, id) in [(&a, json!(3)), (&b, json!("three"))] {
        let r = on
            .post(
                Some(&sid),
                &json!({"jsonrpc":"2.0","id":id,"method":"tools/list"}),
            )
            .await;
        assert_eq!(r.head.status, 404, "{:?}", r.head);
        let reply = r.finish().await.json();
        assert_eq!(reply["id"], id, "{reply}");
        assert_eq!(reply["error"]["code"], -32600, "{reply}");
    }
    // A GET names no request: its 404 says null.
    let r = a
        .send(
            "GET",
            &[
                ("Accept", "text/event-stream"),
                ("Mcp-Session-Id", &sid),
                ("MCP-Protocol-Version", "2025-11-25"),
            ],
            "",
        )
        .await;
    assert_eq!(r.head.status, 404, "{:?}", r.head);
    assert_eq!(r.finish().await.json()["id"], Value::Null);
}

#[tokio::test]
async fn an_answer_posted_to_the_other_instance_reaches_the_waiting_call() {
    let (a, b) = pair(MemoryStore::new()).await;
    let sid = a.open().await;
    let mut call = a
        .post(
            Some(&sid),
            &json!({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"ask_name"}}),
        )
        .await;
    call.until("elicitation/create").await;
    let asked: Value = call
        .messages()
        .into_iter()
        .find(|m| m["method"] == "elicitation/create")
        .unwrap();
    let answer = json!({"jsonrpc":"2.0","id":asked["id"],"result":{"action":"accept","content":{"name":"Ada"}}});
    assert_eq!(b.post(Some(&sid), &answer).await.head.status, 202);
    let messages = call.finish().await.messages();
    assert_eq!(text_of(&messages), "hello Ada");
}

#[tokio::test]
async fn a_cancellation_posted_to_the_other_instance_stops_the_call() {
    let (a, b) = pair(MemoryStore::new()).await;
    let sid = a.open().await;
    let waiting = a
        .post(
            Some(&sid),
            &json!({"jsonrpc":"2.0","id":"w1","method":"tools/call","params":{"name":"wait"}}),
        )
        .await;
    let call = tokio::spawn(waiting.finish());
    tokio::time::sleep(Duration::from_millis(200)).await;
    let cancel =
        json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"w1"}});
    assert_eq!(b.post(Some(&sid), &cancel).await.head.status, 202);
    let body = tokio::time::timeout(Duration::from_secs(5), call)
        .await
        .expect("the call was not cancelled")
        .unwrap()
        .text();
    assert!(
        !body.contains("\"result\""),
        "a cancelled call sends no result: {body}"
    );
}

#[tokio::test]
async fn a_log_level_set_on_one_instance_holds_on_the_other() {
    let (a, b) = pair(MemoryStore::new()).await;
    let sid = a.open().await;
    // A holds the session; B changes its level.
    let before = a
        .request(&sid, 1, "tools/call", json!({"name":"chatty"}))
        .await;
    assert!(before.iter().any(|m| m["params"]["data"] == "an info line"));
    b.request(&sid, 2, "logging/setLevel", json!({"level":"warning"}))
        .await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    let after = a
        .request(&sid, 3, "tools/call", json!({"name":"chatty"}))
        .await;
    assert!(
        !after.iter().any(|m| m["params"]["data"] == "an info line"),
        "{after:?}"
    );
    assert!(
        after
            .iter()
            .any(|m| m["params"]["data"] == "a warning line"),
        "{after:?}"
    );
}

#[tokio::test]
async fn changes_raised_on_one_instance_reach_streams_held_on_the_other() {
    let (a, b) = pair(MemoryStore::new()).await;
    let sid = a.open().await;
    // Subscribed through B; the stream is held on A.
    b.request(&sid, 1, "resources/subscribe", json!({"uri":"mem://thing"}))
        .await;
    let mut stream = a.get_stream(&sid, None).await;
    assert_eq!(stream.head.status, 200);
    tokio::time::sleep(Duration::from_millis(50)).await;
    b.handle.resource_updated("mem://thing");
    stream.until("notifications/resources/updated").await;
    b.handle.disable_tool("chatty");
    stream.until("notifications/tools/list_changed").await;
}

#[tokio::test]
async fn a_stream_dropped_on_one_instance_resumes_on_the_other() {
    let (a, b) = pair(MemoryStore::new()).await;
    let sid = a.open().await;
    a.request(&sid, 1, "resources/subscribe", json!({"uri":"mem://thing"}))
        .await;
    let mut stream = a.get_stream(&sid, None).await;
    stream.until("\n\n").await;
    let primed = first_event_id(&stream).expect("a priming event id");
    drop(stream);
    // Raised while nobody is attached: A logs it, and copies it to the store.
    a.handle.resource_updated("mem://thing");
    tokio::time::sleep(Duration::from_millis(100)).await;
    let mut resumed = b.get_stream(&sid, Some(&primed)).await;
    assert_eq!(resumed.head.status, 200, "{:?}", resumed.head);
    resumed.until("notifications/resources/updated").await;
    // And it goes on as the session's stream on B.
    b.handle.resource_updated("mem://thing");
    resumed
        .until_times("notifications/resources/updated", 2)
        .await;
}

impl Instance {
    /// A 2026-07-28 request from a client with the tasks extension.
    async fn with_tasks(&self, method: &str, name: &str, mut params: Value) -> Value {
        params["_meta"] = modern_meta_with(
            &json!({"elicitation": {}, "extensions": {"io.modelcontextprotocol/tasks": {}}}),
        );
        self.modern(method, name, &params).await
    }

    /// A 2026-07-28 request (stateless: no session), its params complete.
    async fn modern(&self, method: &str, name: &str, params: &Value) -> Value {
        let body = json!({"jsonrpc":"2.0","id":9,"method":method,"params":params});
        let r = self
            .post_json(
                &[
                    ("MCP-Protocol-Version", "2026-07-28"),
                    ("Mcp-Method", method),
                    ("Mcp-Name", name),
                ],
                &body,
            )
            .await;
        r.finish().await.messages().pop().unwrap()
    }

    /// Calls `tool` as a task; the task's id.
    async fn start_task(&self, tool: &str) -> String {
        let created = self
            .with_tasks("tools/call", tool, json!({"name": tool, "arguments": {}}))
            .await;
        assert_eq!(created["result"]["resultType"], "task", "{created}");
        created["result"]["taskId"].as_str().unwrap().to_owned()
    }

    /// `tasks/get` until the task's status is `want` (fails after 5 s).
    async fn task_until(&self, task: &str, want: &str) -> Value {
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            let got = self
                .with_tasks("tasks/get", task, json!({"taskId": task}))
                .await;
            if got["result"]["status"] == want {
                return got;
            }
            assert!(Instant::now() < deadline, "no {want}: {got}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// A 2026-07-28 `tools/call` (stateless: no session).
    async fn modern_call(&self, tool: &str, extra: &Value) -> Value {
        let mut params = json!({"name": tool, "arguments": {},
            "_meta": modern_meta_with(&json!({"elicitation": {}}))});
        for (k, v) in extra.as_object().unwrap() {
            params[k] = v.clone();
        }
        self.modern("tools/call", tool, &params).await
    }
}

#[tokio::test]
async fn a_request_state_is_accepted_once_across_instances() {
    let (a, b) = pair(MemoryStore::new()).await;
    let asked = a.modern_call("ask_name", &json!({})).await;
    let result = &asked["result"];
    assert_eq!(result["resultType"], "input_required", "{asked}");
    let key = first_input_key(result);
    let retry = json!({
        "inputResponses": {key: {"action": "accept", "content": {"name": "Ada"}}},
        "requestState": result["requestState"],
    });
    // Begun on A, completed on B.
    let done = b.modern_call("ask_name", &retry).await;
    assert_eq!(done["result"]["content"][0]["text"], "hello Ada", "{done}");
    // The same state again, on the instance that issued it and never saw it
    // used: refused, as on one instance.
    let again = a.modern_call("ask_name", &retry).await;
    assert_eq!(again["error"]["code"], -32602, "{again}");
    assert!(
        again["error"]["message"]
            .as_str()
            .unwrap()
            .contains("already used"),
        "{again}"
    );
}

/// Two tokens: each names its own subject.
#[cfg(feature = "auth")]
struct Tokens;

#[cfg(feature = "auth")]
impl oxmcp_server::auth::TokenVerifier for Tokens {
    fn verify<'a>(&'a self, token: &'a str) -> oxmcp_server::auth::VerifyFuture<'a> {
        Box::pin(async move {
            match token {
                "alice" | "bob" => Ok(oxmcp_server::auth::Identity::new().with_subject(token)),
                _ => Err(oxmcp_server::auth::TokenError::invalid("unknown token")),
            }
        })
    }
}

/// A legacy POST with `who`'s token.
#[cfg(feature = "auth")]
async fn post_as(on: &Instance, who: &str, session: Option<&str>, body: &Value) -> Stream {
    let bearer = format!("Bearer {who}");
    let mut headers = vec![
        ("MCP-Protocol-Version", "2025-11-25"),
        ("Authorization", bearer.as_str()),
    ];
    if let Some(s) = session {
        headers.push(("Mcp-Session-Id", s));
    }
    on.post_json(&headers, body).await
}

#[cfg(feature = "auth")]
#[tokio::test]
async fn a_session_belongs_to_its_opener_on_every_instance() {
    let store = MemoryStore::new();
    let config = || {
        let auth = oxmcp_server::auth::Authorization::new("http://localhost/mcp", Tokens).unwrap();
        HttpConfig::default()
            .store(store.clone())
            .authorization(auth)
    };
    let a = instance(config()).await;
    let b = instance(config()).await;
    let opened = post_as(
        &a,
        "alice",
        None,
        &initialize_request(&json!(0), "2025-11-25"),
    )
    .await;
    assert_eq!(opened.head.status, 200, "{:?}", opened.head);
    let sid = opened.head.header("mcp-session-id").unwrap().to_owned();
    let list = json!({"jsonrpc":"2.0","id":1,"method":"tools/list"});
    // Its opener, on the other instance: served.
    let mine = post_as(&b, "alice", Some(&sid), &list).await;
    assert_eq!(mine.head.status, 200, "{:?}", mine.head);
    // Anyone else, on either instance: as if it did not exist.
    for on in [&b, &a] {
        let theirs = post_as(on, "bob", Some(&sid), &list).await;
        assert_eq!(theirs.head.status, 404, "{:?}", theirs.head);
    }
}

#[tokio::test]
async fn a_task_created_on_one_instance_is_polled_updated_and_cancelled_on_the_other() {
    let (a, b) = pair(MemoryStore::new()).await;
    // Created on A, polled on B to its result.
    let task = a.start_task("slow").await;
    let seen = b
        .with_tasks("tasks/get", &task, json!({"taskId": task}))
        .await;
    assert_eq!(seen["result"]["taskId"], task.as_str(), "{seen}");
    let done = b.task_until(&task, "completed").await;
    assert_eq!(
        done["result"]["result"]["content"][0]["text"], "slow done",
        "{done}"
    );

    // Input asked on A, answered through B.
    let task = a.start_task("ask_later").await;
    let asking = b.task_until(&task, "input_required").await;
    assert!(
        asking["result"]["inputRequests"]["name"].is_object(),
        "{asking}"
    );
    let answer = json!({"taskId": task, "inputResponses": {"name": {"action": "accept", "content": {"name": "Ada"}}}});
    let ack = b.with_tasks("tasks/update", &task, answer).await;
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    let done = b.task_until(&task, "completed").await;
    assert_eq!(
        done["result"]["result"]["content"][0]["text"], "later, Ada",
        "{done}"
    );

    // Cancelled through B: A's tool sees it.
    let task = a.start_task("ask_later").await;
    b.task_until(&task, "input_required").await;
    let ack = b
        .with_tasks("tasks/cancel", &task, json!({"taskId": task}))
        .await;
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    b.task_until(&task, "cancelled").await;
    // An unknown task is -32602 on either.
    let unknown = b
        .with_tasks("tasks/get", "nope", json!({"taskId": "nope"}))
        .await;
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
}

#[tokio::test]
async fn a_listen_stream_on_one_instance_hears_the_tasks_of_the_other() {
    let (a, b) = pair(MemoryStore::new()).await;
    let task = a.start_task("ask_later").await;
    a.task_until(&task, "input_required").await;
    // B runs no task: it finds this one in the store, and hears its states
    // on the bus; one no instance knows is left out.
    let body = json!({"jsonrpc": "2.0", "id": "l", "method": "subscriptions/listen", "params": {
    "notifications": {"taskIds": [task, "nobody-runs-this"]},
    "_meta": modern_meta_with(&json!({"extensions": {"io.modelcontextprotocol/tasks": {}}}))}});
    let mut stream = b
        .post_json(
            &[
                ("MCP-Protocol-Version", "2026-07-28"),
                ("Mcp-Method", "subscriptions/listen"),
            ],
            &body,
        )
        .await;
    stream
        .until("notifications/subscriptions/acknowledged")
        .await;
    stream.until("\n\n").await;
    let acknowledged = stream.seen();
    assert!(acknowledged.contains(&task), "{acknowledged}");
    assert!(!acknowledged.contains("nobody-runs-this"), "{acknowledged}");
    // Answered through B, run on A: B's stream hears it complete.
    let answer = json!({"taskId": task, "inputResponses": {"name": {"action": "accept", "content": {"name": "Ada"}}}});
    b.with_tasks("tasks/update", &task, answer).await;
    stream.until("notifications/tasks").await;
    stream.until("later, Ada").await;
    assert!(stream.seen().contains("\"completed\""), "{}", stream.seen());
}

/// A store that stops answering when told to.
#[derive(Clone, Default)]
struct Flaky {
    inner: MemoryStore,
    down: Arc<AtomicBool>,
}

impl Flaky {
    fn gate<T: Send + 'static>(
        &self,
        op: BoxFuture<'static, StoreResult<T>>,
    ) -> BoxFuture<'static, StoreResult<T>> {
        if self.down.load(Ordering::Acquire) {
            Box::pin(std::future::pending())
        } else {
            op
        }
    }
}

impl Store for Flaky {
    fn name(&self) -> &'static str {
        "flaky store"
    }
    fn put_session(
        &self,
        id: &str,
        record: Bytes,
        ttl: Duration,
    ) -> BoxFuture<'static, StoreResult<()>> {
        self.gate(self.inner.put_session(id, record, ttl))
    }
    fn get_session(
        &self,
        id: &str,
        ttl: Duration,
    ) -> BoxFuture<'static, StoreResult<Option<Bytes>>> {
        self.gate(self.inner.get_session(id, ttl))
    }
    fn touch_session(&self, id: &str, ttl: Duration) -> BoxFuture<'static, StoreResult<bool>> {
        self.gate(self.inner.touch_session(id, ttl))
    }
    fn remove_session(&self, id: &str) -> BoxFuture<'static, StoreResult<bool>> {
        self.gate(self.inner.remove_session(id))
    }
    fn append_events(
        &self,
        a: Vec<Append>,
        n: usize,
        ttl: Duration,
    ) -> BoxFuture<'static, StoreResult<()>> {
        self.gate(self.inner.append_events(a, n, ttl))
    }
    fn read_events(
        &self,
        s: &str,
        st: u64,
        after: u64,
    ) -> BoxFuture<'static, StoreResult<Option<StreamLog>>> {
        self.gate(self.inner.read_events(s, st, after))
    }
    fn claim(&self, key: &str, ttl: Duration) -> BoxFuture<'static, StoreResult<bool>> {
        self.gate(self.inner.claim(key, ttl))
    }
    fn put_task(
        &self,
        id: &str,
        record: Bytes,
        ttl: Duration,
    ) -> BoxFuture<'static, StoreResult<()>> {
        self.gate(self.inner.put_task(id, record, ttl))
    }
    fn get_task(&self, id: &str) -> BoxFuture<'static, StoreResult<Option<Bytes>>> {
        self.gate(self.inner.get_task(id))
    }
    fn put_cached(
        &self,
        key: &str,
        result: Bytes,
        ttl: Duration,
    ) -> BoxFuture<'static, StoreResult<()>> {
        self.gate(self.inner.put_cached(key, result, ttl))
    }
    fn get_cached(&self, key: &str) -> BoxFuture<'static, StoreResult<Option<Bytes>>> {
        self.gate(self.inner.get_cached(key))
    }
    fn publish(&self, message: Bytes) -> BoxFuture<'static, StoreResult<()>> {
        self.gate(self.inner.publish(message))
    }
    fn subscribe(&self) -> BoxFuture<'static, StoreResult<mpsc::Receiver<BusEvent>>> {
        self.gate(self.inner.subscribe())
    }
}

#[tokio::test]
async fn a_store_that_does_not_answer_is_a_clear_503_and_the_rest_goes_on() {
    let store = Flaky::default();
    let (a, b) = pair(store.clone()).await;
    let sid = a.open().await;
    store.down.store(true, Ordering::Release);
    // B does not hold the session: it needs the store.
    let started = Instant::now();
    let r = b
        .post(
            Some(&sid),
            &json!({"jsonrpc":"2.0","id":1,"method":"tools/list"}),
        )
        .await;
    let took = started.elapsed();
    assert_eq!(r.head.status, 503, "{:?}", r.head);
    assert_eq!(r.head.header("retry-after"), Some("2"));
    assert!(
        took < Duration::from_millis(2500),
        "answered after {took:?}"
    );
    let reply = r.finish().await.json();
    assert!(
        reply["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("session store unavailable (flaky store)")),
        "{reply}"
    );
    // Addressed to the request it answers, whose id was read.
    assert_eq!(reply["id"], 1, "{reply}");
    // So is an `initialize` the store cannot record.
    let r = b
        .post(None, &initialize_request(&json!("open-1"), "2025-11-25"))
        .await;
    assert_eq!(r.head.status, 503, "{:?}", r.head);
    assert_eq!(r.finish().await.json()["id"], "open-1");
    // A holds it: served without the store.
    assert_eq!(
        text_of(
            &a.request(&sid, 2, "tools/call", json!({"name":"chatty"}))
                .await
        ),
        "done"
    );
    // 2026-07-28 needs nothing from the store.
    let modern =
        json!({"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"_meta":modern_meta()}});
    let m = b
        .post_json(
            &[
                ("MCP-Protocol-Version", "2026-07-28"),
                ("Mcp-Method", "tools/list"),
            ],
            &modern,
        )
        .await;
    assert_eq!(m.head.status, 200, "{:?}", m.head);
    // Back: served again, by either.
    store.down.store(false, Ordering::Release);
    let tools = b.request(&sid, 4, "tools/list", json!({})).await;
    assert!(tools[0]["result"]["tools"].is_array());
}

#[tokio::test]
async fn idle_sessions_expire_in_the_store() {
    let store = MemoryStore::new();
    let config = || {
        HttpConfig::default()
            .store(store.clone())
            .session_idle_timeout(Duration::from_millis(600))
    };
    let a = instance(config()).await;
    let b = instance(config()).await;
    let sid = a.open().await;
    assert_eq!(store.session_count(), 1);
    // Used within the idle time: alive.
    tokio::time::sleep(Duration::from_millis(300)).await;
    b.request(&sid, 1, "tools/list", json!({})).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    b.request(&sid, 2, "tools/list", json!({})).await;
    // Unused: gone from the store, and so on every instance.
    tokio::time::sleep(Duration::from_millis(1300)).await;
    assert_eq!(store.session_count(), 0);
    for on in [&a, &b] {
        let r = on
            .post(
                Some(&sid),
                &json!({"jsonrpc":"2.0","id":3,"method":"tools/list"}),
            )
            .await;
        assert_eq!(r.head.status, 404, "{:?}", r.head);
    }
}
