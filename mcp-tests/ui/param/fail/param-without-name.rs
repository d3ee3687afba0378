use oxmcp_server::tool;

pub struct Greeter;

#[tool(description = "Greetings")]
impl Greeter {
    #[describe("Greet someone")]
    #[param("Who to greet")]
    pub fn greet(&self, name: String) -> String {
        format!("Hello, {name}!")
    }
}

fn main() {}
