//! `Calc`, the toolbox of the tests against the scripted model server: four
//! tools, one of which always fails. Its `add` and `divide` are the tests'
//! one calculator (`mcp_test_support::calculator`); `broken` and `round`
//! are this crate's own.

// Tools are methods, whether or not they read `self`.
#![allow(clippy::unused_self)]

use mcp_test_support::calculator::Calculator;
use oxmcp_server::{tool, ToolBox, ToolEntry, ToolError};

/// The names of [`Calc`]'s tools, sorted.
pub const CALC_TOOLS: [&str; 4] = ["add", "broken", "divide", "round"];

/// `add` and `divide` (the shared [`Calculator`]), then `broken` and `round`.
#[derive(Debug, Default)]
pub struct Calc;

impl ToolBox for Calc {
    const NAME: &'static str = "Calc";
    const DESCRIPTION: &'static str = "Arithmetic";

    fn into_tools(self) -> Vec<ToolEntry> {
        let mut tools = Calculator.into_tools();
        tools.extend(CalcExtras.into_tools());
        tools
    }
}

/// The tools of [`Calc`] beside the shared calculator.
#[derive(Debug, Default)]
pub struct CalcExtras;

#[tool(description = "Arithmetic", client = false)]
impl CalcExtras {
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
