//! rmcp 3.9 with its default stdio setup: the one its README and examples
//! show.
//!
//! - `rmcp::transport::stdio()`: tokio's `Stdin`/`Stdout`, whose every read and
//!   write is handed to tokio's blocking thread pool;
//! - `#[tool_handler]` with its default router expression, `Self::tool_router()`,
//!   which rebuilds the tool router (and the tool's schema) on every call;
//! - `#[tokio::main]`, the multi-threaded runtime.
//!
//! It offers one tool, `add(a: f64, b: f64)`, returning the sum as text.

use rmcp::handler::server::wrapper::Parameters;
use rmcp::{schemars, tool, tool_handler, tool_router, ServerHandler, ServiceExt};
use serde::Deserialize;

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
struct AddArgs {
    a: f64,
    b: f64,
}

#[derive(Debug, Clone)]
struct Calculator;

#[tool_router]
impl Calculator {
    #[tool(description = "Add two numbers")]
    #[allow(clippy::unused_self)]
    fn add(&self, Parameters(AddArgs { a, b }): Parameters<AddArgs>) -> String {
        (a + b).to_string()
    }
}

#[tool_handler]
impl ServerHandler for Calculator {}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let service = Calculator.serve(rmcp::transport::stdio()).await?;
    service.waiting().await?;
    Ok(())
}
