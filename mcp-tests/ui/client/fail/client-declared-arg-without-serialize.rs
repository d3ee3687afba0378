use oxmcp_client::tool;

// No Serialize: a declared tool's arguments are sent, so they need it.
#[derive(schemars::JsonSchema)]
pub struct City {
    pub name: String,
}

#[tool(description = "A weather service")]
pub trait Weather {
    #[describe("The forecast for a city")]
    async fn forecast(&self, #[param("The city")] city: City) -> String;
}

fn main() {}
