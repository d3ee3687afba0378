use oxmcp_server::tool;

pub struct Search;

#[tool(description = "Search the archive")]
impl Search {
    #[describe("Search by text")]
    pub fn search(
        &self,
        #[param("Query text")] query: String,
        #[param("Maximum results", defualt = 5)] max_results: u32,
    ) -> String {
        format!("{query} {max_results}")
    }
}

fn main() {}
