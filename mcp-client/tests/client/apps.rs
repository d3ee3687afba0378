//! MCP Apps from the host's side, against our server in the same process:
//! a client that declared Apps finds a tool's page and its sandbox settings,
//! in each era; one that did not sees no page; a page served wrong, or with
//! CSP origins a host must not write into its policy, is refused.

use crate::support;

use oxmcp_client::{Client, ClientBuilder, Era};
use oxmcp_server::apps::ResourceUi;
use oxmcp_server::types::{Resource, ResourceContents, TextResourceContents};
use oxmcp_server::{resource::ResourceEntry, Server, ToolEntry};
use serde_json::json;

#[derive(Debug)]
pub struct Board;

#[oxmcp_server::tool(description = "A board")]
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
    Server::builder("apps", "1")
        .toolbox(Board)
        .resource(page_served_as(
            "ui://board/other",
            "ui://somewhere/else",
            None,
        ))
        .tool(tool_showing("liar", "ui://board/other"))
        .build()
}

/// The page `uri`, listed without sandbox settings, whose read answers
/// one text content of the URI `served` with `ui` as its `_meta.ui`: what
/// a handler may write, which the server's build does not check.
fn page_served_as(
    uri: &'static str,
    served: &'static str,
    ui: Option<serde_json::Value>,
) -> ResourceEntry {
    let mut page = Resource::new(uri, "page");
    page.mime_type = Some(oxmcp_server::apps::MIME_TYPE.into());
    ResourceEntry::dynamic(page, move |_r, _c| {
        let mut contents = TextResourceContents {
            uri: served.to_owned(),
            mime_type: Some(oxmcp_server::apps::MIME_TYPE.into()),
            text: "<p>page</p>".to_owned(),
            meta: None,
        };
        contents.meta = ui
            .clone()
            .map(|ui| [("ui".to_owned(), ui)].into_iter().collect());
        async move { ResourceContents::Text(contents) }
    })
    .unwrap()
    .with_ui(ResourceUi::default())
}

/// A tool `name` whose page is `uri`.
fn tool_showing(name: &str, uri: &str) -> ToolEntry {
    ToolEntry::dynamic(
        name,
        "Shows a page",
        json!({"type": "object"}),
        |_a, _c| async { "x" },
    )
    .unwrap()
    .with_ui(uri)
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

/// A server whose tool `show` names `ui://odd/page`, a page whose content
/// says its sandbox may reach `https://ok.example.com` and `origin` (in
/// `list`).
fn server_declaring(list: &str, origin: &str) -> Server {
    let ui = json!({"csp": {list: ["https://ok.example.com", origin]}});
    Server::builder("odd", "1")
        .resource(page_served_as("ui://odd/page", "ui://odd/page", Some(ui)))
        .tool(tool_showing("show", "ui://odd/page"))
        .build()
}

#[tokio::test]
async fn a_page_whose_csp_names_a_bad_origin_is_refused_not_handed_to_the_host() {
    let bad = [
        (
            "connectDomains",
            "https://a.example.com; script-src 'unsafe-inline'",
        ),
        (
            "connectDomains",
            "https://a.example.com https://b.example.com",
        ),
        ("resourceDomains", "https://*"),
        ("resourceDomains", "*"),
        ("frameDomains", "http://evil.example.com"),
        ("baseUriDomains", "javascript://a.example.com"),
    ];
    for (list, origin) in bad {
        let client = support::in_process(server_declaring(list, origin), Client::builder().apps())
            .await
            .0;
        let tools = client.list_tools().await.unwrap();
        let show = tools.iter().find(|t| t.name == "show").unwrap();
        let e = client.app_page(show).await.unwrap_err();
        let message = e.to_string();
        assert!(
            message.contains("ui://odd/page") && message.contains(&format!("{origin:?}")),
            "{list} {origin}: {message}"
        );
    }
    // The same page with good origins only is handed over as it is.
    let client = support::in_process(
        server_declaring("connectDomains", "http://localhost:5173"),
        Client::builder().apps(),
    )
    .await
    .0;
    let tools = client.list_tools().await.unwrap();
    let show = tools.iter().find(|t| t.name == "show").unwrap();
    let page = client.app_page(show).await.unwrap().expect("a page");
    assert_eq!(
        page.ui.csp.unwrap().connect_domains,
        ["https://ok.example.com", "http://localhost:5173"]
    );
}
