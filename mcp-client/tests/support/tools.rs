//! The toolboxes the client's tests call, served by the real `oxmcp_server`:
//! [`TestTools`] (arithmetic, waiting, progress, logs, errors, structured
//! results good and bad, stream closing) and [`ManyTools`].
#![allow(
    clippy::unused_async,
    reason = "tools that never wait are `async` all the same, so that every call is a future (ready when first polled), as it was when these tools were built by hand; a `fn` tool is called in place, without one"
)]

use std::time::Duration;

use oxmcp_server::types::{CallToolResult, ContentBlock};
use oxmcp_server::{tool, Context, IntoToolResult, Json, Server, ToolBox, ToolEntry};
use serde_json::json;
use tokio::sync::mpsc;

use super::with_shared_tools;

/// What the tools report to the test (e.g. "cancelled").
pub type Events = mpsc::UnboundedReceiver<String>;

/// Tools that exercise the client: arithmetic, waiting, progress, logs,
/// errors, structured results (good and bad), stream closing (its own
/// [`ClientTools`] and the shared ones).
pub struct TestTools {
    events: mpsc::UnboundedSender<String>,
}

impl ToolBox for TestTools {
    const NAME: &'static str = "TestTools";
    const DESCRIPTION: &'static str = "tools for client tests";

    fn into_tools(self) -> Vec<ToolEntry> {
        with_shared_tools(ClientTools {
            events: self.events,
        })
    }
}

/// The tools of [`TestTools`] that only the client's tests use.
pub struct ClientTools {
    events: mpsc::UnboundedSender<String>,
}

/// A structured sum: its schema refuses other members.
#[derive(serde::Serialize, schemars::JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Sum {
    total: f64,
}

/// A result that breaks its own output schema: [`Sum`]'s schema, and a
/// `total` that is a string beside a member the schema refuses.
pub struct BadSum;

impl IntoToolResult for BadSum {
    fn into_tool_result(self) -> CallToolResult {
        CallToolResult {
            content: vec![ContentBlock::text("three")],
            structured_content: Some(json!({"total": "three", "extra": 1})),
            ..CallToolResult::default()
        }
    }

    fn output_schema() -> Option<schemars::Schema> {
        Json::<Sum>::output_schema()
    }
}

#[tool(description = "tools for client tests", client = false)]
impl ClientTools {
    #[describe("Waits until cancelled, then reports it")]
    pub async fn wait(&self, ctx: Context) -> &'static str {
        let events = self.events.clone();
        let _ = events.send("started".into());
        // The server drops a cancelled call's future: report from the drop.
        let _signal = Signal {
            events,
            ctx: ctx.clone(),
        };
        ctx.cancelled().await;
        "cancelled"
    }

    #[describe("Reports progress 3 times, then answers")]
    pub async fn progress(&self, ctx: Context) -> &'static str {
        for step in [25.0, 50.0, 100.0] {
            ctx.progress_with_message(step, Some(100.0), format!("at {step}"));
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        "progressed"
    }

    #[describe("Logs at info and warning")]
    pub async fn chatty(&self, ctx: Context) -> &'static str {
        #[allow(deprecated)] // logging, tested on purpose
        ctx.info("hello from the tool");
        #[allow(deprecated)] // logging, tested on purpose
        ctx.warning("careful");
        tokio::time::sleep(Duration::from_millis(10)).await;
        "logged"
    }

    #[describe("Always reports a tool error")]
    pub async fn fail(&self) -> CallToolResult {
        CallToolResult::error("it went wrong")
    }

    #[describe("A structured sum that matches its schema")]
    pub async fn sum_good(
        &self,
        #[param("a number")] a: f64,
        #[param("a number")] b: f64,
    ) -> Json<Sum> {
        Json(Sum { total: a + b })
    }

    #[describe("A structured sum that violates its schema")]
    pub async fn sum_bad(&self) -> BadSum {
        BadSum
    }

    #[describe("Ends the server process (stdio tests)")]
    pub async fn die(&self) -> String {
        eprintln!("the die tool ends the process now");
        std::process::exit(3)
    }
}

/// Reports, when a call's future ends, whether the call was cancelled.
struct Signal {
    events: mpsc::UnboundedSender<String>,
    ctx: Context,
}

impl Drop for Signal {
    fn drop(&mut self) {
        let what = if self.ctx.is_cancelled() {
            "cancelled"
        } else {
            "dropped"
        };
        let _ = self.events.send(what.into());
    }
}

/// A toolbox of `n` trivial tools named `tool_0000` ….
pub struct ManyTools(pub usize);

impl ToolBox for ManyTools {
    const NAME: &'static str = "ManyTools";
    const DESCRIPTION: &'static str = "many tools";

    fn into_tools(self) -> Vec<ToolEntry> {
        (0..self.0)
            .map(|i| {
                ToolEntry::dynamic(
                    format!("tool_{i:04}"),
                    "one of many",
                    json!({"type": "object", "properties": {}}),
                    |_args, _ctx| async { "ok" },
                )
                .expect("a valid dynamic tool")
            })
            .collect()
    }
}

/// The test toolbox and the channel its tools report on.
pub fn tools() -> (TestTools, Events) {
    let (tx, rx) = mpsc::unbounded_channel();
    (TestTools { events: tx }, rx)
}

/// A server with the test toolbox.
pub fn server() -> (Server, Events) {
    let (tools, events) = tools();
    let server = Server::builder("test-server", "1.2.3")
        .instructions("Use add to add.")
        .toolbox(tools)
        .shutdown_grace(Duration::from_millis(300))
        .build();
    (server, events)
}
