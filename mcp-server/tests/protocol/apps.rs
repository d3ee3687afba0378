//! MCP Apps: a tool's page and the sandbox settings of that page reach the
//! clients that declared the extension, in both eras; the others see no
//! page, no `_meta.ui`, no tool only the app calls, and every tool still
//! answers with its content. A tool whose page the server does not serve
//! is refused when the server is built or the tool added, and a page whose
//! CSP names a bad origin is refused when built, added or read.

use mcp_test_support::server as support;

use oxmcp_server::apps::{ResourceUi, Visibility, MIME_TYPE};
use oxmcp_server::resource::{ResourceEntry, TemplateEntry};
use oxmcp_server::types::extension::UI;
use oxmcp_server::types::{Resource, ResourceContents, ResourceTemplate};
use oxmcp_server::{Server, ToolEntry};
use serde_json::{json, Value};
use support::{modern_meta_with, Client};

#[derive(Debug)]
pub struct Board;

#[oxmcp_server::tool(description = "A board of cards")]
impl Board {
    #[describe("Show the board: one card per line")]
    #[tool(read_only, ui = "ui://board/main")]
    pub fn board(&self) -> String {
        "1. Plan\n2. Build".into()
    }

    #[describe("Move a card (the board's page calls it)")]
    #[tool(visibility(app))]
    pub fn move_card(&self, #[param("The card")] card: u32) -> String {
        format!("moved {card}")
    }

    #[resource(
        uri = "ui://board/main",
        title = "Board",
        app(
            connect_domains("https://api.example.com"),
            resource_domains("https://cdn.example.com", "https://*.fonts.example"),
            permissions(clipboard_write),
            prefers_border = true
        )
    )]
    #[describe("The board as a page")]
    pub fn page(&self) -> &'static str {
        "<!doctype html><p>board</p>"
    }

    #[resource(uri = "board://readme", mime_type = "text/plain")]
    #[describe("What the board is")]
    pub fn readme(&self) -> &'static str {
        "a board"
    }
}

fn apps_caps() -> Value {
    json!({"extensions": {UI: {"mimeTypes": [MIME_TYPE]}}})
}

/// `tools/list`, `resources/list` and `resources/read` of the page, in the
/// legacy era (capabilities at `initialize`) or in 2026-07-28 (per request).
async fn look(caps: Value, modern: bool) -> (Value, Value, Value) {
    let mut c = Client::start(Server::builder("apps", "1").toolbox(Board).build());
    let params = |extra: Value| -> Value {
        let mut p = if modern {
            json!({"_meta": modern_meta_with(&caps)})
        } else {
            json!({})
        };
        p.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        p
    };
    if !modern {
        let init = c
            .request(
                0,
                "initialize",
                json!({"protocolVersion": "2025-11-25", "capabilities": caps,
                       "clientInfo": {"name": "t", "version": "1"}}),
            )
            .await;
        assert_eq!(
            init["result"]["capabilities"]["extensions"][UI],
            json!({}),
            "{init}"
        );
        c.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
    }
    let tools = c.request(1, "tools/list", params(json!({}))).await;
    let resources = c.request(2, "resources/list", params(json!({}))).await;
    let read = c
        .request(
            3,
            "resources/read",
            params(json!({"uri": "ui://board/main"})),
        )
        .await;
    c.close().await.unwrap();
    (tools["result"].clone(), resources["result"].clone(), read)
}

fn tool<'a>(list: &'a Value, name: &str) -> Option<&'a Value> {
    list["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == name)
}

fn uris(list: &Value) -> Vec<&str> {
    list["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["uri"].as_str().unwrap())
        .collect()
}

#[tokio::test]
async fn a_client_with_apps_sees_pages_and_their_settings_in_both_eras() {
    let page_ui = json!({
        "csp": {
            "connectDomains": ["https://api.example.com"],
            "resourceDomains": ["https://cdn.example.com", "https://*.fonts.example"]
        },
        "permissions": {"clipboardWrite": {}},
        "prefersBorder": true
    });
    for modern in [false, true] {
        let (tools, resources, read) = look(apps_caps(), modern).await;
        assert_eq!(
            tool(&tools, "board").unwrap()["_meta"]["ui"],
            json!({"resourceUri": "ui://board/main"}),
            "{tools}"
        );
        assert_eq!(
            tool(&tools, "move_card").unwrap()["_meta"]["ui"],
            json!({"visibility": ["app"]}),
            "{tools}"
        );
        assert_eq!(uris(&resources), ["board://readme", "ui://board/main"]);
        let page = &resources["resources"][1];
        assert_eq!(page["mimeType"], MIME_TYPE);
        assert_eq!(page["_meta"]["ui"], page_ui);
        let contents = &read["result"]["contents"][0];
        assert_eq!(contents["mimeType"], MIME_TYPE, "{read}");
        assert_eq!(contents["_meta"]["ui"], page_ui, "{read}");
        assert_eq!(contents["text"], "<!doctype html><p>board</p>");
        if modern {
            assert_eq!(
                tools["cacheScope"], "private",
                "the list depends on the client"
            );
        }
    }
}

#[tokio::test]
async fn a_client_without_apps_sees_no_page_no_ui_meta_and_no_app_only_tool() {
    let without = [
        json!({}),
        // Apps declared, but not for this kind of page.
        json!({"extensions": {UI: {"mimeTypes": ["text/html"]}}}),
    ];
    for caps in without {
        for modern in [false, true] {
            let (tools, resources, read) = look(caps.clone(), modern).await;
            let board = tool(&tools, "board").expect("the tool itself is listed");
            assert!(board.get("_meta").is_none(), "{tools}");
            assert!(tool(&tools, "move_card").is_none(), "{tools}");
            assert_eq!(uris(&resources), ["board://readme"], "{caps}");
            // The page can still be read by its URI (visibility is not
            // access control).
            assert_eq!(read["result"]["contents"][0]["mimeType"], MIME_TYPE);
        }
    }
}

#[tokio::test]
async fn a_tool_with_a_page_still_answers_with_its_content() {
    let mut c = Client::start(Server::builder("apps", "1").toolbox(Board).build());
    c.initialize("2025-11-25").await;
    let r = c
        .request(1, "tools/call", json!({"name": "board", "arguments": {}}))
        .await;
    assert_eq!(
        r["result"]["content"],
        json!([{"type": "text", "text": "1. Plan\n2. Build"}])
    );
    c.close().await.unwrap();
}

fn page(uri: &str) -> ResourceEntry {
    ResourceEntry::dynamic(Resource::new(uri, "page"), |_r, _c| async {
        "<!doctype html>"
    })
    .unwrap()
    .with_ui(ResourceUi::default())
}

fn shows(uri: &str) -> ToolEntry {
    ToolEntry::dynamic(
        "show",
        "Shows a page",
        json!({"type": "object"}),
        |_a, _c| async { "shown" },
    )
    .unwrap()
    .with_ui(uri)
}

#[tokio::test]
async fn a_tool_whose_page_is_not_served_is_refused() {
    let missing = Server::builder("apps", "1")
        .tool(shows("ui://nowhere"))
        .try_build()
        .unwrap_err();
    assert!(
        missing.to_string().contains("which no resource serves"),
        "{missing}"
    );

    let mut plain = Resource::new("ui://plain", "plain");
    plain.mime_type = Some("text/html".into());
    let plain = ResourceEntry::dynamic(plain, |_r, _c| async { "<p>" }).unwrap();
    let wrong_type = Server::builder("apps", "1")
        .resource(plain)
        .tool(shows("ui://plain"))
        .try_build()
        .unwrap_err();
    assert!(wrong_type.to_string().contains("MIME type"), "{wrong_type}");

    let not_ui = Server::builder("apps", "1")
        .tool(shows("https://example.com/page"))
        .try_build()
        .unwrap_err();
    assert!(not_ui.to_string().contains("`ui://`"), "{not_ui}");

    let injected = ResourceUi {
        csp: Some(oxmcp_server::apps::Csp {
            connect_domains: vec!["https://a.example; script-src *".into()],
            ..oxmcp_server::apps::Csp::default()
        }),
        ..ResourceUi::default()
    };
    let bad = ResourceEntry::dynamic(Resource::new("ui://bad", "bad"), |_r, _c| async { "<p>" })
        .unwrap()
        .with_ui(injected);
    let refused = Server::builder("apps", "1")
        .resource(bad)
        .try_build()
        .unwrap_err();
    assert!(refused.to_string().contains("invalid origin"), "{refused}");

    // A dynamic page and its tool, and one added at run time.
    let server = Server::builder("apps", "1")
        .resource(page("ui://dyn"))
        .tool(shows("ui://dyn"))
        .build();
    let handle = server.handle();
    let later = ToolEntry::dynamic(
        "later",
        "Later",
        json!({"type": "object"}),
        |_a, _c| async { "x" },
    )
    .unwrap()
    .with_ui("ui://gone")
    .with_visibility(&[Visibility::Model, Visibility::App]);
    let refused = handle.add_tool(later).unwrap_err();
    assert!(refused.to_string().contains("ui://gone"), "{refused}");
    assert!(!server.tool_names().contains(&"later".to_owned()));

    // A page added at run time is checked as one given at build: its bad
    // origin is refused before any client lists it.
    let injected = ResourceUi {
        csp: Some(oxmcp_server::apps::Csp {
            resource_domains: vec!["https://*".into()],
            ..oxmcp_server::apps::Csp::default()
        }),
        ..ResourceUi::default()
    };
    let bad = ResourceEntry::dynamic(Resource::new("ui://bad", "bad"), |_r, _c| async { "<p>" })
        .unwrap()
        .with_ui(injected);
    let refused = handle.add_resource(bad).unwrap_err();
    assert!(refused.to_string().contains("invalid origin"), "{refused}");
    assert!(!handle.resource_uris().contains(&"ui://bad".to_owned()));
}

/// A page's contents as a handler returns them, `_meta.ui` included: the
/// build-time check of the origins never sees these.
fn page_with_origin(uri: &str, origin: &str) -> ResourceContents {
    let mut contents = ResourceContents::text(uri, MIME_TYPE, "<!doctype html><p>page</p>");
    if let ResourceContents::Text(t) = &mut contents {
        let ui = json!({"ui": {"csp": {"connectDomains": [origin]}, "prefersBorder": true}});
        t.meta = ui.as_object().cloned();
    }
    contents
}

#[derive(Debug)]
pub struct Pages;

#[oxmcp_server::tool(description = "Pages whose CSP their handler writes")]
impl Pages {
    #[resource(
        uri = "ui://macro/page",
        app(connect_domains("https://api.example.com"))
    )]
    #[describe("A page whose handler puts its own `_meta.ui`, with an origin that injects")]
    pub fn page(&self) -> ResourceContents {
        page_with_origin("ui://macro/page", "https://x.example; script-src *")
    }
}

/// A template serving `ui://pages/{n}` with the `n`th origin of `ORIGINS`.
const ORIGINS: [&str; 3] = [
    "https://api.example.com",
    "https://x.example; script-src *",
    "https://*",
];

fn pages_server() -> Server {
    let template = TemplateEntry::dynamic(
        ResourceTemplate::new("ui://pages/{n}", "pages"),
        |reading, _ctx| async move {
            let n: usize = reading
                .variables
                .get("n")
                .unwrap_or("0")
                .parse()
                .unwrap_or(0);
            page_with_origin(&reading.uri, ORIGINS[n.min(ORIGINS.len() - 1)])
        },
    )
    .unwrap();
    let server = Server::builder("apps", "1")
        .toolbox(Pages)
        .resource_template(template)
        .build();
    // One added at run time, after the server was built.
    let later = ResourceEntry::dynamic(Resource::new("ui://later", "later"), |_r, _c| async {
        page_with_origin("ui://later", "https://*")
    })
    .unwrap();
    server.handle().add_resource(later).unwrap();
    server
}

/// `resources/read` of `uri`, in the legacy era or in 2026-07-28.
async fn read(c: &mut Client, id: i64, uri: &str, modern: bool) -> Value {
    let params = if modern {
        json!({"uri": uri, "_meta": modern_meta_with(&apps_caps())})
    } else {
        json!({"uri": uri})
    };
    c.request(id, "resources/read", params).await
}

#[tokio::test]
async fn a_page_read_with_a_bad_csp_origin_is_refused_and_a_good_one_served_in_both_eras() {
    for modern in [false, true] {
        let mut c = Client::start(pages_server());
        if !modern {
            c.initialize_with("2025-11-25", &apps_caps()).await;
        }
        let refused = [
            ("ui://pages/1", "https://x.example; script-src *"),
            ("ui://pages/2", "https://*"),
            ("ui://macro/page", "https://x.example; script-src *"),
            ("ui://later", "https://*"),
        ];
        for (id, (uri, origin)) in (1..).zip(refused) {
            let r = read(&mut c, id, uri, modern).await;
            assert!(r.get("result").is_none(), "{uri} was served: {r}");
            assert_eq!(r["error"]["code"], -32603, "{r}");
            let message = r["error"]["message"].as_str().unwrap();
            assert!(message.contains(uri), "{message}");
            assert!(message.contains(&format!("{origin:?}")), "{message}");
        }
        // The server keeps serving, and a good page goes out as its
        // handler wrote it.
        let good = read(&mut c, 10, "ui://pages/0", modern).await;
        let expected = serde_json::to_value(page_with_origin("ui://pages/0", ORIGINS[0])).unwrap();
        assert_eq!(good["result"]["contents"], json!([expected]), "{good}");
        c.close().await.unwrap();
    }
}
