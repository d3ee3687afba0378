use oxmcp_server::tool;

pub struct Calculator;

#[tool(description = "Arithmetic on two numbers")]
impl Calculator {
    #[param(a, "The first number")]
    #[param(b, "The second number")]
    pub fn add(&self, a: f64, b: f64) -> f64 {
        a + b
    }
}

// The toolbox stays usable (a stub impl), so this adds no second error.
pub fn register() -> Vec<oxmcp_server::ToolEntry> {
    oxmcp_server::ToolBox::into_tools(Calculator)
}

fn main() {}
