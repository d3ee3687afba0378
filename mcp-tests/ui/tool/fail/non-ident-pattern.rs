use oxmcp_server::tool;

pub struct Calculator;

#[tool(description = "Arithmetic on two numbers")]
impl Calculator {
    #[describe("Add two numbers")]
    pub fn add(&self, #[param("The two numbers")] (a, b): (f64, f64)) -> f64 {
        a + b
    }
}

fn main() {}
