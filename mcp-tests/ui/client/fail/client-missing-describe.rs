use oxmcp_client::tool;

#[tool(description = "A weather service")]
pub trait Weather {
    async fn forecast(&self, #[param("The city")] city: String) -> String;
}

// The client is still generated (a stub), so this adds no second error.
pub fn client<C: oxmcp_client::types::call::ToolCaller>(caller: C) -> WeatherClient<C> {
    WeatherClient::new(caller)
}

fn main() {}
