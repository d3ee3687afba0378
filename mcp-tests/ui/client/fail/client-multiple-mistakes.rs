use oxmcp_client::tool;

#[tool(description = "")]
pub trait Weather {
    async fn forecast(&self, city: String) -> String;

    #[describe("The temperature")]
    fn temperature(&self, #[param("The city")] city: String) -> &str {
        "20"
    }

    #[describe("Again")]
    #[tool(name = "forecast")]
    async fn again(#[param("The city")] city: String, #[param(days, "Days")] day: u32) -> String;
}

fn main() {}
