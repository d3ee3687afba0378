//! Extensions (SEP-2133) from the client side: what it declares reaches the
//! server in both eras (a tool that needs it runs and sees its settings);
//! without it the call is refused with -32021 naming the extension; the
//! server's offer is readable; a malformed identifier fails the connection.

use oxmcp_client::{Client, Era, Error};
use oxmcp_server::types::JsonObject;
use oxmcp_server::{Context, Server, ToolEntry};
use serde_json::json;

const SYNC: &str = "com.example/notes-sync";

fn server() -> Server {
    let sync = ToolEntry::dynamic(
        "sync",
        "Syncs, with the client's sync extension",
        json!({"type": "object"}),
        |_args, ctx: Context| async move {
            serde_json::to_string(&ctx.client_extension(SYNC)).unwrap_or_default()
        },
    )
    .unwrap()
    .requiring_extensions(&[SYNC]);
    Server::builder("ext", "1")
        .extension(SYNC, JsonObject::new())
        .tool(sync)
        .build()
}

async fn connect(builder: oxmcp_client::ClientBuilder) -> Result<Client, Error> {
    let (client_io, server_io) = tokio::io::duplex(1 << 16);
    let (server_read, server_write) = tokio::io::split(server_io);
    tokio::spawn(server().serve_io(server_read, server_write));
    let (read, write) = tokio::io::split(client_io);
    builder.connect_io(read, write).await
}

#[tokio::test]
async fn a_declared_extension_reaches_the_server_in_each_era() {
    for era in [Era::Legacy, Era::Modern] {
        let mut settings = JsonObject::new();
        settings.insert("device".into(), "phone".into());
        let client = connect(Client::builder().protocol(era).extension(SYNC, settings))
            .await
            .unwrap();
        assert!(
            client.server_capabilities().extension(SYNC).is_some(),
            "{era:?}: the server's offer is read"
        );
        let r = client.call_tool("sync", json!({})).await.unwrap();
        assert_eq!(
            r.content[0].as_text(),
            Some(r#"{"device":"phone"}"#),
            "{era:?}"
        );
        client.close().await;

        let without = connect(Client::builder().protocol(era)).await.unwrap();
        let refused = without.call_tool("sync", json!({})).await.unwrap_err();
        let Error::Protocol(e) = &refused else {
            panic!("{era:?}: expected -32021, got {refused:?}")
        };
        assert_eq!(e.code, -32021, "{era:?}");
        let data = e.data.as_ref().expect("data");
        assert_eq!(
            data["requiredCapabilities"],
            json!({"extensions": {SYNC: {}}}),
            "{era:?}"
        );
        without.close().await;
    }
}

#[tokio::test]
async fn a_malformed_identifier_fails_the_connection() {
    let e = connect(Client::builder().extension("notes-sync", JsonObject::new()))
        .await
        .expect_err("refused");
    let chain = oxmcp_server::types::error::Chain(&e).to_string();
    assert!(
        chain.contains("invalid extension identifier `notes-sync`"),
        "{chain}"
    );
}
