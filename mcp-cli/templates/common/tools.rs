//! The server's tools, in a library so that the program (`src/main.rs`)
//! serves them and the tests (`tests/`) call them in-process.

use oxmcp_server::{tool, Json, Server, ToolError};
use schemars::JsonSchema;
use serde::Serialize;

/// The tools this server offers.
#[derive(Debug, Default)]
pub struct Tools;

/// How long a text is.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Counts {
    /// The number of words.
    pub words: usize,
    /// The number of characters.
    pub characters: usize,
}

#[tool(description = "Greetings and text counts")]
impl Tools {
    #[describe("Greet someone by name")]
    #[tool(read_only)]
    pub fn greet(&self, #[param("Who to greet")] name: String) -> Result<String, ToolError> {
        if name.trim().is_empty() {
            // A tool error (isError: true): the model reads it and can retry.
            return Err(ToolError::new("the name is empty: give the name of someone to greet"));
        }
        Ok(format!("Hello, {name}!"))
    }

    #[describe("Count the words and characters of a text")]
    #[tool(read_only)]
    pub fn count(&self, #[param("The text to count")] text: String) -> Json<Counts> {
        Json(Counts {
            words: text.split_whitespace().count(),
            characters: text.chars().count(),
        })
    }
}

/// The server, named after the package.
pub fn server() -> Server {
    Server::builder(env!("CARGO_PKG_NAME"), env!("CARGO_PKG_VERSION"))
        .toolbox(Tools)
        .build()
}
