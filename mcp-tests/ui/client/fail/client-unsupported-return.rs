use oxmcp_client::{tool, Json};

// Serialize only: a declared tool's result is decoded, so it needs Deserialize.
#[derive(serde::Serialize)]
pub struct Forecast {
    pub summary: String,
}

#[tool(description = "A weather service")]
pub trait Weather {
    #[describe("The forecast for a city")]
    async fn forecast(&self, #[param("The city")] city: String) -> Json<Forecast>;
}

fn main() {}
