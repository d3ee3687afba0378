//! The tool listing, as hosts and models read it, compared with
//! `tests/tools.json`: a description or a schema changed without the file
//! fails with the difference. After an intended change, accept it with
//! `MCP_SNAPSHOTS=overwrite cargo test` and commit the file.

use oxmcp_testing::TestClient;

#[tokio::test]
async fn the_tool_listing_is_as_committed() {
    let client = TestClient::connect({{crate}}::server()).await.unwrap();
    client.assert_tools_snapshot("tests/tools.json").await;
    client.close().await;
}
