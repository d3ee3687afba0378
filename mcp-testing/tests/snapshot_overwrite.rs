//! `MCP_SNAPSHOTS=overwrite` accepts a changed listing. A binary of its
//! own: the variable is process-wide, set here and nowhere else.

use oxmcp_server::{tool, Server};
use oxmcp_testing::{TestClient, SNAPSHOTS_ENV};

/// One tool.
#[derive(Debug)]
pub struct One;

#[tool(description = "One tool")]
impl One {
    #[describe("Answer")]
    pub fn answer(&self) -> u32 {
        42
    }
}

#[tokio::test]
async fn overwrite_rewrites_a_stale_snapshot() {
    let dir = std::env::temp_dir().join(format!("mcp-testing-over-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("tools.json");
    std::fs::write(&path, "[]\n").unwrap();
    std::env::set_var(SNAPSHOTS_ENV, "overwrite");
    let client = TestClient::connect(Server::builder("one", "1").toolbox(One).build())
        .await
        .unwrap();
    client.assert_tools_snapshot(&path).await;
    let written = std::fs::read_to_string(&path).unwrap();
    let listing: serde_json::Value = serde_json::from_str(&written).unwrap();
    assert_eq!(listing[0]["name"], "answer");
    assert_eq!(listing[0]["description"], "Answer");
    std::env::remove_var(SNAPSHOTS_ENV);
    // Now it matches without the variable.
    client.assert_tools_snapshot(&path).await;
    client.close().await;
    let _ = std::fs::remove_dir_all(&dir);
}
