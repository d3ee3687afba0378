use oxmcp_server::tool;

pub struct Calculator;

#[tool(description = "Arithmetic on two numbers")]
impl Calculator {
    #[describe("Add two numbers")]
    #[describe("Returns their sum")]
    pub fn add(&self, #[param("The first number")] a: f64, #[param("The second number")] b: f64) -> f64 {
        a + b
    }
}

fn main() {}
