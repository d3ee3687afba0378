use oxmcp_server::tool;

pub struct Calculator;

#[tool(description = "Arithmetic on two numbers")]
impl Calculator {
    #[describe("Add two numbers")]
    pub fn add(&self, #[param("The first number")] a: f64, #[param("The second number")] b: f64) -> f64 {
        a + b
    }

    #[describe("Add two integers")]
    #[tool(name = "add")]
    pub fn add_integers(&self, #[param("The first number")] a: i64, #[param("The second number")] b: i64) -> i64 {
        a + b
    }
}

fn main() {}
