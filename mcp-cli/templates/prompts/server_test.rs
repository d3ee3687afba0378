//! The glossary as a client sees it, in-process (oxmcp-testing): its tools,
//! resources and prompt.

use oxmcp_server::types::ContentBlock;
use oxmcp_testing::TestClient;
use serde_json::json;

#[tokio::test]
async fn a_defined_term_is_looked_up_and_read_as_a_resource() {
    let client = TestClient::connect({{crate}}::server()).await.unwrap();
    let missing = client.call_error("lookup", json!({"term": "RPC"})).await;
    assert!(missing.contains("is not defined"), "{missing}");
    client
        .call_text("define", json!({"term": "RPC", "meaning": "a remote procedure call"}))
        .await;
    assert_eq!(client.call_text("lookup", json!({"term": "RPC"})).await, "a remote procedure call");
    assert_eq!(client.read_text("glossary://terms").await, "MCP\nRPC");
    assert_eq!(client.read_text("glossary://terms/RPC").await, "a remote procedure call");
    client.close().await;
}

#[tokio::test]
async fn the_prompt_names_the_term_and_its_meaning() {
    let client = TestClient::connect({{crate}}::server()).await.unwrap();
    let prompt = client.get_prompt("explain", [("term", "MCP")]).await.unwrap();
    let ContentBlock::Text(text) = &prompt.messages[0].content else {
        panic!("not text: {:?}", prompt.messages[0]);
    };
    assert!(text.text.contains("the Model Context Protocol"), "{}", text.text);
    assert!(text.text.contains("to a beginner"), "{}", text.text);
    client.close().await;
}
