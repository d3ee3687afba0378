//! `#[tool]` on free functions: sync and async, renamed, annotated, with
//! `#[describe]` above or below `#[tool]`.
#![deny(warnings, missing_docs)]
//! Free-function tools.

use oxmcp_server::{describe, tool, Context, Json, ToolBox, ToolError};

/// Adds.
#[tool]
#[describe("Add two numbers")]
pub fn add_numbers(
    #[param("The first number")] a: f64,
    #[param("The second number")] b: f64,
) -> f64 {
    a + b
}

/// Fetches.
#[describe("Fetch a URL")]
#[tool(name = "web.fetch", title = "Fetch", read_only, open_world = true)]
#[param(url, "The URL to fetch")]
pub async fn fetch(url: String, ctx: Context) -> Result<String, ToolError> {
    #[allow(deprecated)] // logging, deprecated: any use of the context
    ctx.info(format!("fetching {url}"));
    Err(ToolError::new("offline"))
}

/// Deletes.
#[tool(destructive, idempotent = false)]
#[describe("Delete a file")]
pub(crate) fn delete_file(#[param("The path")] path: String) -> Json<bool> {
    Json(path.is_empty())
}

#[tool]
#[describe("Ping")]
fn ping() -> &'static str {
    "pong"
}

/// `#[cfg]` on a free function applies to its struct too.
#[cfg(any())]
#[tool]
#[describe("Never compiled")]
pub fn never() -> Nothing {}

/// Runs the case.
pub fn main() {
    assert_eq!(AddNumbersTool::NAME, "add_numbers");
    assert_eq!(FetchTool::NAME, "web.fetch");
    assert_eq!(DeleteFileTool.into_tools()[0].name(), "delete_file");
    assert_eq!(PingTool::DESCRIPTION, "Ping");
    let _: Vec<_> = [
        AddNumbersTool.into_tools(),
        FetchTool.into_tools(),
        PingTool.into_tools(),
    ]
    .concat();
}
