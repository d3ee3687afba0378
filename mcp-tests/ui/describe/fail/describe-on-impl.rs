use oxmcp_server::tool;

pub struct Greeter;

#[tool]
#[describe("Greetings")]
impl Greeter {
    #[describe("Greet someone")]
    pub fn greet(&self, #[param("Who to greet")] name: String) -> String {
        format!("Hello, {name}!")
    }
}

fn main() {}
