//! Tool search on the agent side (`ToolSetBuilder::tool_search`): a set of
//! 300 tools over three MCP servers (in process, over pipes, to real
//! clients) offers the model two pinned tools and the search tool; a
//! search adds what it found to the next turn's tools; the found tool is
//! called and the run answers. Each provider's requests are checked by
//! the scripted model server against the provider's published types.
//!
//! With `TOOL_SEARCH_BODIES=<dir>` set, the first turn's request bodies
//! with and without search are written there, for
//! `bench/tool_search_tokens.py` to count (docs/agent.md gives the figures).

use crate::support;

use std::time::Duration;

use mcp_test_support::tool_catalog::catalog;
use oxmcp_agent::{Agent, ToolSet, ToolSetBuilder};
use oxmcp_server::tool::search::ToolSearch;
use oxmcp_server::Server;
use serde_json::{json, Value};
use support::{Provider, ScriptedModel, KEY};

const PINNED: [&str; 2] = ["github_list_issue", "calendar_list_event"];

/// Three servers of 100 tools each, as three clients.
async fn three_servers() -> Vec<oxmcp_client::Client> {
    let mut clients = Vec::new();
    for domain in ["github", "calendar", "billing"] {
        let server = Server::builder(domain, "1")
            .tools(catalog(domain, 100))
            .build();
        clients.push(support::connect(server).await);
    }
    clients
}

/// A set of the three servers.
async fn builder() -> ToolSetBuilder {
    let mut builder = ToolSet::builder();
    for client in three_servers().await {
        builder = builder.server(client);
    }
    builder
}

async fn set(search: Option<ToolSearch>) -> ToolSet {
    let mut builder = builder().await;
    if let Some(search) = search {
        builder = builder.tool_search(search);
    }
    builder.build().await.unwrap()
}

/// The tool names a request offered, in each provider's shape.
fn offered(body: &Value) -> Vec<String> {
    let mut names: Vec<String> = body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let name = t.get("name").or_else(|| t["function"].get("name"));
            name.and_then(Value::as_str).unwrap().to_owned()
        })
        .collect();
    names.sort();
    names
}

async fn within<T>(f: impl std::future::IntoFuture<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(60), f)
        .await
        .expect("the run did not finish within 60 s")
}

#[tokio::test(flavor = "multi_thread")]
async fn a_300_tool_set_offers_pinned_tools_and_search_then_what_a_search_found() {
    for provider in [Provider::OpenAi, Provider::Responses, Provider::Anthropic] {
        let p = provider.script_name();
        let script = json!({"steps": [
            {"provider": p,
             "expect": {"tools": ["calendar_list_event", "github_list_issue", "search_tools"]},
             "respond": {"tool_calls": [{"id": "call_s1", "name": "search_tools",
                                         "arguments": "{\"query\": \"refund an invoice\", \"limit\": 3}"}]}},
            {"provider": p,
             "expect": {"tool_results": [{"id": "call_s1", "contains": "billing_refund_invoice"}]},
             "respond": {"tool_calls": [{"id": "call_r1", "name": "billing_refund_invoice",
                                         "arguments": "{\"invoice_id\": \"in_42\"}"}]}},
            {"provider": p,
             "expect": {"tool_results": [{"id": "call_r1", "contains": "billing_refund_invoice done"}]},
             "respond": {"text": "Invoice in_42 is refunded."}},
        ]});
        let server = ScriptedModel::start(script, KEY);
        let tools = set(Some(ToolSearch::new().pin(PINNED))).await;
        assert_eq!(tools.names().len(), 300, "the set holds every tool");
        let agent = Agent::builder(provider.model(&server, false), tools)
            .max_tokens(300)
            .build();
        let outcome = within(agent.run("Refund invoice in_42"))
            .await
            .unwrap_or_else(|e| panic!("{p}: {e:?}\n{}", server.log()))
            .into_outcome();
        server.assert_clean();
        assert_eq!(outcome.text, "Invoice in_42 is refunded.", "{p}");
        assert_eq!(outcome.turns, 3);

        let bodies = server.bodies();
        assert_eq!(bodies.len(), 3);
        let first = offered(&bodies[0]);
        assert_eq!(
            first,
            ["calendar_list_event", "github_list_issue", "search_tools"],
            "{p}"
        );
        // Its size: three definitions, where all 300 take about 140 kB.
        let size = bodies[0].to_string().len();
        assert!(size < 4_000, "{p}: the first request is {size} bytes");
        // What the search answered, as the model read it.
        let found: Value = serde_json::from_str(&outcome.tool_calls[0].reply).unwrap();
        assert_eq!(found["searched"], 300, "{p}: {found}");
        let found: Vec<&str> = found["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap())
            .collect();
        assert_eq!(found.len(), 3, "the limit: {found:?}");
        assert_eq!(found[0], "billing_refund_invoice", "{p}");
        // The next turns offer the pinned tools, the search tool and what it found.
        let mut expected: Vec<String> = PINNED
            .iter()
            .chain(&found)
            .map(|s| (*s).to_owned())
            .collect();
        expected.push("search_tools".to_owned());
        expected.sort();
        assert_eq!(offered(&bodies[1]), expected, "{p}");
        assert_eq!(
            offered(&bodies[2]),
            expected,
            "{p}: found tools stay offered"
        );
        let refund = outcome
            .tool_calls
            .iter()
            .find(|c| c.model_name == "billing_refund_invoice");
        assert!(
            refund.unwrap().reply.contains("in_42"),
            "{p}: {:?}",
            outcome.tool_calls
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn without_search_the_first_turn_offers_all_300_tools_and_is_far_larger() {
    let model_step = |expect: Value| json!({"provider": "anthropic", "expect": expect, "respond": {"text": "ok"}});
    let server = ScriptedModel::start(
        json!({"steps": [
            model_step(json!({"last_user_contains": "Refund"})),
            model_step(json!({"tools": ["calendar_list_event", "github_list_issue", "search_tools"]})),
        ]}),
        KEY,
    );
    for search in [None, Some(ToolSearch::new().pin(PINNED))] {
        let agent = Agent::builder(Provider::Anthropic.model(&server, false), set(search).await)
            .max_tokens(300)
            .build();
        within(agent.run("Refund invoice in_42")).await.unwrap();
    }
    server.assert_clean();
    let bodies = server.bodies();
    assert_eq!(offered(&bodies[0]).len(), 300);
    let size = |b: &Value| b.to_string().len();
    let (all, searched) = (size(&bodies[0]), size(&bodies[1]));
    println!("first turn's request: {all} bytes with 300 tools, {searched} bytes with search");
    assert!(
        searched * 20 < all,
        "{searched} bytes is not under 5% of {all}"
    );
    if let Some(dir) = std::env::var_os("TOOL_SEARCH_BODIES") {
        let dir = std::path::PathBuf::from(dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("without_search.json"), bodies[0].to_string()).unwrap();
        std::fs::write(dir.join("with_search.json"), bodies[1].to_string()).unwrap();
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_clashing_search_tool_and_an_unknown_pin_are_refused_by_name() {
    let error = builder()
        .await
        .tool_search(ToolSearch::new().name("billing_get_invoice"))
        .build()
        .await
        .unwrap_err()
        .to_string();
    assert_eq!(
        error,
        "tool search: a tool is already named `billing_get_invoice`: name the search tool otherwise (ToolSearch::name)"
    );
    let error = ToolSet::builder()
        .server(three_servers().await.remove(0))
        .tool_search(ToolSearch::new().pin(["github_list_isue"]))
        .build()
        .await
        .unwrap_err()
        .to_string();
    assert_eq!(
        error,
        "tool search: the pinned tool `github_list_isue` does not exist"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn anthropic_native_search_defers_all_but_the_pinned_tools_and_sends_its_blocks_back() {
    let tools = set(None).await;
    let names = tools.names();
    let deferred: Vec<&String> = names
        .iter()
        .filter(|n| !PINNED.contains(&n.as_str()))
        .collect();
    let mut offered_names: Vec<&str> = names.iter().map(String::as_str).collect();
    offered_names.push("tool_search_tool_bm25");
    let search_blocks = json!([
        {"type": "server_tool_use", "id": "srvtoolu_1", "name": "tool_search_tool_bm25",
         "input": {"query": "refund an invoice"}},
        {"type": "tool_search_tool_result", "tool_use_id": "srvtoolu_1",
         "content": {"type": "tool_search_tool_search_result",
                     "tool_references": [{"type": "tool_reference", "tool_name": "billing_refund_invoice"}]}},
    ]);
    let script = json!({"steps": [
        {"provider": "anthropic",
         "expect": {"tools": offered_names, "deferred": deferred, "stream": false},
         "respond": {"server_blocks": search_blocks,
                     "tool_calls": [{"id": "toolu_r1", "name": "billing_refund_invoice",
                                     "arguments": "{\"invoice_id\": \"in_42\"}"}]}},
        {"provider": "anthropic",
         "expect": {"deferred": deferred,
                    "tool_results": [{"id": "toolu_r1", "contains": "billing_refund_invoice done"}]},
         "respond": {"text": "Invoice in_42 is refunded."}},
    ]});
    let server = ScriptedModel::start(script, KEY);
    // Streaming asked for: native search reads JSON answers all the same.
    let model = oxmcp_agent::model::Anthropic::new(KEY, "claude-test")
        .base_url(server.base_url())
        .streaming(true)
        .native_tool_search(PINNED);
    let agent = Agent::builder(model, tools).max_tokens(300).build();
    let outcome = within(agent.run("Refund invoice in_42"))
        .await
        .unwrap_or_else(|e| panic!("{e:?}\n{}", server.log()))
        .into_outcome();
    server.assert_clean();
    assert_eq!(outcome.text, "Invoice in_42 is refunded.");
    let bodies = server.bodies();
    let search_tool = bodies[0]["tools"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(
        search_tool,
        json!({"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"})
    );
    // The assistant turn goes back whole: the search blocks, then the call.
    let echoed = &bodies[1]["messages"][1];
    assert_eq!(echoed["role"], "assistant");
    assert_eq!(echoed["content"][0], search_blocks[0]);
    assert_eq!(echoed["content"][1], search_blocks[1]);
    assert_eq!(echoed["content"][2]["type"], "tool_use");
}
