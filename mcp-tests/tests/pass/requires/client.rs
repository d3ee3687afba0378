//! `#[tool(requires_client(...))]` on methods and a function, beside the
//! other keys; the toolbox's typed client is generated as usual (the
//! requirement is the server's: the client method is a plain call).
#![deny(warnings, missing_docs)]

use oxmcp_server::types::call::{BoxFuture, CallError, ToolCaller};
use oxmcp_server::types::{CallToolResult, JsonObject, Tool};
use oxmcp_server::{tool, Context, ToolBox};

/// Tools that ask the client things.
#[derive(Debug, Default)]
pub struct Asking;

#[tool(description = "Tools that need client capabilities")]
#[allow(missing_docs)]
impl Asking {
    #[describe("Summarize with the client's model")]
    #[tool(requires_client(sampling))]
    pub async fn summarize(&self, #[param("The text")] text: String, ctx: Context) -> String {
        let _ = ctx;
        text
    }

    #[tool(read_only, requires_client(elicitation, roots), title = "Pick a root")]
    #[describe("Ask the user to pick one of the client's roots")]
    pub fn pick_root(&self) -> String {
        String::new()
    }

    #[describe("All three")]
    #[tool(requires_client(roots, sampling, elicitation), name = "everything")]
    pub fn all(&self) {}
}

/// A tool function declares it the same way.
#[tool(requires_client(sampling))]
#[describe("Translate with the client's model")]
pub fn translate(#[param("The text")] text: String) -> String {
    text
}

/// Answers every call with the tool's name.
struct Echo;

impl ToolCaller for Echo {
    fn call_tool<'a>(
        &'a self,
        name: &'a str,
        _: JsonObject,
    ) -> BoxFuture<'a, Result<CallToolResult, CallError>> {
        Box::pin(async move { Ok(CallToolResult::text(name)) })
    }
    fn list_all_tools(&self) -> BoxFuture<'_, Result<Vec<Tool>, CallError>> {
        Box::pin(async { Ok(Vec::new()) })
    }
}

/// Runs the case.
#[tokio::main(flavor = "current_thread")]
pub async fn main() {
    let names: Vec<String> = Asking
        .into_tools()
        .iter()
        .map(|t| t.name().to_owned())
        .collect();
    assert_eq!(names, ["summarize", "pick_root", "everything"]);
    let pick = Asking.into_tools().remove(1);
    let annotations = pick.tool().annotations.clone().unwrap();
    assert_eq!(annotations.read_only_hint, Some(true));
    assert_eq!(pick.tool().title.as_deref(), Some("Pick a root"));
    assert_eq!(TranslateTool.into_tools()[0].name(), "translate");

    let client = AskingClient::new(Echo);
    assert_eq!(client.summarize("x".into()).await.unwrap(), "summarize");
    assert_eq!(client.pick_root().await.unwrap(), "pick_root");
    client.all().await.unwrap();
}
