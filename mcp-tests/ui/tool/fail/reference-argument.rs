use oxmcp_server::tool;

pub struct Greeter;

#[tool(description = "Greetings")]
impl Greeter {
    #[describe("Greet someone")]
    pub fn greet(&self, #[param("Who to greet")] name: &str) -> String {
        format!("Hello, {name}!")
    }
}

fn main() {}
