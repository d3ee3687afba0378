use oxmcp_server::tool;

pub struct Memory;

#[tool(description = "Raw memory access")]
impl Memory {
    #[describe("Read a byte")]
    pub unsafe fn peek(&self, #[param("The address")] address: usize) -> u8 {
        *(address as *const u8)
    }
}

fn main() {}
