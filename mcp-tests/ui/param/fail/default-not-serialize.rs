use oxmcp_server::tool;

// Deserialize and JsonSchema, as a parameter needs; no Serialize, which its
// default needs (it is written into the schema).
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
pub enum Order {
    Relevance,
    Date,
}

pub struct Search;

#[tool(description = "Search the archive")]
impl Search {
    #[describe("Search by text")]
    pub fn search(
        &self,
        #[param("Query text")] query: String,
        #[param("Sort order", default = Order::Relevance)] order: Order,
    ) -> String {
        format!("{query} {order:?}")
    }
}

fn main() {}
