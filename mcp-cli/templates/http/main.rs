//! Serves the tools over Streamable HTTP (both protocol eras) at
//! `http://ADDR/mcp`, and HTTP+SSE at `/sse`, until Ctrl-C. ADDR is the
//! first argument, `127.0.0.1:8080` by default (port 0 picks a free one).

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let addr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:8080".to_owned());
    eprintln!("{{name}}: serving MCP at http://{addr}/mcp");
    let config = oxmcp_server::http::HttpConfig::default();
    match {{crate}}::server().serve_http(addr.as_str(), config).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{{name}}: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
