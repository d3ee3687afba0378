use oxmcp_server::tool;

pub struct Weather;

#[tool(description = "Forecasts")]
impl Weather {
    #[describe("Forecast for a number of days")]
    pub fn forecast(&self, #[param("Days ahead", max_length = 2)] days: u8) -> String {
        format!("{days}")
    }
}

fn main() {}
