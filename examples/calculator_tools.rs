//! The calculator toolbox: arithmetic, statistics and one memory register.
//! Served by the `calculator` example and attached locally by the `agent` example.
//!
//! Served over HTTP with `--issuer`, a caller needs the OAuth scope
//! `calculator:read` for every tool but `store`, which needs
//! `calculator:write` (scopes count only where a token is checked: not on
//! stdio, not when attached locally).

use std::time::Duration;

use oxmcp_server::{tool, Context, Json, ToolError};
use schemars::JsonSchema;
use serde::Serialize;

/// Arithmetic with one memory register.
#[derive(Debug, Default)]
pub struct Calculator {
    memory: f64,
}

/// Summary statistics of a list of numbers.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Stats {
    /// How many numbers there are.
    pub count: usize,
    /// Their sum.
    pub sum: f64,
    /// Their arithmetic mean.
    pub mean: f64,
    /// The smallest.
    pub min: f64,
    /// The largest.
    pub max: f64,
}

#[tool(description = "Arithmetic on two numbers, with one memory register")]
impl Calculator {
    #[describe("Add two numbers")]
    #[param(a, "The first number")]
    #[param(b, "The second number")]
    #[tool(read_only, idempotent, open_world = false, scopes("calculator:read"))]
    pub fn add(&self, a: f64, b: f64) -> f64 {
        a + b
    }

    #[describe("Subtract b from a")]
    #[param(a, "The first number")]
    #[param(b, "The second number")]
    #[tool(read_only, idempotent, open_world = false, scopes("calculator:read"))]
    pub fn subtract(&self, a: f64, b: f64) -> f64 {
        a - b
    }

    #[describe("Multiply two numbers")]
    #[param(a, "The first number")]
    #[param(b, "The second number")]
    #[tool(read_only, idempotent, open_world = false, scopes("calculator:read"))]
    pub fn multiply(&self, a: f64, b: f64) -> f64 {
        a * b
    }

    #[describe("Divide a by b")]
    #[tool(read_only, idempotent, open_world = false, scopes("calculator:read"))]
    pub fn divide(
        &self,
        #[param("The first number")] a: f64,
        #[param("The second number")] b: f64,
    ) -> Result<f64, ToolError> {
        if b == 0.0 {
            return Err(ToolError::new("division by zero"));
        }
        Ok(a / b)
    }

    #[describe("Store a value in memory and return the previous one")]
    #[tool(open_world = false, destructive = false, scopes("calculator:write"))]
    pub fn store(&mut self, #[param("The value to store")] value: f64) -> f64 {
        std::mem::replace(&mut self.memory, value)
    }

    #[describe("Return the value in memory")]
    #[tool(read_only, open_world = false, scopes("calculator:read"))]
    pub fn recall(&self) -> f64 {
        self.memory
    }

    #[describe("Summary statistics of a list of numbers")]
    #[tool(read_only, idempotent, open_world = false, scopes("calculator:read"))]
    pub fn stats(
        &self,
        #[param("The numbers to summarise")] values: Vec<f64>,
    ) -> Result<Json<Stats>, ToolError> {
        if values.is_empty() {
            return Err(ToolError::new("no values"));
        }
        let sum: f64 = values.iter().sum();
        #[allow(clippy::cast_precision_loss)] // a list longer than 2^52 does not fit in memory
        let mean = sum / values.len() as f64;
        Ok(Json(Stats {
            count: values.len(),
            sum,
            mean,
            min: values.iter().copied().fold(f64::INFINITY, f64::min),
            max: values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        }))
    }

    #[describe("Count to n, reporting progress")]
    #[tool(read_only, open_world = false, scopes("calculator:read"))]
    pub async fn count_to(
        &self,
        #[param("The number to count to")] n: u32,
        ctx: Context,
    ) -> String {
        for i in 1..=n {
            tokio::select! {
                () = ctx.cancelled() => return format!("cancelled at {i}"),
                () = tokio::time::sleep(Duration::from_millis(10)) => {}
            }
            ctx.progress_with_message(f64::from(i), Some(f64::from(n)), format!("{i}/{n}"));
        }
        format!("counted to {n}")
    }
}
