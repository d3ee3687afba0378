//! One MCP server in front of many: mounts each server it is given under
//! its name (`calc_add`, `notes+notes://1`), or proxies one as it is, and
//! serves them all over stdio, or over Streamable HTTP with `--listen`.
//!
//! ```text
//! gateway --stdio calc='target/debug/calculator' --http notes=http://127.0.0.1:8080/mcp
//! gateway --config ~/.config/Claude/claude_desktop_config.json --listen 127.0.0.1:3000
//! gateway --proxy --stdio calc=target/debug/calculator --listen 127.0.0.1:3000 --issuer https://issuer.example
//! ```
//!
//! `--config` reads the `mcpServers` document Claude Desktop, Claude Code,
//! Cursor and Gemini CLI use (`command`/`args`/`env`, or `url`/`headers`).
//! A mounted server that is down does not stop the gateway: it says so on
//! stderr, keeps trying, and offers that server's items once it is up.
//! With `--issuer`, the gateway is an OAuth protected resource: its clients'
//! tokens are checked here and never passed to a mounted server.

use std::process::ExitCode;

use clap::Parser;
use mcp_examples::stderr_logs;
use oxmcp_compose::{mount, Mount};
use oxmcp_server::auth::{Authorization, JwtVerifier};
use oxmcp_server::http::HttpConfig;
use oxmcp_server::Server;

/// One MCP server in front of many.
#[derive(Debug, Parser)]
#[command(
    name = "gateway",
    version,
    after_help = "Examples:\n  \
        gateway --stdio calc='target/debug/calculator' --http notes=http://127.0.0.1:8080/mcp\n  \
        gateway --config claude_desktop_config.json --listen 127.0.0.1:3000\n  \
        gateway --proxy --stdio calc=target/debug/calculator --listen 127.0.0.1:3000"
)]
struct Args {
    /// Serve Streamable HTTP (both eras, and HTTP+SSE) at `http://ADDR/mcp` instead of stdio.
    #[arg(long, value_name = "ADDR")]
    listen: Option<String>,
    /// Mount the servers of an `mcpServers` JSON file (Claude Desktop,
    /// Claude Code, Cursor, Gemini CLI).
    #[arg(long, value_name = "FILE")]
    config: Option<std::path::PathBuf>,
    /// Mount a child process: NAME=COMMAND, the command split as a shell would.
    #[arg(long, value_name = "NAME=COMMAND", value_parser = named)]
    stdio: Vec<(String, String)>,
    /// Mount a Streamable HTTP endpoint (falling back to HTTP+SSE): NAME=URL.
    #[arg(long, value_name = "NAME=URL", value_parser = named)]
    http: Vec<(String, String)>,
    /// Mount an HTTP+SSE (2024-11-05) endpoint: NAME=URL of its event stream.
    #[arg(long, value_name = "NAME=URL", value_parser = named)]
    sse: Vec<(String, String)>,
    /// Offer the one mounted server's names as they are (a proxy).
    #[arg(long)]
    proxy: bool,
    /// With --listen: accept only access tokens this authorization server
    /// issues for the gateway (an OAuth protected resource).
    #[arg(long, value_name = "URL", requires = "listen")]
    issuer: Option<String>,
}

/// `NAME=VALUE`, split at the first `=`.
fn named(given: &str) -> Result<(String, String), String> {
    match given.split_once('=') {
        Some((name, value)) if !name.is_empty() && !value.is_empty() => {
            Ok((name.to_owned(), value.to_owned()))
        }
        _ => Err(format!("{given:?} is not NAME=VALUE")),
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    stderr_logs::init("warn");
    let args: Args = mcp_examples::command_line::parse();
    let mounts = match mounts(&args) {
        Ok(mounts) => mounts,
        Err(why) => {
            eprintln!("gateway: {why}");
            return ExitCode::from(2);
        }
    };
    let front = Server::builder("gateway", env!("CARGO_PKG_VERSION"))
        .instructions("A gateway: the tools, prompts and resources of several MCP servers, each under its name.")
        .offer_prompts_and_resources()
        .build();
    let mounted = match mount(&front.handle(), mounts).await {
        Ok(mounted) => mounted,
        Err(e) => {
            eprintln!("gateway: {e}");
            return ExitCode::from(2);
        }
    };
    for name in mounted.names() {
        if !mounted.is_up(name).await {
            eprintln!("gateway: `{name}` is down for now; its items appear once it is up");
        }
    }
    let served = match &args.listen {
        None => front.serve_stdio().await,
        Some(addr) => {
            let addr = stderr_logs::http_addr("gateway", addr);
            let mut config = HttpConfig::default();
            if let Some(issuer) = &args.issuer {
                let resource = format!("http://{addr}/mcp");
                let verifier = JwtVerifier::new(issuer, &resource);
                match Authorization::new(&resource, verifier) {
                    Ok(auth) => config = config.authorization(auth.authorization_server(issuer)),
                    Err(e) => {
                        eprintln!("gateway: {e}");
                        return ExitCode::from(2);
                    }
                }
            }
            front.serve_http(addr, config).await
        }
    };
    mounted.close().await;
    stderr_logs::report("gateway", served)
}

/// The mounts the arguments ask for, in the order given (the file's first).
fn mounts(args: &Args) -> Result<Vec<Mount>, String> {
    let mut mounts = match &args.config {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| format!("--config {}: {e}", path.display()))?;
            oxmcp_compose::config::mounts(&text)
                .map_err(|e| format!("--config {}: {e}", path.display()))?
        }
        None => Vec::new(),
    };
    for (name, command) in &args.stdio {
        let words =
            shell_words::split(command).map_err(|e| format!("--stdio {name}={command}: {e}"))?;
        let Some((program, rest)) = words.split_first() else {
            return Err(format!("--stdio {name}=: no command"));
        };
        mounts.push(Mount::stdio(name, program, rest));
    }
    mounts.extend(args.http.iter().map(|(name, url)| Mount::http(name, url)));
    #[allow(deprecated)] // `--sse`: HTTP+SSE servers, for as long as they exist
    mounts.extend(args.sse.iter().map(|(name, url)| Mount::sse(name, url)));
    if mounts.is_empty() {
        return Err("nothing to mount: give --config, --stdio, --http or --sse".into());
    }
    if args.proxy {
        if mounts.len() != 1 {
            return Err(format!(
                "--proxy offers one server's names as they are: {} servers given",
                mounts.len()
            ));
        }
        mounts = mounts.into_iter().map(Mount::without_prefix).collect();
    }
    Ok(mounts)
}
