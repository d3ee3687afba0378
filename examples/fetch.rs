//! A fetch MCP server over stdio: `get`, `post` and `fetch`, public addresses only.
//!
//! Run with: `cargo run -p mcp-examples --bin fetch -- [--allow-host HOST[:PORT]]... [--ignore-robots-txt]`.
//! Each `--allow-host` lets one host (on any port, or on the port named)
//! be reached even when its addresses are not public: a local service, say
//! `--allow-host localhost:8080`. `--timeout-ms MS` and
//! `--max-response-bytes N` change the limits (30 s and 5 MiB by default).
//! `fetch` asks the site for `/robots.txt` first and refuses a page it
//! forbids to our user agent, as the reference fetch server does;
//! `--ignore-robots-txt` skips that check (`get` and `post` never make it).

use std::time::Duration;

use mcp_server::Server;
use mcp_toolbox::http::{Http, HttpBuilder};

const USAGE: &str =
    "usage: fetch [--allow-host HOST[:PORT]]... [--timeout-ms MS] [--max-response-bytes N] [--ignore-robots-txt]";

use mcp_examples::stderr_logs;

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let result = run().await;
    stderr_logs::report("fetch", result)
}

async fn run() -> Result<(), mcp_server::Error> {
    stderr_logs::init("warn");
    let args: Vec<String> = std::env::args().skip(1).collect();
    let http = match configure(Http::builder(), &args) {
        Ok(builder) => builder.build(),
        Err(e) => {
            eprintln!("fetch: {e}\n{USAGE}");
            std::process::exit(2);
        }
    };
    Server::builder("fetch", env!("CARGO_PKG_VERSION"))
        .instructions("Fetch web pages (as Markdown) and make HTTP requests to public addresses.")
        .toolbox(http)
        .build()
        .serve_stdio()
        .await
}

/// The builder with the command line's options applied.
fn configure(mut builder: HttpBuilder, args: &[String]) -> Result<HttpBuilder, String> {
    let mut args = args.iter();
    while let Some(flag) = args.next() {
        if flag == "--ignore-robots-txt" {
            builder = builder.ignore_robots_txt();
            continue;
        }
        let value = args.next().ok_or_else(|| format!("{flag} needs a value"))?;
        builder = match flag.as_str() {
            "--allow-host" => builder.allow(value)?,
            "--timeout-ms" => builder.timeout(Duration::from_millis(number(flag, value)?)),
            "--max-response-bytes" => {
                let n = usize::try_from(number(flag, value)?).map_err(|e| e.to_string())?;
                builder.max_response_bytes(n)
            }
            _ => return Err(format!("unknown option {flag}")),
        };
    }
    Ok(builder)
}

fn number(flag: &str, value: &str) -> Result<u64, String> {
    value
        .parse()
        .map_err(|_| format!("{flag} takes a number, not {value:?}"))
}
