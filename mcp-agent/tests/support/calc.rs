//! `Calc`, the toolbox of the tests against the scripted model server: four
//! tools, one of which always fails.

// Tools are methods, whether or not they read `self`.
#![allow(clippy::unused_self)]

use mcp_server::{tool, ToolError};

/// The names of [`Calc`]'s tools, sorted.
pub const CALC_TOOLS: [&str; 4] = ["add", "broken", "divide", "round"];

#[derive(Debug, Default)]
pub struct Calc;

#[tool(description = "Arithmetic")]
impl Calc {
    #[describe("Add two numbers")]
    pub fn add(&self, #[param("First")] a: f64, #[param("Second")] b: f64) -> f64 {
        a + b
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

    #[describe("Always fails")]
    pub fn broken(&self) -> Result<String, ToolError> {
        Err(ToolError::new("the tool is broken"))
    }

    #[describe("Round a number")]
    pub fn round(
        &self,
        #[param("The number")] x: f64,
        #[param("Decimal places")] places: Option<u32>,
    ) -> f64 {
        let factor = 10f64.powi(i32::try_from(places.unwrap_or(0)).unwrap_or(0));
        (x * factor).round() / factor
    }
}
