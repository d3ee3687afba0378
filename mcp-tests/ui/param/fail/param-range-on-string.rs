use oxmcp_server::tool;

pub struct Weather;

#[tool(description = "Forecasts")]
impl Weather {
    #[describe("Forecast for a city")]
    pub fn forecast(&self, #[param("The city", min = 1)] city: String) -> String {
        city
    }
}

fn main() {}
