use oxmcp_server::tool;

pub struct Jobs;

#[tool(description = "Jobs with time limits")]
impl Jobs {
    #[describe("Never gets to run")]
    #[tool(timeout = "0s")]
    pub async fn zero(&self) -> String {
        "done".into()
    }

    #[describe("Runs for two days")]
    #[tool(timeout = "48h")]
    pub async fn absurd(&self) -> String {
        "done".into()
    }

    #[describe("Runs a while")]
    #[tool(timeout = "-5s")]
    pub async fn negative(&self) -> String {
        "done".into()
    }

    #[describe("Runs soon")]
    #[tool(timeout = "5 days")]
    pub async fn unit(&self) -> String {
        "done".into()
    }

    #[describe("Runs thirty of something")]
    #[tool(timeout = 30)]
    pub async fn bare(&self) -> String {
        "done".into()
    }
}

fn main() {}
