use oxmcp_server::tool;

pub struct Accounts;

#[tool(description = "Accounts", client = "public")]
impl Accounts {
    #[describe("Open an account")]
    pub fn open(&self, #[param("The owner")] owner: String) -> String {
        owner
    }
}

#[tool(description = "More accounts", client = 1)]
impl Accounts2 {
    #[describe("Close an account")]
    pub fn close(&self, #[param("The owner")] owner: String) -> String {
        owner
    }
}

pub struct Accounts2;

fn main() {}
