use oxmcp_server::tool;

pub struct Weather;

#[tool(description = "Forecasts")]
impl Weather {
    #[describe("Forecast for a city")]
    pub fn forecast(
        &self,
        #[param("Days ahead", min = 16, max = 1)] days: u8,
        #[param("A ratio", exclusive_min = 1.0, max = 1.0)] ratio: f64,
        #[param("Hours", min = 0, exclusive_min = 0)] hours: u32,
        #[param("The city", min_length = 10, max_length = 2)] city: String,
        #[param("A level", min = 1, min = 2)] level: u8,
    ) -> String {
        format!("{days} {ratio} {hours} {city} {level}")
    }
}

fn main() {}
