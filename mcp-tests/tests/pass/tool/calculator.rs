//! The calculator of the design document: method-level and inline params,
//! sync and async, `&self` and `&mut self`, a private helper.
#![deny(warnings)]

use oxmcp_server::{tool, ToolBox, ToolError};

#[derive(Debug, Default)]
pub struct Calculator {
    memory: f64,
}

#[tool(description = "Arithmetic on two numbers, with one memory register")]
impl Calculator {
    #[describe("Add two numbers")]
    #[param(a, "The first number")]
    #[param(b, "The second number")]
    pub fn add(&self, a: f64, b: f64) -> f64 {
        a + b
    }

    #[describe("Divide a by b")]
    pub fn divide(
        &self,
        #[param("The dividend")] a: f64,
        #[param("The divisor")] b: f64,
    ) -> Result<f64, ToolError> {
        if b == 0.0 {
            return Err(ToolError::new("division by zero"));
        }
        Ok(a / b)
    }

    #[describe("Store a value and return the previous one")]
    pub async fn store(&mut self, #[param("Value to store")] value: f64) -> f64 {
        self.swap(value)
    }

    #[describe("Read the memory")]
    pub fn recall(&self) -> f64 {
        self.memory
    }

    fn swap(&mut self, value: f64) -> f64 {
        std::mem::replace(&mut self.memory, value)
    }
}

pub fn main() {
    assert_eq!(Calculator::NAME, "Calculator");
    let tools = Calculator::default().into_tools();
    assert_eq!(tools.len(), 4);
}
