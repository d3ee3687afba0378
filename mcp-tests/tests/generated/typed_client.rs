//! The typed clients `#[tool]` generates, seen through their behaviour:
//!
//! - `<Type>Client<C>` beside a toolbox, and `<Trait>Client<C>` for a
//!   declaration of a foreign server's tools, against a mock `ToolCaller`
//!   (what is sent, how each kind of result is decoded, errors);
//! - the same clients against our real server, in-process, over two
//!   `tokio::io::duplex` pipes and a minimal JSON-RPC caller written here.

// Some tools are `async` without awaiting, to cover async expansion; the
// numbers compared are exact in binary.
#![allow(clippy::unused_async, clippy::float_cmp)]

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use oxmcp_server::types::call::{BoxFuture, CallError, ToolCaller};
use oxmcp_server::types::{CallToolResult, ContentBlock, ErrorObject, JsonObject, Tool};
use oxmcp_server::{tool, Json, Server, ToolError};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream};
use tokio::sync::oneshot;

// ---------------------------------------------------------------------------
// A server.
// ---------------------------------------------------------------------------

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, schemars::JsonSchema)]
pub struct Hit {
    pub title: String,
    pub score: f64,
}

/// An object with one field named `result`: its schema's root is an object,
/// so the server does not wrap it, and the client must not unwrap it.
#[derive(Debug, PartialEq, Deserialize, Serialize, schemars::JsonSchema)]
pub struct Tally {
    pub result: u32,
}

#[derive(Debug, Clone, Copy, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Order {
    Relevance,
    Date,
}

/// A result alias: the client decodes it as the server encodes it.
pub type Res<T> = Result<T, ToolError>;

/// The context under another name.
pub type Ctx = oxmcp_server::Context;

mod reexported {
    pub(crate) use oxmcp_server::Json as J;
}

#[derive(Debug, Default)]
pub struct Calculator {
    memory: f64,
}

#[tool(description = "Arithmetic on two numbers, with one memory register")]
impl Calculator {
    #[describe("Add two numbers")]
    #[param(a, "The first number")]
    #[param(b, "The second number")]
    pub fn add(&self, a: f64, b: f64) -> f64 {
        a + b
    }

    #[describe("Divide a by b")]
    pub fn divide(
        &self,
        #[param("The dividend")] a: f64,
        #[param("The divisor")] b: f64,
    ) -> Result<f64, ToolError> {
        if b == 0.0 {
            return Err(ToolError::new("division by zero"));
        }
        Ok(a / b)
    }

    #[describe("Store a value and return the previous one")]
    pub async fn store(&mut self, #[param("Value to store")] value: f64) -> f64 {
        std::mem::replace(&mut self.memory, value)
    }

    #[describe("Search the archive")]
    pub async fn search(
        &self,
        #[param("Query text")] query: String,
        #[param("Maximum results", default = 2)] max_results: u32,
        #[param("Only after this date")] since: Option<String>,
        #[param("Sort order", default = Order::Relevance)] order: Order,
        ctx: oxmcp_server::Context,
    ) -> Result<Json<Vec<Hit>>, ToolError> {
        let _ = ctx;
        let hits = (0..max_results)
            .map(|i| Hit {
                title: format!("{query} {i} {} {order:?}", since.as_deref().unwrap_or("-")),
                score: f64::from(i),
            })
            .collect();
        Ok(Json(hits))
    }

    #[describe("Count")]
    pub fn tally(&self, #[param("How many")] n: u32) -> Json<Tally> {
        Json(Tally { result: n })
    }

    #[describe("Forget the memory")]
    #[tool(name = "memory.clear")]
    pub fn clear_memory(&mut self) {
        self.memory = 0.0;
    }

    #[describe("Greet")]
    pub fn greet(&self, #[param("Who")] name: String) -> String {
        format!("Hello, {name}!")
    }

    #[describe("Is it even")]
    pub fn even(&self, #[param("The number")] n: i64) -> bool {
        n % 2 == 0
    }

    #[describe("Two blocks")]
    pub fn blocks(&self) -> Vec<ContentBlock> {
        vec![ContentBlock::text("a"), ContentBlock::text("b")]
    }

    #[describe("One block")]
    pub fn block(&self) -> ContentBlock {
        ContentBlock::text("only")
    }

    #[describe("A whole result")]
    pub fn whole(&self, #[param("Fail?")] fail: bool) -> CallToolResult {
        if fail {
            CallToolResult::error("asked to fail")
        } else {
            CallToolResult::text("whole")
        }
    }

    #[describe("Halve a number, through a result alias")]
    pub fn halve(&self, #[param("The number")] n: i64) -> Res<i64> {
        if n % 2 == 0 {
            Ok(n / 2)
        } else {
            Err(ToolError::new("odd"))
        }
    }

    #[describe("Hits, through a re-exported and renamed Json")]
    pub fn top(&self, #[param("How many")] n: u32, ctx: Ctx) -> Res<reexported::J<Vec<Hit>>> {
        let _ = ctx;
        Ok(reexported::J(hits(n)))
    }

    #[describe("Words per length")]
    pub fn lengths(
        &self,
        #[param("The words")] words: Vec<String>,
    ) -> Json<HashMap<String, usize>> {
        Json(words.into_iter().map(|w| (w.clone(), w.len())).collect())
    }
}

// ---------------------------------------------------------------------------
// A declaration of (part of) the same server, as a foreign client would write it.
// ---------------------------------------------------------------------------

/// The calculator, seen from outside.
#[oxmcp_client::tool(description = "The calculator server")]
pub trait RemoteCalculator {
    #[describe("Add two numbers")]
    #[param(a, "The first number")]
    #[param(b, "The second number")]
    async fn add(&self, a: f64, b: f64) -> f64;

    #[describe("Divide a by b")]
    async fn divide(&self, #[param("The dividend")] a: f64, #[param("The divisor")] b: f64) -> f64;

    #[describe("Search the archive")]
    async fn search(
        &self,
        #[param("Query text")] query: String,
        #[param("Maximum results", default = 2)] max_results: u32,
        #[param("Only after this date")] since: Option<String>,
    ) -> oxmcp_client::Json<Vec<Hit>>;

    #[describe("Count")]
    #[tool(name = "tally")]
    async fn count(&self, #[param("How many")] n: u32) -> oxmcp_client::Json<Tally>;

    #[describe("Forget the memory")]
    #[tool(name = "memory.clear")]
    async fn clear(&self);

    #[describe("Greet")]
    async fn greet(&self, #[param("Who")] name: String) -> String;

    #[describe("Two blocks")]
    async fn blocks(&self) -> Vec<ContentBlock>;

    #[describe("A whole result")]
    async fn whole(&self, #[param("Fail?")] fail: bool) -> CallToolResult;

    #[describe("Words per length, raw")]
    #[tool(name = "lengths")]
    async fn lengths_raw(
        &self,
        #[param("The words")] words: Vec<String>,
    ) -> oxmcp_client::Json<Value>;
}

/// A declaration that does not match the calculator in every possible way.
#[oxmcp_client::tool(description = "A calculator that is not ours")]
pub trait WrongCalculator {
    #[describe("Add, with a string and a missing operand")]
    async fn add(&self, #[param("The first number")] a: String) -> f64;

    #[describe("Divide, with an extra argument and an optional divisor")]
    async fn divide(
        &self,
        #[param("The dividend")] a: f64,
        #[param("The divisor")] b: Option<f64>,
        #[param("Rounding")] round: bool,
        #[param("Optional and unknown: fine")] precision: Option<u32>,
    ) -> f64;

    #[describe("Not there")]
    async fn multiply(&self, #[param("The first number")] a: f64) -> f64;
}

/// Integers where the server takes numbers: compatible.
#[oxmcp_client::tool(description = "The calculator, on integers")]
pub trait IntegerCalculator {
    #[describe("Add two integers")]
    async fn add(
        &self,
        #[param("The first number")] a: i64,
        #[param("The second number")] b: i64,
    ) -> f64;
}

// ---------------------------------------------------------------------------
// A mock caller: records every call, answers with canned results.
// ---------------------------------------------------------------------------

#[derive(Debug, Default, Clone)]
struct Mock {
    calls: Arc<Mutex<Vec<(String, Value)>>>,
    results: Arc<Mutex<VecDeque<CallToolResult>>>,
    tools: Vec<Tool>,
}

impl Mock {
    fn answering(results: impl IntoIterator<Item = CallToolResult>) -> Self {
        let mock = Mock::default();
        mock.results.lock().unwrap().extend(results);
        mock
    }

    fn calls(&self) -> Vec<(String, Value)> {
        self.calls.lock().unwrap().clone()
    }

    fn last_call(&self) -> (String, Value) {
        self.calls().pop().expect("no call")
    }
}

impl ToolCaller for Mock {
    fn call_tool<'a>(
        &'a self,
        name: &'a str,
        arguments: JsonObject,
    ) -> BoxFuture<'a, Result<CallToolResult, CallError>> {
        self.calls
            .lock()
            .unwrap()
            .push((name.to_owned(), Value::Object(arguments)));
        let result = self.results.lock().unwrap().pop_front();
        Box::pin(async move { result.ok_or(CallError::Cancelled) })
    }

    fn list_all_tools(&self) -> BoxFuture<'_, Result<Vec<Tool>, CallError>> {
        let tools = self.tools.clone();
        Box::pin(async move { Ok(tools) })
    }
}

fn structured(value: Value) -> CallToolResult {
    CallToolResult {
        content: vec![ContentBlock::text(value.to_string())],
        structured_content: Some(value),
        ..CallToolResult::default()
    }
}

fn hits(n: u32) -> Vec<Hit> {
    (0..n)
        .map(|i| Hit {
            title: format!("hit {i}"),
            score: f64::from(i),
        })
        .collect()
}

// ---------------------------------------------------------------------------
// The toolbox's client against the mock.
// ---------------------------------------------------------------------------

#[tokio::test]
async fn toolbox_client_sends_arguments_by_wire_name_and_parses_numbers() {
    let mock = Mock::answering([CallToolResult::text("3")]);
    let client = CalculatorClient::new(mock.clone());
    assert_eq!(client.add(1.0, 2.0).await.unwrap(), 3.0);
    assert_eq!(
        mock.last_call(),
        ("add".to_owned(), json!({"a": 1.0, "b": 2.0}))
    );
}

#[tokio::test]
async fn toolbox_client_leaves_out_defaults_and_options_that_are_none() {
    let mock = Mock::answering([
        structured(json!({"result": []})),
        structured(json!({"result": []})),
    ]);
    let client = CalculatorClient::new(mock.clone());
    client.search("q".into(), None, None, None).await.unwrap();
    client
        .search("q".into(), Some(7), Some("2024".into()), Some(Order::Date))
        .await
        .unwrap();
    assert_eq!(
        mock.calls(),
        [
            ("search".to_owned(), json!({"query": "q"})),
            (
                "search".to_owned(),
                json!({"query": "q", "max_results": 7, "since": "2024", "order": "date"})
            ),
        ]
    );
}

#[tokio::test]
async fn toolbox_client_unwraps_what_the_server_wraps_and_only_that() {
    // `Vec<Hit>`'s schema is an array: the server wraps it as {"result": [...]}.
    let mock = Mock::answering([
        structured(json!({"result": serde_json::to_value(hits(2)).unwrap()})),
        // `Tally`'s schema is an object: {"result": 5} is the Tally itself.
        structured(json!({"result": 5})),
        // A map's schema is an object too: a lone "result" key is a word.
        structured(json!({"result": 6})),
    ]);
    let client = CalculatorClient::new(mock);
    assert_eq!(
        client.search("q".into(), None, None, None).await.unwrap(),
        hits(2)
    );
    assert_eq!(client.tally(5).await.unwrap(), Tally { result: 5 });
    let lengths = client.lengths(vec!["result".into()]).await.unwrap();
    assert_eq!(lengths, HashMap::from([("result".to_owned(), 6)]));
}

#[tokio::test]
async fn toolbox_client_decodes_the_text_copy_without_structured_content() {
    let hits_json = serde_json::to_string(&hits(1)).unwrap();
    let mock = Mock::answering([CallToolResult::text(hits_json)]);
    let client = CalculatorClient::new(mock);
    assert_eq!(
        client.search("q".into(), None, None, None).await.unwrap(),
        hits(1)
    );
}

#[tokio::test]
async fn toolbox_client_is_error_is_a_tool_error_for_every_kind_of_result() {
    let error = || CallToolResult::error("nope");
    let mock = Mock::answering(std::iter::repeat_with(error).take(8));
    let client = CalculatorClient::new(mock);
    let is_tool_error = |e: CallError| {
        assert_eq!(e.tool_message().as_deref(), Some("nope"), "{e:?}");
    };
    is_tool_error(client.divide(1.0, 0.0).await.unwrap_err());
    is_tool_error(
        client
            .search("q".into(), None, None, None)
            .await
            .unwrap_err(),
    );
    is_tool_error(client.clear_memory().await.unwrap_err());
    is_tool_error(client.greet("x".into()).await.unwrap_err());
    is_tool_error(client.even(1).await.unwrap_err());
    is_tool_error(client.blocks().await.unwrap_err());
    is_tool_error(client.whole(true).await.unwrap_err());
    is_tool_error(client.tally(1).await.unwrap_err());
}

#[tokio::test]
async fn toolbox_client_decodes_each_kind_of_result() {
    let mock = Mock::answering([
        CallToolResult::success(vec![]),
        CallToolResult::text("Hello, x!"),
        CallToolResult::text("true"),
        CallToolResult::success(vec![ContentBlock::text("a"), ContentBlock::text("b")]),
        CallToolResult::text("only"),
        CallToolResult::text("whole"),
    ]);
    let client = CalculatorClient::new(mock.clone());
    client.clear_memory().await.unwrap();
    assert_eq!(mock.last_call(), ("memory.clear".to_owned(), json!({})));
    assert_eq!(client.greet("x".into()).await.unwrap(), "Hello, x!");
    assert!(client.even(2).await.unwrap());
    let blocks = client.blocks().await.unwrap();
    assert_eq!(blocks, [ContentBlock::text("a"), ContentBlock::text("b")]);
    assert_eq!(client.block().await.unwrap(), [ContentBlock::text("only")]);
    assert_eq!(
        client.whole(false).await.unwrap(),
        CallToolResult::text("whole")
    );
}

#[tokio::test]
async fn toolbox_client_reports_results_of_the_wrong_shape() {
    let mock = Mock::answering([
        CallToolResult::text("three"),
        CallToolResult::success(vec![]),
        structured(json!({"result": "not hits"})),
    ]);
    let client = CalculatorClient::new(mock);
    let err = client.add(1.0, 2.0).await.unwrap_err();
    assert!(
        matches!(&err, CallError::Decode { tool, message } if tool == "add" && message.contains("\"three\"")),
        "{err:?}"
    );
    let err = client.greet("x".into()).await.unwrap_err();
    assert!(matches!(err, CallError::Decode { .. }), "{err:?}");
    let err = client
        .search("q".into(), None, None, None)
        .await
        .unwrap_err();
    assert!(
        err.to_string().starts_with(
            "the result of tool `search` could not be decoded: invalid structured content"
        ),
        "{err}"
    );
}

#[tokio::test]
async fn toolbox_client_passes_the_callers_errors_through() {
    let client = CalculatorClient::new(Mock::default());
    assert!(matches!(
        client.add(1.0, 2.0).await,
        Err(CallError::Cancelled)
    ));
    let _: &Mock = client.caller();
}

// ---------------------------------------------------------------------------
// The declared client against the mock.
// ---------------------------------------------------------------------------

#[tokio::test]
async fn declared_client_sends_and_decodes() {
    let mock = Mock::answering([
        CallToolResult::text("5"),
        structured(json!({"result": serde_json::to_value(hits(1)).unwrap()})),
        structured(json!({"result": 3})),
        CallToolResult::success(vec![]),
        CallToolResult::text("Hello"),
        CallToolResult::success(vec![ContentBlock::text("a")]),
        CallToolResult::text("w"),
        structured(json!({"x": 1})),
    ]);
    let client = RemoteCalculatorClient::new(mock.clone());
    assert_eq!(client.add(2.0, 3.0).await.unwrap(), 5.0);
    assert_eq!(
        client.search("q".into(), None, None).await.unwrap(),
        hits(1)
    );
    assert_eq!(client.count(3).await.unwrap(), Tally { result: 3 });
    client.clear().await.unwrap();
    assert_eq!(client.greet("x".into()).await.unwrap(), "Hello");
    assert_eq!(client.blocks().await.unwrap(), [ContentBlock::text("a")]);
    assert_eq!(
        client.whole(false).await.unwrap(),
        CallToolResult::text("w")
    );
    assert_eq!(
        client.lengths_raw(vec!["x".into()]).await.unwrap(),
        json!({"x": 1})
    );
    let names: Vec<String> = mock.calls().into_iter().map(|(n, _)| n).collect();
    assert_eq!(
        names,
        [
            "add",
            "search",
            "tally",
            "memory.clear",
            "greet",
            "blocks",
            "whole",
            "lengths"
        ]
    );
    assert_eq!(mock.calls()[1].1, json!({"query": "q"}));
}

#[tokio::test]
async fn declared_client_is_error_is_a_tool_error() {
    let mock = Mock::answering([CallToolResult::error("division by zero")]);
    let client = RemoteCalculatorClient::new(mock);
    let err = client.divide(1.0, 0.0).await.unwrap_err();
    assert_eq!(err.tool_message().as_deref(), Some("division by zero"));
}

fn calculator_tools() -> Vec<Tool> {
    use oxmcp_server::ToolBox;
    Calculator::default()
        .into_tools()
        .iter()
        .map(|t| t.tool().clone())
        .collect()
}

#[tokio::test]
async fn declared_client_connects_when_the_server_matches() {
    let mock = Mock {
        tools: calculator_tools(),
        ..Mock::default()
    };
    let client = RemoteCalculatorClient::connect(mock.clone()).await.unwrap();
    assert!(client.caller().calls().is_empty());
    IntegerCalculatorClient::connect(mock).await.unwrap();
}

#[tokio::test]
async fn declared_client_lists_every_difference() {
    let mock = Mock {
        tools: calculator_tools(),
        ..Mock::default()
    };
    let Err(CallError::Incompatible(diffs)) = WrongCalculatorClient::connect(mock).await else {
        panic!("expected Incompatible");
    };
    assert_eq!(
        diffs,
        [
            "tool `add`: argument `a` is declared as string, but the server expects number",
            "tool `add`: the server requires argument `b`, which the declaration lacks",
            "tool `divide`: argument `b` is optional in the declaration, but the server requires it",
            "tool `divide`: argument `round` is declared, but the server's inputSchema has no property `round`",
            "tool `multiply` is not offered by the server",
        ]
    );
}

// ---------------------------------------------------------------------------
// In-process round trips: our server on one end of two duplex pipes, a
// minimal newline-delimited JSON-RPC caller on the other.
// ---------------------------------------------------------------------------

type Pending = Arc<Mutex<HashMap<u64, oneshot::Sender<Result<Value, ErrorObject>>>>>;

/// The smallest `ToolCaller` that speaks MCP over stdio framing.
#[derive(Debug)]
struct WireCaller {
    writer: tokio::sync::Mutex<DuplexStream>,
    pending: Pending,
    next_id: AtomicU64,
}

impl WireCaller {
    async fn start(server: Server) -> WireCaller {
        let (client_out, server_in) = tokio::io::duplex(64 * 1024);
        let (server_out, client_in) = tokio::io::duplex(64 * 1024);
        tokio::spawn(server.serve_io(server_in, server_out));
        let pending: Pending = Arc::default();
        let reader_pending = Arc::clone(&pending);
        tokio::spawn(async move {
            let mut lines = BufReader::new(client_in).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                let msg: Value = serde_json::from_str(&line).expect("the server writes JSON");
                let Some(id) = msg.get("id").and_then(Value::as_u64) else {
                    continue; // a notification
                };
                let answer = match msg.get("error") {
                    Some(e) => Err(serde_json::from_value(e.clone()).expect("an error object")),
                    None => Ok(msg["result"].clone()),
                };
                if let Some(tx) = reader_pending.lock().unwrap().remove(&id) {
                    let _ = tx.send(answer);
                }
            }
        });
        let caller = WireCaller {
            writer: tokio::sync::Mutex::new(client_out),
            pending,
            next_id: AtomicU64::new(1),
        };
        let init = caller
            .request(
                "initialize",
                json!({
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "typed-client-test", "version": "0"},
                }),
            )
            .await
            .expect("initialize");
        assert_eq!(init["protocolVersion"], "2025-06-18");
        caller
            .send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        caller
    }

    async fn send(&self, msg: Value) {
        let mut line = msg.to_string();
        line.push('\n');
        let mut writer = self.writer.lock().await;
        writer.write_all(line.as_bytes()).await.expect("write");
        writer.flush().await.expect("flush");
    }

    async fn request(&self, method: &str, params: Value) -> Result<Value, CallError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        self.pending.lock().unwrap().insert(id, tx);
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        match rx.await {
            Ok(Ok(result)) => Ok(result),
            Ok(Err(error)) => Err(CallError::Protocol(error)),
            Err(_) => Err(CallError::transport("the server closed the connection")),
        }
    }
}

impl ToolCaller for WireCaller {
    fn call_tool<'a>(
        &'a self,
        name: &'a str,
        arguments: JsonObject,
    ) -> BoxFuture<'a, Result<CallToolResult, CallError>> {
        Box::pin(async move {
            let result = self
                .request("tools/call", json!({"name": name, "arguments": arguments}))
                .await?;
            serde_json::from_value(result).map_err(CallError::transport)
        })
    }

    fn list_all_tools(&self) -> BoxFuture<'_, Result<Vec<Tool>, CallError>> {
        Box::pin(async move {
            let mut tools = Vec::new();
            let mut cursor: Option<String> = None;
            loop {
                let params = match &cursor {
                    Some(c) => json!({"cursor": c}),
                    None => json!({}),
                };
                let page = self.request("tools/list", params).await?;
                let page: oxmcp_server::types::ListToolsResult =
                    serde_json::from_value(page).map_err(CallError::transport)?;
                tools.extend(page.tools);
                match page.next_cursor {
                    Some(next) => cursor = Some(next),
                    None => return Ok(tools),
                }
            }
        })
    }
}

fn calculator_server() -> Server {
    // Small pages, so `connect` has to follow the cursor.
    Server::builder("calculator", "1.0.0")
        .page_size(3)
        .toolbox(Calculator::default())
        .build()
}

#[tokio::test]
async fn round_trip_toolbox_client_over_the_wire() {
    let client = CalculatorClient::new(WireCaller::start(calculator_server()).await);
    assert_eq!(client.add(1.5, 2.0).await.unwrap(), 3.5);
    let err = client.divide(1.0, 0.0).await.unwrap_err();
    assert!(matches!(err, CallError::Tool(_)), "{err:?}");
    assert!(err.tool_message().unwrap().contains("division by zero"));
    assert_eq!(client.store(4.0).await.unwrap(), 0.0);
    assert_eq!(client.store(5.0).await.unwrap(), 4.0);
    client.clear_memory().await.unwrap();
    assert_eq!(client.store(1.0).await.unwrap(), 0.0);

    // Defaults applied by the server, wrapped structured content unwrapped.
    let found = client.search("q".into(), None, None, None).await.unwrap();
    assert_eq!(found.len(), 2);
    assert_eq!(found[1].title, "q 1 - Relevance");
    let found = client
        .search("q".into(), Some(3), Some("2024".into()), Some(Order::Date))
        .await
        .unwrap();
    assert_eq!(found.len(), 3);
    assert_eq!(found[0].title, "q 0 2024 Date");

    assert_eq!(client.tally(9).await.unwrap(), Tally { result: 9 });

    // A result alias, a context alias and a renamed re-exported `Json`:
    // decoded through the types, whatever they are called.
    let half: i64 = client.halve(8).await.unwrap();
    assert_eq!(half, 4);
    let err = client.halve(3).await.unwrap_err();
    assert_eq!(err.tool_message().as_deref(), Some("odd"));
    let top: Vec<Hit> = client.top(2).await.unwrap();
    assert_eq!(top, hits(2));

    let lengths = client
        .lengths(vec!["result".into(), "ab".into()])
        .await
        .unwrap();
    assert_eq!(lengths["result"], 6);
    assert_eq!(client.greet("Ada".into()).await.unwrap(), "Hello, Ada!");
    assert!(!client.even(3).await.unwrap());
    assert_eq!(client.blocks().await.unwrap().len(), 2);
    assert_eq!(client.block().await.unwrap(), [ContentBlock::text("only")]);
    assert!(matches!(client.whole(true).await, Err(CallError::Tool(_))));
    assert_eq!(
        client.whole(false).await.unwrap(),
        CallToolResult::text("whole")
    );
}

#[tokio::test]
async fn round_trip_declared_client_over_the_wire() {
    let caller = WireCaller::start(calculator_server()).await;
    let client = RemoteCalculatorClient::connect(caller).await.unwrap();
    assert_eq!(client.add(1.0, 2.0).await.unwrap(), 3.0);
    assert_eq!(
        client
            .divide(1.0, 0.0)
            .await
            .unwrap_err()
            .tool_message()
            .as_deref(),
        Some("division by zero")
    );
    let found = client
        .search("q".into(), None, Some("x".into()))
        .await
        .unwrap();
    assert_eq!(found.len(), 2);
    assert_eq!(found[0].title, "q 0 x Relevance");
    assert_eq!(client.count(4).await.unwrap(), Tally { result: 4 });
    client.clear().await.unwrap();
    assert_eq!(client.greet("Bo".into()).await.unwrap(), "Hello, Bo!");
    assert_eq!(client.blocks().await.unwrap().len(), 2);
    let raw = client.lengths_raw(vec!["abc".into()]).await.unwrap();
    assert_eq!(raw, json!({"abc": 3}));
}

#[tokio::test]
async fn round_trip_declared_client_refuses_a_server_that_does_not_match() {
    let caller = WireCaller::start(calculator_server()).await;
    let err = WrongCalculatorClient::connect(caller).await.unwrap_err();
    let CallError::Incompatible(diffs) = &err else {
        panic!("expected Incompatible, got {err:?}");
    };
    assert_eq!(diffs.len(), 5, "{diffs:#?}");
    assert!(
        err.to_string()
            .starts_with("the server does not match the declared tools: tool `add`: argument `a`"),
        "{err}"
    );
}

#[tokio::test]
async fn round_trip_unknown_tool_is_a_protocol_error() {
    // A declaration naming a tool the server lacks, called without `connect`.
    let caller = WireCaller::start(calculator_server()).await;
    let client = WrongCalculatorClient::new(caller);
    let err = client.multiply(2.0).await.unwrap_err();
    assert!(
        matches!(&err, CallError::Protocol(e) if e.code == -32602),
        "{err:?}"
    );
}

#[tokio::test]
async fn one_caller_serves_several_typed_clients() {
    let caller = Arc::new(WireCaller::start(calculator_server()).await);
    // By reference, and by `Arc`: both are callers.
    let local = CalculatorClient::new(&*caller);
    let remote = RemoteCalculatorClient::connect(Arc::clone(&caller))
        .await
        .unwrap();
    assert_eq!(local.store(2.0).await.unwrap(), 0.0);
    assert_eq!(remote.add(2.0, 2.0).await.unwrap(), 4.0);
    assert_eq!(local.store(3.0).await.unwrap(), 2.0);
}

// ---------------------------------------------------------------------------
// The same, through the real `oxmcp_client::Client` (in-process connection).
// ---------------------------------------------------------------------------

async fn real_client() -> oxmcp_client::Client {
    let (client_out, server_in) = tokio::io::duplex(64 * 1024);
    let (server_out, client_in) = tokio::io::duplex(64 * 1024);
    tokio::spawn(calculator_server().serve_io(server_in, server_out));
    oxmcp_client::Client::builder()
        .connect_io(client_in, client_out)
        .await
        .expect("connect")
}

#[tokio::test]
async fn round_trip_through_mcp_client() {
    let client = real_client().await;
    let calculator = CalculatorClient::new(&client);
    assert_eq!(calculator.add(1.0, 2.0).await.unwrap(), 3.0);
    assert!(matches!(
        calculator.divide(1.0, 0.0).await,
        Err(CallError::Tool(_))
    ));
    let found = calculator
        .search("q".into(), Some(1), None, None)
        .await
        .unwrap();
    assert_eq!(found.len(), 1);
    assert_eq!(calculator.tally(2).await.unwrap(), Tally { result: 2 });

    let remote = RemoteCalculatorClient::connect(&client).await.unwrap();
    assert_eq!(
        remote.search("q".into(), None, None).await.unwrap().len(),
        2
    );
    assert_eq!(remote.greet("Cy".into()).await.unwrap(), "Hello, Cy!");
    let Err(CallError::Incompatible(diffs)) = WrongCalculatorClient::connect(&client).await else {
        panic!("expected Incompatible");
    };
    assert_eq!(diffs.len(), 5, "{diffs:#?}");
}

// ---------------------------------------------------------------------------
// Renamed parameters: `dry_run` in Rust, `dryRun` on the wire.
// ---------------------------------------------------------------------------

#[derive(Debug, Default)]
pub struct Editor;

#[tool(description = "Edits text, with the reference servers' camelCase parameters")]
impl Editor {
    #[describe("Replace text")]
    #[param(old_text, "The text to replace", rename = "oldText")]
    pub fn edit(
        &self,
        old_text: String,
        #[param("The replacement", rename = "newText")] new_text: String,
        #[param("Preview only", rename = "dryRun")] dry_run: bool,
        #[param("How to sort", default = "name", rename = "sortBy")] sort_by: String,
        #[param("Patterns to skip", rename = "excludePatterns")] exclude_patterns: Option<
            Vec<String>,
        >,
    ) -> String {
        format!("{old_text}->{new_text} dry={dry_run} sort={sort_by} exclude={exclude_patterns:?}")
    }
}

/// The editor, declared from outside with the same renames.
#[oxmcp_client::tool(description = "The editor server")]
pub trait RemoteEditor {
    #[describe("Replace text")]
    #[param(old_text, "The text to replace", rename = "oldText")]
    #[param(new_text, "The replacement", rename = "newText")]
    async fn edit(
        &self,
        old_text: String,
        new_text: String,
        #[param("Preview only", rename = "dryRun")] dry_run: bool,
        #[param("How to sort", rename = "sortBy", default = "name")] sort_by: String,
    ) -> String;
}

#[tokio::test]
async fn toolbox_client_sends_renamed_arguments_by_their_wire_name() {
    let mock = Mock::answering([CallToolResult::text("ok"), CallToolResult::text("ok")]);
    let client = EditorClient::new(mock.clone());
    client
        .edit("a".into(), "b".into(), true, None, None)
        .await
        .unwrap();
    let remote = RemoteEditorClient::new(mock.clone());
    remote
        .edit("a".into(), "b".into(), false, Some("size".into()))
        .await
        .unwrap();
    assert_eq!(
        mock.calls(),
        [
            (
                "edit".to_owned(),
                json!({"oldText": "a", "newText": "b", "dryRun": true})
            ),
            (
                "edit".to_owned(),
                json!({"oldText": "a", "newText": "b", "dryRun": false, "sortBy": "size"})
            ),
        ]
    );
}

#[tokio::test]
async fn round_trip_renamed_parameters_over_the_wire() {
    let server = || Server::builder("editor", "1.0.0").toolbox(Editor).build();

    // The schema names the wire names, `required` included.
    let caller = WireCaller::start(server()).await;
    let tools = caller.list_all_tools().await.unwrap();
    let schema = Value::Object(tools[0].input_schema.clone());
    let mut keys: Vec<&str> = schema["properties"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        ["dryRun", "excludePatterns", "newText", "oldText", "sortBy"]
    );
    assert_eq!(schema["required"], json!(["oldText", "newText", "dryRun"]));
    assert_eq!(schema["properties"]["sortBy"]["default"], "name");

    // The typed client: Rust names in, wire names sent, read by the server.
    let client = EditorClient::new(caller);
    assert_eq!(
        client
            .edit("a".into(), "b".into(), true, None, None)
            .await
            .unwrap(),
        "a->b dry=true sort=name exclude=None"
    );
    assert_eq!(
        client
            .edit(
                "x".into(),
                "y".into(),
                false,
                Some("size".into()),
                Some(vec!["*.tmp".into()])
            )
            .await
            .unwrap(),
        "x->y dry=false sort=size exclude=Some([\"*.tmp\"])"
    );

    // The server reads `dryRun`; the Rust name is no key on the wire.
    let caller = client.caller();
    let mut args = JsonObject::new();
    args.insert("oldText".into(), json!("a"));
    args.insert("newText".into(), json!("b"));
    args.insert("dry_run".into(), json!(true));
    let refused = format!("{:?}", caller.call_tool("edit", args.clone()).await);
    assert!(
        refused.contains("missing required argument `dryRun`")
            && refused.contains("unknown argument `dry_run`"),
        "{refused}"
    );
    args.remove("dry_run");
    args.insert("dryRun".into(), json!(true));
    let answer = caller.call_tool("edit", args).await.unwrap();
    assert_eq!(
        answer,
        CallToolResult::text("a->b dry=true sort=name exclude=None")
    );

    // The declared client checks the server's schema by wire name, then calls.
    let remote = RemoteEditorClient::connect(WireCaller::start(server()).await)
        .await
        .unwrap();
    assert_eq!(
        remote
            .edit("p".into(), "q".into(), true, Some("date".into()))
            .await
            .unwrap(),
        "p->q dry=true sort=date exclude=None"
    );
}
