//! The calculator's and the notes' toolboxes tested in-process with
//! oxmcp-testing, as a user tests a server: no child process, no socket
//! (but for the calculator's scopes, which need its HTTP gate), their
//! listings kept in snapshots beside this file.

use mcp_examples::calculator_tools::Calculator;
use mcp_examples::notes::Notes;
use oxmcp_server::auth::Identity;
use oxmcp_server::Server;
use oxmcp_testing::TestClient;
use serde_json::{json, Value};

fn calculator() -> Server {
    Server::builder("calculator", "1.0.0")
        .toolbox(Calculator::default())
        .build()
}

fn notes() -> Server {
    Server::builder("notes", "1.0.0")
        .toolbox(Notes::in_memory())
        .build()
}

/// A snapshot's path beside this file.
fn snapshot(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/programs")
        .join(name)
}

#[tokio::test]
async fn calculator_answers_and_its_listing_is_as_committed() {
    let client = TestClient::connect(calculator()).await.unwrap();
    assert_eq!(client.call_text("add", json!({"a": 2, "b": 3})).await, "5");
    assert_eq!(
        client.call_error("divide", json!({"a": 1, "b": 0})).await,
        "division by zero"
    );
    let stats = client
        .call_structured("stats", json!({"values": [1, 2, 6]}))
        .await;
    assert_eq!(stats["mean"], 3.0);
    assert_eq!(stats["max"], 6.0);
    assert_eq!(
        client.call_error("stats", json!({"values": []})).await,
        "no values"
    );
    client
        .assert_tools_snapshot(snapshot("calculator_tools.json"))
        .await;
    client.close().await;
}

#[tokio::test]
async fn calculator_store_needs_the_write_scope() {
    let reader = Identity::new()
        .with_subject("ada")
        .with_scopes(["calculator:read"]);
    let client = TestClient::connect_as(calculator(), reader).await.unwrap();
    assert_eq!(
        client.call_text("multiply", json!({"a": 4, "b": 5})).await,
        "20"
    );
    let names = client.tool_names().await;
    assert!(
        names.contains(&"recall".to_owned()) && !names.contains(&"store".to_owned()),
        "{names:?}"
    );
    let refused = client.call_error("store", json!({"value": 7})).await;
    assert!(
        refused.contains("403") && refused.contains("calculator:write"),
        "{refused}"
    );
    client.close().await;

    let writer = Identity::new()
        .with_subject("ada")
        .with_scopes(["calculator:read", "calculator:write"]);
    let client = TestClient::connect_as(calculator(), writer).await.unwrap();
    client.call_text("store", json!({"value": 7})).await;
    assert_eq!(client.call_text("recall", ()).await, "7");
    client.close().await;
}

/// Confirms a deletion by typing the title the question quotes.
async fn type_the_title(params: Value) -> Result<Value, oxmcp_client::types::ErrorObject> {
    let message = params["message"].as_str().unwrap_or_default();
    let title = message.split('"').nth(1).unwrap_or_default();
    Ok(json!({"action": "accept", "content": {"title": title}}))
}

#[tokio::test]
async fn notes_are_written_read_and_deleted_once_confirmed() {
    let builder = oxmcp_client::Client::builder().elicitation_handler(type_the_title);
    let client = TestClient::connect_with(notes(), builder).await.unwrap();
    assert_eq!(
        client.call_text("board", ()).await,
        "1. Groceries\n2. Ideas"
    );
    let id = client
        .call_text(
            "add_note",
            json!({"title": "Tea", "body": "Green, no sugar."}),
        )
        .await;
    assert_eq!(id, "3");
    assert_eq!(
        client.read_text("notes://3").await,
        "# Tea\n\nGreen, no sugar."
    );
    assert_eq!(
        client
            .call_error("edit_note", json!({"id": 9, "body": "x"}))
            .await,
        "there is no note 9"
    );
    assert_eq!(
        client.call_text("delete_note", json!({"id": 1})).await,
        "note 1 deleted"
    );
    assert_eq!(client.call_text("board", ()).await, "2. Ideas\n3. Tea");
    client
        .assert_tools_snapshot(snapshot("notes_tools.json"))
        .await;
    client.close().await;
}
