use oxmcp_server::tool;

pub struct Prompts;

#[tool(description = "Writing prompts")]
impl Prompts {
    #[prompt]
    #[describe("Greet someone")]
    pub fn greet(&self, #[param("Their name")] name: String) -> String {
        format!("Greet {name}")
    }

    #[complete(greet, name)]
    fn names(&self, limit: u32) -> Vec<String> {
        vec![limit.to_string()]
    }
}

fn main() {}
