use oxmcp_client::tool;

#[tool(description = "A weather service")]
pub trait Weather {
    #[describe("The forecast for a city")]
    async fn forecast(&self, #[param("The city")] city: String) -> String;

    #[describe("The forecast, in Fahrenheit")]
    #[tool(name = "forecast")]
    async fn forecast_f(&self, #[param("The city")] city: String) -> String;
}

fn main() {}
