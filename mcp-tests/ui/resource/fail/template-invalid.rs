use oxmcp_server::tool;

pub struct Notes;

#[tool(description = "Notes")]
impl Notes {
    #[resource(template = "notes://{id")]
    #[describe("One note")]
    pub fn note(&self, id: u32) -> String {
        format!("note {id}")
    }
}

fn main() {}
