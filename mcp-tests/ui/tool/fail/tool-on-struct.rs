use oxmcp_server::tool;

#[tool(description = "Arithmetic on two numbers")]
pub struct Calculator;

fn main() {}
