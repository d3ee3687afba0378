//! `#[tool(requires_client(...))]`: a tool that declares the client
//! capabilities it needs is refused with -32021 `MissingRequiredClientCapability`
//! (`data.requiredCapabilities`) before it runs, in both eras: the legacy
//! capabilities are those of `initialize`, the 2026-07-28 ones those in the
//! request's `_meta`.
// In memory over `serve_io` (the `stdio` feature; slim builds compile this out).
#![cfg(feature = "stdio")]

use mcp_test_support::server as support;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use oxmcp_server::{tool, Context, Server};
use serde_json::{json, Value};
use support::{modern_meta_with, Client};

/// Counts the runs of each tool body.
#[derive(Debug, Default, Clone)]
pub struct Needy {
    sampled: Arc<AtomicUsize>,
    two: Arc<AtomicUsize>,
    plain: Arc<AtomicUsize>,
}

#[tool(description = "Tools that need client capabilities")]
impl Needy {
    #[describe("Needs sampling")]
    #[tool(requires_client(sampling))]
    pub fn needs_sampling(&self, #[param("Anything")] text: String, ctx: Context) -> String {
        self.sampled.fetch_add(1, Ordering::SeqCst);
        let declared = ctx.client_capabilities().sampling.is_some();
        format!("ran with {text} (sampling declared: {declared})")
    }

    #[tool(requires_client(elicitation, roots), read_only)]
    #[describe("Needs elicitation and roots")]
    pub fn needs_two(&self) -> String {
        self.two.fetch_add(1, Ordering::SeqCst);
        "ran".into()
    }

    #[describe("Needs nothing")]
    pub fn plain(&self) -> String {
        self.plain.fetch_add(1, Ordering::SeqCst);
        "plain ran".into()
    }
}

static ROOTS_RUNS: AtomicUsize = AtomicUsize::new(0);

/// A tool function declares it the same way.
#[tool(requires_client(roots))]
#[describe("Needs roots")]
pub fn needs_roots() -> String {
    ROOTS_RUNS.fetch_add(1, Ordering::SeqCst);
    "roots ran".into()
}

fn server(tools: &Needy) -> Server {
    Server::builder("needy", "1.0")
        .toolbox(tools.clone())
        .toolbox(NeedsRootsTool)
        .build()
}

async fn legacy(tools: &Needy, version: &str, capabilities: Value) -> Client {
    let mut c = Client::start(server(tools));
    let r = c
        .request(0, "initialize", json!({"protocolVersion": version, "capabilities": capabilities, "clientInfo": {"name": "t", "version": "1"}}))
        .await;
    assert_eq!(r["result"]["protocolVersion"], version, "{r}");
    c.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await;
    c
}

/// A modern `tools/call` from a client declaring `capabilities`.
fn modern_call(name: &str, arguments: &Value, capabilities: &Value) -> Value {
    json!({"name": name, "arguments": arguments, "_meta": modern_meta_with(capabilities)})
}

/// The -32021 error, with exactly `missing` as `data.requiredCapabilities`.
#[track_caller]
fn assert_refused(response: &Value, tool: &str, missing: &Value) {
    assert!(response.get("result").is_none(), "{response}");
    let error = &response["error"];
    assert_eq!(error["code"], -32021, "{response}");
    assert_eq!(
        error["data"],
        json!({"requiredCapabilities": missing}),
        "{response}"
    );
    let message = error["message"].as_str().unwrap();
    assert!(message.contains(tool), "{message}");
}

fn runs(tools: &Needy) -> [usize; 3] {
    [&tools.sampled, &tools.two, &tools.plain].map(|c| c.load(Ordering::SeqCst))
}

#[tokio::test]
async fn legacy_clients_without_the_capability_are_refused_before_the_tool_runs() {
    let tools = Needy::default();
    let mut c = legacy(&tools, "2025-11-25", json!({"elicitation": {}})).await;
    let r = c
        .request(
            1,
            "tools/call",
            json!({"name": "needs_sampling", "arguments": {"text": "x"}}),
        )
        .await;
    assert_refused(&r, "needs_sampling", &json!({"sampling": {}}));
    // Only what is missing is named: elicitation was declared.
    let r = c
        .request(2, "tools/call", json!({"name": "needs_two"}))
        .await;
    assert_refused(&r, "needs_two", &json!({"roots": {}}));
    assert_eq!(runs(&tools), [0, 0, 0], "no tool body ran");
    // A tool that needs nothing runs for the same client.
    let r = c.request(3, "tools/call", json!({"name": "plain"})).await;
    assert_eq!(r["result"]["content"][0]["text"], "plain ran", "{r}");
    assert_eq!(runs(&tools), [0, 0, 1]);
    c.close().await.unwrap();
}

#[tokio::test]
async fn legacy_clients_with_the_capability_get_the_tool_run() {
    let tools = Needy::default();
    let caps = json!({"sampling": {}, "elicitation": {}, "roots": {"listChanged": true}});
    // An older revision too: the capabilities are those of `initialize`.
    for (i, version) in ["2025-11-25", "2025-06-18"].into_iter().enumerate() {
        let mut c = legacy(&tools, version, caps.clone()).await;
        let r = c
            .request(
                1,
                "tools/call",
                json!({"name": "needs_sampling", "arguments": {"text": "x"}}),
            )
            .await;
        assert_eq!(
            r["result"]["content"][0]["text"], "ran with x (sampling declared: true)",
            "{r}"
        );
        assert_eq!(r["result"]["isError"], Value::Null, "{r}");
        let r = c
            .request(2, "tools/call", json!({"name": "needs_two"}))
            .await;
        assert_eq!(r["result"]["content"][0]["text"], "ran", "{r}");
        assert_eq!(runs(&tools), [i + 1, i + 1, 0]);
        c.close().await.unwrap();
    }
}

#[tokio::test]
async fn modern_requests_without_the_capability_are_refused_before_the_tool_runs() {
    let tools = Needy::default();
    let mut c = Client::start(server(&tools));
    let r = c
        .request(
            1,
            "tools/call",
            modern_call("needs_sampling", &json!({"text": "x"}), &json!({})),
        )
        .await;
    assert_refused(&r, "needs_sampling", &json!({"sampling": {}}));
    // Both missing: both named, whatever else the client declared.
    let r = c
        .request(
            2,
            "tools/call",
            modern_call("needs_two", &json!({}), &json!({"sampling": {}})),
        )
        .await;
    assert_refused(&r, "needs_two", &json!({"elicitation": {}, "roots": {}}));
    // Each request carries its own capabilities: one without roots is
    // refused even after one with them.
    let r = c
        .request(
            3,
            "tools/call",
            modern_call("needs_two", &json!({}), &json!({"elicitation": {}})),
        )
        .await;
    assert_refused(&r, "needs_two", &json!({"roots": {}}));
    assert_eq!(runs(&tools), [0, 0, 0], "no tool body ran");
    c.close().await.unwrap();
}

#[tokio::test]
async fn modern_requests_with_the_capability_get_the_tool_run() {
    let tools = Needy::default();
    let mut c = Client::start(server(&tools));
    let r = c
        .request(
            1,
            "tools/call",
            modern_call(
                "needs_sampling",
                &json!({"text": "y"}),
                &json!({"sampling": {}}),
            ),
        )
        .await;
    assert_eq!(
        r["result"]["content"][0]["text"], "ran with y (sampling declared: true)",
        "{r}"
    );
    assert_eq!(r["result"]["resultType"], "complete", "{r}");
    let r = c
        .request(
            2,
            "tools/call",
            modern_call(
                "needs_two",
                &json!({}),
                &json!({"elicitation": {}, "roots": {}}),
            ),
        )
        .await;
    assert_eq!(r["result"]["content"][0]["text"], "ran", "{r}");
    assert_eq!(runs(&tools), [1, 1, 0]);
    c.close().await.unwrap();
}

/// The only test that calls `needs_roots` (its counter is shared).
#[tokio::test]
async fn a_tool_function_declares_it_too() {
    let tools = Needy::default();
    let mut c = legacy(&tools, "2025-11-25", json!({"sampling": {}})).await;
    let r = c
        .request(1, "tools/call", json!({"name": "needs_roots"}))
        .await;
    assert_refused(&r, "needs_roots", &json!({"roots": {}}));
    let r = c
        .request(
            2,
            "tools/call",
            modern_call("needs_roots", &json!({}), &json!({})),
        )
        .await;
    assert_refused(&r, "needs_roots", &json!({"roots": {}}));
    assert_eq!(ROOTS_RUNS.load(Ordering::SeqCst), 0, "the body never ran");
    let r = c
        .request(
            3,
            "tools/call",
            modern_call("needs_roots", &json!({}), &json!({"roots": {}})),
        )
        .await;
    assert_eq!(r["result"]["content"][0]["text"], "roots ran", "{r}");
    assert_eq!(ROOTS_RUNS.load(Ordering::SeqCst), 1);
    c.close().await.unwrap();
}
