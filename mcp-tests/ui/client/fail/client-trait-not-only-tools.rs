use oxmcp_client::tool;

#[tool(description = "A weather service")]
pub trait Weather: Send {
    type Unit;

    #[describe("The forecast for a city")]
    async fn forecast(&self, #[param("The city")] city: String) -> String;
}

fn main() {}
