use oxmcp_server::types::extension::UI;
use oxmcp_server::{tool, Context};

pub struct Apps;

#[tool(description = "Tools with a user interface")]
impl Apps {
    #[describe("Opens the chart, for a client that renders MCP Apps")]
    #[tool(requires_extensions("io.modelcontextprotocol/ui", "com.example/charts-v2"))]
    pub fn chart(&self, ctx: Context) -> String {
        format!("ui: {}", ctx.client_extension(UI).is_some())
    }
}

pub fn main() {}
