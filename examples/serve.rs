//! Serving a program over Streamable HTTP until Ctrl-C or SIGTERM, saying
//! where on stderr (port 0 picks a free port; the line names it).

use oxmcp_server::http::HttpConfig;
use oxmcp_server::Server;

/// Serves `server` on `addr` with `config` until Ctrl-C or SIGTERM, then
/// lets the requests in flight finish; the address it listens on goes to
/// stderr first.
pub async fn http_until_stopped(
    server: Server,
    addr: impl tokio::net::ToSocketAddrs,
    config: HttpConfig,
) -> Result<(), oxmcp_server::Error> {
    let listener = tokio::net::TcpListener::bind(addr).await?;
    eprintln!("listening on http://{}/mcp", listener.local_addr()?);
    let stop = oxmcp_server::http::shutdown_signal();
    server.serve_http_on(listener, config, stop).await
}
