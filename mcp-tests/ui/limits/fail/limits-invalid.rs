use oxmcp_server::tool;

pub struct Reports;

#[tool(description = "Reports with result caps and caches")]
impl Reports {
    #[describe("Shows nothing at all")]
    #[tool(max_result_chars = 0)]
    pub fn empty(&self) -> String {
        "report".into()
    }

    #[describe("More than hosts take")]
    #[tool(max_result_chars = 600_000)]
    pub fn huge(&self) -> String {
        "report".into()
    }

    #[describe("A cap in words")]
    #[tool(max_result_chars = "lots")]
    pub fn words(&self) -> String {
        "report".into()
    }

    #[describe("Writes, yet cached")]
    #[tool(cache = "60s")]
    pub fn write(&self) -> String {
        "written".into()
    }

    #[describe("Cached for no time")]
    #[tool(read_only, cache = "0s")]
    pub fn instant(&self) -> String {
        "read".into()
    }

    #[describe("Cached for a week")]
    #[tool(read_only, cache = "168h")]
    pub fn stale(&self) -> String {
        "read".into()
    }

    #[describe("Keeps nothing")]
    #[tool(max_result_chars = 100, keep_full_result = "0m")]
    pub fn forgetful(&self) -> String {
        "read".into()
    }
}

fn main() {}
