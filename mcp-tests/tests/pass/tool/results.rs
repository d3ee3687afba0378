//! Every kind of return value: text, numbers, unit, content, `CallToolResult`,
//! `Json<T>`, and `Result`s of them.
#![deny(warnings)]

use oxmcp_server::{tool, types::CallToolResult, types::ContentBlock, Json, ToolBox, ToolError};

#[derive(Debug, serde::Serialize, schemars::JsonSchema)]
pub struct Stats {
    pub count: u64,
    pub mean: f64,
}

#[derive(Debug)]
pub struct Kinds;

#[tool(description = "Every kind of result")]
impl Kinds {
    #[describe("Nothing")]
    pub fn unit(&self) {}

    #[describe("Text")]
    pub fn text(&self) -> String {
        String::from("text")
    }

    #[describe("Static text")]
    pub fn static_text(&self) -> &'static str {
        "static"
    }

    #[describe("Borrowed text")]
    pub fn borrowed(&self) -> &str {
        "borrowed"
    }

    #[describe("A number")]
    pub fn number(&self) -> i32 {
        42
    }

    #[describe("A boolean")]
    pub async fn boolean(&self) -> bool {
        true
    }

    #[describe("A content block")]
    pub fn content(&self) -> ContentBlock {
        ContentBlock::text("block")
    }

    #[describe("ContentBlock blocks")]
    pub fn contents(&self) -> Vec<ContentBlock> {
        vec![ContentBlock::text("a"), ContentBlock::text("b")]
    }

    #[describe("A whole result")]
    pub fn whole(&self) -> CallToolResult {
        CallToolResult::text("whole")
    }

    #[describe("Structured")]
    pub fn stats(&self, #[param("The values")] values: Vec<f64>) -> Json<Stats> {
        let count = values.len() as u64;
        let mean = values.iter().sum::<f64>() / values.len().max(1) as f64;
        Json(Stats { count, mean })
    }

    #[describe("Structured or an error")]
    pub async fn checked(
        &self,
        #[param("The values")] values: Vec<f64>,
    ) -> Result<Json<Stats>, ToolError> {
        if values.is_empty() {
            return Err(ToolError::new("no values"));
        }
        Ok(self.stats(values))
    }

    #[describe("Parse an integer")]
    pub fn parse(&self, #[param("The text")] text: String) -> Result<i64, ToolError> {
        Ok(text.trim().parse::<i64>()?)
    }
}

pub fn main() {
    let tools = Kinds.into_tools();
    assert_eq!(tools.len(), 12);
    assert!(tools
        .iter()
        .find(|t| t.name() == "stats")
        .unwrap()
        .tool()
        .output_schema
        .is_some());
}
