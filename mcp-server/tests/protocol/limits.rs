//! The limits on tool calls a host meets: result-size caps (per tool, per
//! server, announced to Claude hosts), and the settings refused at build.

use mcp_test_support::server as support;

use oxmcp_server::{tool, Context, Server, ToolEntry};
use serde_json::{json, Value};
use support::Client;

fn long(name: &str, chars: usize) -> ToolEntry {
    ToolEntry::dynamic(
        name,
        "A long text",
        json!({"type": "object"}),
        move |_, _| async move { "é".repeat(chars) },
    )
    .unwrap()
}

/// The texts of a `tools/call` answer.
fn texts(r: &Value) -> Vec<String> {
    r["result"]["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|b| b["text"].as_str().map(str::to_owned))
        .collect()
}

async fn listed(c: &mut Client, id: i64, name: &str) -> Value {
    let r = c.request(id, "tools/list", json!({})).await;
    r["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == name)
        .cloned()
        .unwrap_or_else(|| panic!("{name} not listed"))
}

#[tokio::test]
async fn a_result_over_the_cap_is_cut_and_a_larger_cap_is_announced() {
    let server = Server::builder("caps", "1")
        .tool(long("long", 200_000))
        .tool(long("longer", 200_000).with_max_result_chars(300_000))
        .build();
    let mut c = Client::start(server);
    c.initialize("2025-11-25").await;
    let r = c.request(1, "tools/call", json!({"name":"long"})).await;
    let t = texts(&r);
    assert_eq!(t[0].chars().count(), 100_000);
    assert!(
        t[1].contains("the text had 200000 characters; the first 100000 are shown"),
        "{}",
        t[1]
    );
    assert!(
        r["result"].get("isError").is_none(),
        "a cut text is no error"
    );
    let r = c.request(2, "tools/call", json!({"name":"longer"})).await;
    assert_eq!(texts(&r), vec!["é".repeat(200_000)]);
    let longer = listed(&mut c, 3, "longer").await;
    assert_eq!(longer["_meta"]["anthropic/maxResultSizeChars"], 300_000);
    let long = listed(&mut c, 4, "long").await;
    assert!(long.get("_meta").is_none(), "the default is not announced");
}

#[tokio::test]
async fn the_server_wide_cap_applies_to_tools_without_their_own_and_tools_can_read_theirs() {
    let own = ToolEntry::dynamic(
        "own",
        "Its cap",
        json!({"type": "object"}),
        |_, ctx: Context| async move { ctx.max_result_chars().to_string() },
    )
    .unwrap();
    let server = Server::builder("caps", "1")
        .max_result_chars(1_000)
        .tool(long("long", 5_000))
        .tool(own.clone())
        .tool(long("roomy", 5_000).with_max_result_chars(8_000))
        .build();
    let handle = server.handle();
    let mut c = Client::start(server);
    c.initialize("2025-11-25").await;
    let r = c.request(1, "tools/call", json!({"name":"long"})).await;
    assert_eq!(texts(&r)[0].chars().count(), 1_000);
    let r = c.request(2, "tools/call", json!({"name":"own"})).await;
    assert_eq!(texts(&r), vec!["1000"]);
    let r = c.request(3, "tools/call", json!({"name":"roomy"})).await;
    assert_eq!(texts(&r)[0].chars().count(), 5_000, "its own cap wins");
    // A tool added at run time gets the server's cap too.
    handle.add_tool(long("late", 5_000)).unwrap();
    let r = c.request(4, "tools/call", json!({"name":"late"})).await;
    assert_eq!(texts(&r)[0].chars().count(), 1_000);
    // A server cap above the default is announced on every tool.
    let server = Server::builder("caps", "1")
        .max_result_chars(250_000)
        .tool(own)
        .build();
    let mut c = Client::start(server);
    c.initialize("2025-11-25").await;
    let own = listed(&mut c, 1, "own").await;
    assert_eq!(own["_meta"]["anthropic/maxResultSizeChars"], 250_000);
}

#[tokio::test]
async fn a_large_list_loses_items_and_an_image_stays_whole() {
    let list = ToolEntry::dynamic(
        "list",
        "Many items",
        json!({"type": "object"}),
        |_, _| async {
            let items: Vec<Value> = (0..5_000)
                .map(|i| json!({"id": i, "title": format!("item number {i}")}))
                .collect();
            let mut r = oxmcp_server::types::CallToolResult::text("5000 items");
            r.structured_content = Some(json!({"total": 5_000, "items": items}));
            r
        },
    )
    .unwrap();
    let image = ToolEntry::dynamic(
        "image",
        "A picture",
        json!({"type": "object"}),
        |_, _| async { oxmcp_server::types::ContentBlock::image("A".repeat(400_000), "image/png") },
    )
    .unwrap();
    let server = Server::builder("caps", "1").tool(list).tool(image).build();
    let mut c = Client::start(server);
    c.initialize("2025-11-25").await;
    let r = c.request(1, "tools/call", json!({"name":"list"})).await;
    let structured = &r["result"]["structuredContent"];
    let kept = structured["items"].as_array().unwrap().len();
    assert!(kept > 100 && kept < 5_000, "{kept}");
    assert!(serde_json::to_string(structured).unwrap().len() <= 100_000);
    assert_eq!(structured["total"], 5_000);
    assert_eq!(
        structured["items"][kept - 1]["id"],
        kept - 1,
        "the first items stay, in order"
    );
    let t = texts(&r);
    assert!(
        t.last()
            .unwrap()
            .contains(&format!("had 5000 items; the first {kept} are kept")),
        "{t:?}"
    );
    let r = c.request(2, "tools/call", json!({"name":"image"})).await;
    let content = r["result"]["content"].as_array().unwrap();
    assert_eq!(content.len(), 1, "no marker: nothing was cut");
    assert_eq!(content[0]["data"].as_str().unwrap().len(), 400_000);
}

/// Tools whose caps and cache are declared in `#[tool(...)]`.
#[derive(Debug)]
pub struct Declared;

#[tool(description = "Tools with declared limits")]
impl Declared {
    #[describe("A roomy report")]
    #[tool(max_result_chars = 150_000)]
    pub fn report(&self) -> String {
        "r".repeat(120_000)
    }

    #[describe("A narrow report")]
    #[tool(max_result_chars = 10)]
    pub fn narrow(&self) -> String {
        "n".repeat(20)
    }
}

#[tokio::test]
async fn caps_declared_in_the_attribute_hold_and_are_announced() {
    let server = Server::builder("caps", "1").toolbox(Declared).build();
    let mut c = Client::start(server);
    c.initialize("2025-11-25").await;
    let r = c.request(1, "tools/call", json!({"name":"report"})).await;
    assert_eq!(texts(&r), vec!["r".repeat(120_000)]);
    let r = c.request(2, "tools/call", json!({"name":"narrow"})).await;
    assert_eq!(texts(&r)[0], "n".repeat(10));
    let report = listed(&mut c, 3, "report").await;
    assert_eq!(report["_meta"]["anthropic/maxResultSizeChars"], 150_000);
}

#[test]
fn a_zero_or_absurd_cap_and_a_cache_on_a_tool_with_effects_are_refused_at_build() {
    let refused = |b: oxmcp_server::ServerBuilder| b.try_build().unwrap_err().to_string();
    let e = refused(Server::builder("caps", "1").tool(long("zero", 1).with_max_result_chars(0)));
    assert!(
        e.contains("the result cap of tool `zero` is 0 characters"),
        "{e}"
    );
    let e =
        refused(Server::builder("caps", "1").tool(long("huge", 1).with_max_result_chars(600_000)));
    assert!(
        e.contains("the result cap of tool `huge` is 600000 characters: give 1 to 500000"),
        "{e}"
    );
    let e = refused(Server::builder("caps", "1").max_result_chars(0));
    assert!(e.contains("max_result_chars is 0 characters"), "{e}");
    let e = refused(
        Server::builder("caps", "1")
            .tool(long("writer", 1).with_cache(std::time::Duration::from_secs(5))),
    );
    assert!(
        e.contains("the cache of tool `writer`") && e.contains("mark the tool read-only"),
        "{e}"
    );
    let read_only = |ttl| {
        let def = serde_json::from_value(json!({
            "name": "reader",
            "description": "Reads",
            "inputSchema": {"type": "object"},
            "annotations": {"readOnlyHint": true}
        }))
        .unwrap();
        ToolEntry::from_tool(def, |_, _| async { "read" })
            .unwrap()
            .with_cache(ttl)
    };
    let e = refused(Server::builder("caps", "1").tool(read_only(std::time::Duration::ZERO)));
    assert!(
        e.contains("the cache of tool `reader` keeps results for 0 ms"),
        "{e}"
    );
    assert!(Server::builder("caps", "1")
        .tool(read_only(std::time::Duration::from_secs(60)))
        .try_build()
        .is_ok());
}

/// A read-only tool whose every run answers a new number: a cached answer
/// shows as an old number.
#[derive(Debug)]
pub struct Counter {
    runs: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

#[tool(description = "Counts its runs")]
impl Counter {
    #[describe("The number of this run, and the word given")]
    #[tool(read_only, cache = "60s")]
    pub fn count(&self, #[param("Any word")] word: String) -> String {
        let n = self.runs.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
        format!("{word} {n}")
    }

    #[describe("Adds two numbers")]
    pub fn add(&self, #[param("First")] a: i64, #[param("Second")] b: i64) -> i64 {
        a + b
    }
}

fn counter() -> Counter {
    Counter {
        runs: std::sync::Arc::default(),
    }
}

async fn call_text(c: &mut Client, id: i64, name: &str, arguments: Value) -> (bool, String) {
    let r = c
        .request(
            id,
            "tools/call",
            json!({"name": name, "arguments": arguments}),
        )
        .await;
    (r["result"]["isError"] == true, texts(&r).join("\n"))
}

#[tokio::test]
async fn over_the_limit_calls_are_told_when_to_retry_and_other_callers_are_not_slowed() {
    use oxmcp_server::policy::{Rate, RateLimit};
    let server = Server::builder("limits", "1")
        .toolbox(counter())
        .rate_limit(RateLimit::per_caller(Rate::per_second(10)))
        .build();
    let mut a = Client::start(server.clone());
    let mut b = Client::start(server);
    a.initialize("2025-11-25").await;
    b.initialize("2025-11-25").await;
    let started = std::time::Instant::now();
    // Caller A: 100 calls at once.
    for id in 1..=100 {
        a.send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                      "params": {"name": "add", "arguments": {"a": id, "b": 1}}}))
            .await;
    }
    // Caller B meanwhile: its own budget.
    for id in 1..=10 {
        let (error, text) = call_text(&mut b, id, "add", json!({"a": id, "b": 0})).await;
        assert!(!error, "caller B was limited: {text}");
        assert_eq!(text, id.to_string());
    }
    let mut answered = std::collections::BTreeSet::new();
    let (mut passed, mut refused) = (0, 0);
    while answered.len() < 100 {
        let r = a.recv().await;
        let id = r["id"].as_i64().unwrap();
        assert!(answered.insert(id), "two replies to {id}");
        let text = texts(&r).join("");
        if r["result"]["isError"] == true {
            assert!(
                text.starts_with(
                    "rate limit: tool `add` takes at most 10 per second from one caller; retry in "
                ),
                "{text}"
            );
            refused += 1;
        } else {
            assert_eq!(text, (id + 1).to_string());
            passed += 1;
        }
    }
    let elapsed = started.elapsed();
    // The burst of 10, and one more for each tenth of a second gone by.
    let most = 10 + usize::try_from(elapsed.as_millis() / 100).unwrap() + 1;
    assert!(
        passed >= 10 && passed <= most,
        "{passed} passed in {elapsed:?}"
    );
    assert_eq!(passed + refused, 100, "no reply lost");
}

#[tokio::test]
async fn a_tool_with_a_rate_of_its_own_spends_only_its_own_budget() {
    use oxmcp_server::policy::{Rate, RateLimit};
    let server = Server::builder("limits", "1")
        .toolbox(counter())
        .rate_limit(RateLimit::none().tool("count", Rate::per_minute(2)))
        .result_cache(oxmcp_server::policy::ResultCache::new())
        .build();
    let mut c = Client::start(server);
    c.initialize("2025-11-25").await;
    for (id, word) in [(1, "a"), (2, "b")] {
        assert!(
            !call_text(&mut c, id, "count", json!({"word": word}))
                .await
                .0
        );
    }
    let (error, text) = call_text(&mut c, 3, "count", json!({"word": "c"})).await;
    assert!(
        error && text.contains("takes at most 2 per minute"),
        "{text}"
    );
    for id in 4..40 {
        assert!(
            !call_text(&mut c, id, "add", json!({"a": 1, "b": 1}))
                .await
                .0,
            "add has no limit"
        );
    }
}

#[tokio::test]
async fn a_cached_result_is_served_to_its_caller_only_and_forgotten_when_the_list_changes() {
    let cache = oxmcp_server::policy::ResultCache::new();
    let server = Server::builder("cache", "1")
        .toolbox(counter())
        .result_cache(cache.clone())
        .build();
    let handle = server.handle();
    let mut a = Client::start(server.clone());
    let mut b = Client::start(server);
    a.initialize("2025-11-25").await;
    b.initialize("2025-11-25").await;
    assert_eq!(
        call_text(&mut a, 1, "count", json!({"word": "x"})).await.1,
        "x 1"
    );
    assert_eq!(
        call_text(&mut a, 2, "count", json!({"word": "x"})).await.1,
        "x 1",
        "a hit"
    );
    assert_eq!(
        call_text(&mut a, 3, "count", json!({"word": "y"})).await.1,
        "y 2",
        "other arguments"
    );
    // Another caller never gets A's result.
    assert_eq!(
        call_text(&mut b, 1, "count", json!({"word": "x"})).await.1,
        "x 3"
    );
    assert_eq!(
        call_text(&mut b, 2, "count", json!({"word": "x"})).await.1,
        "x 3"
    );
    // Tools without `cache` are not counted.
    call_text(&mut a, 4, "add", json!({"a": 1, "b": 2})).await;
    let stats = cache.stats();
    assert_eq!((stats.hits, stats.misses), (2, 3), "{stats:?}");
    // The tool list changes: what was kept is gone.
    handle.add_tool(long("more", 1)).unwrap();
    assert_eq!(
        call_text(&mut a, 5, "count", json!({"word": "x"})).await.1,
        "x 4"
    );
    assert_eq!(cache.stats().misses, 4);
}

/// A 2026-07-28 `tools/call` over HTTP, as the caller with API key `key`.
#[cfg(feature = "http")]
async fn http_call(
    s: &support::HttpServer,
    key: &str,
    tool: &str,
    arguments: Value,
) -> support::Response {
    s.post_json(
        &[
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", tool),
            ("x-api-key", key),
        ],
        &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": {"name": tool, "arguments": arguments, "_meta": support::modern_meta()}}),
    )
    .await
}

#[cfg(feature = "http")]
#[tokio::test]
async fn http_requests_over_the_limit_get_429_with_retry_after() {
    use oxmcp_server::policy::{Rate, RateLimit};
    let server = Server::builder("limits", "1")
        .toolbox(counter())
        .rate_limit(
            RateLimit::none()
                .http_requests(Rate::per_minute(3))
                .key(|caller| caller.header("x-api-key").map(str::to_owned)),
        )
        .build();
    let s = support::HttpServer::start(server, oxmcp_server::http::HttpConfig::default()).await;
    for _ in 0..3 {
        let r = http_call(&s, "alice", "add", json!({"a": 1, "b": 2})).await;
        assert_eq!(r.status, 200, "{r:?}");
    }
    let r = http_call(&s, "alice", "add", json!({"a": 1, "b": 2})).await;
    assert_eq!(r.status, 429, "{r:?}");
    let retry: u64 = r.header("retry-after").unwrap().parse().unwrap();
    assert!((1..=20).contains(&retry), "{retry}");
    let body = r.json();
    assert_eq!(body["error"]["code"], -32000);
    assert!(body["error"]["message"]
        .as_str()
        .unwrap()
        .contains("too many requests from this caller; retry in"));
    // Another caller has its own budget.
    let r = http_call(&s, "bob", "add", json!({"a": 1, "b": 2})).await;
    assert_eq!(r.status, 200, "{r:?}");
}

#[cfg(feature = "http")]
#[tokio::test]
async fn instances_sharing_a_store_answer_from_one_anothers_cache_per_caller() {
    let store = oxmcp_server::state::MemoryStore::default();
    let runs = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let instance = || {
        let cache = oxmcp_server::policy::ResultCache::new()
            .shared(store.clone())
            .key(|caller| caller.header("x-api-key").map(str::to_owned));
        let server = Server::builder("cache", "1")
            .toolbox(Counter {
                runs: std::sync::Arc::clone(&runs),
            })
            .result_cache(cache.clone())
            .build();
        (server, cache)
    };
    let (one, cache_one) = instance();
    let (two, cache_two) = instance();
    let one = support::HttpServer::start(one, oxmcp_server::http::HttpConfig::default()).await;
    let two = support::HttpServer::start(two, oxmcp_server::http::HttpConfig::default()).await;
    let text = |r: support::Response| r.json()["result"]["content"][0]["text"].clone();
    let r = http_call(&one, "alice", "count", json!({"word": "w"})).await;
    assert_eq!(text(r), "w 1");
    let r = http_call(&two, "alice", "count", json!({"word": "w"})).await;
    assert_eq!(text(r), "w 1", "the other instance answers from the store");
    let r = http_call(&two, "bob", "count", json!({"word": "w"})).await;
    assert_eq!(text(r), "w 2", "never another caller's result");
    assert_eq!((cache_one.stats().misses, cache_two.stats().hits), (1, 1));
    // A caller nothing tells apart is not cached.
    let r = one
        .post_json(
            &[("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", "tools/call"), ("Mcp-Name", "count")],
            &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                    "params": {"name": "count", "arguments": {"word": "w"}, "_meta": support::modern_meta()}}),
        )
        .await;
    assert_eq!(text(r), "w 3");
    assert_eq!(cache_one.stats().uncached, 1);
}

/// A long text and a long list, cut to small caps, their whole kept.
#[derive(Debug)]
pub struct Archive;

#[tool(description = "An archive with long answers")]
impl Archive {
    #[describe("Everything, as text")]
    #[tool(max_result_chars = 1_000, keep_full_result = "10m")]
    pub fn dump(&self) -> String {
        "d".repeat(5_000)
    }

    #[describe("Everything, without keeping the rest")]
    #[tool(max_result_chars = 1_000)]
    pub fn peek(&self) -> String {
        "p".repeat(5_000)
    }
}

#[tokio::test]
async fn the_whole_of_a_cut_result_is_read_by_its_caller_and_no_one_else() {
    let server = Server::builder("kept", "1").toolbox(Archive).build();
    let mut a = Client::start(server.clone());
    let mut b = Client::start(server);
    let init = a.initialize("2025-11-25").await;
    assert!(
        init["result"]["capabilities"].get("resources").is_some(),
        "kept results are read as resources: {init}"
    );
    b.initialize("2025-11-25").await;
    let r = a.request(1, "tools/call", json!({"name": "dump"})).await;
    let content = r["result"]["content"].as_array().unwrap();
    assert_eq!(content[0]["text"].as_str().unwrap().len(), 1_000);
    let link = content
        .iter()
        .find(|b| b["type"] == "resource_link")
        .unwrap();
    let uri = link["uri"].as_str().unwrap();
    assert!(uri.starts_with("mcp-result:"), "{uri}");
    let marker = content[1]["text"].as_str().unwrap();
    assert!(
        marker.contains(&format!("The whole result is at resource {uri}")),
        "{marker}"
    );
    let read = a.request(2, "resources/read", json!({"uri": uri})).await;
    assert_eq!(
        read["result"]["contents"][0]["text"].as_str().unwrap(),
        "d".repeat(5_000)
    );
    // Another caller: it does not exist.
    let refused = b.request(1, "resources/read", json!({"uri": uri})).await;
    // As any unknown URI is answered.
    let unknown = b
        .request(2, "resources/read", json!({"uri": "mcp-result:00"}))
        .await;
    assert_eq!(
        refused["error"]["code"], unknown["error"]["code"],
        "{refused}"
    );
    assert!(refused["error"]["message"]
        .as_str()
        .unwrap()
        .starts_with("resource not found"));
    // A tool that does not keep its results has no link.
    let r = a.request(3, "tools/call", json!({"name": "peek"})).await;
    let content = r["result"]["content"].as_array().unwrap();
    assert!(content.iter().all(|b| b["type"] != "resource_link"));
    assert!(content[1]["text"]
        .as_str()
        .unwrap()
        .contains("Ask for less"));
}
