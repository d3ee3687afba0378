use oxmcp_server::describe;

pub struct Calculator;

impl Calculator {
    #[describe("Add two numbers")]
    pub fn add(&self, a: f64, b: f64) -> f64 {
        a + b
    }
}

fn main() {}
