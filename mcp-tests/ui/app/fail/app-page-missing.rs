use oxmcp_server::tool;

pub struct Charts;

#[tool(description = "Charts with a page")]
impl Charts {
    #[describe("Shows the chart")]
    #[tool(ui = "ui://charts/bar")]
    pub fn chart(&self) -> String {
        "a chart".into()
    }

    #[resource(uri = "ui://charts/line")]
    #[describe("The line chart's page")]
    pub fn line_page(&self) -> &'static str {
        "<!doctype html>"
    }
}

fn main() {}
