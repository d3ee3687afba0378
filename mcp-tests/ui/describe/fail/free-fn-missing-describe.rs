use oxmcp_server::tool;

#[tool]
pub fn add_numbers(#[param("The first number")] a: f64, #[param("The second number")] b: f64) -> f64 {
    a + b
}

// The generated struct still exists, so this adds no second error.
pub fn register() -> Vec<oxmcp_server::ToolEntry> {
    oxmcp_server::ToolBox::into_tools(AddNumbersTool)
}

fn main() {}
