//! A client for the calculator example: spawns it over stdio (or connects to
//! it over HTTP) and calls it through a typed client.
//!
//! ```text
//! cargo build -p mcp-examples                      # builds `calculator` too
//! cargo run -p mcp-examples --bin calculator_client
//! cargo run -p mcp-examples --bin calculator_client -- path/to/calculator
//! cargo run -p mcp-examples --bin calculator_client -- --url http://127.0.0.1:3000/mcp
//! ```
//!
//! Over HTTP it signs in when the server asks (a calculator started with
//! `--issuer`): it shows the authorization URL on stderr and waits for the
//! browser's redirect on 127.0.0.1. It registers itself (Dynamic Client
//! Registration) unless given a client registered beforehand
//! (`--client-id ID --client-issuer ISSUER`) or the URL of its Client ID
//! Metadata Document (`--client-metadata-url URL`, used where the
//! authorization server supports them); `--resource URI` or `--no-resource`
//! change the `resource` parameter it sends, and `--scope` (repeatable) the
//! scopes it asks for, as some identity providers want (see
//! `docs/authorization.md`).
//!
//! `--legacy` speaks the initialize handshake (2025-11-25) instead of
//! probing for 2026-07-28. With `OTEL_EXPORTER_OTLP_ENDPOINT` set it exports
//! its spans and metrics (the README's "Observability").
//!
//! Without arguments it runs the `calculator` binary next to its own
//! executable (`target/debug/calculator`), so that binary must be built.
//!
//! The calculator is another program, so its tools are declared here with
//! `#[oxmcp_client::tool]` on a trait; `CalculatorClient::connect` lists the
//! server's tools and checks them against the declaration before any call.
//! Every step prints `PASS <check>` or `FAIL <check>: <why>`; the exit code is
//! non-zero if any failed.

// The numbers compared are exact in binary.
#![allow(clippy::float_cmp)]

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};

use clap::Parser;
use oxmcp_client::auth::{FileTokenStore, LoopbackAuthorizer, OAuth};
use oxmcp_client::{types::error::Chain, CallOptions, Client, Error, Json};
use serde::Deserialize;
use serde_json::json;

/// Summary statistics, as the calculator's `stats` returns them.
#[derive(Debug, Deserialize)]
pub struct Stats {
    /// How many numbers there are.
    pub count: usize,
    /// Their sum.
    pub sum: f64,
    /// Their arithmetic mean.
    pub mean: f64,
    /// The smallest.
    pub min: f64,
    /// The largest.
    pub max: f64,
}

/// The calculator's tools, as seen from outside.
#[oxmcp_client::tool(description = "Arithmetic on two numbers, with one memory register")]
pub trait Calculator {
    #[describe("Add two numbers")]
    async fn add(
        &self,
        #[param("The first number")] a: f64,
        #[param("The second number")] b: f64,
    ) -> f64;

    #[describe("Divide a by b")]
    async fn divide(
        &self,
        #[param("The first number")] a: f64,
        #[param("The second number")] b: f64,
    ) -> f64;

    #[describe("Store a value in memory and return the previous one")]
    async fn store(&self, #[param("The value to store")] value: f64) -> f64;

    #[describe("Return the value in memory")]
    async fn recall(&self) -> f64;

    #[describe("Summary statistics of a list of numbers")]
    async fn stats(&self, #[param("The numbers to summarise")] values: Vec<f64>) -> Json<Stats>;
}

/// Records one check.
struct Checks {
    failed: usize,
}

impl Checks {
    fn check(&mut self, name: &str, outcome: Result<String, String>) {
        match outcome {
            Ok(detail) => println!("PASS {name}: {detail}"),
            Err(why) => {
                self.failed += 1;
                println!("FAIL {name}: {why}");
            }
        }
    }
}

fn expect<T: std::fmt::Debug + PartialEq>(
    got: Result<T, Error>,
    want: &T,
) -> Result<String, String> {
    match got {
        Ok(v) if &v == want => Ok(format!("{v:?}")),
        Ok(v) => Err(format!("got {v:?}, expected {want:?}")),
        Err(e) => Err(Chain(&e).to_string()),
    }
}

async fn round_trip(client: &Client, checks: &mut Checks) -> Result<(), Error> {
    println!(
        "connected to {} {} (protocol {})",
        client.server_info().name,
        client.server_info().version,
        client.protocol_version()
    );
    // Lists the tools and checks the declaration against them.
    let calculator = CalculatorClient::connect(client).await?;
    checks.check(
        "connect (declared tools match)",
        Ok("compatible".to_owned()),
    );

    checks.check("add(2, 3)", expect(calculator.add(2.0, 3.0).await, &5.0));
    checks.check(
        "divide(7, 2)",
        expect(calculator.divide(7.0, 2.0).await, &3.5),
    );
    checks.check(
        "divide(1, 0) is a tool error",
        match calculator.divide(1.0, 0.0).await {
            Err(e @ Error::Tool(_)) => Ok(format!(
                "Error::Tool: {}",
                e.tool_message().unwrap_or_default()
            )),
            other => Err(format!("expected Error::Tool, got {other:?}")),
        },
    );
    checks.check(
        "store(42) then recall()",
        match calculator.store(42.0).await {
            Ok(_) => expect(calculator.recall().await, &42.0),
            Err(e) => Err(Chain(&e).to_string()),
        },
    );
    checks.check(
        "stats([1, 2, 3, 4]) structured",
        match calculator.stats(vec![1.0, 2.0, 3.0, 4.0]).await {
            Ok(s)
                if s.count == 4
                    && s.sum == 10.0
                    && s.mean == 2.5
                    && s.min == 1.0
                    && s.max == 4.0 =>
            {
                Ok(format!("{s:?}"))
            }
            Ok(s) => Err(format!("unexpected {s:?}")),
            Err(e) => Err(Chain(&e).to_string()),
        },
    );
    checks.check(
        "stats([]) is a tool error",
        match calculator.stats(vec![]).await {
            Err(e @ Error::Tool(_)) => Ok(format!(
                "Error::Tool: {}",
                e.tool_message().unwrap_or_default()
            )),
            other => Err(format!("expected Error::Tool, got {other:?}")),
        },
    );

    // Progress needs the raw client: `call_tool_with` and a callback.
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&seen);
    let options = CallOptions::new().on_progress(move |p| sink.lock().unwrap().push(p.progress));
    let result = client
        .call_tool_with("count_to", json!({ "n": 5 }), options)
        .await;
    let seen = seen.lock().unwrap().clone();
    checks.check(
        "count_to(5) with progress",
        match result {
            Ok(r) if seen.len() == 5 => Ok(format!(
                "{:?}, progress {seen:?}",
                r.content
                    .first()
                    .and_then(|c| c.as_text())
                    .unwrap_or_default()
            )),
            Ok(_) => Err(format!("expected 5 progress notifications, got {seen:?}")),
            Err(e) => Err(Chain(&e).to_string()),
        },
    );
    Ok(())
}

/// The calculator binary: the argument, or `calculator` next to this program.
fn calculator_path(arg: Option<PathBuf>) -> Result<PathBuf, String> {
    let path = match arg {
        Some(path) => path,
        None => std::env::current_exe()
            .map_err(|e| format!("cannot locate this program: {e}"))?
            .with_file_name(format!("calculator{}", std::env::consts::EXE_SUFFIX)),
    };
    if path.is_file() {
        Ok(path)
    } else {
        Err(format!(
            "the calculator server `{}` does not exist: build it first with \
             `cargo build -p mcp-examples`, or pass its path",
            path.display()
        ))
    }
}

/// How the client signs in when the server asks (a protected calculator):
/// it registers itself unless `args` say who it is, shows the authorization
/// URL on stderr (and opens a browser where `MCP_OPEN_BROWSER` names a
/// command), and waits for the redirect on 127.0.0.1. Tokens are kept in
/// `$MCP_TOKEN_FILE` when set.
fn sign_in(args: &Args) -> OAuth {
    let mut authorizer = LoopbackAuthorizer::new();
    if let Ok(command) = std::env::var("MCP_OPEN_BROWSER") {
        authorizer = authorizer.on_url(move |url| {
            if let Err(e) = std::process::Command::new(&command).arg(url).spawn() {
                eprintln!("calculator_client: cannot run {command}: {e}");
            }
        });
    }
    // `store` needs calculator:write: ask for it at once rather than at
    // the first `store` (the typed client checks every tool on connect).
    let mut oauth = OAuth::new("calculator_client")
        .authorizer(authorizer)
        .scopes(["calculator:write"]);
    if let (Some(id), Some(issuer)) = (&args.client_id, &args.client_issuer) {
        oauth = oauth.client(issuer, id, None);
    }
    if let Some(url) = &args.client_metadata_url {
        oauth = oauth.client_metadata_url(url);
    }
    if let Some(resource) = &args.resource {
        oauth = oauth.resource(resource);
    }
    if args.no_resource {
        oauth = oauth.without_resource();
    }
    if !args.scope.is_empty() {
        let scopes = args.scope.clone();
        oauth = oauth.shape_scopes(move |_| scopes.clone());
    }
    match std::env::var_os("MCP_TOKEN_FILE") {
        Some(path) => oauth.token_store(FileTokenStore::new(path)),
        None => oauth,
    }
}

use mcp_examples::command_line;
use mcp_examples::stderr_logs;

/// A typed client for the calculator example, over stdio or HTTP.
#[derive(Debug, Parser)]
#[command(
    name = "calculator_client",
    version,
    after_help = "Examples:\n  \
        calculator_client                           # runs target/debug/calculator\n  \
        calculator_client path/to/calculator\n  \
        calculator_client --url http://127.0.0.1:3000/mcp\n  \
        calculator_client --url https://mcp.example.com/mcp --client-id ID --client-issuer https://login.example.com/t/v2.0 \\\n      \
            --no-resource --scope api://calculator/.default\n  \
        calculator_client --legacy path/to/calculator"
)]
struct Args {
    /// Speak the initialize handshake (2025-11-25) instead of probing for
    /// 2026-07-28.
    #[arg(long)]
    legacy: bool,
    /// Connect over Streamable HTTP to this endpoint (signing in when the
    /// server asks) instead of starting the calculator.
    #[arg(long, value_name = "URL", conflicts_with = "calculator")]
    url: Option<String>,
    /// With --url: sign in as this client, registered beforehand with the
    /// authorization server --client-issuer (no registration).
    #[arg(long, value_name = "ID", requires_all = ["url", "client_issuer"])]
    client_id: Option<String>,
    /// The issuer --client-id is registered with (as its metadata spells
    /// `issuer`): the client id goes there only.
    #[arg(long, value_name = "ISSUER", requires = "client_id")]
    client_issuer: Option<String>,
    /// With --url: the https URL of this client's metadata document, its
    /// client id where the authorization server supports Client ID
    /// Metadata Documents.
    #[arg(long, value_name = "URL", requires = "url")]
    client_metadata_url: Option<String>,
    /// With --url: send this `resource` parameter (RFC 8707) instead of the
    /// server's resource URI.
    #[arg(long, value_name = "URI", requires = "url")]
    resource: Option<String>,
    /// With --url: send no `resource` parameter (Entra ID refuses it beside
    /// `.default` scopes).
    #[arg(long, requires = "url", conflicts_with = "resource")]
    no_resource: bool,
    /// With --url: ask for exactly these scopes (repeatable) instead of
    /// those the server names and `calculator:write`.
    #[arg(long, value_name = "SCOPE", requires = "url")]
    scope: Vec<String>,
    /// The calculator binary to start over stdio (by default `calculator`
    /// next to this program).
    #[arg(value_name = "CALCULATOR_BINARY")]
    calculator: Option<PathBuf>,
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = command_line::parse::<Args>();
    // Kept to the end: dropping it flushes the last spans and metrics.
    let _telemetry = stderr_logs::init_traced("calculator_client", "warn");
    let mut builder = Client::builder().client_info("calculator_client", env!("CARGO_PKG_VERSION"));
    // `--legacy`: the initialize handshake (2025-11-25) rather than the probe.
    if args.legacy {
        builder = builder.protocol(oxmcp_client::Era::Legacy);
    }
    let connected = match &args.url {
        Some(url) => builder.oauth(sign_in(&args)).connect_http(url).await,
        None => match calculator_path(args.calculator.clone()) {
            Ok(path) => {
                builder
                    .connect_stdio(tokio::process::Command::new(path))
                    .await
            }
            Err(message) => {
                eprintln!("calculator_client: {message}");
                return ExitCode::from(2);
            }
        },
    };
    let client = match connected {
        Ok(client) => client,
        Err(e) => {
            eprintln!("calculator_client: cannot connect: {}", Chain(&e));
            return ExitCode::FAILURE;
        }
    };
    let mut checks = Checks { failed: 0 };
    let outcome = round_trip(&client, &mut checks).await;
    client.close().await;
    match outcome {
        Err(e) => {
            println!("FAIL connect: {}", Chain(&e));
            ExitCode::FAILURE
        }
        Ok(()) if checks.failed > 0 => ExitCode::FAILURE,
        Ok(()) => ExitCode::SUCCESS,
    }
}
