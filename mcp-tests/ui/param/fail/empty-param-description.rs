use oxmcp_server::tool;

pub struct Calculator;

#[tool(description = "Arithmetic on two numbers")]
impl Calculator {
    #[describe("Add two numbers")]
    pub fn add(&self, #[param("The first number")] a: f64, #[param("")] b: f64) -> f64 {
        a + b
    }
}

fn main() {}
