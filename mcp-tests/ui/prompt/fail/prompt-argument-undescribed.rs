use oxmcp_server::tool;

pub struct Prompts;

#[tool(description = "Writing prompts")]
impl Prompts {
    #[prompt]
    #[describe("Summarise a text")]
    pub fn summarise(&self, text: String) -> String {
        format!("Summarise: {text}")
    }
}

fn main() {}
