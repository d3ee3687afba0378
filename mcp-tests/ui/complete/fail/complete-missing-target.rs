use oxmcp_server::tool;

pub struct Prompts;

#[tool(description = "Writing prompts")]
impl Prompts {
    #[prompt]
    #[describe("Greet someone")]
    pub fn greet(&self, #[param("Their name")] name: String) -> String {
        format!("Greet {name}")
    }

    #[complete(greeting, name)]
    fn names(&self, typed: &str) -> Vec<String> {
        vec![typed.to_owned()]
    }
}

fn main() {}
