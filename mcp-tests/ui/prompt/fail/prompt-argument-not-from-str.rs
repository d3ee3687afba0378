use oxmcp_server::tool;

pub struct Style {
    pub formal: bool,
}

pub struct Prompts;

#[tool(description = "Writing prompts")]
impl Prompts {
    #[prompt]
    #[describe("Summarise a text")]
    pub fn summarise(&self, #[param("The tone")] style: Style) -> String {
        format!("Summarise formally: {}", style.formal)
    }
}

fn main() {}
