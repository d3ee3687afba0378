// A user's crate that denies warnings: each use of a feature the spec
// deprecated names the revision and what replaces it.
#![deny(deprecated)]

use oxmcp_server::types::sampling::{CreateMessageParams, SamplingMessage};
use oxmcp_server::{tool, Context, ToolError};

pub struct Writer;

#[tool(description = "Writing with the client's help")]
impl Writer {
    #[describe("Summarize the client's files")]
    pub async fn summarize(&self, ctx: Context) -> Result<String, ToolError> {
        ctx.info("summarizing");
        let roots = ctx.roots().await?;
        let ask = SamplingMessage::user_text("Summarize");
        let answer = ctx.sample(CreateMessageParams::new(vec![ask], 100)).await?;
        Ok(format!("{} roots: {}", roots.len(), answer.model))
    }
}

async fn connect() -> Result<oxmcp_client::Client, oxmcp_client::Error> {
    oxmcp_client::Client::builder()
        .sampling_handler(|_| async { Ok(serde_json::json!({})) })
        .connect_sse("http://127.0.0.1:3000/sse")
        .await
}

fn main() {
    let _ = connect();
}
