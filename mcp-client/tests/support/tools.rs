//! The toolboxes the client's tests call, served by the real `mcp_server`:
//! [`TestTools`] (arithmetic, waiting, progress, logs, errors, structured
//! results good and bad, stream closing) and [`ManyTools`].

use std::time::Duration;

use mcp_server::types::CallToolResult;
use mcp_server::{__private::Args, Context, Server, ToolBox, ToolEntry};
use serde_json::json;
use tokio::sync::mpsc;

use super::{add_tool, number_schema, reconnect_tool, slow_tool, spec};

/// What the tools report to the test (e.g. "cancelled").
pub type Events = mpsc::UnboundedReceiver<String>;

/// Tools that exercise the client: arithmetic, waiting, progress, logs,
/// errors, structured results (good and bad), stream closing.
pub struct TestTools {
    events: mpsc::UnboundedSender<String>,
}

fn sum_schema() -> schemars::Schema {
    schemars::Schema::try_from(json!({
        "type": "object",
        "properties": {"total": {"type": "number"}},
        "required": ["total"],
        "additionalProperties": false
    }))
    .unwrap()
}

impl ToolBox for TestTools {
    const NAME: &'static str = "TestTools";
    const DESCRIPTION: &'static str = "tools for client tests";

    fn into_tools(self) -> Vec<ToolEntry> {
        let events = self.events;
        let wait_events = events.clone();
        vec![
            add_tool(),
            ToolEntry::new(
                &spec("wait", "Waits until cancelled, then reports it"),
                number_schema(&[]),
                None,
                move |_args, ctx: Context| {
                    let events = wait_events.clone();
                    Box::pin(async move {
                        let _ = events.send("started".into());
                        // The server drops a cancelled call's future: report from the drop.
                        let _signal = Signal {
                            events,
                            ctx: ctx.clone(),
                        };
                        ctx.cancelled().await;
                        CallToolResult::text("cancelled")
                    })
                },
            ),
            slow_tool(),
            ToolEntry::new(
                &spec("progress", "Reports progress 3 times, then answers"),
                number_schema(&[]),
                None,
                |_args, ctx: Context| {
                    Box::pin(async move {
                        for step in [25.0, 50.0, 100.0] {
                            ctx.progress_with_message(step, Some(100.0), format!("at {step}"));
                            tokio::time::sleep(Duration::from_millis(10)).await;
                        }
                        CallToolResult::text("progressed")
                    })
                },
            ),
            ToolEntry::new(
                &spec("chatty", "Logs at info and warning"),
                number_schema(&[]),
                None,
                |_args, ctx: Context| {
                    Box::pin(async move {
                        ctx.info("hello from the tool");
                        ctx.warning("careful");
                        tokio::time::sleep(Duration::from_millis(10)).await;
                        CallToolResult::text("logged")
                    })
                },
            ),
            ToolEntry::new(
                &spec("fail", "Always reports a tool error"),
                number_schema(&[]),
                None,
                |_args, _ctx| Box::pin(async { CallToolResult::error("it went wrong") }),
            ),
            ToolEntry::new(
                &spec("sum_good", "A structured sum that matches its schema"),
                number_schema(&[("a", "a number"), ("b", "a number")]),
                Some(sum_schema()),
                |mut args: Args<'_>, _ctx: Context| {
                    let a = args.take::<f64>("a").unwrap_or_default();
                    let b = args.take::<f64>("b").unwrap_or_default();
                    Box::pin(async move {
                        let value = json!({"total": a + b});
                        CallToolResult {
                            content: vec![mcp_server::types::ContentBlock::text(value.to_string())],
                            structured_content: Some(value),
                            ..CallToolResult::default()
                        }
                    })
                },
            ),
            ToolEntry::new(
                &spec("sum_bad", "A structured sum that violates its schema"),
                number_schema(&[]),
                Some(sum_schema()),
                |_args, _ctx| {
                    Box::pin(async {
                        CallToolResult {
                            content: vec![mcp_server::types::ContentBlock::text("three")],
                            structured_content: Some(json!({"total": "three", "extra": 1})),
                            ..CallToolResult::default()
                        }
                    })
                },
            ),
            reconnect_tool(),
            ToolEntry::new(
                &spec("die", "Ends the server process (stdio tests)"),
                number_schema(&[]),
                None,
                |_args, _ctx| {
                    Box::pin(async {
                        eprintln!("the die tool ends the process now");
                        std::process::exit(3)
                    })
                },
            ),
        ]
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
                let name: &'static str = Box::leak(format!("tool_{i:04}").into_boxed_str());
                ToolEntry::new(
                    &spec(name, "one of many"),
                    number_schema(&[]),
                    None,
                    |_args, _ctx| Box::pin(async { CallToolResult::text("ok") }),
                )
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
