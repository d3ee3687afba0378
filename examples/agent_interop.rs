//! The agent side against real servers: one `ToolSet` joining the local
//! calculator toolbox, our calculator over stdio, the Python SDK's reference
//! calculator and the TypeScript SDK's server-everything; collisions; the
//! provider names; and the strict form of every tool of the calculator, the
//! conformance fixture and server-everything.
//!
//! ```text
//! agent_interop --calculator target/debug/calculator \
//!     --conformance target/debug/conformance_server \
//!     --python "$MCP_PYTHON" --reference tests/interop/reference_calculator.py \
//!     --everything "$(tests/interop/ensure_everything.sh stdio)"
//! ```
//!
//! `--everything` is a command line split on whitespace. The conformance
//! fixture only serves Streamable HTTP: it is started on a free port of
//! 127.0.0.1 and reached there; the other servers are reached over stdio.
//! `tests/agent/run_interop.sh` builds nothing, finds the programs and runs this.
//!
//! Each check prints `PASS <check>: <detail>` or `FAIL <check>: <why>`,
//! `INFO` lines say what was seen (a tool sent non-strict, and why; the
//! summary); the exit code is 1 if any check failed, 2 for a usage error.

use std::collections::{BTreeMap, BTreeSet};
use std::future::Future;
use std::pin::Pin;
use std::process::{ExitCode, Stdio};
use std::time::Duration;

use clap::error::ErrorKind;
use clap::{CommandFactory, Parser};
use oxmcp_agent::strict::to_strict;
use oxmcp_agent::{
    chat::ChatMessage, chat::ChatModel, chat::ChatRequest, chat::ChatResponse, chat::ModelError,
    chat::ToolCall, Agent, Finish, Source, ToolCallError, ToolSet, ToolSetError, ToolView,
};
use oxmcp_client::{types::error::Chain, Client};
use oxmcp_server::{ToolBox, ToolEntry};
use serde_json::{json, Value};

use calculator_tools::Calculator;
use mcp_examples::calculator_tools;

use mcp_test_support::strict_check;

/// The Python reference server's tools taken into the set (`sqrt` it does
/// not offer: the set's diagnostics must say so).
const PY_ALLOW: [&str; 4] = ["add", "stats", "count_to", "sqrt"];
const PY_PREFIX: &str = "py_";
const CALC_PREFIX: &str = "calc.";
const FIXTURE_PREFIX: &str = "fixture.";
/// server-everything's tools left out of the set.
const EV_BLOCK: [&str; 2] = ["trigger-long-running-operation", "get-tiny-image"];

#[derive(Default)]
struct Checks {
    passed: usize,
    failed: usize,
}

impl Checks {
    fn check(&mut self, name: &str, outcome: Result<String, String>) {
        match outcome {
            Ok(detail) => {
                self.passed += 1;
                println!("PASS {name}: {detail}");
            }
            Err(why) => {
                self.failed += 1;
                println!("FAIL {name}: {why}");
            }
        }
    }
}

/// The agent side against real servers: one tool set over a local toolbox
/// and three MCP servers; collisions; names; strict schemas.
#[derive(Debug, Parser)]
#[command(
    name = "agent_interop",
    version,
    args_override_self = true,
    after_help = "Examples:\n  \
        agent_interop --calculator target/debug/calculator \\\n      \
            --conformance target/debug/conformance_server \\\n      \
            --python \"$MCP_PYTHON\" --reference tests/interop/reference_calculator.py \\\n      \
            --everything \"$(tests/interop/ensure_everything.sh stdio)\""
)]
struct Args {
    /// Our calculator binary (reached over stdio).
    #[arg(long, value_name = "PATH")]
    calculator: String,
    /// The conformance fixture binary (started on a free port, reached over
    /// Streamable HTTP).
    #[arg(long, value_name = "PATH")]
    conformance: String,
    /// The Python interpreter with the `mcp` SDK.
    #[arg(long, value_name = "PATH")]
    python: String,
    /// The Python SDK's reference calculator script.
    #[arg(long, value_name = "PATH")]
    reference: String,
    /// The command line of server-everything over stdio, split on whitespace.
    #[arg(long, value_name = "COMMAND ARGS")]
    everything: String,
}

/// What the checks start: the programs named on the command line.
struct Options {
    calculator: String,
    conformance: String,
    python: String,
    reference: String,
    everything: Vec<String>,
}

impl Options {
    /// The command line's, or the program exits (2) with the usage.
    fn parse() -> Options {
        let args = command_line::parse::<Args>();
        let everything: Vec<String> = args
            .everything
            .split_whitespace()
            .map(str::to_owned)
            .collect();
        if everything.is_empty() {
            Args::command()
                .error(ErrorKind::InvalidValue, "--everything needs a command")
                .exit();
        }
        Options {
            calculator: args.calculator,
            conformance: args.conformance,
            python: args.python,
            reference: args.reference,
            everything,
        }
    }
}

// ---------------------------------------------------------------------------
// The servers

/// The four connections the checks share (clones of a `Client` share it).
struct Servers {
    calc: Client,
    py: Client,
    ev: Client,
    fixture: Client,
    fixture_process: tokio::process::Child,
}

impl Servers {
    async fn close(mut self) {
        for client in [&self.calc, &self.py, &self.ev, &self.fixture] {
            client.close().await;
        }
        let _ = self.fixture_process.kill().await;
    }
}

fn client_builder() -> oxmcp_client::ClientBuilder {
    Client::builder().client_info("agent_interop", env!("CARGO_PKG_VERSION"))
}

async fn connect_stdio(what: &str, words: &[String]) -> Result<Client, String> {
    let mut command = tokio::process::Command::new(&words[0]);
    command.args(&words[1..]);
    client_builder()
        .connect_stdio(command)
        .await
        .map_err(|e| format!("{what} ({}): {}", words.join(" "), Chain(&e)))
}

/// Starts the conformance fixture on a free port and connects to it over
/// Streamable HTTP (it serves nothing else).
async fn start_fixture(program: &str) -> Result<(tokio::process::Child, Client), String> {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map_err(|e| format!("no free port: {e}"))?
        .port();
    let mut child = tokio::process::Command::new(program)
        .args(["--port", &port.to_string()])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("cannot start {program}: {e}"))?;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    loop {
        if let Ok(Some(status)) = child.try_wait() {
            return Err(format!("{program} --port {port} exited: {status}"));
        }
        if tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_ok()
        {
            break;
        }
        if tokio::time::Instant::now() > deadline {
            let _ = child.kill().await;
            return Err(format!(
                "{program} did not listen on port {port} within 20 s"
            ));
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    match client_builder()
        .connect_http(&format!("http://127.0.0.1:{port}/mcp"))
        .await
    {
        Ok(client) => Ok((child, client)),
        Err(e) => {
            let _ = child.kill().await;
            Err(format!("{program} on port {port}: {}", Chain(&e)))
        }
    }
}

async fn connect_all(options: &Options, checks: &mut Checks) -> Option<Servers> {
    let calc = connect_stdio("the calculator", std::slice::from_ref(&options.calculator)).await;
    let py = connect_stdio(
        "the Python reference server",
        &[options.python.clone(), options.reference.clone()],
    )
    .await;
    let ev = connect_stdio("server-everything", &options.everything).await;
    let fixture = start_fixture(&options.conformance).await;
    for (what, result) in [
        (
            "calculator (stdio)",
            calc.as_ref().map(describe).map_err(Clone::clone),
        ),
        (
            "Python reference (stdio)",
            py.as_ref().map(describe).map_err(Clone::clone),
        ),
        (
            "server-everything (stdio)",
            ev.as_ref().map(describe).map_err(Clone::clone),
        ),
        (
            "conformance fixture (Streamable HTTP)",
            fixture
                .as_ref()
                .map(|(_, c)| describe(c))
                .map_err(Clone::clone),
        ),
    ] {
        checks.check(&format!("connect {what}"), result);
    }
    match (calc, py, ev, fixture) {
        (Ok(calc), Ok(py), Ok(ev), Ok((fixture_process, fixture))) => Some(Servers {
            calc,
            py,
            ev,
            fixture,
            fixture_process,
        }),
        (calc, py, ev, fixture) => {
            for client in [calc.ok(), py.ok(), ev.ok()].into_iter().flatten() {
                client.close().await;
            }
            if let Ok((mut process, client)) = fixture {
                client.close().await;
                let _ = process.kill().await;
            }
            None
        }
    }
}

fn describe(client: &Client) -> String {
    format!(
        "{} {} (protocol {})",
        client.server_info().name,
        client.server_info().version,
        client.protocol_version()
    )
}

async fn tool_names(client: &Client) -> Result<Vec<String>, String> {
    client
        .list_tools()
        .await
        .map(|tools| tools.into_iter().map(|t| t.name).collect())
        .map_err(|e| {
            format!(
                "{}: tools/list failed: {}",
                client.server_info().name,
                Chain(&e)
            )
        })
}

// ---------------------------------------------------------------------------
// One set of four sources

async fn the_set(servers: &Servers) -> Result<ToolSet, ToolSetError> {
    ToolSet::builder()
        .toolbox(Calculator::default())
        .attach(Source::server(servers.calc.clone()).prefix(CALC_PREFIX))
        .attach(
            Source::server(servers.py.clone())
                .prefix(PY_PREFIX)
                .allow(PY_ALLOW),
        )
        .attach(Source::server(servers.ev.clone()).block(EV_BLOCK))
        .build()
        .await
}

/// The names the set must have: each source's own listing after its
/// prefix, allow and block lists.
async fn expected_names(servers: &Servers) -> Result<Vec<String>, String> {
    let mut names: Vec<String> = Calculator::default()
        .into_tools()
        .iter()
        .map(|t| t.name().to_owned())
        .collect();
    names.extend(
        tool_names(&servers.calc)
            .await?
            .into_iter()
            .map(|n| format!("{CALC_PREFIX}{n}")),
    );
    names.extend(
        tool_names(&servers.py)
            .await?
            .into_iter()
            .filter(|n| PY_ALLOW.contains(&n.as_str()))
            .map(|n| format!("{PY_PREFIX}{n}")),
    );
    let everything = tool_names(&servers.ev).await?;
    for blocked in EV_BLOCK {
        if !everything.iter().any(|n| n == blocked) {
            return Err(format!(
                "server-everything does not offer `{blocked}`: the block list proves nothing"
            ));
        }
    }
    names.extend(
        everything
            .into_iter()
            .filter(|n| !EV_BLOCK.contains(&n.as_str())),
    );
    Ok(names)
}

async fn check_set_names(set: &ToolSet, servers: &Servers, checks: &mut Checks) {
    let outcome = match expected_names(servers).await {
        Err(e) => Err(e),
        Ok(expected) => {
            let got: BTreeSet<String> = set.names().into_iter().collect();
            let want: BTreeSet<String> = expected.iter().cloned().collect();
            if got == want && want.len() == expected.len() {
                Ok(format!("{} tools: {}", got.len(), set.names().join(", ")))
            } else {
                Err(format!(
                    "missing {:?}, unexpected {:?} (expected {} names, {} distinct)",
                    want.difference(&got).collect::<Vec<_>>(),
                    got.difference(&want).collect::<Vec<_>>(),
                    expected.len(),
                    want.len()
                ))
            }
        }
    };
    checks.check(
        "set names = local + calc.(calculator) + py_(allowed reference) + everything - blocked",
        outcome,
    );
}

fn text_of(
    result: &Result<oxmcp_client::types::CallToolResult, ToolCallError>,
) -> Result<String, String> {
    match result {
        Ok(r) if r.is_error == Some(true) => Err(format!("isError: {r:?}")),
        Ok(r) => Ok(r
            .content
            .iter()
            .filter_map(|c| c.as_text())
            .collect::<Vec<_>>()
            .join("")),
        Err(e) => Err(format!("{}: {e:?}", Chain(&e))),
    }
}

async fn check_calls(set: &ToolSet, servers: &Servers, checks: &mut Checks) {
    let two_three = json!({"a": 2, "b": 3});
    for (name, what) in [
        ("add", "the local toolbox"),
        ("calc.add", "the calculator over stdio"),
        ("py_add", "the Python reference server"),
    ] {
        let result = set.call(name, two_three.clone()).await;
        checks.check(
            &format!("call `{name}` (2 + 3) reaches {what}"),
            match text_of(&result) {
                Ok(text) if text.trim() == "5" => Ok(text),
                Ok(text) => Err(format!("expected \"5\", got {text:?}")),
                Err(e) => Err(e),
            },
        );
    }
    let result = set
        .call("echo", json!({"message": "hello from the set"}))
        .await;
    checks.check(
        "call `echo` reaches server-everything",
        match text_of(&result) {
            Ok(text) if text.contains("hello from the set") => Ok(text),
            Ok(text) => Err(format!("the echo does not hold the message: {text:?}")),
            Err(e) => Err(e),
        },
    );

    let result = set.call("calc.add", json!({"a": "two", "b": 3})).await;
    checks.check(
        "invalid arguments for `calc.add` are refused before the server (InvalidArguments)",
        match result {
            Err(ToolCallError::InvalidArguments(why)) => Ok(why),
            other => Err(format!("expected InvalidArguments, got {other:?}")),
        },
    );
    // server-everything itself answers `echo` without its argument with an
    // isError result; the set must not get that far.
    let direct = servers.ev.call_tool("echo", json!({})).await;
    let through_set = set.call("echo", json!({})).await;
    checks.check(
        "`echo` without its argument: the server says isError, the set refuses it first",
        match (direct, through_set) {
            (Err(oxmcp_client::Error::Tool(_)), Err(ToolCallError::InvalidArguments(why))) => {
                Ok(why)
            }
            (direct, through_set) => Err(format!(
                "direct call {direct:?}, through the set {through_set:?}"
            )),
        },
    );
    let blocked = EV_BLOCK[0];
    checks.check(
        &format!("the blocked `{blocked}` is not callable"),
        match set.call(blocked, json!({})).await {
            Err(ToolCallError::UnknownTool { .. }) => Ok("UnknownTool".to_owned()),
            other => Err(format!("expected UnknownTool, got {other:?}")),
        },
    );
    let diagnostics = set.diagnostics();
    let absent: Vec<&str> = PY_ALLOW
        .iter()
        .copied()
        .filter(|n| !set.names().contains(&format!("{PY_PREFIX}{n}")))
        .collect();
    checks.check(
        "the allow list's absent entries are in diagnostics()",
        if absent.is_empty() {
            Err("every allowed name is offered: nothing to report".to_owned())
        } else {
            absent
                .iter()
                .map(|name| {
                    diagnostics
                        .iter()
                        .find(|d| d.tool == *name && d.message.contains("allow list"))
                        .map(ToString::to_string)
                        .ok_or(format!("no diagnostic for `{name}` in {diagnostics:?}"))
                })
                .collect::<Result<Vec<_>, _>>()
                .map(|found| found.join("; "))
        },
    );
}

// ---------------------------------------------------------------------------
// Collisions

async fn check_collisions(servers: &Servers, checks: &mut Checks) {
    let local = format!("local toolbox `{}`", <Calculator as ToolBox>::NAME);
    // The calculator is labelled by its serverInfo name; the Python server,
    // which calls itself `calculator` too, by the name given to the source.
    for (client, label, what) in [
        (&servers.calc, None, "the calculator over stdio"),
        (
            &servers.py,
            Some("python-reference"),
            "the Python reference server",
        ),
    ] {
        let remote = format!(
            "MCP server `{}`",
            label.unwrap_or(&client.server_info().name)
        );
        let mut source = Source::server(client.clone());
        if let Some(label) = label {
            source = source.named(label);
        }
        let built = ToolSet::builder()
            .toolbox(Calculator::default())
            .attach(source)
            .build()
            .await;
        checks.check(
            &format!("the local Calculator and {what}, no prefix: a collision naming both"),
            match built {
                Err(e @ ToolSetError::Collision { .. }) => {
                    let message = e.to_string();
                    if message.contains(&local) && message.contains(&remote) {
                        Ok(message)
                    } else {
                        Err(format!(
                            "the message does not name {local} and {remote}: {message}"
                        ))
                    }
                }
                Err(e) => Err(format!("expected Collision, got {}", Chain(&e))),
                Ok(set) => Err(format!("built: {:?}", set.names())),
            },
        );
    }
}

// ---------------------------------------------------------------------------
// Provider names

/// `^[a-zA-Z0-9_-]{1,64}$`, by the jsonschema crate's regex engine.
fn provider_pattern() -> jsonschema::Validator {
    jsonschema::validator_for(&json!({"type": "string", "pattern": "^[a-zA-Z0-9_-]{1,64}$"}))
        .expect("the pattern compiles")
}

/// Every tool of the view has a provider name that fits the pattern and maps
/// back to its MCP name, in the definitions and in both providers' formats.
fn check_view_names(view: &ToolView) -> Result<String, String> {
    let pattern = provider_pattern();
    let map = view.name_map();
    let definitions = view.definitions();
    let mut problems = Vec::new();
    let mut mapped = BTreeSet::new();
    for def in &definitions {
        if !pattern.is_valid(&json!(def.name)) {
            problems.push(format!(
                "`{}` does not fit the providers' pattern",
                def.name
            ));
        }
        match map.to_mcp(&def.name) {
            Some(mcp) if map.to_provider(mcp) == Some(def.name.as_str()) => {
                mapped.insert(mcp.to_owned());
            }
            other => problems.push(format!("`{}` maps back to {other:?}", def.name)),
        }
    }
    if mapped != view.names().into_iter().collect() || definitions.len() != view.len() {
        problems.push(format!(
            "{} definitions map back to {} names, the view has {}",
            definitions.len(),
            mapped.len(),
            view.len()
        ));
    }
    let exported: Vec<(&str, Vec<Value>)> = vec![
        ("openai chat (strict)", view.openai_chat_tools(true)),
        ("openai responses", view.openai_responses_tools(false)),
        ("anthropic", view.anthropic_tools()),
    ];
    for (format, tools) in exported {
        for tool in tools {
            let name = tool
                .pointer("/function/name")
                .or_else(|| tool.get("name"))
                .and_then(Value::as_str)
                .unwrap_or_default();
            if !pattern.is_valid(&json!(name)) || map.to_mcp(name).is_none() {
                problems.push(format!("{format}: `{name}` is not a mapped provider name"));
            }
        }
    }
    if problems.is_empty() {
        Ok(format!("{} names", definitions.len()))
    } else {
        Err(problems.join("; "))
    }
}

/// Tool names at the edges of what MCP allows (`[A-Za-z0-9_.-]{1,128}`).
fn edge_names() -> Vec<String> {
    let alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-";
    let mut names: Vec<String> = alphabet.chars().map(String::from).collect();
    names.extend(
        [
            "a.b", "a_b", "a-b", "a.b.c", "a_b.c", "a.b_c", "a_b_c", "..", "...", ".-_", "-.-",
            ".a", "a.",
        ]
        .map(str::to_owned),
    );
    names.push(oxmcp_agent::names::provider_name("a.b")); // what `a.b` derives to, taken
    names.push("x".repeat(64));
    names.push("x".repeat(65));
    names.push("y".repeat(128));
    names.push(format!("{}.{}", "z".repeat(63), "z".repeat(64)));
    names.push(format!("{}1", "w".repeat(127)));
    names.push(format!("{}2", "w".repeat(127)));
    names.push(format!("{}.", "v".repeat(127)));
    names.push(format!("{}_", "v".repeat(127)));
    names
}

/// A set of local tools with the edge names, each answering with its own name.
async fn edge_set() -> Result<ToolSet, String> {
    let mut entries = Vec::new();
    for name in edge_names() {
        let answer = name.clone();
        let entry = ToolEntry::dynamic(
            name.clone(),
            "Answers with its own name",
            json!({"type": "object", "properties": {}}),
            move |_args, _ctx| {
                let answer = answer.clone();
                async move { answer }
            },
        )
        .map_err(|e| format!("`{name}`: {}", Chain(&e)))?;
        entries.push(entry);
    }
    ToolSet::builder()
        .attach(Source::tools(entries).named("edge names"))
        .build()
        .await
        .map_err(|e| Chain(&e).to_string())
}

async fn check_names(set: &ToolSet, checks: &mut Checks) {
    let view = set.view();
    checks.check(
        "every provider name of the set fits ^[a-zA-Z0-9_-]{1,64}$ and maps back",
        check_view_names(&view),
    );
    let dotted: Vec<String> = view
        .names()
        .into_iter()
        .filter(|n| n.starts_with(CALC_PREFIX))
        .collect();
    let kept: Vec<&String> = dotted
        .iter()
        .filter(|n| view.name_map().to_provider(n) == Some(n.as_str()))
        .collect();
    checks.check(
        "the `calc.` names (with a dot) are mapped, not kept",
        if dotted.is_empty() || !kept.is_empty() {
            Err(format!("calc. names {dotted:?}, kept as-is {kept:?}"))
        } else {
            Ok(dotted
                .iter()
                .map(|n| format!("{n} -> {}", view.name_map().to_provider(n).unwrap_or("?")))
                .collect::<Vec<_>>()
                .join(", "))
        },
    );
    match edge_set().await {
        Ok(edges) => {
            checks.check(
                "edge names of the MCP alphabet (1 to 128 characters, dots) map and map back",
                check_view_names(&edges.view()),
            );
            check_edge_calls(&edges, checks).await;
        }
        Err(e) => checks.check("a set of edge names", Err(e)),
    }
    check_agent_run(set, checks).await;
}

/// A scripted agent calls confusable edge names by their provider names:
/// each reaches the tool of that MCP name.
async fn check_edge_calls(edges: &ToolSet, checks: &mut Checks) {
    let view = edges.view();
    let targets: Vec<String> = [
        "a.b".to_owned(),
        "a_b".to_owned(),
        oxmcp_agent::names::provider_name("a.b"),
        ".".to_owned(),
        "_".to_owned(),
        format!("{}.", "v".repeat(127)),
        format!("{}_", "v".repeat(127)),
    ]
    .into();
    let calls: Vec<(String, String)> = targets
        .iter()
        .map(|n| {
            (
                view.name_map().to_provider(n).unwrap_or(n).to_owned(),
                "{}".to_owned(),
            )
        })
        .collect();
    let agent = Agent::builder(Scripted::new(calls), edges.clone())
        .max_turns(3)
        .build();
    checks.check(
        "a scripted model's calls by provider name reach the right edge-named tools",
        match agent.run("Call them all.").await.map(Finish::into_outcome) {
            Ok(outcome) => {
                let reached: Vec<Option<String>> =
                    outcome.tool_calls.iter().map(|c| c.tool.clone()).collect();
                let replies: Vec<&str> = outcome
                    .tool_calls
                    .iter()
                    .map(|c| c.reply.as_str())
                    .collect();
                let want: Vec<Option<String>> = targets.iter().cloned().map(Some).collect();
                if reached == want && replies == targets {
                    Ok(format!("{} calls", reached.len()))
                } else {
                    Err(format!("reached {reached:?}, replies {replies:?}"))
                }
            }
            Err(e) => Err(Chain(&e).to_string()),
        },
    );
}

/// The scripted model calls `calc.add` by its provider name; the agent maps
/// it back and reaches the calculator over stdio.
async fn check_agent_run(set: &ToolSet, checks: &mut Checks) {
    let view = set.view();
    let Some(provider) = view.name_map().to_provider("calc.add").map(str::to_owned) else {
        checks.check(
            "agent run: calc.add",
            Err("no `calc.add` in the set".to_owned()),
        );
        return;
    };
    let model = Scripted::new(vec![(provider.clone(), r#"{"a": 2, "b": 3}"#.to_owned())]);
    let agent = Agent::builder(model, set.clone()).max_turns(3).build();
    checks.check(
        &format!(
            "agent run: a scripted model calls `{provider}` and reaches the calculator over stdio"
        ),
        match agent.run("What is 2 + 3?").await.map(Finish::into_outcome) {
            Ok(outcome) => match outcome.tool_calls.first() {
                Some(call)
                    if outcome.tool_calls.len() == 1
                        && call.tool.as_deref() == Some("calc.add")
                        && call.reply == "5"
                        && !call.is_error
                        && outcome.text == "5" =>
                {
                    Ok(format!(
                        "tool {:?}, reply {:?}, answer {:?}, {} turns",
                        call.tool, call.reply, outcome.text, outcome.turns
                    ))
                }
                _ => Err(format!(
                    "calls {:?}, answer {:?}",
                    outcome
                        .tool_calls
                        .iter()
                        .map(|c| (&c.tool, &c.reply, c.is_error))
                        .collect::<Vec<_>>(),
                    outcome.text
                )),
            },
            Err(e) => Err(Chain(&e).to_string()),
        },
    );
}

/// A stand-in model: on the first turn it calls the given tools (provider
/// names, which it checks are offered); once the results are in, it answers
/// with them, joined by ", ".
struct Scripted {
    calls: Vec<(String, String)>,
}

impl Scripted {
    fn new(calls: Vec<(String, String)>) -> Self {
        Scripted { calls }
    }
}

impl ChatModel for Scripted {
    fn provider(&self) -> &'static str {
        "scripted"
    }

    fn complete(
        &self,
        request: ChatRequest,
    ) -> Pin<Box<dyn Future<Output = Result<ChatResponse, ModelError>> + Send + '_>> {
        Box::pin(async move {
            if let Some(ChatMessage::ToolResults { results }) = request.messages.last() {
                let text = results
                    .iter()
                    .map(|r| r.content.as_str())
                    .collect::<Vec<_>>()
                    .join(", ");
                return Ok(ChatResponse {
                    text,
                    stop_reason: Some("stop".to_owned()),
                    ..ChatResponse::default()
                });
            }
            let offered: BTreeSet<&str> = request.tools.iter().map(|t| t.name.as_str()).collect();
            let mut tool_calls = Vec::new();
            for (i, (name, arguments)) in self.calls.iter().enumerate() {
                if !offered.contains(name.as_str()) {
                    return Err(ModelError::Config {
                        provider: "scripted".to_owned(),
                        message: format!("`{name}` is not offered: {offered:?}"),
                    });
                }
                tool_calls.push(ToolCall {
                    id: format!("call_{i}"),
                    name: name.clone(),
                    arguments: arguments.clone(),
                });
            }
            Ok(ChatResponse {
                tool_calls,
                stop_reason: Some("tool_calls".to_owned()),
                ..ChatResponse::default()
            })
        })
    }
}

// ---------------------------------------------------------------------------
// Strict schemas

#[derive(Default)]
struct StrictCount {
    strict: usize,
    /// Strict tools with a constraint strict mode cannot express.
    described: Vec<String>,
    fallback: Vec<String>,
}

/// A strict tool with a constraint strict mode cannot express (described to
/// the model, dropped from the schema): a value valid under the strict
/// schema can break the original one. OpenAI does not stop it; the set must,
/// before the server (only such values are sent, so the tool never runs).
async fn refused_by_the_set(
    set: &ToolSet,
    in_set: &str,
    checked: &strict_check::RoundTrip,
) -> Result<String, String> {
    let mut refused = Vec::new();
    for (value, breaks) in &checked.described_only {
        println!(
            "INFO `{in_set}`: a value valid under the strict schema breaks the original, on constraints strict mode cannot express: {value} breaks {}",
            breaks.join("; ")
        );
        match set.call(in_set, value.clone()).await {
            Err(ToolCallError::InvalidArguments(why)) => refused.push(why),
            other => {
                return Err(format!(
                    "{value} breaks {breaks:?} but the set did not refuse it: {other:?}"
                ))
            }
        }
    }
    Ok(format!(
        "follows the rules; {} distinct values checked; {} break only constraints the strict schema describes but cannot enforce, and the set refuses them before the server ({})",
        checked.values,
        checked.described_only.len(),
        refused.join("; ")
    ))
}

async fn check_strict(servers: &Servers, checks: &mut Checks) {
    // A set of the three servers: its diagnostics must list each tool that
    // falls back, and its definitions carry the strict forms.
    let set = match ToolSet::builder()
        .attach(Source::server(servers.calc.clone()).prefix(CALC_PREFIX))
        .attach(Source::server(servers.fixture.clone()).prefix(FIXTURE_PREFIX))
        .attach(Source::server(servers.ev.clone()))
        .build()
        .await
    {
        Ok(set) => set,
        Err(e) => {
            checks.check(
                "a set of the calculator, the fixture and server-everything",
                Err(Chain(&e).to_string()),
            );
            return;
        }
    };
    let view = set.view();
    let offered: BTreeMap<String, Option<Value>> = view
        .definitions()
        .into_iter()
        .filter_map(|d| {
            let mcp = view.name_map().to_mcp(&d.name)?.to_owned();
            Some((mcp, d.strict_parameters))
        })
        .collect();
    let diagnostics = set.diagnostics();
    let mut counts: BTreeMap<&str, StrictCount> = BTreeMap::new();
    for (label, prefix, client) in [
        ("calculator", CALC_PREFIX, &servers.calc),
        ("fixture", FIXTURE_PREFIX, &servers.fixture),
        ("everything", "", &servers.ev),
    ] {
        let tools = match client.list_tools().await {
            Ok(tools) => tools,
            Err(e) => {
                checks.check(
                    &format!("strict: {label} tools/list"),
                    Err(Chain(&e).to_string()),
                );
                continue;
            }
        };
        let count = counts.entry(label).or_default();
        for tool in tools {
            let original = Value::Object(tool.input_schema.clone());
            let in_set = format!("{prefix}{}", tool.name);
            let name = format!("strict: {label} `{}`", tool.name);
            match to_strict(&original) {
                Ok(strict) => {
                    count.strict += 1;
                    let outcome = match strict_check::check_strict_form(&original, &strict) {
                        Err(e) => Err(e),
                        Ok(_) if offered.get(&in_set) != Some(&Some(strict.clone())) => Err(format!(
                            "the set offers `{in_set}` with strict parameters {:?}",
                            offered.get(&in_set)
                        )),
                        Ok(checked) if checked.described_only.is_empty() => Ok(format!(
                            "follows the rules; {} distinct values round-trip to the original schema",
                            checked.values
                        )),
                        Ok(checked) => {
                            count.described.push(tool.name.clone());
                            refused_by_the_set(&set, &in_set, &checked).await
                        }
                    };
                    checks.check(&name, outcome);
                }
                Err(why) => {
                    println!("INFO {label} `{}` is sent non-strict: {why}", tool.name);
                    count.fallback.push(format!("{} ({why})", tool.name));
                    let listed = diagnostics
                        .iter()
                        .find(|d| d.tool == in_set && d.message.contains(&why));
                    let not_offered_strict = matches!(offered.get(&in_set), Some(None));
                    checks.check(
                        &format!("{name} falls back, listed in diagnostics()"),
                        match listed {
                            Some(d) if not_offered_strict => Ok(d.to_string()),
                            Some(_) => Err(format!("`{in_set}` is still offered strict")),
                            None => Err(format!("`{in_set}` is not in {diagnostics:?}")),
                        },
                    );
                }
            }
        }
    }
    print_strict_summary(&counts);
}

fn print_strict_summary(counts: &BTreeMap<&str, StrictCount>) {
    let strict: usize = counts.values().map(|c| c.strict).sum();
    let described: usize = counts.values().map(|c| c.described.len()).sum();
    let fallback: usize = counts.values().map(|c| c.fallback.len()).sum();
    println!(
        "INFO strict summary: {} tools, {strict} strict ({described} of them with a constraint strict mode cannot express), {fallback} fell back; {}",
        strict + fallback,
        counts
            .iter()
            .map(|(label, c)| format!(
                "{label}: {} strict, {} fell back",
                c.strict,
                c.fallback.len()
            ))
            .collect::<Vec<_>>()
            .join("; ")
    );
    for (label, c) in counts {
        for name in &c.described {
            println!("INFO   strict, a constraint only described: {label} {name}");
        }
        for f in &c.fallback {
            println!("INFO   fell back: {label} {f}");
        }
    }
}

// ---------------------------------------------------------------------------

use mcp_examples::command_line;
use mcp_examples::stderr_logs;

#[tokio::main]
async fn main() -> ExitCode {
    stderr_logs::init("warn");
    let options = Options::parse();
    let mut checks = Checks::default();
    let Some(servers) = connect_all(&options, &mut checks).await else {
        return ExitCode::FAILURE;
    };
    match the_set(&servers).await {
        Ok(set) => {
            check_set_names(&set, &servers, &mut checks).await;
            check_calls(&set, &servers, &mut checks).await;
            check_names(&set, &mut checks).await;
        }
        Err(e) => checks.check("one set of four sources", Err(Chain(&e).to_string())),
    }
    check_collisions(&servers, &mut checks).await;
    check_strict(&servers, &mut checks).await;
    servers.close().await;
    println!(
        "INFO {} checks passed, {} failed",
        checks.passed, checks.failed
    );
    if checks.failed > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
