//! Return types under other names (a result alias, a re-exported and renamed
//! `Json`): the typed client decodes them through their types.
#![deny(warnings)]

use oxmcp_server::types::call::{CallError, ToolCaller};
use oxmcp_server::{tool, ToolError};

/// A result alias.
pub type Res<T> = Result<T, ToolError>;

mod m {
    pub use oxmcp_server::Json as J;
}

/// A structured result.
#[derive(Debug, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct Stats {
    /// The mean.
    pub mean: f64,
}

pub struct Calculator;

#[tool(description = "Arithmetic")]
impl Calculator {
    #[describe("Halve an even number")]
    pub fn halve(&self, #[param("The number")] n: i64) -> Res<i64> {
        if n % 2 == 0 {
            Ok(n / 2)
        } else {
            Err(ToolError::new("odd"))
        }
    }

    #[describe("The mean")]
    pub fn stats(&self, #[param("The values")] values: Vec<f64>) -> Res<m::J<Stats>> {
        let mean = values.iter().sum::<f64>() / values.len().max(1) as f64;
        Ok(m::J(Stats { mean }))
    }

    #[describe("Text, borrowed")]
    pub fn name(&self) -> &'static str {
        "calculator"
    }

    #[describe("Text, maybe borrowed")]
    pub fn label(&self) -> std::borrow::Cow<'_, str> {
        std::borrow::Cow::Borrowed("label")
    }

    #[describe("Text, maybe borrowed, its lifetime hidden")]
    #[allow(mismatched_lifetime_syntaxes)]
    pub fn hidden(&self) -> std::borrow::Cow<str> {
        std::borrow::Cow::Borrowed("hidden")
    }
}

/// Every method, with the types the client decodes into.
pub async fn use_all<C: ToolCaller>(caller: C) -> Result<(), CallError> {
    let client = CalculatorClient::new(caller);
    let _: i64 = client.halve(4).await?;
    let stats: Stats = client.stats(vec![1.0, 2.0]).await?;
    let _ = stats.mean;
    let _: String = client.name().await?;
    let _: String = client.label().await?;
    let _: String = client.hidden().await?;
    Ok(())
}

pub fn main() {}
