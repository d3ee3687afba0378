use oxmcp_server::tool;

pub struct Calculator;

#[tool]
impl Calculator {
    #[describe("Add two numbers")]
    pub fn add(&self, #[param("The first number")] a: f64, #[param("The second number")] b: f64) -> f64 {
        a + b
    }
}

fn main() {}
