//! Tool search on the agent side: a set with a [`ToolSearch`] offers the
//! model its pinned tools and one search tool; each turn also offers the
//! tools that earlier searches of the run found. Which tools were found is
//! read from the run's transcript (the search tool's results), so a run
//! that pauses and resumes, or continues from a saved transcript, offers
//! the same tools.
//!
//! The ranking is oxmcp-server's ([`oxmcp_server::tool::search::rank`]), the
//! same as a server's search mode: one ranking for both sides.

use std::collections::BTreeSet;

use oxmcp_server::tool::search::{rank, ToolSearch};
use oxmcp_server::ToolEntry;
use oxmcp_types::{CallToolResult, JsonObject, Tool};
use serde_json::{json, Value};

use crate::chat::ChatMessage;
use crate::view::ToolView;

/// The tools one turn offers under `search`: the pinned ones, those
/// earlier searches in `transcript` found, and the search tool, which
/// ranks every tool of `view`. A tool of `view` named as the search tool
/// (a server added one since the set was built) gives way to it.
pub(super) fn offered(search: &ToolSearch, view: ToolView, transcript: &[ChatMessage]) -> ToolView {
    if view.is_empty() {
        return view;
    }
    let mut wanted: BTreeSet<String> = search.pinned().iter().cloned().collect();
    for provider_name in found(search.tool_name(), transcript) {
        if let Some(mcp) = view.name_map().to_mcp(&provider_name) {
            wanted.insert(mcp.to_owned());
        }
    }
    wanted.remove(search.tool_name());
    let entry = search_entry(search, &view);
    view.restrict(&wanted).with_tools([entry])
}

/// The provider names the search tool's successful results in `transcript`
/// listed, in order.
fn found(search_tool: &str, transcript: &[ChatMessage]) -> Vec<String> {
    let mut names = Vec::new();
    for message in transcript {
        let ChatMessage::ToolResults { results } = message else {
            continue;
        };
        for result in results
            .iter()
            .filter(|r| r.name == search_tool && !r.is_error)
        {
            let Ok(answer) = serde_json::from_str::<Value>(&result.content) else {
                continue;
            };
            let listed = answer.get("tools").and_then(Value::as_array);
            names.extend(
                listed
                    .into_iter()
                    .flatten()
                    .filter_map(|t| t.get("name")?.as_str().map(str::to_owned)),
            );
        }
    }
    names
}

/// The search tool of one turn: ranks the tools of `view` (named as the
/// model sees them) and answers with their names and descriptions; their
/// definitions come with the next turn's tools.
fn search_entry(search: &ToolSearch, view: &ToolView) -> ToolEntry {
    let tools: Vec<Tool> = view
        .names()
        .iter()
        .filter(|name| name.as_str() != search.tool_name())
        .filter_map(|name| {
            let mut def = Tool::clone(&view.get(name)?.def);
            view.provider_name(name).clone_into(&mut def.name);
            Some(def)
        })
        .collect();
    let mut def = search.definition();
    def.description = Some(
        "Search the tools available beyond those offered now, by what they do. \
         The matches are added to your tools from your next turn on: call one by its name."
            .to_owned(),
    );
    // The agent's answer lists names and descriptions only.
    def.output_schema = None;
    let search = search.clone();
    let handler =
        move |arguments: JsonObject, _ctx| std::future::ready(answer(&search, &tools, &arguments));
    match ToolEntry::from_tool(def, handler) {
        Ok(entry) => entry,
        // `ToolSearch::problem` checked the name when the set was built;
        // the schema is oxmcp-server's.
        Err(e) => unreachable!("the search tool's definition is valid: {e}"),
    }
}

/// One search: the matches' names and descriptions as JSON text, or an
/// `isError` result for bad arguments.
fn answer(search: &ToolSearch, tools: &[Tool], arguments: &JsonObject) -> CallToolResult {
    let (query, limit) = match search.read_arguments(arguments) {
        Ok(read) => read,
        Err(message) => return CallToolResult::error(message),
    };
    let found: Vec<Value> = rank(tools, &query, limit)
        .into_iter()
        .map(|t| json!({"name": t.name, "description": t.description}))
        .collect();
    let text = json!({"tools": found, "searched": tools.len()}).to_string();
    CallToolResult::text(text)
}
