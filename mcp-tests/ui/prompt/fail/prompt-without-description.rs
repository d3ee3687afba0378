use oxmcp_server::tool;

pub struct Prompts;

#[tool(description = "Writing prompts")]
impl Prompts {
    #[prompt]
    pub fn summarise(&self, #[param("The text")] text: String) -> String {
        format!("Summarise: {text}")
    }
}

fn main() {}
