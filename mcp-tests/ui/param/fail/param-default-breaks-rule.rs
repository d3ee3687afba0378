use oxmcp_server::tool;

pub struct Weather;

#[tool(description = "Forecasts")]
impl Weather {
    #[describe("Forecast for a city")]
    pub fn forecast(
        &self,
        #[param("Days ahead", min = 1, max = 16, default = 0)] days: u8,
        #[param("A ratio", exclusive_max = 1.0, default = 1.0)] ratio: f64,
        #[param("How much to say", one_of("short", "long"), default = "medium")] detail: String,
        #[param("The code", min_length = 3, max_length = 3, default = "ab")] code: String,
    ) -> String {
        format!("{days} {ratio} {detail} {code}")
    }
}

fn main() {}
