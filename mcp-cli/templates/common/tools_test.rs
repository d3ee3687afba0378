//! The server as a client sees it, in-process (oxmcp-testing): each tool
//! called, its result and its error read in one line.

use oxmcp_testing::TestClient;
use serde_json::json;

#[tokio::test]
async fn greet_answers_and_refuses_an_empty_name() {
    let client = TestClient::connect({{crate}}::server()).await.unwrap();
    assert_eq!(client.call_text("greet", json!({"name": "Ada"})).await, "Hello, Ada!");
    let refused = client.call_error("greet", json!({"name": " "})).await;
    assert!(refused.contains("the name is empty"), "{refused}");
    client.close().await;
}

#[tokio::test]
async fn count_returns_structured_counts() {
    let client = TestClient::connect({{crate}}::server()).await.unwrap();
    let counts = client.call_structured("count", json!({"text": "two words"})).await;
    assert_eq!(counts, json!({"words": 2, "characters": 9}));
    client.close().await;
}
