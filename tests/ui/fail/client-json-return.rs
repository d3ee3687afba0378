use mcp_client::tool;

pub struct Json<T>(pub T);

#[derive(serde::Deserialize)]
pub struct Forecast {
    pub summary: String,
}

#[tool(description = "A weather service")]
pub trait Weather {
    #[describe("The forecast for a city")]
    async fn forecast(&self, #[param("The city")] city: String) -> Json<Forecast>;
}

fn main() {}
