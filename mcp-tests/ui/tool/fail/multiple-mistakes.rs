use oxmcp_server::tool;

pub struct Calculator;

#[tool]
impl Calculator {
    #[param(a, "The first number")]
    pub fn add(&self, a: f64, b: f64) -> f64 {
        a + b
    }

    #[describe("")]
    #[tool(name = "add", read_onyl)]
    pub fn plus(&self, #[param("The first number")] a: f64, #[param(b, "The second number")] (b, _): (f64, f64)) -> f64 {
        a + b
    }

    #[describe("Subtract two numbers")]
    #[param(c, "Nothing")]
    pub fn subtract(&self, #[param("The first number")] a: f64, #[param("The second number")] b: f64) -> f64 {
        a - b
    }

    pub fn new() -> Self {
        Calculator
    }
}

fn main() {}
