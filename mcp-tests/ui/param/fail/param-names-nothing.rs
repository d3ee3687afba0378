use oxmcp_server::tool;

pub struct Calculator;

#[tool(description = "Arithmetic on two numbers")]
impl Calculator {
    #[describe("Add two numbers")]
    #[param(frist, "The first number")]
    #[param(second, "The second number")]
    pub fn add(&self, first: f64, second: f64) -> f64 {
        first + second
    }
}

fn main() {}
