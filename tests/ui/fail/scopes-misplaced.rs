use mcp_server::tool;

pub struct Notes;

#[tool(description = "Notes behind OAuth")]
impl Notes {
    #[prompt]
    #[describe("A prompt")]
    #[tool(scopes("notes:read"))]
    pub fn greet(&self) -> String {
        String::new()
    }
}

#[tool(description = "A foreign notes server", scopes("notes:read"))]
pub trait RemoteNotes {
    #[describe("Read a note")]
    #[tool(scopes("notes:read"))]
    async fn read(&self) -> String;
}

fn main() {}
