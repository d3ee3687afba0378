use oxmcp_server::tool;

pub struct Apps;

#[tool(description = "Tools with a user interface")]
impl Apps {
    #[describe("Opens the map")]
    #[tool(requires_extensions("io.modelcontextprotocol/ui", "io.modelcontextprotocol/ui"))]
    pub fn map(&self) -> String {
        "map".into()
    }

    #[describe("Opens the table")]
    #[tool(requires_extensions())]
    pub fn table(&self) -> String {
        "table".into()
    }
}

fn main() {}
