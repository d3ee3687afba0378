//! A task belongs to whoever created it (issue 34, points 2 and 5): two
//! instances share a `RedisStore` on a `redis-server` of the test's own
//! (`mcp_test_support::redis_server`), callers are two subjects with tokens
//! from a scratch issuer (`mcp_test_support::server::issuer`) or two legacy sessions
//! without authorization, and every request goes to the instance the test
//! names. Another caller gets, answers, cancels and hears nothing of a
//! task, on either instance, exactly as if it did not exist; its creator
//! still can; nothing crosses the bus for an update that is refused.
//!
//! The binary is `$REDIS_SERVER`, `/usr/bin/redis-server`, or
//! `redis-server` on `PATH`; without one these tests fail (they never skip).

use std::time::{Duration, Instant};

use mcp_test_support::redis_server::RedisServer;
use mcp_test_support::server::issuer::Issuer;
use mcp_test_support::server::{
    as_refs, http_request, legacy_headers, modern_meta_with, with_json, HttpServer, Response,
    Stream, TaskJobs,
};
use oxmcp_redis::RedisStore;
use oxmcp_server::auth::{Authorization, JwtVerifier};
use oxmcp_server::http::HttpConfig;
use oxmcp_server::state::{BusEvent, Store};
use oxmcp_server::{Server, ServerBuilder};
use serde_json::{json, Value};

/// The resource every instance protects (the tokens' audience).
const RESOURCE: &str = "http://localhost/mcp";

fn jobs() -> ServerBuilder {
    Server::builder("jobs", "1").toolbox(TaskJobs)
}

/// Who sends a request: a bearer token, a legacy session, or nobody.
#[derive(Clone, Copy)]
enum Who<'a> {
    Token(&'a str),
    Session(&'a str),
}

/// The capabilities of every client here: elicitation and the tasks extension.
fn capabilities() -> Value {
    json!({"elicitation": {}, "extensions": {"io.modelcontextprotocol/tasks": {}}})
}

/// The headers of `method` (about `name`) sent as `who`.
fn headers(who: Who<'_>, method: &str, name: &str) -> Vec<(&'static str, String)> {
    match who {
        Who::Token(token) => vec![
            ("MCP-Protocol-Version", "2026-07-28".into()),
            ("Mcp-Method", method.into()),
            ("Mcp-Name", name.into()),
            ("Authorization", format!("Bearer {token}")),
        ],
        Who::Session(sid) => legacy_headers(sid, "2025-11-25"),
    }
}

/// The body of `method` with `params` as `who` sends it (2026-07-28
/// requests carry their `_meta`).
fn body(who: Who<'_>, method: &str, mut params: Value) -> Value {
    if let Who::Token(_) = who {
        params["_meta"] = modern_meta_with(&capabilities());
    }
    json!({"jsonrpc": "2.0", "id": 9, "method": method, "params": params})
}

/// `method` with `params` (about `name`) as `who`, on `on`: the response.
async fn send(on: &HttpServer, who: Who<'_>, method: &str, name: &str, params: Value) -> Value {
    let r: Response = on
        .post_json(
            &as_refs(&headers(who, method, name)),
            &body(who, method, params),
        )
        .await;
    r.messages()
        .pop()
        .unwrap_or_else(|| panic!("{method}: no message in {r:?}"))
}

/// Calls `tool` as a task as `who`; the task's id.
async fn start_task(on: &HttpServer, who: Who<'_>, tool: &str) -> String {
    let created = send(
        on,
        who,
        "tools/call",
        tool,
        json!({"name": tool, "arguments": {}}),
    )
    .await;
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    created["result"]["taskId"].as_str().unwrap().to_owned()
}

/// `tasks/get` as `who` until the task's status is `want` (fails after 5 s).
async fn task_until(on: &HttpServer, who: Who<'_>, task: &str, want: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let got = send(on, who, "tasks/get", task, json!({"taskId": task})).await;
        if got["result"]["status"] == want {
            return got;
        }
        assert!(Instant::now() < deadline, "no {want}: {got}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Asserts that `got` is the answer for a task that does not exist.
fn assert_unknown(got: &Value, task: &str, what: &str) {
    assert_eq!(got["error"]["code"], -32602, "{what}: {got}");
    assert_eq!(
        got["error"]["message"],
        format!("unknown task: {task}"),
        "{what}: {got}"
    );
}

/// The answer to the question `ask_later` asks.
fn answer(task: &str, name: &str) -> Value {
    json!({"taskId": task, "inputResponses": {"name": {"action": "accept", "content": {"name": name}}}})
}

/// Opens `subscriptions/listen` for `tasks` as `who` (2026-07-28, a
/// token); the acknowledged filter's task ids, and the stream.
async fn listen(on: &HttpServer, token: &str, tasks: &[&str]) -> (Vec<String>, Stream) {
    let who = Who::Token(token);
    let method = "subscriptions/listen";
    let params = json!({"notifications": {"taskIds": tasks}});
    let body = body(who, method, params).to_string();
    let headers = headers(who, method, "");
    let all = with_json(&as_refs(&headers));
    let mut stream = on
        .open(&http_request(
            "POST",
            "/mcp",
            on.port(),
            &all,
            body.as_bytes(),
        ))
        .await;
    assert_eq!(stream.head.status, 200, "{:?}", stream.head);
    stream
        .until("notifications/subscriptions/acknowledged")
        .await;
    stream.until("\n\n").await;
    let ack = stream
        .messages()
        .into_iter()
        .find(|m| m["method"] == "notifications/subscriptions/acknowledged")
        .expect("the acknowledgement");
    let ids = ack["params"]["notifications"]["taskIds"]
        .as_array()
        .map(|ids| ids.iter().map(|i| i.as_str().unwrap().to_owned()).collect())
        .unwrap_or_default();
    (ids, stream)
}

/// Two subjects' tokens from one issuer, for [`RESOURCE`].
struct Tokens {
    issuer: Issuer,
}

impl Tokens {
    async fn start() -> Tokens {
        Tokens {
            issuer: Issuer::start().await,
        }
    }

    fn of(&self, subject: &str) -> String {
        let mut claims = self.issuer.claims(RESOURCE, "");
        claims["sub"] = subject.into();
        self.issuer.sign(&claims, "k1")
    }

    fn authorization(&self) -> Authorization {
        Authorization::new(
            RESOURCE,
            JwtVerifier::new(self.issuer.url.clone(), RESOURCE),
        )
        .unwrap()
    }
}

/// Two instances of `build()` on one Redis, with `authorization` if any.
async fn pair_on_redis(
    redis: &RedisServer,
    build: impl Fn() -> ServerBuilder,
    authorization: Option<&Tokens>,
) -> (HttpServer, HttpServer) {
    let config = || async {
        let store = RedisStore::connect(&redis.url()).await.expect("connecting");
        let config = HttpConfig::default().store(store);
        match authorization {
            Some(tokens) => config.authorization(tokens.authorization()),
            None => config,
        }
    };
    (
        HttpServer::start(build().build(), config().await).await,
        HttpServer::start(build().build(), config().await).await,
    )
}

#[tokio::test]
async fn a_task_is_reached_only_by_its_creator_on_either_instance() {
    let redis = RedisServer::start();
    let tokens = Tokens::start().await;
    let (a, b) = pair_on_redis(&redis, jobs, Some(&tokens)).await;
    let (alice, bob) = (tokens.of("alice"), tokens.of("bob"));
    let (alice, bob) = (Who::Token(&alice), Who::Token(&bob));

    // Alice's task, run on A, asks her a question.
    let task = start_task(&a, alice, "ask_later").await;
    task_until(&a, alice, &task, "input_required").await;

    // Bob, on the instance that runs it and on the other: it does not exist.
    for on in [&a, &b] {
        let got = send(on, bob, "tasks/get", &task, json!({"taskId": task})).await;
        assert_unknown(&got, &task, "bob's tasks/get");
        let update = send(on, bob, "tasks/update", &task, answer(&task, "Mallory")).await;
        assert_unknown(&update, &task, "bob's tasks/update");
        let cancel = send(on, bob, "tasks/cancel", &task, json!({"taskId": task})).await;
        assert_unknown(&cancel, &task, "bob's tasks/cancel");
        let Who::Token(token) = bob else {
            unreachable!()
        };
        let (heard, _stream) = listen(on, token, &[&task]).await;
        assert!(heard.is_empty(), "bob listens to {heard:?}");
    }

    // Alice, on the other instance: her task is as she left it (neither
    // answered nor cancelled), she hears it, answers it, and it completes.
    let asking = task_until(&b, alice, &task, "input_required").await;
    assert!(
        asking["result"]["inputRequests"]["name"].is_object(),
        "{asking}"
    );
    let Who::Token(token) = alice else {
        unreachable!()
    };
    let (heard, mut stream) = listen(&b, token, &[&task]).await;
    assert_eq!(heard, std::slice::from_ref(&task));
    let ack = send(&b, alice, "tasks/update", &task, answer(&task, "Ada")).await;
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    let done = task_until(&b, alice, &task, "completed").await;
    assert_eq!(
        done["result"]["result"]["content"][0]["text"], "later, Ada",
        "{done}"
    );
    stream.until("later, Ada").await;

    // Another of hers: Bob cannot cancel it from B, she can.
    let task = start_task(&a, alice, "hold").await;
    let cancel = send(&b, bob, "tasks/cancel", &task, json!({"taskId": task})).await;
    assert_unknown(&cancel, &task, "bob's tasks/cancel");
    task_until(&b, alice, &task, "working").await;
    let ack = send(&b, alice, "tasks/cancel", &task, json!({"taskId": task})).await;
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    task_until(&a, alice, &task, "cancelled").await;
}

#[tokio::test]
async fn a_task_of_a_legacy_session_is_reached_only_from_that_session() {
    let redis = RedisServer::start();
    let (a, b) = pair_on_redis(&redis, jobs, None).await;
    let mine = a.session_with("2025-11-25", &capabilities()).await;
    let theirs = b.session_with("2025-11-25", &capabilities()).await;
    let (mine, theirs) = (Who::Session(&mine), Who::Session(&theirs));

    let task = start_task(&a, mine, "hold").await;
    for on in [&a, &b] {
        let got = send(on, theirs, "tasks/get", &task, json!({"taskId": task})).await;
        assert_unknown(&got, &task, "another session's tasks/get");
        let cancel = send(on, theirs, "tasks/cancel", &task, json!({"taskId": task})).await;
        assert_unknown(&cancel, &task, "another session's tasks/cancel");
    }
    // Its session, on either instance.
    task_until(&b, mine, &task, "working").await;
    let ack = send(&b, mine, "tasks/cancel", &task, json!({"taskId": task})).await;
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    task_until(&a, mine, &task, "cancelled").await;
}

/// Every message on the bus within `within` (after `rx` subscribed).
async fn bus_messages(
    rx: &mut tokio::sync::mpsc::Receiver<BusEvent>,
    within: Duration,
) -> Vec<String> {
    let deadline = tokio::time::Instant::now() + within;
    let mut seen = Vec::new();
    while let Ok(Some(event)) = tokio::time::timeout_at(deadline, rx.recv()).await {
        if let BusEvent::Message(bytes) = event {
            seen.push(String::from_utf8_lossy(&bytes).into_owned());
        }
    }
    seen
}

#[tokio::test]
async fn an_update_refused_crosses_no_bus_and_an_oversized_one_is_refused() {
    let redis = RedisServer::start();
    let tokens = Tokens::start().await;
    let (a, b) = pair_on_redis(&redis, jobs, Some(&tokens)).await;
    let (alice, bob) = (tokens.of("alice"), tokens.of("bob"));
    let (alice, bob) = (Who::Token(&alice), Who::Token(&bob));
    let watcher = RedisStore::connect(&redis.url()).await.expect("connecting");
    let mut bus = watcher.subscribe().await.expect("subscribing");

    let task = start_task(&a, alice, "ask_later").await;
    task_until(&a, alice, &task, "input_required").await;
    bus_messages(&mut bus, Duration::from_millis(200)).await;

    // Bob's answer to Alice's task, and an answer to a task nobody runs,
    // sent to B (which does not run it): refused, and on no bus.
    let theirs = send(&b, bob, "tasks/update", &task, answer(&task, "Mallory")).await;
    let nobody = "0123456789abcdef0123456789abcdef";
    let unknown = send(&b, alice, "tasks/update", nobody, answer(nobody, "Nobody")).await;
    // Alice's own answer, too large to be one: refused, on no bus either.
    let huge = "x".repeat(2 * 1024 * 1024);
    let oversized = send(&b, alice, "tasks/update", &task, answer(&task, &huge)).await;
    let published = bus_messages(&mut bus, Duration::from_millis(500)).await;
    for needle in ["Mallory", "Nobody", nobody, "xxxxxxxx"] {
        let crossed: Vec<&str> = published
            .iter()
            .filter(|m| m.contains(needle))
            .map(|m| &m[..m.len().min(200)])
            .collect();
        assert!(crossed.is_empty(), "{needle} crossed the bus: {crossed:?}");
    }
    assert_unknown(&theirs, &task, "bob's tasks/update");
    assert_unknown(&unknown, nobody, "tasks/update of an unknown task");
    assert_eq!(oversized["error"]["code"], -32602, "{oversized:.300}");
    let message = oversized["error"]["message"].as_str().unwrap();
    assert!(message.contains("inputResponses"), "{message}");
    assert!(message.contains("bytes"), "{message}");

    // Her answer, of a sensible size, does reach A through the bus.
    let ack = send(&b, alice, "tasks/update", &task, answer(&task, "Ada")).await;
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    let published = bus_messages(&mut bus, Duration::from_millis(500)).await;
    assert!(published.iter().any(|m| m.contains("Ada")), "{published:?}");
    task_until(&b, alice, &task, "completed").await;
}

#[tokio::test]
async fn a_caller_over_its_task_cap_is_refused_and_others_are_not() {
    let tokens = Tokens::start().await;
    let server = jobs().max_tasks_per_caller(2).build();
    let on = HttpServer::start(
        server,
        HttpConfig::default().authorization(tokens.authorization()),
    )
    .await;
    let (alice, bob) = (tokens.of("alice"), tokens.of("bob"));
    let (alice, bob) = (Who::Token(&alice), Who::Token(&bob));

    start_task(&on, alice, "hold").await;
    start_task(&on, alice, "hold").await;
    let third = send(
        &on,
        alice,
        "tools/call",
        "hold",
        json!({"name": "hold", "arguments": {}}),
    )
    .await;
    assert_eq!(third["error"]["code"], -32000, "{third}");
    let message = third["error"]["message"].as_str().unwrap();
    assert!(message.contains("2 tasks"), "{message}");
    // Bob holds none: his are created.
    start_task(&on, bob, "hold").await;
    start_task(&on, bob, "hold").await;
}
