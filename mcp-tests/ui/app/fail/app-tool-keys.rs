use oxmcp_server::tool;

pub struct Charts;

#[tool(description = "Charts with a page")]
impl Charts {
    #[describe("Shows the chart")]
    #[tool(ui = "https://example.com/chart")]
    pub fn chart(&self) -> String {
        "a chart".into()
    }

    #[describe("Moves a bar")]
    #[tool(visibility(app, robot))]
    pub fn move_bar(&self) -> String {
        "moved".into()
    }

    #[prompt]
    #[describe("Asks for a chart")]
    #[tool(ui = "ui://charts/page")]
    pub fn ask(&self) -> String {
        "Draw a chart".into()
    }

    #[resource(uri = "ui://charts/page")]
    #[describe("The chart's page")]
    pub fn page(&self) -> &'static str {
        "<!doctype html>"
    }
}

#[tool(ui = "ui://charts/page")]
#[describe("A free tool with a page")]
pub fn free() -> String {
    "free".into()
}

fn main() {}
