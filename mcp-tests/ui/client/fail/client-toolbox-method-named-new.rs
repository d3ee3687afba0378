use oxmcp_server::tool;

pub struct Accounts;

#[tool(description = "Accounts")]
impl Accounts {
    #[describe("Open a new account")]
    pub fn new(&self, #[param("The owner")] owner: String) -> String {
        owner
    }
}

fn main() {}
