use oxmcp_client::tool;

// A structured result is written `Json<Forecast>`, as on the server.
#[derive(serde::Deserialize)]
pub struct Forecast {
    pub summary: String,
}

#[tool(description = "A weather service")]
pub trait Weather {
    #[describe("The forecast for a city")]
    async fn forecast(&self, #[param("The city")] city: String) -> Forecast;
}

fn main() {}
