use oxmcp_server::tool;
use oxmcp_server::Context;

pub struct Jobs;

#[tool(description = "Long-running jobs")]
impl Jobs {
    #[describe("Count to n")]
    #[param(n, "How far to count")]
    #[param(ctx, "The context")]
    pub async fn count(&self, n: u32, ctx: Context) -> String {
        ctx.progress(1.0, None);
        n.to_string()
    }
}

fn main() {}
