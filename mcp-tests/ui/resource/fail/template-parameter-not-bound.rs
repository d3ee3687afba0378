use oxmcp_server::tool;

pub struct Notes;

#[tool(description = "Notes")]
impl Notes {
    #[resource(template = "notes://{id}")]
    #[describe("One note")]
    pub fn note(&self, id: u32, verbose: bool) -> String {
        format!("note {id} {verbose}")
    }
}

fn main() {}
