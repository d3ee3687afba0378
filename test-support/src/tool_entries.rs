//! Tools that the test toolboxes of several crates serve (oxmcp-server's and
//! oxmcp-client's): [`SharedTools`], written with `#[tool]`, which each
//! crate's `TestTools` serves beside its own ([`with_shared_tools`]).
#![allow(
    clippy::unused_async,
    reason = "tools that never wait are `async` all the same, so that every call is a future (ready when first polled), as it was when these tools were built by hand; a `fn` tool is called in place, without one"
)]

use std::time::Duration;

use oxmcp_server::{tool, Context, ToolBox, ToolEntry};

/// `add`, `slow` and `reconnect`.
#[derive(Debug)]
pub struct SharedTools;

#[tool(description = "tools every test toolbox serves", client = false)]
impl SharedTools {
    // Its future is ready when first polled.
    #[describe("Add two numbers")]
    pub async fn add(&self, #[param("first")] a: f64, #[param("second")] b: f64) -> String {
        sum_text(a, b)
    }

    #[describe("Answers after 300 ms")]
    pub async fn slow(&self) -> &'static str {
        tokio::time::sleep(Duration::from_millis(300)).await;
        "slow done"
    }

    // Answers `resumed` on the stream the client resumes.
    #[describe("Closes its SSE stream after 20 ms, answers 100 ms later")]
    pub async fn reconnect(&self, ctx: Context) -> &'static str {
        tokio::time::sleep(Duration::from_millis(20)).await;
        ctx.close_sse_stream();
        tokio::time::sleep(Duration::from_millis(100)).await;
        "resumed"
    }
}

/// The tools of `toolbox` and the [`SharedTools`]: what a crate's
/// `TestTools` serves.
pub fn with_shared_tools(toolbox: impl ToolBox) -> Vec<ToolEntry> {
    let mut tools = SharedTools.into_tools();
    tools.extend(toolbox.into_tools());
    tools
}

/// `a + b` as the calculator writes it (`5`, not `5.0`).
pub fn sum_text(a: f64, b: f64) -> String {
    (a + b).to_string()
}
