use oxmcp_server::tool;

pub struct Notes;

#[tool(description = "Notes behind OAuth", scopes("notes:read", "notes:read"))]
impl Notes {
    #[describe("Spaces inside one scope")]
    #[tool(scopes("notes:read notes:write"))]
    pub fn spaces(&self) {}

    #[describe("An empty scope and a quote")]
    #[tool(scopes("", "say\"hi"))]
    pub fn empty_and_quote(&self) {}

    #[describe("No list")]
    #[tool(scopes = "notes:read")]
    pub fn string(&self) {}

    #[describe("Not strings")]
    #[tool(scopes(notes))]
    pub fn idents(&self) {}

    #[describe("Nothing listed")]
    #[tool(scopes())]
    pub fn nothing(&self) {}

    #[describe("Twice")]
    #[tool(scopes("a"), scopes("b"))]
    pub fn twice(&self) {}
}

fn main() {}
