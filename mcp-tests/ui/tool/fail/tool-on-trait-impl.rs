use oxmcp_server::tool;

pub struct Calculator;

pub trait Add {
    fn add(&self, a: f64, b: f64) -> f64;
}

#[tool(description = "Arithmetic on two numbers")]
impl Add for Calculator {
    fn add(&self, a: f64, b: f64) -> f64 {
        a + b
    }
}

fn main() {}
