use oxmcp_server::tool;

pub struct Config;

#[tool(description = "Configuration")]
impl Config {
    #[resource(mime_type = "application/json")]
    #[describe("The configuration")]
    pub fn config(&self) -> String {
        "{}".into()
    }
}

fn main() {}
