use oxmcp_client::tool;

#[tool(description = "A weather service")]
pub trait Weather {
    #[describe("The forecast for a city")]
    async fn forecast(&self, city: String, #[param("How many days")] days: u32) -> String;
}

fn main() {}
