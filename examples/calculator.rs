//! A calculator MCP server: the framework's main example.
//!
//! Run with: `cargo run -p mcp-examples --bin calculator` (it then speaks MCP
//! on stdin/stdout; the README shows a full round trip and how to register it
//! in Claude Desktop or Claude Code), or
//! `cargo run -p mcp-examples --bin calculator -- --http 127.0.0.1:3000` to
//! serve Streamable HTTP at `http://127.0.0.1:3000/mcp` (both protocol eras)
//! and the legacy HTTP+SSE transport at `/sse`.
//!
//! `-- --http 127.0.0.1:3000 --issuer https://auth.example.com` serves it as
//! an OAuth protected resource (`http://127.0.0.1:3000/mcp`) whose tokens
//! come from that authorization server: JWT access tokens, checked against
//! the keys its metadata names; `store` needs the scope `calculator:write`
//! (which implies `calculator:read`), the other tools `calculator:read`.
//! Tokens must name the calculator's resource URI in `aud`, unless
//! `--audience` (repeatable) names what the identity provider puts there
//! instead (Entra ID: the API's client id or `api://...` URI; Auth0: the
//! API identifier): `--audience` replaces the default, so name the resource
//! URI too to keep accepting it.
//!
//! With `OTEL_EXPORTER_OTLP_ENDPOINT` set it exports traces and metrics
//! (see the README's "Observability"); with `OTEL_METRICS_EXPORTER=prometheus`
//! `--http` also serves them at `/metrics`.

use clap::error::ErrorKind;
use clap::{CommandFactory, Parser};
use oxmcp_server::auth::{Authorization, Dpop, JwtVerifier};
use oxmcp_server::http::HttpConfig;
use oxmcp_server::Server;

use calculator_tools::Calculator;
use mcp_examples::calculator_tools;

use mcp_examples::command_line;
use mcp_examples::stderr_logs;

use mcp_examples::several;

/// The calculator MCP server: stdio without arguments.
#[derive(Debug, Parser)]
#[command(
    name = "calculator",
    version,
    override_usage = "calculator [--http ADDR [--issuer URL [--audience AUDIENCE]... | --redis URL]]",
    after_help = "Examples:\n  \
        calculator                                  # MCP over stdio\n  \
        calculator --http 127.0.0.1:3000\n  \
        calculator --http 127.0.0.1:3000 --issuer https://auth.example.com\n  \
        calculator --http 127.0.0.1:3000 --issuer https://login.example.com/t/v2.0 --audience api://calculator\n  \
        calculator --http 127.0.0.1:3000 --redis redis://127.0.0.1:6379/0"
)]
struct Args {
    /// Serve Streamable HTTP (both eras) at `http://ADDR/mcp`, and HTTP+SSE
    /// at `/sse`, instead of stdio.
    #[arg(long, value_name = "ADDR")]
    http: Option<String>,
    /// With --http: accept only the access tokens this authorization server
    /// signs for the calculator (an OAuth protected resource).
    #[arg(
        long,
        value_name = "AUTHORIZATION_SERVER_URL",
        requires = "http",
        conflicts_with = "redis"
    )]
    issuer: Option<String>,
    /// With --issuer: accept tokens whose `aud` names this value (repeat
    /// for several) instead of the calculator's resource URI
    /// `http://ADDR/mcp` (name it too to keep it): the API's client id or
    /// `api://` URI for Entra ID, the API identifier for Auth0.
    #[arg(long, value_name = "AUDIENCE", requires = "issuer")]
    audience: Vec<String>,
    /// With --http: run as one of several instances of one service, sharing
    /// sessions, replay and notifications through this Redis.
    #[arg(long, value_name = "URL", requires = "http")]
    redis: Option<String>,
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let args = command_line::parse::<Args>();
    let result = run(&args).await;
    stderr_logs::report("calculator", result)
}

async fn run(args: &Args) -> Result<(), oxmcp_server::Error> {
    // Kept to the end: dropping it flushes the last spans and metrics.
    let telemetry = stderr_logs::init_traced("calculator", "warn");
    // With OTEL_METRICS_EXPORTER=prometheus, `--http` also serves /metrics.
    let http_config = || {
        let config = HttpConfig::default();
        match telemetry
            .as_ref()
            .and_then(oxmcp_otel::Telemetry::prometheus)
        {
            Some(metrics) => config.page(
                "/metrics",
                oxmcp_otel::Prometheus::CONTENT_TYPE,
                move || metrics.encode(),
            ),
            None => config,
        }
    };
    let builder = Server::builder("calculator", env!("CARGO_PKG_VERSION"))
        .instructions("A calculator: arithmetic on two numbers, statistics of a list, and one memory register.")
        .toolbox(Calculator::default());
    let Some(addr) = &args.http else {
        return builder.build().serve_stdio().await;
    };
    stderr_logs::http_addr("calculator", addr);
    if let Some(url) = &args.redis {
        // Several instances, one service: sessions, replay and
        // notifications shared in Redis (the memory register stays per
        // instance: a toolbox's own fields are not shared).
        let (store, keys) = several::connect("calculator", url).await;
        let server = builder.request_state_keys(keys).build();
        return server
            .serve_http(addr.as_str(), http_config().store(store))
            .await;
    }
    let server = builder.build();
    let config = match &args.issuer {
        Some(issuer) => http_config().authorization(protected(addr, issuer, &args.audience)),
        None => http_config(),
    };
    server.serve_http(addr.as_str(), config).await
}

/// The calculator as a protected resource at `http://ADDR/mcp`, trusting
/// the access tokens `issuer` signs for it (for its resource URI, or for
/// `audiences` when given): bearer tokens, and DPoP-bound ones (a client
/// binds its tokens when the issuer offers DPoP).
fn protected(addr: &str, issuer: &str, audiences: &[String]) -> Authorization {
    let resource = format!("http://{addr}/mcp");
    let mut verifier = JwtVerifier::new(issuer, &resource);
    if !audiences.is_empty() {
        verifier = match verifier.audiences(audiences) {
            Ok(verifier) => verifier,
            Err(e) => command_line::refuse::<Args>(
                Args::command().error(ErrorKind::InvalidValue, format!("--audience: {e}")),
            ),
        };
    }
    match Authorization::new(&resource, verifier) {
        Ok(auth) => auth
            .authorization_server(issuer)
            .resource_name("Calculator")
            .scopes_supported(["calculator:read"])
            .scope_implies("calculator:write", ["calculator:read"])
            .dpop(Dpop::new()),
        Err(e) => {
            eprintln!("calculator: {e}");
            std::process::exit(2);
        }
    }
}
