use oxmcp_server::tool;

pub struct Weather;

#[tool(description = "Forecasts")]
impl Weather {
    #[describe("Forecast for a city")]
    pub fn forecast(
        &self,
        #[param("Days ahead", min = "one")] days: u8,
        #[param("The city", max_length = -1, pattern = 5)] city: String,
        #[param("The unit", one_of())] unit: String,
        #[param("The tone", one_of = "warm")] tone: String,
        #[param("The style", one_of(1, 2))] style: String,
    ) -> String {
        format!("{days} {city} {unit} {tone} {style}")
    }
}

fn main() {}
