use oxmcp_client::tool;

#[tool(description = "A weather service")]
pub trait Weather {
    #[describe("The forecast for a city")]
    async fn forecast(&self, #[param("The city")] city: String) -> String {
        city
    }
}

fn main() {}
