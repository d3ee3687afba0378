use oxmcp_server::tool;

pub struct Config;

#[tool(description = "Configuration")]
impl Config {
    #[resource(uri = "config://app", mime_type = "application/json")]
    #[describe("The configuration")]
    pub fn config(&self, section: String) -> String {
        section
    }
}

fn main() {}
