use oxmcp_server::param;

#[param(a, "The first number")]
pub fn add(a: f64, b: f64) -> f64 {
    a + b
}

fn main() {}
