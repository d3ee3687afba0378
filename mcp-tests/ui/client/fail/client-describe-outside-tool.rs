use oxmcp_server::describe;

// A declaration that forgot its #[tool]: the helper says so, once.
pub trait Weather {
    #[describe("The forecast for a city")]
    async fn forecast(&self, #[oxmcp_server::param("The city")] city: String) -> String;
}

fn main() {}
