use oxmcp_server::tool;

pub struct Asking;

#[tool(description = "Tools that need client capabilities", requires_client(sampling))]
impl Asking {
    #[describe("No list")]
    #[tool(requires_client)]
    pub fn bare(&self) {}

    #[describe("A string")]
    #[tool(requires_client = "sampling")]
    pub fn string(&self) {}

    #[describe("Quoted names")]
    #[tool(requires_client("sampling"))]
    pub fn quoted(&self) {}

    #[describe("Empty")]
    #[tool(requires_client())]
    pub fn empty(&self) {}

    #[prompt]
    #[describe("A prompt")]
    #[tool(requires_client(sampling))]
    pub fn greet(&self) -> String {
        String::new()
    }
}

#[tool(description = "A weather service")]
pub trait Weather {
    #[describe("The forecast")]
    #[tool(requires_client(sampling))]
    async fn forecast(&self) -> String;
}

fn main() {}
