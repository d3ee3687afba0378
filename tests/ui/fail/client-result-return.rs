use mcp_client::tool;

#[tool(description = "A weather service")]
pub trait Weather {
    #[describe("The temperature in a city")]
    async fn temperature(&self, #[param("The city")] city: String) -> Result<f64, String>;
}

fn main() {}
