use oxmcp_server::{tool, tool::TaskSupport, Context, Server, ToolEntry};

pub struct Jobs;

#[tool(description = "Long jobs")]
impl Jobs {
    #[describe("Runs for a while; may run as a task")]
    #[tool(task = optional)]
    pub async fn run(&self, ctx: Context) -> String {
        ctx.cancelled().await;
        "stopped".into()
    }

    #[describe("Only runs as a task")]
    #[tool(task = required)]
    pub async fn batch(&self) -> String {
        "done".into()
    }
}

pub fn main() {
    let by_hand = ToolEntry::dynamic(
        "later",
        "Runs later",
        serde_json::json!({"type": "object"}),
        |_args, _ctx| async { "ok" },
    )
    .unwrap()
    .with_task_support(TaskSupport::Optional);
    let _ = Server::builder("jobs", "1")
        .toolbox(Jobs)
        .tool(by_hand)
        .build();
}
