//! [`Calculator`], the one arithmetic toolbox of the tests: `add` and
//! `divide` (which fails on a zero divisor, a tool execution error).
//!
//! Tests that need more tools serve a small toolbox of their own beside it
//! (`Server::builder(..).toolbox(Calculator).toolbox(Theirs)`). The
//! calculator the examples serve (`examples/calculator_tools.rs`, with
//! scopes, a memory and statistics) is a program's, not this one.

use oxmcp_server::{tool, ToolError};

/// `add` and `divide` on two numbers.
#[derive(Debug, Default, Clone, Copy)]
pub struct Calculator;

#[tool(description = "Arithmetic", client = false)]
impl Calculator {
    #[describe("Add two numbers")]
    pub fn add(&self, #[param("First")] a: f64, #[param("Second")] b: f64) -> f64 {
        // A span of the tool's own, so that the telemetry tests see where a
        // call runs (inside the request's span); without a subscriber it
        // costs nothing.
        tracing::info_span!("adding").in_scope(|| a + b)
    }

    #[describe("Divide a by b")]
    pub fn divide(
        &self,
        #[param("Dividend")] a: f64,
        #[param("Divisor")] b: f64,
    ) -> Result<f64, ToolError> {
        if b == 0.0 {
            return Err(ToolError::new("division by zero"));
        }
        Ok(a / b)
    }
}
