use oxmcp_server::tool;

pub struct Writing;

#[tool(description = "Writing help")]
impl Writing {
    #[prompt]
    #[describe("Ask for a review")]
    pub fn review(&self, #[param("From 1 to 5", min = 1, max = 5)] strictness: u8) -> String {
        format!("{strictness}")
    }
}

#[oxmcp_client::tool(description = "Forecasts, declared")]
pub trait RemoteWeather {
    #[describe("Forecast")]
    async fn forecast(&self, #[param("The city", pattern = "^[A-Z]")] city: String) -> String;
}

fn main() {}
