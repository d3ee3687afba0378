use oxmcp_server::tool;

#[tool(description = "Forecasts", allow_unknown_arguments)]
impl Weather {
    #[describe("Forecast")]
    pub fn forecast(&self, #[param("The city")] city: String) -> String {
        city
    }
}

pub struct Weather;

#[oxmcp_client::tool(description = "Forecasts, declared")]
pub trait RemoteWeather {
    #[tool(allow_unknown_arguments)]
    #[describe("Forecast")]
    async fn forecast(&self, #[param("The city")] city: String) -> String;
}

fn main() {}
