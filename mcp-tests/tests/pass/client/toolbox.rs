//! A toolbox's client: every kind of result, defaults and options, a `Json`
//! output type without `Deserialize` and an argument type without
//! `Serialize` (the server needs neither; the client compiles as long as
//! those methods are not called).
#![deny(warnings, missing_docs)]

use oxmcp_server::types::call::{CallError, ToolCaller};
use oxmcp_server::types::{CallToolResult, ContentBlock};
use oxmcp_server::{tool, Context, Json, ToolError};

/// `Serialize + JsonSchema` only.
#[derive(Debug, serde::Serialize, schemars::JsonSchema)]
pub struct Stats {
    /// How many.
    pub count: u64,
}

/// `Deserialize + JsonSchema` only.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
pub struct Point {
    /// Abscissa.
    pub x: f64,
}

/// A point the client can send.
#[derive(Debug, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct Sendable {
    /// Abscissa.
    pub x: f64,
}

/// Everything.
#[derive(Debug, Default)]
pub struct Kinds {
    memory: f64,
}

// The tools need no docs; the generated client has them all (`missing_docs`).
#[tool(description = "Every kind of tool")]
#[allow(missing_docs)]
impl Kinds {
    #[describe("Nothing")]
    pub fn unit(&self) {}

    #[describe("Text")]
    pub fn text(&self, #[param("Who")] name: String) -> String {
        name
    }

    #[describe("Static text")]
    pub fn static_text(&self) -> &'static str {
        "static"
    }

    #[describe("A number, stored")]
    pub async fn store(&mut self, #[param("The value")] value: f64) -> f64 {
        std::mem::replace(&mut self.memory, value)
    }

    #[describe("A boolean")]
    pub fn flag(&self, #[param("Default off", default = false)] on: bool) -> bool {
        on
    }

    #[describe("Content")]
    pub fn content(&self) -> ContentBlock {
        ContentBlock::text("c")
    }

    #[describe("Contents")]
    pub fn contents(&self) -> Vec<ContentBlock> {
        vec![ContentBlock::text("c")]
    }

    #[describe("A whole result")]
    pub fn whole(&self) -> CallToolResult {
        CallToolResult::text("w")
    }

    #[describe("Structured, not deserializable")]
    pub fn stats(&self, #[param("The values")] values: Vec<f64>) -> Json<Stats> {
        Json(Stats {
            count: values.len() as u64,
        })
    }

    #[describe("Structured or an error")]
    pub async fn checked(
        &self,
        #[param("The values")] values: Vec<f64>,
        #[param("Since when")] since: Option<String>,
        ctx: Context,
    ) -> Result<Json<Vec<f64>>, ToolError> {
        let _ = (since, ctx);
        Ok(Json(values))
    }

    #[describe("An argument the client cannot send")]
    pub fn norm(&self, #[param("The point")] p: Point) -> f64 {
        p.x.abs()
    }

    #[describe("An argument the client can send")]
    pub fn norm2(
        &self,
        #[param("The point")] p: Sendable,
        #[param("Scale", default = 1.0)] scale: f64,
    ) -> f64 {
        p.x.abs() * scale
    }

    #[describe("Renamed")]
    #[tool(name = "kinds.renamed")]
    pub fn renamed(&self) -> i32 {
        1
    }
}

/// Uses every method that needs nothing more.
pub async fn use_all<C: ToolCaller>(client: &KindsClient<C>) -> Result<(), CallError> {
    client.unit().await?;
    let _: String = client.text("x".into()).await?;
    let _: String = client.static_text().await?;
    let _: f64 = client.store(1.0).await?;
    let _: bool = client.flag(None).await?;
    let _: Vec<ContentBlock> = client.content().await?;
    let _: Vec<ContentBlock> = client.contents().await?;
    let _: CallToolResult = client.whole().await?;
    let _: Vec<f64> = client.checked(vec![1.0], None).await?;
    let _: f64 = client.norm2(Sendable { x: 1.0 }, Some(2.0)).await?;
    let _: i32 = client.renamed().await?;
    let _: &C = client.caller();
    Ok(())
}

/// Runs the case.
pub fn main() {
    fn is_send<T: Send>(_: &T) {}
    struct Never;
    impl ToolCaller for Never {
        fn call_tool<'a>(
            &'a self,
            _: &'a str,
            _: oxmcp_server::types::JsonObject,
        ) -> oxmcp_server::types::call::BoxFuture<'a, Result<CallToolResult, CallError>> {
            Box::pin(async { Err(CallError::Cancelled) })
        }
        fn list_all_tools(
            &self,
        ) -> oxmcp_server::types::call::BoxFuture<
            '_,
            Result<Vec<oxmcp_server::types::Tool>, CallError>,
        > {
            Box::pin(async { Ok(Vec::new()) })
        }
    }
    let client = KindsClient::new(Never);
    // The futures are `Send`: a client can be used from spawned tasks.
    is_send(&use_all(&client));
    is_send(&client.text("x".into()));
}
