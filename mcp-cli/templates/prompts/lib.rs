//! A glossary served as tools (define and look up terms), resources (every
//! term, and one term by URI) and a prompt (explain a term), in a library
//! so that the program (`src/main.rs`) serves it and the tests (`tests/`)
//! use it in-process.

use std::collections::BTreeMap;

use oxmcp_server::types::PromptMessage;
use oxmcp_server::{tool, RequestError, Server, ToolError};

/// The glossary: terms and their meanings.
#[derive(Debug)]
pub struct Glossary {
    terms: BTreeMap<String, String>,
}

impl Default for Glossary {
    fn default() -> Self {
        let terms = [("MCP", "the Model Context Protocol: how a host gives a model tools, prompts and resources")];
        Glossary {
            terms: terms
                .into_iter()
                .map(|(t, m)| (t.to_owned(), m.to_owned()))
                .collect(),
        }
    }
}

#[tool(description = "A glossary of terms and their meanings")]
impl Glossary {
    #[describe("Define a term, replacing its meaning if it has one")]
    pub fn define(
        &mut self,
        #[param("The term")] term: String,
        #[param("What it means")] meaning: String,
    ) -> Result<String, ToolError> {
        if term.trim().is_empty() {
            return Err(ToolError::new("the term is empty: give the word to define"));
        }
        self.terms.insert(term.clone(), meaning);
        Ok(format!("{term} defined"))
    }

    #[describe("Look up the meaning of a term")]
    #[tool(read_only)]
    pub fn lookup(&self, #[param("The term")] term: String) -> Result<String, ToolError> {
        self.terms
            .get(&term)
            .cloned()
            .ok_or_else(|| ToolError::new(format!("`{term}` is not defined: define it first")))
    }

    #[resource(uri = "glossary://terms", mime_type = "text/plain", title = "Every term")]
    #[describe("Every term, one per line")]
    pub fn terms(&self) -> String {
        self.terms.keys().cloned().collect::<Vec<_>>().join("\n")
    }

    #[resource(template = "glossary://terms/{term}", mime_type = "text/plain", title = "A term")]
    #[describe("One term's meaning")]
    pub fn term(&self, term: String) -> Result<String, RequestError> {
        self.terms.get(&term).cloned().ok_or_else(RequestError::not_found)
    }

    #[prompt(title = "Explain a term")]
    #[describe("Ask the model to explain a term of the glossary")]
    #[param(term, "The term to explain")]
    #[param(audience, "Who the explanation is for", default = "a beginner")]
    pub fn explain(&self, term: String, audience: String) -> Result<Vec<PromptMessage>, RequestError> {
        let meaning = self
            .terms
            .get(&term)
            .ok_or_else(|| RequestError::invalid_params(format!("`{term}` is not in the glossary")))?;
        Ok(vec![PromptMessage::user(format!(
            "Explain \"{term}\" ({meaning}) to {audience}, in three sentences."
        ))])
    }
}

/// The server, named after the package.
pub fn server() -> Server {
    Server::builder(env!("CARGO_PKG_NAME"), env!("CARGO_PKG_VERSION"))
        .toolbox(Glossary::default())
        .build()
}
