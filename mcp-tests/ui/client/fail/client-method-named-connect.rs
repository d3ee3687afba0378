use oxmcp_client::tool;

#[tool(description = "A network service")]
pub trait Network {
    #[describe("Connect two hosts")]
    async fn connect(&self, #[param("One host")] a: String, #[param("The other")] b: String) -> String;
}

fn main() {}
