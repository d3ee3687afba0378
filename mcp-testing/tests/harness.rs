//! The harness as a user's tests use it: a server of its own, called in
//! one line, its identity injected, its listing snapshotted.

use std::sync::Arc;

use oxmcp_server::auth::Identity;
use oxmcp_server::{tool, Context, Json, Server, ToolError};
use oxmcp_testing::TestClient;
use serde_json::json;

/// What a tool's structured result holds.
#[derive(Debug, serde::Serialize, schemars::JsonSchema)]
pub struct Split {
    /// The words.
    pub words: Vec<String>,
}

/// A toolbox with one tool of each kind the helpers read.
#[derive(Debug, Default)]
pub struct Kit;

#[tool(description = "Tools for testing the harness")]
impl Kit {
    #[describe("Repeat a word")]
    pub fn repeat(
        &self,
        #[param("The word")] word: String,
        #[param("How often")] times: u32,
    ) -> String {
        word.repeat(times as usize)
    }

    #[describe("Split a sentence into words")]
    pub fn split(&self, #[param("The sentence")] text: String) -> Json<Split> {
        Json(Split {
            words: text.split_whitespace().map(str::to_owned).collect(),
        })
    }

    #[describe("Refuse an empty name")]
    pub fn check(&self, #[param("A name")] name: String) -> Result<String, ToolError> {
        if name.is_empty() {
            return Err(ToolError::new("the name is empty"));
        }
        Ok(name)
    }

    #[describe("Say who is calling")]
    pub fn whoami(&self, ctx: Context) -> String {
        match ctx.identity().and_then(Identity::subject) {
            Some(who) => format!("you are {who}"),
            None => "nobody".to_owned(),
        }
    }

    #[describe("Erase everything")]
    #[tool(scopes("kit:admin"))]
    pub fn erase(&self) -> String {
        "erased".to_owned()
    }
}

fn server() -> Server {
    Server::builder("kit", "1.0.0").toolbox(Kit).build()
}

#[tokio::test]
async fn text_structured_and_errors_each_in_one_line() {
    let client = TestClient::connect(server()).await.unwrap();
    assert_eq!(
        client
            .call_text("repeat", json!({"word": "ab", "times": 3}))
            .await,
        "ababab"
    );
    assert_eq!(
        client
            .call_structured("split", json!({"text": "a b  c"}))
            .await,
        json!({"words": ["a", "b", "c"]})
    );
    assert_eq!(
        client.call_error("check", json!({"name": ""})).await,
        "the name is empty"
    );
    let unknown = client.call_error("nope", json!({})).await;
    assert!(unknown.contains("nope"), "{unknown}");
    let bad = client.call_error("repeat", json!({"word": "ab"})).await;
    assert!(bad.contains("times"), "{bad}");
    // No identity in-process: nothing was verified.
    assert_eq!(client.call_text("whoami", ()).await, "nobody");
    client.close().await;
}

/// Runs `check` against a shared client in a task of its own and returns
/// its panic message.
async fn panic_of<F, Fut>(client: &Arc<TestClient>, check: F) -> String
where
    F: FnOnce(Arc<TestClient>) -> Fut,
    Fut: std::future::Future<Output = ()> + Send + 'static,
{
    let err = tokio::spawn(check(client.clone())).await.unwrap_err();
    let payload = err.into_panic();
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| (*s).to_owned()))
        .unwrap_or_default()
}

#[tokio::test]
async fn helpers_panic_naming_the_tool_and_what_came_instead() {
    let client = Arc::new(TestClient::connect(server()).await.unwrap());
    let failed = panic_of(&client, |c| async move {
        c.call_text("check", json!({"name": ""})).await;
    })
    .await;
    assert_eq!(failed, "`check` failed: the name is empty");
    let unstructured = panic_of(&client, |c| async move {
        c.call_structured("repeat", json!({"word": "x", "times": 1}))
            .await;
    })
    .await;
    assert!(
        unstructured.starts_with("`repeat` returned no structuredContent"),
        "{unstructured}"
    );
    let succeeded = panic_of(&client, |c| async move {
        c.call_error("check", json!({"name": "ok"})).await;
    })
    .await;
    assert!(
        succeeded.starts_with("`check` succeeded where an error was expected"),
        "{succeeded}"
    );
}

// `connect_as` needs the `auth` feature (on in the workspace's builds:
// mcp-examples turns it on).
#[cfg(feature = "auth")]
#[tokio::test]
async fn an_injected_identity_reaches_tools_and_its_scopes_are_enforced() {
    let alice = Identity::new()
        .with_subject("alice")
        .with_scopes(["kit:read"]);
    let client = TestClient::connect_as(server(), alice).await.unwrap();
    assert_eq!(client.call_text("whoami", ()).await, "you are alice");
    let names = client.tool_names().await;
    assert!(!names.iter().any(|n| n == "erase"), "{names:?}");
    let refused = client.call_error("erase", ()).await;
    assert!(
        refused.contains("403") && refused.contains("kit:admin"),
        "{refused}"
    );
    client.close().await;

    let admin = Identity::new()
        .with_subject("root")
        .with_scopes(["kit:admin"]);
    let client = TestClient::connect_as(server(), admin).await.unwrap();
    assert_eq!(client.call_text("erase", ()).await, "erased");
    client.close().await;
}

// The program's own HTTP configuration is the one served: here a body
// limit, which a call larger than it meets (HTTP 413) while a small call
// passes with the identity.
#[cfg(feature = "auth")]
#[tokio::test]
async fn an_identity_with_the_programs_own_http_configuration() {
    let alice = Identity::new()
        .with_subject("alice")
        .with_scopes(["kit:read"]);
    let http = oxmcp_server::http::HttpConfig::default()
        .endpoint("/api")
        .max_body_size(4096);
    let client =
        TestClient::connect_as_over(server(), alice, http, oxmcp_client::Client::builder())
            .await
            .unwrap();
    assert_eq!(client.call_text("whoami", ()).await, "you are alice");
    let big = "x".repeat(10_000);
    let refused = client
        .call_error("repeat", json!({"word": big, "times": 1}))
        .await;
    assert!(refused.contains("413"), "{refused}");
    client.close().await;
}

/// A listing with one description changed.
#[derive(Debug, Default)]
pub struct Changed;

#[tool(description = "Tools for testing the harness")]
impl Changed {
    #[describe("Repeat a word, several times")]
    pub fn repeat(
        &self,
        #[param("The word")] word: String,
        #[param("How often")] times: u32,
    ) -> String {
        word.repeat(times as usize)
    }
}

#[tokio::test]
async fn a_changed_description_fails_the_snapshot_with_the_difference() {
    let dir = std::env::temp_dir().join(format!("mcp-testing-snap-{}", std::process::id()));
    let path = dir.join("tools.json");
    let _ = std::fs::remove_dir_all(&dir);
    let before = Server::builder("kit", "1.0.0").toolbox(Kit).build();
    let client = TestClient::connect(before).await.unwrap();
    // Written when missing (unless on CI, where it must exist: written here first).
    if std::env::var_os("CI").is_some() {
        std::fs::create_dir_all(&dir).unwrap();
        let listing = client.list_tools().await.unwrap();
        let text = serde_json::to_string_pretty(&listing).unwrap() + "\n";
        std::fs::write(&path, text).unwrap();
    }
    client.assert_tools_snapshot(&path).await;
    let written = std::fs::read_to_string(&path).unwrap();
    assert!(written.contains("\"Repeat a word\""), "{written}");
    // The same listing passes.
    client.assert_tools_snapshot(&path).await;
    client.close().await;

    let only_repeat = Server::builder("kit", "1.0.0").toolbox(Changed).build();
    let client = Arc::new(TestClient::connect(only_repeat).await.unwrap());
    let p = path.clone();
    let message = panic_of(&client, |c| async move { c.assert_tools_snapshot(p).await }).await;
    assert!(
        message.contains("the tool listing differs from the snapshot"),
        "{message}"
    );
    assert!(
        message.contains("-    \"description\": \"Repeat a word\","),
        "{message}"
    );
    assert!(
        message.contains("+    \"description\": \"Repeat a word, several times\","),
        "{message}"
    );
    assert!(message.contains("MCP_SNAPSHOTS=overwrite"), "{message}");
    // The file is left as it was.
    assert_eq!(std::fs::read_to_string(&path).unwrap(), written);
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn both_eras_through_the_same_helpers() {
    use oxmcp_client::types::ProtocolVersion;
    use oxmcp_client::{Client, Era};
    for (era, version) in [
        (Era::Legacy, ProtocolVersion::LATEST_LEGACY),
        (Era::Modern, ProtocolVersion::V2026_07_28),
    ] {
        let client = TestClient::connect_with(server(), Client::builder().protocol(era))
            .await
            .unwrap();
        assert_eq!(client.protocol_version(), version);
        assert_eq!(
            client
                .call_text("repeat", json!({"word": "x", "times": 2}))
                .await,
            "xx"
        );
        assert_eq!(
            client.call_error("check", json!({"name": ""})).await,
            "the name is empty"
        );
        client.close().await;
    }
}
