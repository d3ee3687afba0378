use oxmcp_server::tool;

pub struct Asking;

#[tool(description = "Tools that need client capabilities")]
impl Asking {
    #[describe("Ask twice")]
    #[tool(requires_client(sampling, roots, sampling))]
    pub fn twice(&self) {}

    #[describe("Two lists")]
    #[tool(requires_client(roots), read_only, requires_client(sampling))]
    pub fn two_lists(&self) {}
}

fn main() {}
