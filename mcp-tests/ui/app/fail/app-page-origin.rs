use oxmcp_server::tool;

pub struct Pages;

#[tool(description = "A page whose origin would add a directive to the host's policy")]
impl Pages {
    #[describe("Shows the page")]
    #[tool(ui = "ui://pages/d")]
    pub fn show(&self) -> String {
        String::new()
    }

    #[resource(uri = "ui://pages/d", app(connect_domains("https://api.example.com; script-src *")))]
    #[describe("An origin that would add a directive")]
    pub fn d(&self) -> &'static str {
        "<!doctype html>"
    }
}

fn main() {}
