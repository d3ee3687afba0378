use oxmcp_server::tool;

pub struct Jobs;

#[tool(description = "Long jobs")]
impl Jobs {
    #[describe("Runs for a while")]
    #[tool(task = sometimes)]
    pub async fn run(&self) -> String {
        "done".into()
    }

    #[describe("Runs for longer")]
    #[tool(task)]
    pub async fn longer(&self) -> String {
        "done".into()
    }
}

fn main() {}
