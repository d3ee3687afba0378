use oxmcp_server::{tool, Context};

pub struct Asking;

#[tool(description = "Tools that need client capabilities")]
impl Asking {
    #[describe("Summarize with the client's model")]
    #[tool(requires_client(samplng))]
    pub async fn summarize(&self, #[param("The text")] text: String, ctx: Context) -> String {
        let _ = ctx;
        text
    }

    #[describe("Not one feature of the client")]
    #[tool(requires_client(roots, experimental, tasks))]
    pub fn other(&self) {}
}

#[tool(requires_client(Sampling))]
#[describe("Translate with the client's model")]
pub fn translate(#[param("The text")] text: String) -> String {
    text
}

fn main() {}
