use oxmcp_server::tool;

#[tool(description = "Add two numbers")]
pub fn add_numbers(#[param("The first number")] a: f64, #[param("The second number")] b: f64) -> f64 {
    a + b
}

fn main() {}
