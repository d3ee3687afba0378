//! Several instances, one service, with real processes: two `notes`
//! instances (`--http 127.0.0.1:0 --redis URL`) on a `redis-server` of the
//! test's own, each request sent to the instance the test names, raw
//! HTTP/1.1 over TCP.
//!
//! Redis is `RedisServer` from `mcp_test_support::redis_server`:
//! its binary is `$REDIS_SERVER`, `/usr/bin/redis-server`, or
//! `redis-server` on `PATH`; without one these tests fail, they never skip.
//! Every process is killed when its guard drops.
#![allow(clippy::needless_pass_by_value)] // JSON built inline at each call reads best by value

use mcp_test_support::{http_response, redis_server};

use std::fmt::Write as _;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader as AsyncBufReader};
use tokio::net::TcpStream;

use redis_server::RedisServer;

use crate::killed::Killed;

/// The `requestState` keys both instances share (`id:hex`, 32 bytes).
const KEYS: &str = "test:000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";

/// How long any one step may take before the test fails (no hangs).
const STEP: Duration = Duration::from_secs(10);

const LEGACY: &str = "2025-11-25";
const MODERN: &str = "2026-07-28";

// ------------------------------------------------------------------ processes

/// One `notes` instance on Redis, on a port it picked.
struct Instance {
    name: &'static str,
    port: u16,
    child: Killed,
    /// What it wrote on stderr, for failure messages.
    log: Arc<Mutex<Vec<String>>>,
}

impl Instance {
    fn start(name: &'static str, redis: &RedisServer) -> Instance {
        let mut child = Command::new(env!("CARGO_BIN_EXE_notes"))
            .args(["--http", "127.0.0.1:0", "--redis", &redis.url()])
            .env("MCP_REQUEST_STATE_KEYS", KEYS)
            .env("RUST_LOG", "warn")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("starting notes");
        let stderr = BufReader::new(child.stderr.take().unwrap());
        let child = Killed(child);
        let log = Arc::new(Mutex::new(Vec::new()));
        let (tx, rx) = std::sync::mpsc::channel();
        let lines = Arc::clone(&log);
        // Reads stderr to its end, so the instance never blocks on a full pipe.
        std::thread::spawn(move || {
            for line in stderr.lines().map_while(Result::ok) {
                if let Some(addr) = line.strip_prefix("listening on http://") {
                    let port = addr
                        .trim_end_matches("/mcp")
                        .rsplit(':')
                        .next()
                        .and_then(|p| p.parse::<u16>().ok());
                    let _ = tx.send(port);
                }
                lines.lock().unwrap().push(line);
            }
        });
        match rx.recv_timeout(STEP) {
            Ok(Some(port)) => Instance {
                name,
                port,
                child,
                log,
            },
            other => panic!(
                "notes {name} did not say where it listens ({other:?}); its stderr:\n{}",
                log.lock().unwrap().join("\n")
            ),
        }
    }

    fn running(&mut self) -> bool {
        self.child.0.try_wait().unwrap().is_none()
    }

    fn stderr(&self) -> String {
        self.log.lock().unwrap().join("\n")
    }
}

/// Redis and two instances on it.
struct Trio {
    redis: RedisServer,
    a: Instance,
    b: Instance,
}

impl Trio {
    fn start() -> Trio {
        let redis = RedisServer::start();
        let a = Instance::start("A", &redis);
        let b = Instance::start("B", &redis);
        Trio { redis, a, b }
    }
}

// ------------------------------------------------------------------ HTTP

/// One HTTP response: its head, and its body as it arrives.
struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    conn: AsyncBufReader<TcpStream>,
    chunked: bool,
    /// Body bytes still to come (`Content-Length`), if declared.
    left: Option<usize>,
    /// Body bytes read and not yet taken.
    buf: Vec<u8>,
    done: bool,
}

/// One SSE event.
#[derive(Debug)]
struct Event {
    id: Option<String>,
    data: String,
}

impl Reply {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    fn is_sse(&self) -> bool {
        self.header("content-type")
            .is_some_and(|t| t.starts_with("text/event-stream"))
    }

    /// Reads more of the body into `buf`; `false` at its end.
    async fn more(&mut self) -> bool {
        if self.done {
            return false;
        }
        if self.chunked {
            let mut line = String::new();
            if self.conn.read_line(&mut line).await.unwrap_or(0) == 0 {
                self.done = true;
                return false;
            }
            let size = usize::from_str_radix(line.trim().split(';').next().unwrap_or(""), 16)
                .unwrap_or_else(|_| panic!("bad chunk size line {line:?}"));
            if size == 0 {
                self.done = true;
                return false;
            }
            let mut chunk = vec![0u8; size + 2];
            if self.conn.read_exact(&mut chunk).await.is_err() {
                self.done = true;
                return false;
            }
            chunk.truncate(size);
            self.buf.extend_from_slice(&chunk);
            return true;
        }
        let mut chunk = vec![0u8; self.left.unwrap_or(8192).min(8192)];
        if chunk.is_empty() {
            self.done = true;
            return false;
        }
        let n = self.conn.read(&mut chunk).await.unwrap_or(0);
        if n == 0 {
            self.done = true;
            return false;
        }
        if let Some(left) = &mut self.left {
            *left -= n;
        }
        self.buf.extend_from_slice(&chunk[..n]);
        true
    }

    /// The whole body, as text.
    async fn text(mut self) -> String {
        tokio::time::timeout(STEP, async { while self.more().await {} })
            .await
            .expect("the body did not end in time");
        String::from_utf8(self.buf).unwrap()
    }

    /// The next SSE event that has an id or data (comments skipped), or
    /// `None` when the stream ended or `within` passed.
    async fn next_event(&mut self, within: Duration) -> Option<Event> {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            while let Some(end) = find(&self.buf, b"\n\n") {
                let raw: Vec<u8> = self.buf.drain(..end + 2).collect();
                let raw = String::from_utf8(raw).unwrap();
                let mut event = Event {
                    id: None,
                    data: String::new(),
                };
                let mut any = false;
                for line in raw.lines() {
                    if let Some(id) = line.strip_prefix("id:") {
                        event.id = Some(id.trim().to_owned());
                        any = true;
                    } else if let Some(data) = line.strip_prefix("data:") {
                        if !event.data.is_empty() {
                            event.data.push('\n');
                        }
                        event.data.push_str(data.strip_prefix(' ').unwrap_or(data));
                        any = true;
                    }
                }
                if any {
                    return Some(event);
                }
            }
            match tokio::time::timeout_at(deadline, self.more()).await {
                Ok(true) => {}
                Ok(false) | Err(_) => return None,
            }
        }
    }

    /// The next JSON-RPC message on the stream (the priming event skipped).
    async fn next_message(&mut self, within: Duration) -> Option<Value> {
        let deadline = Instant::now() + within;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let event = self.next_event(left).await?;
            if !event.data.trim().is_empty() {
                return Some(serde_json::from_str(&event.data).unwrap_or_else(|e| {
                    panic!("{e}: not JSON: {:?}", event.data);
                }));
            }
        }
    }

    /// The JSON-RPC response with `id`: the body, or the stream's message
    /// answering it (what comes before it is dropped).
    async fn response(mut self, id: &Value) -> Value {
        if !self.is_sse() {
            let status = self.status;
            let text = self.text().await;
            return serde_json::from_str(&text)
                .unwrap_or_else(|e| panic!("{e}: HTTP {status} with body {text:?}"));
        }
        loop {
            let msg = self
                .next_message(STEP)
                .await
                .unwrap_or_else(|| panic!("the stream ended without the response to {id}"));
            if msg.get("method").is_none() && msg["id"] == *id {
                return msg;
            }
        }
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// Sends one request (`Connection: close`) and reads the response head.
async fn http(port: u16, method: &str, headers: &[(&str, String)], body: Option<&Value>) -> Reply {
    tokio::time::timeout(STEP, async {
        let body = body.map(Value::to_string).unwrap_or_default();
        let mut req =
            format!("{method} /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n");
        for (k, v) in headers {
            let _ = write!(req, "{k}: {v}\r\n");
        }
        if method == "POST" {
            let _ = write!(
                req,
                "Content-Type: application/json\r\nContent-Length: {}\r\n",
                body.len()
            );
        }
        req.push_str("\r\n");
        req.push_str(&body);
        let mut stream = TcpStream::connect(("127.0.0.1", port))
            .await
            .unwrap_or_else(|e| panic!("connecting to 127.0.0.1:{port}: {e}"));
        stream.write_all(req.as_bytes()).await.unwrap();
        let mut conn = AsyncBufReader::new(stream);
        // The head, up to its blank line; the body is read as it arrives.
        let mut head = Vec::new();
        while !head.ends_with(b"\r\n\r\n") {
            let read = conn.read_until(b'\n', &mut head).await.unwrap_or(0);
            assert!(
                read > 0,
                "{method} to port {port}: the connection ended inside the head"
            );
        }
        let (head, _) = http_response::parse_head(&head).expect("a complete head");
        let (status, headers) = (head.status, head.headers);
        let find = |name: &str| {
            headers
                .iter()
                .find(|(k, _): &&(String, String)| k.eq_ignore_ascii_case(name))
                .map(|(_, v)| v.clone())
        };
        let chunked = find("transfer-encoding").is_some_and(|v| v.contains("chunked"));
        let left = find("content-length").and_then(|v| v.parse().ok());
        Reply {
            status,
            headers,
            conn,
            chunked,
            left,
            buf: Vec::new(),
            done: false,
        }
    })
    .await
    .unwrap_or_else(|_| panic!("{method} to port {port}: no response head in {STEP:?}"))
}

/// What every POST says it accepts.
fn accept() -> (&'static str, String) {
    ("Accept", "application/json, text/event-stream".into())
}

/// A legacy session's headers.
fn legacy_headers(session: &str) -> Vec<(&'static str, String)> {
    vec![
        accept(),
        ("MCP-Protocol-Version", LEGACY.into()),
        ("Mcp-Session-Id", session.into()),
    ]
}

impl Instance {
    /// POSTs a message in legacy session `session`.
    async fn post(&self, session: &str, msg: &Value) -> Reply {
        http(self.port, "POST", &legacy_headers(session), Some(msg)).await
    }

    /// A legacy request in `session`: its JSON-RPC response (HTTP 200 expected).
    async fn request(&self, session: &str, id: i64, method: &str, params: Value) -> Value {
        let msg = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let reply = self.post(session, &msg).await;
        assert_eq!(
            reply.status, 200,
            "{method} on {}: HTTP {}",
            self.name, reply.status
        );
        reply.response(&json!(id)).await
    }

    /// Calls tool `name` in `session`; the text of its result.
    async fn call(&self, session: &str, id: i64, name: &str, args: Value) -> String {
        let r = self
            .request(
                session,
                id,
                "tools/call",
                json!({"name": name, "arguments": args}),
            )
            .await;
        r["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_else(|| panic!("{name} on {}: {r}", self.name))
            .to_owned()
    }

    /// Opens a legacy session here (its client can answer elicitations).
    async fn open_session(&self) -> String {
        let (status, session) = self.try_open_session().await;
        session.unwrap_or_else(|| panic!("initialize on {}: HTTP {status}", self.name))
    }

    /// `initialize` and `notifications/initialized`: the status of the
    /// first, and the session when it opened.
    async fn try_open_session(&self) -> (u16, Option<String>) {
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": LEGACY,
            "capabilities": {"elicitation": {}},
            "clientInfo": {"name": "several_notes", "version": "1"}
        }});
        let reply = http(self.port, "POST", &[accept()], Some(&init)).await;
        let status = reply.status;
        let Some(session) = reply.header("mcp-session-id").map(str::to_owned) else {
            return (status, None);
        };
        let r = reply.response(&json!(0)).await;
        assert_eq!(r["result"]["protocolVersion"], LEGACY, "{r}");
        let done = self
            .post(
                &session,
                &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            )
            .await;
        assert_eq!(
            done.status, 202,
            "notifications/initialized on {}",
            self.name
        );
        (status, Some(session))
    }

    /// The session's standalone GET stream (or a resumption of a stream).
    async fn listen(&self, session: &str, last_event_id: Option<&str>) -> Reply {
        let mut headers = vec![
            ("Accept", "text/event-stream".to_owned()),
            ("MCP-Protocol-Version", LEGACY.to_owned()),
            ("Mcp-Session-Id", session.to_owned()),
        ];
        if let Some(id) = last_event_id {
            headers.push(("Last-Event-ID", id.to_owned()));
        }
        let reply = http(self.port, "GET", &headers, None).await;
        assert_eq!(reply.status, 200, "GET on {}", self.name);
        assert!(reply.is_sse(), "GET on {}: {:?}", self.name, reply.headers);
        reply
    }

    /// A 2026-07-28 request (no session): the HTTP status and the response.
    async fn modern(&self, id: i64, method: &str, mut params: Value) -> (u16, Value) {
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
            "io.modelcontextprotocol/clientInfo": {"name": "several_notes", "version": "1"}
        });
        let mut headers = vec![
            accept(),
            ("MCP-Protocol-Version", MODERN.to_owned()),
            ("Mcp-Method", method.to_owned()),
        ];
        if let Some(name) = params["name"].as_str().or(params["uri"].as_str()) {
            headers.push(("Mcp-Name", name.to_owned()));
        }
        let msg = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let reply = http(self.port, "POST", &headers, Some(&msg)).await;
        let status = reply.status;
        (status, reply.response(&json!(id)).await)
    }

    /// `add_note` in `session`: the text of its result (the new note's id).
    async fn add_note(&self, session: &str, id: i64, title: &str, body: &str) -> String {
        self.call(
            session,
            id,
            "add_note",
            json!({"title": title, "body": body}),
        )
        .await
    }

    /// Subscribes `session` to `uri`; asserts the response is a result.
    async fn subscribe(&self, session: &str, id: i64, uri: &str) {
        let r = self
            .request(session, id, "resources/subscribe", json!({"uri": uri}))
            .await;
        assert!(r.get("result").is_some(), "{r}");
    }

    /// `resources/read` of `uri` in `session`: its JSON-RPC response.
    async fn read(&self, session: &str, id: i64, uri: &str) -> Value {
        self.request(session, id, "resources/read", json!({"uri": uri}))
            .await
    }

    /// Reads the notebook's index (`notes://index`) in `session`; asserts
    /// its text is `want`.
    async fn assert_index(&self, session: &str, id: i64, want: &str) {
        self.assert_reads(session, id, "notes://index", want).await;
    }

    /// Reads `uri` in `session`; asserts its text is `want`.
    async fn assert_reads(&self, session: &str, id: i64, uri: &str, want: &str) {
        let r = self.read(session, id, uri).await;
        assert_eq!(
            r["result"]["contents"][0]["text"], want,
            "{uri} on {}: {r}",
            self.name
        );
    }

    /// POSTs the user's acceptance of `question` (the id of an
    /// `elicitation/create`) in `session`; asserts HTTP 202.
    async fn confirm(&self, session: &str, question: &Value) {
        let posted = self.post(session, &confirmation(question)).await;
        assert_eq!(posted.status, 202, "the answer POSTed to {}", self.name);
    }
}

/// A legacy `tools/call` of `delete_note` on note 1, with JSON-RPC id `id`.
fn delete_note_1(id: i64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "delete_note", "arguments": {"id": 1}}})
}

/// The user's answer to `question` (an `elicitation/create`'s id): accept,
/// having typed the title "Groceries".
fn confirmation(question: &Value) -> Value {
    json!({"jsonrpc": "2.0", "id": question,
        "result": {"action": "accept", "content": {"title": "Groceries"}}})
}

/// Asserts that `r` is a tool's result whose text is `want`.
#[track_caller]
fn assert_tool_text(r: &Value, want: &str) {
    assert_eq!(r["result"]["content"][0]["text"], want, "{r}");
}

/// The `elicitation/create` request a call's stream carries.
async fn question(stream: &mut Reply) -> Value {
    loop {
        let msg = stream
            .next_message(STEP)
            .await
            .expect("the call's stream asks for a confirmation");
        if msg["method"] == "elicitation/create" {
            return msg;
        }
    }
}

fn updated_uri(msg: &Value) -> Option<&str> {
    (msg["method"] == "notifications/resources/updated")
        .then(|| msg["params"]["uri"].as_str())
        .flatten()
}

/// Reads `stream` until an update of each of `uris` arrived; panics naming
/// what is missing when a [`STEP`] passes.
async fn expect_updates(stream: &mut Reply, uris: &[&str], what: &str) {
    let deadline = Instant::now() + STEP;
    let mut missing: Vec<&str> = uris.to_vec();
    let mut seen = Vec::new();
    while !missing.is_empty() {
        let left = deadline.saturating_duration_since(Instant::now());
        let Some(msg) = stream.next_message(left).await else {
            panic!("{what}: no notifications/resources/updated for {missing:?} in {STEP:?} (saw {seen:?})");
        };
        if let Some(uri) = updated_uri(&msg) {
            missing.retain(|u| *u != uri);
        }
        seen.push(msg);
    }
}

// ------------------------------------------------------------------ scenarios

#[tokio::test]
async fn a_legacy_session_opened_on_one_instance_is_used_on_the_other() {
    let t = Trio::start();
    let session = t.a.open_session().await;

    let tools = t.b.request(&session, 1, "tools/list", json!({})).await;
    let mut names: Vec<&str> = tools["result"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("tools/list on B: {tools}"))
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "add_note",
            "board",
            "delete_note",
            "edit_note",
            "suggest_title"
        ]
    );

    let id = t.b.add_note(&session, 2, "Shared", "written on B").await;
    assert_eq!(id, "3", "the notebook starts with two notes");

    t.a.assert_reads(&session, 3, "notes://3", "# Shared\n\nwritten on B")
        .await;
    t.a.assert_index(&session, 4, "1: Groceries\n2: Ideas\n3: Shared")
        .await;
}

#[tokio::test]
async fn a_subscriber_listening_on_one_instance_hears_a_change_made_on_the_other() {
    let t = Trio::start();
    let session = t.a.open_session().await;
    let mut stream = t.a.listen(&session, None).await;
    let priming = stream.next_event(STEP).await.expect("a priming event");
    assert!(
        priming.id.is_some() && priming.data.is_empty(),
        "{priming:?}"
    );

    // Subscribed through B: A, where the stream is held, must learn of it.
    t.b.subscribe(&session, 1, "notes://index").await;
    let id = t.b.add_note(&session, 2, "Heard", "?").await;
    assert_eq!(id, "3");

    expect_updates(
        &mut stream,
        &["notes://index"],
        "A's GET stream after add_note on B",
    )
    .await;
}

#[tokio::test]
async fn a_stream_dropped_on_one_instance_resumes_on_the_other() {
    let t = Trio::start();
    let session = t.a.open_session().await;
    t.a.subscribe(&session, 1, "notes://index").await;
    t.a.subscribe(&session, 2, "notes://1").await;
    let mut stream = t.a.listen(&session, None).await;
    let priming = stream.next_event(STEP).await.expect("a priming event");
    let last = priming.id.expect("the priming event has an id");
    drop(stream); // the client's connection to A is gone

    // Changes made on B while nobody listens: A's stream logs them.
    let edited =
        t.b.call(
            &session,
            3,
            "edit_note",
            json!({"id": 1, "body": "Milk, eggs, bread, tea."}),
        )
        .await;
    assert_eq!(edited, "note 1 updated");
    // A hears of them on the bus and copies its stream's events to Redis.
    tokio::time::sleep(Duration::from_secs(1)).await;

    let mut resumed = t.b.listen(&session, Some(&last)).await;
    expect_updates(
        &mut resumed,
        &["notes://1", "notes://index"],
        "B resuming A's stream after Last-Event-ID",
    )
    .await;
}

#[tokio::test]
async fn an_elicitation_asked_on_one_instance_is_answered_on_the_other() {
    let t = Trio::start();
    let session = t.a.open_session().await;
    let mut on_a = t.a.post(&session, &delete_note_1(7)).await;
    assert_eq!(on_a.status, 200);
    assert!(on_a.is_sse(), "{:?}", on_a.headers);
    let asked = question(&mut on_a).await;
    let message = asked["params"]["message"].as_str().unwrap();
    assert!(message.contains("(\"Groceries\")"), "{asked}");

    // The answer goes to B; A's call hears it through the bus.
    t.b.confirm(&session, &asked["id"]).await;

    let done = tokio::time::timeout(STEP, on_a.response(&json!(7)))
        .await
        .expect("the call on A completes");
    assert_tool_text(&done, "note 1 deleted");
    let read = t.b.read(&session, 8, "notes://1").await;
    assert_eq!(read["error"]["code"], -32602, "{read}");
    t.b.assert_index(&session, 9, "2: Ideas").await;
}

#[tokio::test]
async fn a_deletion_waiting_for_its_confirmation_holds_nothing() {
    let t = Trio::start();
    let session = t.a.open_session().await;
    // Two deletions of note 1 wait for the user at once on A, and the
    // notebook can still be written meanwhile.
    let mut first = t.a.post(&session, &delete_note_1(10)).await;
    let first_question = question(&mut first).await["id"].clone();
    let mut second = t.a.post(&session, &delete_note_1(11)).await;
    let second_question = question(&mut second).await["id"].clone();
    assert_ne!(first_question, second_question);
    let id = tokio::time::timeout(STEP, t.a.add_note(&session, 12, "Meanwhile", "."))
        .await
        .expect("add_note runs while deletions wait for the user");
    assert_eq!(id, "3");

    t.b.confirm(&session, &second_question).await;
    let done = second.response(&json!(11)).await;
    assert_tool_text(&done, "note 1 deleted");
    // The first confirmation comes too late: the note is gone, and the
    // compare-and-delete says so instead of deleting anything else.
    t.b.confirm(&session, &first_question).await;
    let late = first.response(&json!(10)).await;
    assert_tool_text(&late, "note 1 was deleted while you were confirming");
    t.b.assert_index(&session, 13, "2: Ideas\n3: Meanwhile")
        .await;
}

#[tokio::test]
async fn a_modern_input_round_begun_on_one_instance_completes_on_the_other() {
    let t = Trio::start();
    let (status, first) =
        t.a.modern(
            1,
            "tools/call",
            json!({"name": "delete_note", "arguments": {"id": 1}}),
        )
        .await;
    assert_eq!(status, 200, "{first}");
    assert_eq!(first["result"]["resultType"], "input_required", "{first}");
    let asked = &first["result"]["inputRequests"]["confirm_delete"];
    assert_eq!(asked["method"], "elicitation/create", "{first}");
    assert!(asked["params"]["message"]
        .as_str()
        .unwrap()
        .contains("(\"Groceries\")"));
    let state = first["result"]["requestState"]
        .as_str()
        .expect("a requestState")
        .to_owned();

    let (status, done) =
        t.b.modern(
            2,
            "tools/call",
            json!({"name": "delete_note", "arguments": {"id": 1},
            "inputResponses": {"confirm_delete": {"action": "accept", "content": {"title": "Groceries"}}},
            "requestState": state}),
        )
        .await;
    assert_eq!(status, 200, "{done}");
    assert_tool_text(&done, "note 1 deleted");
    let (_, read) =
        t.a.modern(3, "resources/read", json!({"uri": "notes://1"}))
            .await;
    assert_eq!(read["error"]["code"], -32602, "{read}");
}

#[tokio::test]
async fn a_session_deleted_on_one_instance_is_gone_on_both() {
    let t = Trio::start();
    let session = t.a.open_session().await;
    // B takes the session up (and caches it) before it ends.
    let tools = t.b.request(&session, 1, "tools/list", json!({})).await;
    assert!(tools.get("result").is_some(), "{tools}");

    let deleted = http(t.a.port, "DELETE", &legacy_headers(&session), None).await;
    assert_eq!(deleted.status, 200, "DELETE on A");

    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
    assert_eq!(
        t.a.post(&session, &list).await.status,
        404,
        "A after DELETE"
    );
    // B learns of the end on the bus: at once, give or take its delivery.
    let deadline = Instant::now() + Duration::from_secs(2);
    loop {
        let status = t.b.post(&session, &list).await.status;
        if status == 404 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "B still serves a session deleted on A (HTTP {status})"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let again = http(t.b.port, "DELETE", &legacy_headers(&session), None).await;
    assert_eq!(again.status, 404, "DELETE again, on B");
}

#[tokio::test]
async fn with_redis_stopped_the_store_answers_503_quickly_and_comes_back() {
    let mut t = Trio::start();
    let held_by_a = t.a.open_session().await;
    let tools = t.a.request(&held_by_a, 1, "tools/list", json!({})).await;
    assert!(tools.get("result").is_some(), "{tools}");

    t.redis.pause();
    // B has never seen this session: it must read the store, which is stopped.
    let started = Instant::now();
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
    let reply = t.b.post(&held_by_a, &list).await;
    let took = started.elapsed();
    let status = reply.status;
    let retry_after = reply.header("retry-after").map(str::to_owned);
    let body = reply.text().await;
    assert_eq!(status, 503, "B with Redis stopped: {body}");
    assert!(retry_after.is_some(), "503 without Retry-After: {body}");
    assert!(
        took < Duration::from_millis(2500),
        "the 503 took {took:?} (at most 2.5 s)"
    );

    // The 2026-07-28 era needs no store for server/discover.
    for peer in [&t.a, &t.b] {
        let started = Instant::now();
        let (status, discover) = peer.modern(3, "server/discover", json!({})).await;
        assert_eq!(
            status, 200,
            "server/discover on {} with Redis stopped: {discover}",
            peer.name
        );
        assert!(discover.get("result").is_some(), "{discover}");
        assert!(started.elapsed() < Duration::from_millis(2500));
    }
    // Reading the notebook fails at once too, and says why.
    let started = Instant::now();
    let (_, read) =
        t.a.modern(4, "resources/read", json!({"uri": "notes://index"}))
            .await;
    let took_read = started.elapsed();
    assert_eq!(read["error"]["code"], -32603, "{read}");
    assert!(
        read["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("notebook is unavailable")),
        "{read}"
    );
    assert!(
        took_read < Duration::from_millis(2500),
        "the failed read took {took_read:?}"
    );
    eprintln!("with Redis stopped: 503 in {took:?}, a failed notebook read in {took_read:?}");
    assert!(t.a.running(), "A died: {}", t.a.stderr());
    assert!(t.b.running(), "B died: {}", t.b.stderr());

    t.redis.resume();
    let resumed = Instant::now();
    let deadline = resumed + Duration::from_secs(10);
    let mut failure = String::new();
    loop {
        assert!(
            Instant::now() < deadline,
            "no session works across instances 10 s after Redis came back; last: {failure}"
        );
        let (status, session) = t.a.try_open_session().await;
        let Some(session) = session else {
            failure = format!("initialize on A: HTTP {status}");
            tokio::time::sleep(Duration::from_millis(200)).await;
            continue;
        };
        let reply = t.b.post(&session, &list).await;
        if reply.status != 200 {
            failure = format!("tools/list on B: HTTP {}", reply.status);
            tokio::time::sleep(Duration::from_millis(200)).await;
            continue;
        }
        let r = reply.response(&json!(2)).await;
        assert!(r["result"]["tools"].is_array(), "{r}");
        let id = t.b.add_note(&session, 3, "Back", "!").await;
        assert_eq!(id, "3");
        // A, whose notebook read failed while Redis was stopped, reads again.
        t.a.assert_index(&session, 4, "1: Groceries\n2: Ideas\n3: Back")
            .await;
        eprintln!(
            "a new session worked across instances {:?} after Redis came back",
            resumed.elapsed()
        );
        break;
    }
    assert!(t.a.running() && t.b.running());
}
