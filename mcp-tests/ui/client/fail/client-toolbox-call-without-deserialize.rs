use oxmcp_server::types::call::ToolCaller;
use oxmcp_server::{tool, Json};

// Serialize + JsonSchema is all a server needs: the toolbox and its client compile.
#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Stats {
    pub count: u64,
}

pub struct Statistics;

#[tool(description = "Statistics")]
impl Statistics {
    #[describe("Count the values")]
    pub fn stats(&self, #[param("The values")] values: Vec<f64>) -> Json<Stats> {
        Json(Stats { count: values.len() as u64 })
    }
}

// Calling the client's method needs `Stats: Deserialize`.
pub async fn count<C: ToolCaller>(client: StatisticsClient<C>) -> u64 {
    client.stats(vec![1.0]).await.map(|s| s.count).unwrap_or(0)
}

fn main() {}
