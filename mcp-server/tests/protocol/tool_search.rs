//! Tool search mode (`ServerBuilder::tool_search`): `tools/list` offers the
//! pinned tools and the search tool; the search ranks every tool the caller
//! may see and answers with full definitions; every tool stays callable;
//! run-time changes are searched as they are; bad settings and bad
//! arguments are refused by name.

use mcp_test_support::server as support;
use mcp_test_support::tool_catalog::catalog;
use oxmcp_server::tool::search::{ToolSearch, DEFAULT_LIMIT, DEFAULT_MAX_LIMIT};
use oxmcp_server::{Server, ToolEntry};
use serde_json::{json, Value};
use support::Client;

/// 300 tools over three domains, two pinned, in search mode.
fn server() -> Server {
    Server::builder("many", "1")
        .tools(catalog("github", 100))
        .tools(catalog("calendar", 100))
        .tools(catalog("billing", 100))
        .tool_search(ToolSearch::new().pin(["github_list_issue", "calendar_list_event"]))
        .build()
}

async fn started(server: Server) -> Client {
    let mut c = Client::start(server);
    c.initialize("2025-11-25").await;
    c
}

fn listed(reply: &Value) -> Vec<&str> {
    reply["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect()
}

async fn search(c: &mut Client, id: i64, arguments: Value) -> Value {
    let r = c
        .request(
            id,
            "tools/call",
            json!({"name": "search_tools", "arguments": arguments}),
        )
        .await;
    r["result"].clone()
}

fn found(result: &Value) -> Vec<&str> {
    result["structuredContent"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("no tools in {result}"))
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect()
}

#[tokio::test]
async fn list_offers_pinned_tools_and_the_search_tool_only() {
    let mut c = started(server()).await;
    let r = c.request(1, "tools/list", json!({})).await;
    assert_eq!(
        listed(&r),
        ["calendar_list_event", "github_list_issue", "search_tools"],
        "{r}"
    );
    assert!(r["result"].get("nextCursor").is_none(), "one page: {r}");
    let search = &r["result"]["tools"][2];
    assert_eq!(search["inputSchema"]["required"], json!(["query"]));
    assert_eq!(
        search["outputSchema"]["required"],
        json!(["tools", "searched"])
    );
    assert_eq!(search["annotations"]["readOnlyHint"], true);
}

#[tokio::test]
async fn search_finds_a_deep_tool_with_its_definition_and_calling_it_works() {
    let mut c = started(server()).await;
    let result = search(&mut c, 1, json!({"query": "refund an invoice"})).await;
    assert_ne!(result["isError"], true, "{result}");
    let names = found(&result);
    assert_eq!(names[0], "billing_refund_invoice", "{names:?}");
    assert_eq!(names.len(), DEFAULT_LIMIT, "the default limit");
    assert_eq!(
        result["structuredContent"]["searched"], 300,
        "every tool but the search"
    );
    let first = &result["structuredContent"]["tools"][0];
    assert_eq!(
        first["inputSchema"]["required"],
        json!(["invoice_id"]),
        "the full definition: {first}"
    );
    assert!(first["description"].as_str().unwrap().contains("Refund"));
    // The same answer as text, for clients that read only text.
    let text: Value = serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(text, result["structuredContent"]);
    // Found through a parameter's description only: "teammate" is in no name.
    let result = search(
        &mut c,
        2,
        json!({"query": "share with a teammate", "limit": 3}),
    )
    .await;
    assert!(
        found(&result).iter().all(|n| n.contains("_share_")),
        "{result}"
    );
    // Calling the found tool, which is not listed, works.
    let r = c
        .request(
            3,
            "tools/call",
            json!({"name": "billing_refund_invoice", "arguments": {"invoice_id": "in_42"}}),
        )
        .await;
    let text = r["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        text.starts_with("billing_refund_invoice done") && text.contains("in_42"),
        "{r}"
    );
}

#[tokio::test]
async fn bad_arguments_get_an_error_result_and_a_huge_limit_is_lowered() {
    let mut c = started(server()).await;
    for (arguments, says) in [
        (json!({"query": "   "}), "`query` is empty"),
        (json!({}), "`query` is missing"),
        (json!({"query": 7}), "`query` must be a string"),
        (
            json!({"query": "invoice", "limit": 0}),
            "`limit` must be a whole number",
        ),
        (
            json!({"query": "invoice", "limit": -1}),
            "`limit` must be a whole number",
        ),
        (
            json!({"query": "invoice", "limit": "ten"}),
            "`limit` must be a whole number",
        ),
    ] {
        let result = search(&mut c, 1, arguments.clone()).await;
        assert_eq!(result["isError"], true, "{arguments}: {result}");
        let text = result["content"][0]["text"].as_str().unwrap();
        assert!(text.contains(says), "{arguments}: {text}");
    }
    let result = search(
        &mut c,
        2,
        json!({"query": "invoice billing", "limit": 1_000_000}),
    )
    .await;
    assert_eq!(
        found(&result).len(),
        DEFAULT_MAX_LIMIT,
        "lowered to the maximum"
    );
    let result = search(&mut c, 3, json!({"query": "zebra xylophone"})).await;
    assert_ne!(result["isError"], true);
    assert!(
        found(&result).is_empty(),
        "no shared word, no match: {result}"
    );
}

/// The names a search for "telescope" finds.
async fn probe(c: &mut Client, id: i64) -> Vec<String> {
    let result = search(c, id, json!({"query": "telescope", "limit": 1})).await;
    found(&result).into_iter().map(str::to_owned).collect()
}

#[tokio::test]
async fn search_follows_tools_added_disabled_and_removed_at_run_time() {
    let server = server();
    let handle = server.handle();
    let mut c = started(server).await;
    assert!(probe(&mut c, 1).await.is_empty());
    let telescope = ToolEntry::dynamic(
        "point_telescope",
        "Point the observatory telescope at a star",
        json!({"type": "object", "properties": {}}),
        |_, _| async { "pointed" },
    )
    .unwrap();
    handle.add_tool(telescope).unwrap();
    assert_eq!(probe(&mut c, 2).await, ["point_telescope"]);
    // Not listed: it is neither pinned nor the search tool.
    let r = c.request(3, "tools/list", json!({})).await;
    assert!(!listed(&r).contains(&"point_telescope"), "{r}");
    assert!(handle.disable_tool("point_telescope"));
    assert!(
        probe(&mut c, 4).await.is_empty(),
        "a disabled tool is not found"
    );
    assert!(handle.enable_tool("point_telescope"));
    assert_eq!(probe(&mut c, 5).await, ["point_telescope"]);
    assert!(handle.remove_tool("point_telescope"));
    assert!(
        probe(&mut c, 6).await.is_empty(),
        "a removed tool is not found"
    );
    // The search tool's name stays taken while it serves.
    let clash = ToolEntry::dynamic(
        "search_tools",
        "x",
        json!({"type": "object"}),
        |_, _| async { "" },
    )
    .unwrap();
    assert!(handle.add_tool(clash).is_err());
}

#[tokio::test]
async fn search_shows_only_the_tools_the_caller_may_see() {
    let server = Server::builder("many", "1")
        .tools(catalog("billing", 100))
        .visibility(|caller, tool| {
            caller.client().is_none_or(|c| c.name != "viewer") || !tool.tool.name.contains("refund")
        })
        .tool_search(ToolSearch::new())
        .build();
    let mut viewer = Client::start(server.clone());
    viewer
        .request(
            0,
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "viewer", "version": "1"}}),
        )
        .await;
    let result = search(
        &mut viewer,
        1,
        json!({"query": "refund invoice", "limit": 20}),
    )
    .await;
    let names = found(&result);
    assert!(
        !names.is_empty() && names.iter().all(|n| !n.contains("refund")),
        "{names:?}"
    );
    assert_eq!(result["structuredContent"]["searched"], 90, "{result}");
    let mut admin = started(server).await;
    let result = search(&mut admin, 1, json!({"query": "refund invoice"})).await;
    assert_eq!(found(&result)[0], "billing_refund_invoice");
}

#[test]
fn a_clash_an_unknown_pin_and_bad_limits_are_refused_at_build() {
    let clash = ToolEntry::dynamic(
        "search_tools",
        "Mine",
        json!({"type": "object"}),
        |_, _| async { "" },
    )
    .unwrap();
    let e = Server::builder("s", "1")
        .tool(clash)
        .tool_search(ToolSearch::new())
        .try_build()
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("tool search")
            && e.contains("already named `search_tools`")
            && e.contains("ToolSearch::name"),
        "{e}"
    );
    let e = Server::builder("s", "1")
        .tools(catalog("github", 3))
        .tool_search(ToolSearch::new().pin(["github_list_isue"]))
        .try_build()
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("pinned tool `github_list_isue` does not exist"),
        "{e}"
    );
    let e = Server::builder("s", "1")
        .tool_search(ToolSearch::new().limits(0, 5))
        .try_build()
        .unwrap_err()
        .to_string();
    assert!(e.contains("default limit 0"), "{e}");
    let e = Server::builder("s", "1")
        .tool_search(ToolSearch::new().limits(5, 100_000))
        .try_build()
        .unwrap_err()
        .to_string();
    assert!(e.contains("maximum limit 100000"), "{e}");
}
