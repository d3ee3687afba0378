//! Options, defaults, the injected `Context` (by value and by reference),
//! structured results and `Result<_, ToolError>`.
#![deny(warnings)]

use std::collections::HashMap;

use oxmcp_server::{tool, Context, Json, ToolBox, ToolError};
use serde::{Deserialize, Serialize};

#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct Hit {
    pub title: String,
    pub score: f64,
}

#[derive(Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Order {
    Relevance,
    Date,
}

#[derive(Debug, Default)]
pub struct Archive {
    documents: Vec<String>,
}

#[tool(description = "Search a document archive")]
impl Archive {
    #[describe("Search the archive")]
    pub async fn search(
        &self,
        #[param("Query text")] query: String,
        #[param("Maximum results", default = 5)] max_results: u32,
        #[param("Only after this date")] since: Option<String>,
        #[param("Sort order", default = Order::Relevance)] order: Order,
        ctx: Context,
    ) -> Result<Json<Vec<Hit>>, ToolError> {
        if ctx.is_cancelled() {
            return Err(ToolError::new("cancelled"));
        }
        #[allow(deprecated)] // logging, deprecated: any use of the context
        ctx.info(format!("searching for {query} since {since:?}, {order:?}"));
        let hits = self
            .documents
            .iter()
            .filter(|d| d.contains(&query))
            .take(max_results as usize)
            .map(|d| Hit {
                title: d.clone(),
                score: 1.0,
            })
            .collect();
        Ok(Json(hits))
    }

    #[describe("Count the documents per word")]
    #[param(words, "The words to count")]
    #[param(case_sensitive, "Match case", default = false)]
    pub fn count(
        &self,
        words: Vec<String>,
        case_sensitive: bool,
        ctx: &Context,
    ) -> Json<HashMap<String, usize>> {
        #[allow(deprecated)] // logging, deprecated: any use of the context
        ctx.debug("counting");
        let counts = words
            .into_iter()
            .map(|w| {
                let n = self
                    .documents
                    .iter()
                    .filter(|d| {
                        if case_sensitive {
                            d.contains(&w)
                        } else {
                            d.to_lowercase().contains(&w.to_lowercase())
                        }
                    })
                    .count();
                (w, n)
            })
            .collect();
        Json(counts)
    }

    #[describe("Add a document")]
    pub async fn add(
        &mut self,
        #[param("The document's text")] text: String,
    ) -> Result<String, ToolError> {
        if text.is_empty() {
            return Err(ToolError::new("empty document"));
        }
        self.documents.push(text);
        Ok(format!("{} documents", self.documents.len()))
    }
}

pub fn main() {
    let tools = Archive::default().into_tools();
    assert_eq!(tools.len(), 3);
}
