use oxmcp_server::tool;

pub struct Pages;

#[tool(description = "Pages with wrong settings")]
impl Pages {
    #[describe("A tool")]
    pub fn noop(&self) -> String {
        String::new()
    }

    #[resource(uri = "ui://pages/a", mime_type = "text/html")]
    #[describe("A page with another MIME type")]
    pub fn a(&self) -> &'static str {
        "<!doctype html>"
    }

    #[resource(uri = "notes://b", app(prefers_border))]
    #[describe("Sandbox settings on a resource that is not a page")]
    pub fn b(&self) -> &'static str {
        "b"
    }

    #[resource(uri = "ui://pages/c", app(permissions(camera, usb)))]
    #[describe("A permission that does not exist")]
    pub fn c(&self) -> &'static str {
        "<!doctype html>"
    }
}

fn main() {}
