use std::rc::Rc;

use oxmcp_server::tool;

pub struct Jobs;

async fn tick() {}

#[tool(description = "Long-running jobs")]
impl Jobs {
    #[describe("Wait a tick")]
    pub async fn wait(&self) -> String {
        let local = Rc::new(1);
        tick().await;
        local.to_string()
    }
}

fn main() {}
