//! MCP servers served in process, over in-memory pipes, to real clients.

use oxmcp_server::Server;

/// A client of `server`, which is served over an in-memory pipe (era: auto).
pub async fn connect(server: Server) -> oxmcp_client::Client {
    connect_in(server, oxmcp_client::Era::Auto).await
}

/// A client of `server` in `era`.
pub async fn connect_in(server: Server, era: oxmcp_client::Era) -> oxmcp_client::Client {
    let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    let (server_read, server_write) = tokio::io::split(server_end);
    tokio::spawn(server.serve_io(server_read, server_write));
    let (client_read, client_write) = tokio::io::split(client_end);
    oxmcp_client::Client::builder()
        .protocol(era)
        .connect_io(client_read, client_write)
        .await
        .unwrap()
}
