use oxmcp_client::tool;

// No JsonSchema: `connect` compares the argument's schema with the server's.
#[derive(serde::Serialize)]
pub struct City {
    pub name: String,
}

#[tool(description = "A weather service")]
pub trait Weather {
    #[describe("The forecast for a city")]
    async fn forecast(&self, #[param("The city")] city: City) -> String;
}

fn main() {}
