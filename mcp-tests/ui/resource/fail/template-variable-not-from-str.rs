use oxmcp_server::tool;

pub struct Id(u32);

pub struct Notes;

#[tool(description = "Notes")]
impl Notes {
    #[resource(template = "notes://{id}")]
    #[describe("One note")]
    pub fn note(&self, id: Id) -> String {
        format!("note {}", id.0)
    }
}

fn main() {}
