use oxmcp_server::tool;

pub struct Prompts;

#[tool(description = "Writing prompts")]
impl Prompts {
    #[prompt]
    #[describe("A number, which is not a prompt")]
    pub fn forty_two(&self) -> u32 {
        42
    }
}

fn main() {}
