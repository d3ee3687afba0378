use oxmcp_server::tool;

pub struct Weather;

#[tool(description = "Forecasts")]
impl Weather {
    #[describe("Forecast in a style")]
    pub fn forecast(
        &self,
        #[param("The style", one_of(1, 2))] style: String,
        #[param("Days ahead", one_of("one", "two"))] days: Option<u8>,
    ) -> String {
        format!("{style} {days:?}")
    }
}

fn main() {}
