use oxmcp_server::tool;

pub struct Apps;

#[tool(description = "Tools with a user interface")]
impl Apps {
    #[describe("Opens the chart")]
    #[tool(requires_extensions("ui"))]
    pub fn chart(&self) -> String {
        "chart".into()
    }

    #[describe("Opens the map")]
    #[tool(requires_extensions("io.modelcontextprotocol/ui-"))]
    pub fn map(&self) -> String {
        "map".into()
    }
}

fn main() {}
