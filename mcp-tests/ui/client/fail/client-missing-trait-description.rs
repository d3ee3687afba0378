use oxmcp_client::tool;

#[tool]
pub trait Weather {
    #[describe("The forecast for a city")]
    async fn forecast(&self, #[param("The city")] city: String) -> String;
}

fn main() {}
