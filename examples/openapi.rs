//! An HTTP API as MCP tools, from its OpenAPI 3.0 or 3.1 document: each
//! operation a tool, called through the hardened HTTP client (public
//! addresses only, unless a host is allowed).
//!
//! ```text
//! openapi petstore.yaml --base-url http://127.0.0.1:8000 --allow-host 127.0.0.1:8000
//! openapi https://api.example.com/openapi.json --include tag:pets --header 'X-Api-Key: secret'
//! openapi api.json --allow-host 127.0.0.1:8000 --listen 127.0.0.1:3000
//! ```
//!
//! `--include` and `--exclude` take `tag:NAME`, a path pattern starting
//! with `/` (`*` any run of characters), or an `operationId`. Operations
//! without a description are reported on stderr (`--strict` refuses them).

use std::process::ExitCode;

use clap::Parser;
use mcp_examples::stderr_logs;
use oxmcp_server::http::HttpConfig;
use oxmcp_server::Server;
use oxmcp_toolbox::http::{Http, HttpBuilder};
use oxmcp_toolbox::openapi::{OpenApi, OpenApiBuilder};

/// An HTTP API as MCP tools, from its OpenAPI document.
#[derive(Debug, Parser)]
#[command(
    name = "openapi",
    version,
    after_help = "Examples:\n  \
        openapi petstore.yaml --base-url http://127.0.0.1:8000 --allow-host 127.0.0.1:8000\n  \
        openapi https://api.example.com/openapi.json --include tag:pets --header 'X-Api-Key: secret'\n  \
        openapi api.json --allow-host 127.0.0.1:8000 --listen 127.0.0.1:3000"
)]
struct Args {
    /// The OpenAPI 3.0 or 3.1 document (JSON or YAML): a file, or an http(s) URL.
    spec: String,
    /// The API's base URL (the document's first server otherwise).
    #[arg(long, value_name = "URL")]
    base_url: Option<String>,
    /// Let calls reach HOST (on any port, or on PORT) even if it is not a
    /// public address: a local or private API.
    #[arg(long, value_name = "HOST[:PORT]")]
    allow_host: Vec<String>,
    /// Send this header with every call ('Name: value'): the API's key.
    #[arg(long, value_name = "NAME: VALUE", value_parser = header)]
    header: Vec<(String, String)>,
    /// Offer only these operations: tag:NAME, /path*, or an operationId.
    #[arg(long, value_name = "PATTERN")]
    include: Vec<String>,
    /// Leave these operations out: tag:NAME, /path*, or an operationId.
    #[arg(long, value_name = "PATTERN")]
    exclude: Vec<String>,
    /// Refuse operations without a summary or description.
    #[arg(long)]
    strict: bool,
    /// Serve Streamable HTTP at `http://ADDR/mcp` instead of stdio.
    #[arg(long, value_name = "ADDR")]
    listen: Option<String>,
}

/// `Name: value`.
fn header(given: &str) -> Result<(String, String), String> {
    match given.split_once(':') {
        Some((name, value)) if !name.trim().is_empty() => {
            Ok((name.trim().to_owned(), value.trim().to_owned()))
        }
        _ => Err(format!("{given:?} is not 'Name: value'")),
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    stderr_logs::init("warn");
    let args: Args = mcp_examples::command_line::parse();
    let tools = match tools(&args).await {
        Ok(tools) => tools,
        Err(why) => {
            eprintln!("openapi: {why}");
            return ExitCode::from(2);
        }
    };
    for warning in tools.warnings() {
        eprintln!("openapi: {warning}");
    }
    let server = Server::builder("openapi", env!("CARGO_PKG_VERSION"))
        .instructions("The operations of an HTTP API, each a tool.")
        .tools(tools)
        .build();
    let outcome = match &args.listen {
        None => server.serve_stdio().await,
        Some(addr) => {
            let addr = stderr_logs::http_addr("openapi", addr);
            server.serve_http(addr, HttpConfig::default()).await
        }
    };
    stderr_logs::report("openapi", outcome)
}

/// The hosts calls (and fetching the document) may reach.
fn http(args: &Args) -> Result<HttpBuilder, String> {
    let mut http = Http::builder();
    for host in &args.allow_host {
        http = http
            .allow(host)
            .map_err(|e| format!("--allow-host {host}: {e}"))?;
    }
    Ok(http)
}

async fn tools(args: &Args) -> Result<oxmcp_toolbox::openapi::OpenApiTools, String> {
    let http = http(args)?;
    let builder = if args.spec.starts_with("http://") || args.spec.starts_with("https://") {
        OpenApi::fetch(&args.spec, http.clone()).await
    } else {
        let text =
            std::fs::read_to_string(&args.spec).map_err(|e| format!("{}: {e}", args.spec))?;
        OpenApi::parse(&text)
    }
    .map_err(|e| format!("{}: {e}", args.spec))?;
    let mut builder = builder.http(http);
    if let Some(url) = &args.base_url {
        builder = builder.base_url(url);
    }
    for (name, value) in &args.header {
        builder = builder.header(name, value);
    }
    for pattern in &args.include {
        builder = select(builder, pattern, true);
    }
    for pattern in &args.exclude {
        builder = select(builder, pattern, false);
    }
    if args.strict {
        builder = builder.strict();
    }
    builder.build().map_err(|e| format!("{}: {e}", args.spec))
}

/// `builder` with the include (or exclude) rule `pattern`.
fn select(builder: OpenApiBuilder, pattern: &str, include: bool) -> OpenApiBuilder {
    let one = [pattern.trim_start_matches("tag:")];
    match (
        pattern.starts_with("tag:"),
        pattern.starts_with('/'),
        include,
    ) {
        (true, _, true) => builder.include_tags(one),
        (true, _, false) => builder.exclude_tags(one),
        (_, true, true) => builder.include_paths([pattern]),
        (_, true, false) => builder.exclude_paths([pattern]),
        (_, _, true) => builder.include_operations([pattern]),
        (_, _, false) => builder.exclude_operations([pattern]),
    }
}
