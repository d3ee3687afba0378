use oxmcp_server::tool;

pub struct Notes;

#[tool(description = "Notes behind OAuth")]
impl Notes {
    #[prompt]
    #[describe("A prompt")]
    pub fn greet(&self, #[param("Whom")] name: String) -> String {
        name
    }

    #[complete(greet, name)]
    #[tool(scopes("notes:read"))]
    fn names(&self, typed: &str) -> Vec<String> {
        vec![typed.to_owned()]
    }

    #[prompt(scopes("notes:read"))]
    #[describe("Scopes in the wrong attribute")]
    pub fn farewell(&self) -> String {
        String::new()
    }

    #[resource(uri = "notes://index", scopes("notes:read"))]
    #[describe("Scopes in the wrong attribute")]
    pub fn index(&self) -> String {
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
