//! A client for a server written by someone else: the Python `mcp` SDK's
//! reference calculator (`tests/interop/reference_calculator.py`), through a
//! trait that declares its tools.
//!
//! ```text
//! scripts/install-tools.sh && . .tools/env.sh      # the Python `mcp` venv: $MCP_PYTHON
//! cargo run -p mcp-examples --bin foreign_client                        # stdio
//! cargo run -p mcp-examples --bin foreign_client -- --url http://127.0.0.1:3200/mcp
//! cargo run -p mcp-examples --bin foreign_client -- -- python3 my_server.py
//! ```
//!
//! With `--everything`, it checks the TypeScript SDK's reference server,
//! `@modelcontextprotocol/server-everything`, instead (give its command or
//! URL): `echo`, `get-sum`, structured `get-structured-content`, an `isError`
//! result, progress of `trigger-long-running-operation`, and the mismatch.
//!
//! Options: `--url URL` (Streamable HTTP), `--era auto|legacy|modern`
//! (default auto), `-- COMMAND ARGS...` (a stdio server; by default
//! `$MCP_PYTHON tests/interop/reference_calculator.py`, `python3` without
//! `MCP_PYTHON`).
//!
//! It lists the tools, connects the declared `ReferenceCalculator` (checking
//! the server against the declaration), calls tools (text, structured and
//! `isError` results), follows `count_to`'s progress with the raw client, and
//! connects a deliberately wrong declaration to show `Error::Incompatible`
//! with every difference. Each step prints `PASS <check>` or
//! `FAIL <check>: <why>`; the exit code is non-zero if any failed.

// The numbers compared are exact in binary.
#![allow(clippy::float_cmp)]

use std::process::ExitCode;
use std::sync::{Arc, Mutex};

use clap::{Parser, ValueEnum};
use oxmcp_client::{types::error::Chain, CallOptions, Client, Era, Error, Json};
use serde::Deserialize;
use serde_json::json;

/// What the reference server's `stats` returns (its pydantic model).
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

/// The Python reference calculator, declared from its documentation.
#[oxmcp_client::tool(description = "The Python reference calculator")]
pub trait ReferenceCalculator {
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

    #[describe("Summary statistics of a list of numbers")]
    async fn stats(&self, #[param("The numbers to summarise")] values: Vec<f64>) -> Json<Stats>;

    #[describe("Count to n, reporting progress")]
    async fn count_to(&self, #[param("The number to count to")] n: u32) -> String;
}

/// A declaration that does not match the reference server, in several ways.
#[oxmcp_client::tool(description = "A calculator that is not the one running")]
pub trait MistakenCalculator {
    #[describe("Add, with a string and without b")]
    async fn add(&self, #[param("The first number")] a: String) -> f64;

    #[describe("Divide, with an extra required argument")]
    async fn divide(
        &self,
        #[param("The first number")] a: f64,
        #[param("The second number")] b: f64,
        #[param("Rounding mode")] rounding: bool,
    ) -> f64;

    #[describe("Not offered by the server")]
    async fn sqrt(&self, #[param("The number")] x: f64) -> f64;
}

/// What the TypeScript reference server's `get-structured-content` returns.
#[derive(Debug, Deserialize)]
pub struct Weather {
    /// Celsius.
    pub temperature: f64,
    /// A description.
    pub conditions: String,
    /// Percent.
    pub humidity: f64,
}

/// Part of the TypeScript SDK's reference server,
/// `@modelcontextprotocol/server-everything` (`--everything`).
#[oxmcp_client::tool(description = "The TypeScript reference server")]
pub trait Everything {
    #[describe("Echoes back the input string")]
    async fn echo(&self, #[param("Message to echo")] message: String) -> String;

    #[describe("Returns the sum of two numbers")]
    #[tool(name = "get-sum")]
    async fn get_sum(
        &self,
        #[param("First number")] a: f64,
        #[param("Second number")] b: f64,
    ) -> String;

    #[describe("Returns structured weather data")]
    #[tool(name = "get-structured-content")]
    async fn weather(&self, #[param("Choose city")] location: String) -> Json<Weather>;
}

async fn exercise_everything(client: &Client, checks: &mut Checks) {
    println!(
        "connected to {} {} (protocol {})",
        client.server_info().name,
        client.server_info().version,
        client.protocol_version()
    );
    checks.check(
        "tools/list",
        client
            .list_tools()
            .await
            .map(|tools| format!("{} tools", tools.len()))
            .map_err(|e| Chain(&e).to_string()),
    );
    match EverythingClient::connect(client).await {
        Ok(everything) => {
            checks.check("connect the declared trait", Ok("compatible".to_owned()));
            checks.check(
                "echo",
                match everything.echo("hello".to_owned()).await {
                    Ok(text) if text.contains("hello") => Ok(text),
                    other => Err(format!("{other:?}")),
                },
            );
            checks.check(
                "get-sum(2, 3)",
                match everything.get_sum(2.0, 3.0).await {
                    Ok(text) if text.contains('5') => Ok(text),
                    other => Err(format!("{other:?}")),
                },
            );
            checks.check(
                "get-structured-content structured",
                match everything.weather("Chicago".to_owned()).await {
                    Ok(w) if !w.conditions.is_empty() => Ok(format!("{w:?}")),
                    other => Err(format!("{other:?}")),
                },
            );
        }
        Err(e) => checks.check("connect the declared trait", Err(Chain(&e).to_string())),
    }
    checks.check(
        "echo without its argument is Error::Tool",
        match client.call_tool("echo", json!({})).await {
            Err(e @ Error::Tool(_)) => Ok(e.tool_message().unwrap_or_default()),
            other => Err(format!("expected Error::Tool, got {other:?}")),
        },
    );
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&seen);
    let options = CallOptions::new().on_progress(move |p| sink.lock().unwrap().push(p.progress));
    let result = client
        .call_tool_with(
            "trigger-long-running-operation",
            json!({ "duration": 1, "steps": 3 }),
            options,
        )
        .await;
    let seen = seen.lock().unwrap().clone();
    checks.check(
        "trigger-long-running-operation with progress",
        match result {
            Ok(_) if seen.len() == 3 => Ok(format!("progress {seen:?}")),
            Ok(_) => Err(format!("expected 3 progress notifications, got {seen:?}")),
            Err(e) => Err(Chain(&e).to_string()),
        },
    );
    checks.check(
        "a mismatched declaration is Error::Incompatible",
        match MistakenCalculatorClient::connect(client).await {
            Err(Error::Incompatible(differences)) if differences.len() == 3 => {
                for d in &differences {
                    println!("    - {d}");
                }
                Ok(format!("{} differences", differences.len()))
            }
            other => Err(format!(
                "expected Error::Incompatible with 3 differences, got {:?}",
                other.err()
            )),
        },
    );
}

#[derive(Default)]
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

async fn exercise(client: &Client, checks: &mut Checks) {
    println!(
        "connected to {} {} (protocol {})",
        client.server_info().name,
        client.server_info().version,
        client.protocol_version()
    );
    checks.check(
        "tools/list",
        match client.list_tools().await {
            Ok(tools) => {
                let names: Vec<_> = tools.iter().map(|t| t.name.as_str()).collect();
                if ["add", "divide", "stats", "count_to"]
                    .iter()
                    .all(|n| names.contains(n))
                {
                    Ok(names.join(", "))
                } else {
                    Err(format!("missing tools: {names:?}"))
                }
            }
            Err(e) => Err(Chain(&e).to_string()),
        },
    );

    match ReferenceCalculatorClient::connect(client).await {
        Ok(calculator) => {
            checks.check("connect the declared trait", Ok("compatible".to_owned()));
            checks.check(
                "add(2, 3)",
                match calculator.add(2.0, 3.0).await {
                    Ok(v) if v == 5.0 => Ok(v.to_string()),
                    other => Err(format!("{other:?}")),
                },
            );
            checks.check(
                "divide(1, 0) is Error::Tool",
                match calculator.divide(1.0, 0.0).await {
                    Err(e @ Error::Tool(_)) => Ok(e.tool_message().unwrap_or_default()),
                    other => Err(format!("expected Error::Tool, got {other:?}")),
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
                    other => Err(format!("{other:?}")),
                },
            );
            checks.check(
                "stats([]) is Error::Tool",
                match calculator.stats(vec![]).await {
                    Err(e @ Error::Tool(_)) => Ok(e.tool_message().unwrap_or_default()),
                    other => Err(format!("expected Error::Tool, got {other:?}")),
                },
            );
        }
        Err(e) => checks.check("connect the declared trait", Err(Chain(&e).to_string())),
    }

    progress_and_mismatch(client, checks).await;
}

/// Progress through the raw client, and a declaration that does not match.
async fn progress_and_mismatch(client: &Client, checks: &mut Checks) {
    // Progress: the raw client's call_tool_with and a callback.
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&seen);
    let options = CallOptions::new().on_progress(move |p| {
        sink.lock()
            .unwrap()
            .push((p.progress, p.total, p.message.unwrap_or_default()));
    });
    let result = client
        .call_tool_with("count_to", json!({ "n": 3 }), options)
        .await;
    let seen = seen.lock().unwrap().clone();
    checks.check(
        "count_to(3) with progress",
        match result {
            Ok(r) if seen.len() == 3 => Ok(format!(
                "{:?}, progress {seen:?}",
                r.content
                    .first()
                    .and_then(|c| c.as_text())
                    .unwrap_or_default()
            )),
            Ok(_) => Err(format!("expected 3 progress notifications, got {seen:?}")),
            Err(e) => Err(Chain(&e).to_string()),
        },
    );

    checks.check(
        "a mismatched declaration is Error::Incompatible",
        match MistakenCalculatorClient::connect(client).await {
            Err(Error::Incompatible(differences)) if differences.len() >= 3 => {
                for d in &differences {
                    println!("    - {d}");
                }
                Ok(format!("{} differences", differences.len()))
            }
            Err(Error::Incompatible(differences)) => Err(format!(
                "expected at least 3 differences, got {differences:?}"
            )),
            Err(e) => Err(format!("expected Error::Incompatible, got {}", Chain(&e))),
            Ok(_) => Err("the wrong declaration was accepted".to_owned()),
        },
    );
}

use mcp_examples::command_line;
use mcp_examples::stderr_logs;

/// A typed client for a server written by others: the Python SDK's
/// reference calculator, or the TypeScript SDK's server-everything.
#[derive(Debug, Parser)]
#[command(
    name = "foreign_client",
    version,
    args_override_self = true,
    after_help = "Examples:\n  \
        foreign_client                              # $MCP_PYTHON tests/interop/reference_calculator.py\n  \
        foreign_client --era legacy --url http://127.0.0.1:3200/mcp\n  \
        foreign_client -- python3 my_server.py\n  \
        foreign_client --everything -- npx -y @modelcontextprotocol/server-everything"
)]
struct Args {
    /// Check the TypeScript SDK's reference server, server-everything,
    /// instead of the Python reference calculator.
    #[arg(long)]
    everything: bool,
    /// The protocol era to speak.
    #[arg(long, value_enum, default_value_t = EraArg::Auto)]
    era: EraArg,
    /// Connect over Streamable HTTP to this endpoint instead of starting a
    /// server.
    #[arg(long, value_name = "URL", conflicts_with = "command")]
    url: Option<String>,
    /// The stdio server to start, after `--` (by default
    /// `$MCP_PYTHON tests/interop/reference_calculator.py`, `python3`
    /// without `MCP_PYTHON`).
    #[arg(last = true, value_name = "COMMAND ARGS")]
    command: Vec<String>,
}

/// `--era`: which protocol era the client speaks.
#[derive(Debug, Clone, Copy, ValueEnum)]
enum EraArg {
    /// Probe for 2026-07-28, fall back to the initialize handshake.
    Auto,
    /// The initialize handshake (2025-11-25).
    Legacy,
    /// 2026-07-28 only.
    Modern,
}

impl From<EraArg> for Era {
    fn from(era: EraArg) -> Self {
        match era {
            EraArg::Auto => Era::Auto,
            EraArg::Legacy => Era::Legacy,
            EraArg::Modern => Era::Modern,
        }
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    let Args {
        everything,
        era,
        url,
        mut command,
    } = command_line::parse::<Args>();
    stderr_logs::init("warn");
    if command.is_empty() {
        let python = std::env::var("MCP_PYTHON").unwrap_or_else(|_| "python3".to_owned());
        let script = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/interop/reference_calculator.py"
        );
        command = vec![python, script.to_owned()];
    }
    let builder = Client::builder()
        .client_info("foreign_client", env!("CARGO_PKG_VERSION"))
        .protocol(era.into());
    let connected = if let Some(url) = &url {
        builder.connect_http(url).await
    } else {
        let mut cmd = tokio::process::Command::new(&command[0]);
        cmd.args(&command[1..]);
        builder.connect_stdio(cmd).await
    };
    let client = match connected {
        Ok(client) => client,
        Err(e) => {
            println!("FAIL connect: {}", Chain(&e));
            return ExitCode::FAILURE;
        }
    };
    let mut checks = Checks::default();
    if everything {
        exercise_everything(&client, &mut checks).await;
    } else {
        exercise(&client, &mut checks).await;
    }
    client.close().await;
    if checks.failed > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
