use oxmcp_server::tool;

pub struct Weather;

#[tool(description = "Forecasts")]
impl Weather {
    #[describe("Forecast for a number of days")]
    #[param(days, "Days ahead", pattern = "^[0-9]+$")]
    pub fn forecast(&self, days: u32) -> String {
        format!("{days}")
    }
}

fn main() {}
