//! MCP Apps from the host's side, against our server in the same process:
//! a client that declared Apps finds a tool's page and its sandbox settings,
//! in each era; one that did not sees no page; a page served wrong is refused.

mod support;

use mcp_client::{Client, ClientBuilder, Era};
use mcp_server::apps::ResourceUi;
use mcp_server::types::Resource;
use mcp_server::{resource::ResourceEntry, Server, ToolEntry};
use serde_json::json;

#[derive(Debug)]
pub struct Board;

#[mcp_server::tool(description = "A board")]
impl Board {
    #[describe("Show the board")]
    #[tool(ui = "ui://board/main")]
    pub fn board(&self) -> String {
        "1. Plan".into()
    }

    #[resource(
        uri = "ui://board/main",
        app(connect_domains("https://api.example.com"))
    )]
    #[describe("The board as a page")]
    pub fn page(&self) -> &'static str {
        "<!doctype html><p>board</p>"
    }
}

fn server() -> Server {
    // A page that claims to be another resource: refused by the client.
    let mut other = Resource::new("ui://board/other", "other");
    other.mime_type = Some(mcp_server::apps::MIME_TYPE.into());
    let other = ResourceEntry::dynamic(other, |_r, _c| async {
        mcp_server::types::ResourceContents::text(
            "ui://somewhere/else",
            mcp_server::apps::MIME_TYPE,
            "<p>",
        )
    })
    .unwrap()
    .with_ui(ResourceUi::default());
    let liar = ToolEntry::dynamic(
        "liar",
        "Shows a page",
        json!({"type": "object"}),
        |_a, _c| async { "x" },
    )
    .unwrap()
    .with_ui("ui://board/other");
    Server::builder("apps", "1")
        .toolbox(Board)
        .resource(other)
        .tool(liar)
        .build()
}

async fn connect(builder: ClientBuilder) -> Client {
    support::in_process(server(), builder).await.0
}

#[tokio::test]
async fn a_client_with_apps_fetches_a_tools_page_and_its_settings_in_each_era() {
    for era in [Era::Legacy, Era::Modern] {
        let client = connect(Client::builder().protocol(era).apps()).await;
        let tools = client.list_tools().await.unwrap();
        let board = tools.iter().find(|t| t.name == "board").unwrap();
        let page = client.app_page(board).await.unwrap().expect("a page");
        assert_eq!(page.uri, "ui://board/main");
        assert_eq!(page.html, "<!doctype html><p>board</p>");
        assert_eq!(
            page.ui.csp.unwrap().connect_domains,
            ["https://api.example.com"],
            "{era:?}"
        );
        let liar = tools.iter().find(|t| t.name == "liar").unwrap();
        let e = client.app_page(liar).await.unwrap_err();
        assert!(e.to_string().contains("another resource"), "{era:?}: {e}");
    }
}

#[tokio::test]
async fn a_client_without_apps_is_shown_no_page() {
    for era in [Era::Legacy, Era::Modern] {
        let client = connect(Client::builder().protocol(era)).await;
        let tools = client.list_tools().await.unwrap();
        let board = tools.iter().find(|t| t.name == "board").unwrap();
        assert_eq!(client.app_page(board).await.unwrap(), None, "{era:?}");
    }
}
