//! What of a tool result enters the model's context
//! (`ToolSetBuilder::max_result_chars`): a result over the cap reaches the
//! model cut as a server cuts one, with the same marker, while the run's
//! record keeps it whole; a tool can have a cap of its own; a zero cap
//! and a cap on a tool the set does not have are refused by name.

use crate::support;

use std::time::Duration;

use oxmcp_agent::{Agent, ToolSet, ToolSetError};
use oxmcp_server::tool;
use serde_json::json;
use support::{Provider, ScriptedModel, KEY};

/// Long answers.
#[derive(Debug)]
pub struct Archive;

#[tool(description = "An archive with long answers")]
impl Archive {
    /// Its own cap is above the agent's: the agent cuts it.
    #[describe("Everything in the archive")]
    #[tool(max_result_chars = 200_000)]
    pub fn dump(&self) -> String {
        "é".repeat(150_000)
    }

    #[describe("The archive's index")]
    pub fn index(&self) -> String {
        "i".repeat(5_000)
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_long_result_reaches_the_model_cut_with_the_servers_marker() {
    let provider = Provider::Anthropic;
    let p = provider.script_name();
    let script = json!({"steps": [
        {"provider": p,
         "respond": {"tool_calls": [{"id": "c1", "name": "dump", "arguments": "{}"},
                                    {"id": "c2", "name": "index", "arguments": "{}"}]}},
        {"provider": p,
         "expect": {"tool_results": [
             {"id": "c1", "contains": "[result cut at 100000 characters: the text had 150000 characters; the first 100000 are shown"},
             {"id": "c2", "contains": "[result cut at 1000 characters: the text had 5000 characters"}]},
         "respond": {"text": "Read."}},
    ]});
    let server = ScriptedModel::start(script, KEY);
    let tools = ToolSet::builder()
        .toolbox(Archive)
        .tool_max_result_chars("index", 1_000)
        .build()
        .await
        .unwrap();
    let agent = Agent::builder(provider.model(&server, false), tools)
        .max_tokens(300)
        .build();
    let outcome = tokio::time::timeout(Duration::from_secs(60), agent.run("Read the archive"))
        .await
        .unwrap()
        .unwrap_or_else(|e| {
            panic!(
                "{e}\n{}",
                server.log().chars().take(3_000).collect::<String>()
            )
        })
        .into_outcome();
    server.assert_clean();
    assert_eq!(outcome.text, "Read.");
    let dump = &outcome.tool_calls[0];
    let shown = format!("{}\n[result cut at 100000 characters", "é".repeat(100_000));
    assert!(dump.reply.starts_with(&shown), "{}", &dump.reply[..80]);
    // The record keeps the whole result for the application.
    let whole = dump.result.as_ref().unwrap().content[0].as_text().unwrap();
    assert_eq!(whole.chars().count(), 150_000);
    let index = &outcome.tool_calls[1];
    let shown = format!("{}\n[result cut at 1000 characters", "i".repeat(1_000));
    assert!(index.reply.starts_with(&shown), "{}", &index.reply[900..]);
}

#[tokio::test]
async fn a_zero_cap_and_a_cap_on_a_missing_tool_are_refused_by_name() {
    let refused = |e: ToolSetError| e.to_string();
    let e = ToolSet::builder()
        .toolbox(Archive)
        .max_result_chars(0)
        .build()
        .await
        .map(drop)
        .map_err(refused)
        .unwrap_err();
    assert!(e.starts_with("result cap: max_result_chars is zero"), "{e}");
    let e = ToolSet::builder()
        .toolbox(Archive)
        .tool_max_result_chars("dump", 0)
        .build()
        .await
        .map(drop)
        .map_err(refused)
        .unwrap_err();
    assert!(e.contains("the cap of tool `dump` is zero"), "{e}");
    let e = ToolSet::builder()
        .toolbox(Archive)
        .tool_max_result_chars("dumpp", 10)
        .build()
        .await
        .map(drop)
        .map_err(refused)
        .unwrap_err();
    assert!(
        e.contains("the capped tool `dumpp` is not in the set"),
        "{e}"
    );
}
