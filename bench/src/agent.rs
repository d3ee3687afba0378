//! `mcp-bench agent`: what the agent layer (`oxmcp-agent`) adds to a tool call.
//! The same `add` tool is called bare (the floor), through a `ToolSet`, and
//! by an `Agent` whose model is a scripted in-process stand-in, both on a
//! server over stdio (`bench-ours-stdio`) and on a local toolbox. See
//! `bench/README.md`.

use std::fmt::Write as _;
use std::path::Path;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use futures_util::future::{try_join_all, BoxFuture};
use oxmcp_agent::{
    chat::ChatMessage, chat::ChatModel, chat::ChatRequest, chat::ChatResponse, chat::ModelError,
    chat::ToolCall, Agent, ToolSet,
};
use oxmcp_server::types::JsonObject;
use oxmcp_server::{tool, types::CallToolResult, Context, ToolBox as _, ToolEntry};
use serde_json::Value;

use crate::cli;
use crate::stats::{phase, Limits, Phase};
use crate::{fmt, median_of, median_ratio, procfs, table, Results};

const USAGE: &str = "\
usage: mcp-bench agent [options]

Measures what oxmcp-agent adds to a tool call: `add` called bare (the floor),
through a ToolSet, and by an Agent whose model is a scripted in-process
stand-in (K tool calls in one turn, then a final text), on our server over
stdio (bench-ours-stdio) and on a local #[tool] toolbox. Time per tool call,
and its ratio to the floor of the same round.

options:
  --calls N            a measured phase makes at least N tool calls (default 10000)
  --min-phase-secs S   ...and runs at least S seconds (default 1)
  --max-phase-secs S   ...but stops issuing calls after S seconds (default 5)
  --rounds R           rounds; variants alternate within a round, medians are shown (default 3)
  --warmup N           warm-up tool calls before each measured phase (default 1000)
  --legacy             the client speaks the legacy era (initialize, 2025-11-25)
                       instead of probing server/discover (2026-07-28)
  --no-build           when run by cargo, do not build the server binary first
";

/// The server the remote variants call.
const SERVER: &str = "bench-ours-stdio";

/// Tool calls per model turn in the concurrent agent variants (and the
/// floor they are compared with).
const WIDE: usize = 8;

/// Units of work between two looks at the clock, so that reading it does
/// not weigh on the cheapest variants (a local call is well under 1 µs).
const CHECK_EVERY: u64 = 32;

/// The arguments of every call.
const ARGUMENTS: &str = r#"{"a":1,"b":2}"#;

struct Options {
    calls: u64,
    min_phase: Duration,
    max_phase: Duration,
    rounds: usize,
    warmup: u64,
    legacy: bool,
    build: bool,
}

/// The local toolbox: the same `add` as `bench-ours-stdio` serves.
#[derive(Debug)]
struct Bench;

// `#[tool]` takes the `pub fn`s as the tools, with `&self`.
#[allow(unreachable_pub, clippy::unused_self)]
#[tool(description = "The benchmark workload")]
impl Bench {
    #[describe("Add two numbers")]
    #[param(a, "The first number")]
    #[param(b, "The second number")]
    pub fn add(&self, a: f64, b: f64) -> f64 {
        a + b
    }
}

/// A stand-in model: asked with the user's message, it calls `add` `width`
/// times in one turn; given their results, it checks them and answers text.
struct Scripted {
    calls: ChatResponse,
    width: usize,
}

impl Scripted {
    fn new(width: usize) -> Scripted {
        let tool_calls = (0..width)
            .map(|i| ToolCall {
                id: format!("call_{i}"),
                name: "add".to_owned(),
                arguments: ARGUMENTS.to_owned(),
            })
            .collect();
        Scripted {
            calls: ChatResponse {
                tool_calls,
                ..ChatResponse::default()
            },
            width,
        }
    }

    fn answer(&self, request: &ChatRequest) -> Result<ChatResponse, ModelError> {
        let malformed = |message: String| ModelError::Malformed {
            provider: self.provider().to_owned(),
            message,
        };
        match request.messages.last() {
            Some(ChatMessage::User { .. }) => Ok(self.calls.clone()),
            Some(ChatMessage::ToolResults { results })
                if results.len() == self.width
                    && results.iter().all(|r| !r.is_error && r.content == "3") =>
            {
                Ok(ChatResponse {
                    text: "3".to_owned(),
                    ..ChatResponse::default()
                })
            }
            other => Err(malformed(format!("unexpected last message {other:?}"))),
        }
    }
}

impl ChatModel for Scripted {
    fn provider(&self) -> &'static str {
        "scripted"
    }

    fn complete(&self, request: ChatRequest) -> BoxFuture<'_, Result<ChatResponse, ModelError>> {
        Box::pin(std::future::ready(self.answer(&request)))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    Remote,
    Local,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// `call_tool_raw` or `ToolEntry::invoke`; `width` of them joined.
    Floor,
    /// `ToolSet::call`.
    Set,
    /// One `Agent::run`: `width` calls in one turn, then the final turn.
    Agent,
}

struct Variant {
    name: &'static str,
    side: Side,
    kind: Kind,
    width: usize,
}

const fn variant(name: &'static str, side: Side, kind: Kind, width: usize) -> Variant {
    Variant {
        name,
        side,
        kind,
        width,
    }
}

const VARIANTS: [Variant; 10] = [
    variant("remote floor", Side::Remote, Kind::Floor, 1),
    variant("remote floor", Side::Remote, Kind::Floor, WIDE),
    variant("remote set", Side::Remote, Kind::Set, 1),
    variant("remote agent", Side::Remote, Kind::Agent, 1),
    variant("remote agent", Side::Remote, Kind::Agent, WIDE),
    variant("local floor", Side::Local, Kind::Floor, 1),
    variant("local floor", Side::Local, Kind::Floor, WIDE),
    variant("local set", Side::Local, Kind::Set, 1),
    variant("local agent", Side::Local, Kind::Agent, 1),
    variant("local agent", Side::Local, Kind::Agent, WIDE),
];

impl Variant {
    fn label(&self) -> String {
        format!("{} K={}", self.name, self.width)
    }

    /// The floor of this variant's side: sequential, or with the same width.
    fn floor(&self, same_width: bool) -> Option<usize> {
        let width = if same_width { self.width } else { 1 };
        VARIANTS
            .iter()
            .position(|v| v.side == self.side && v.kind == Kind::Floor && v.width == width)
    }
}

/// What one side calls through: the bare tool, a set, agents of each width.
struct Stack {
    floor: Floor,
    set: ToolSet,
    narrow: Agent,
    wide: Agent,
}

enum Floor {
    Remote(oxmcp_client::Client),
    Local(ToolEntry),
}

impl Stack {
    async fn new(floor: Floor) -> Result<Stack, String> {
        let set = match &floor {
            Floor::Remote(client) => ToolSet::builder().server(client.clone()),
            Floor::Local(_) => ToolSet::builder().toolbox(Bench),
        };
        let set = set.build().await.map_err(|e| format!("tool set: {e}"))?;
        let agent = |width| {
            Agent::builder(Scripted::new(width), set.clone())
                .streaming(false)
                .build()
        };
        Ok(Stack {
            narrow: agent(1),
            wide: agent(WIDE),
            set,
            floor,
        })
    }

    /// One bare call.
    async fn bare(&self) -> Result<(), String> {
        let result = match &self.floor {
            Floor::Remote(client) => client
                .call_tool_raw("add", arguments())
                .await
                .map_err(|e| format!("call: {e}"))?,
            Floor::Local(entry) => entry.invoke(arguments(), Context::detached()).await,
        };
        check(&result)
    }

    /// One unit of `variant`'s work: `variant.width` tool calls.
    async fn unit(&self, variant: &Variant) -> Result<(), String> {
        match (variant.kind, variant.width) {
            (Kind::Floor, 1) => self.bare().await,
            (Kind::Floor, width) => try_join_all((0..width).map(|_| self.bare()))
                .await
                .map(drop),
            (Kind::Set, _) => {
                let result = self
                    .set
                    .call("add", Value::Object(arguments()))
                    .await
                    .map_err(|e| format!("ToolSet::call: {e}"))?;
                check(&result)
            }
            (Kind::Agent, width) => {
                let agent = if width == 1 { &self.narrow } else { &self.wide };
                let outcome = agent
                    .run("What is 1 + 2?")
                    .await
                    .map_err(|e| format!("Agent::run: {e}"))?
                    .into_outcome();
                if outcome.turns == 2 && outcome.tool_calls.len() == width && outcome.text == "3" {
                    Ok(())
                } else {
                    Err(format!(
                        "expected 2 turns, {width} calls and the text \"3\": {} turns, {} calls, {:?}",
                        outcome.turns,
                        outcome.tool_calls.len(),
                        outcome.text
                    ))
                }
            }
        }
    }
}

/// `{"a": 1, "b": 2}`, made afresh for each call as a caller would.
fn arguments() -> JsonObject {
    let mut arguments = JsonObject::new();
    arguments.insert("a".to_owned(), Value::from(1));
    arguments.insert("b".to_owned(), Value::from(2));
    arguments
}

/// A result must be one text item `"3"`, not `isError`.
fn check(result: &CallToolResult) -> Result<(), String> {
    match result.content.as_slice() {
        [block] if !result.is_error() && block.as_text() == Some("3") => Ok(()),
        _ => Err(format!("expected one text content \"3\": {result:?}")),
    }
}

pub(crate) fn main(args: &[String]) -> ExitCode {
    cli::run_mode(args, USAGE, parse_options, run)
}

fn parse_options(args: &[String]) -> Result<Options, String> {
    let mut options = Options {
        calls: 10_000,
        min_phase: Duration::from_secs(1),
        max_phase: Duration::from_secs(5),
        rounds: 3,
        warmup: 1_000,
        legacy: false,
        build: true,
    };
    cli::parse_flags(args, |flag| {
        match flag.name() {
            "--calls" => options.calls = flag.count()?,
            "--warmup" => options.warmup = flag.count_or_zero()?,
            "--min-phase-secs" => options.min_phase = flag.seconds()?,
            "--max-phase-secs" => options.max_phase = flag.seconds()?,
            "--rounds" => options.rounds = flag.size()?,
            "--legacy" => options.legacy = true,
            "--no-build" => options.build = false,
            _ => return Ok(false),
        }
        Ok(true)
    })?;
    cli::check_phases(options.min_phase, options.max_phase)?;
    Ok(options)
}

/// Runs every round; returns whether every variant ran cleanly.
fn run(options: &Options) -> Result<bool, String> {
    let bin_dir = crate::bin_dir()?;
    if options.build {
        crate::build_servers(&bin_dir);
    }
    let server = bin_dir.join(SERVER);
    if !server.is_file() {
        return Err(format!("{} does not exist", server.display()));
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("tokio runtime: {e}"))?;
    let ticks = procfs::clock_ticks_per_second();
    let cpus = std::thread::available_parallelism().map_or(0, std::num::NonZero::get);
    println!(
        "agent: phases of at least {} tool calls and {:?}, at most {:?}; {} warm-up calls; {} rounds; multi-thread driver runtime; {} CPUs; CLK_TCK {}",
        options.calls, options.min_phase, options.max_phase, options.warmup, options.rounds, cpus, ticks
    );
    let mut results: Vec<Results<Phase>> = VARIANTS.iter().map(|_| Results::default()).collect();
    for round in 0..options.rounds {
        runtime.block_on(one_round(round, &server, options, ticks, &mut results))?;
    }
    print!("{}", report(&results, options, ticks));
    Ok(results.iter().all(|r| r.failure.is_none()))
}

/// One round: a fresh server and fresh stacks; every variant once, starting
/// one further each round.
async fn one_round(
    round: usize,
    server: &Path,
    options: &Options,
    ticks: u64,
    results: &mut [Results<Phase>],
) -> Result<(), String> {
    let client = connect(server, options.legacy).await?;
    println!(
        "  round {}/{}: the client speaks {}",
        round + 1,
        options.rounds,
        client.protocol_version()
    );
    let remote = Stack::new(Floor::Remote(client.clone())).await?;
    let entry = Bench
        .into_tools()
        .into_iter()
        .find(|entry| entry.tool().name == "add")
        .ok_or("the toolbox has no `add`")?;
    let local = Stack::new(Floor::Local(entry)).await?;
    let width = VARIANTS.iter().map(|v| v.label().len()).max().unwrap_or(0);
    for offset in 0..VARIANTS.len() {
        let index = (round + offset) % VARIANTS.len();
        if results[index].failure.is_some() {
            continue;
        }
        let variant = &VARIANTS[index];
        let stack = match variant.side {
            Side::Remote => &remote,
            Side::Local => &local,
        };
        let budget = options.max_phase * 2 + Duration::from_secs(60);
        let outcome = tokio::time::timeout(budget, measure(stack, variant, options))
            .await
            .unwrap_or_else(|_| Err(format!("did not finish within {budget:?}")));
        match outcome {
            Ok(phase) => {
                println!(
                    "  round {}/{} {:<width$} {:>9.2} µs/call {:>9.0} calls/s cpu {:>7.2} µs/call",
                    round + 1,
                    options.rounds,
                    variant.label(),
                    us_per_call(&phase),
                    phase.calls_per_sec(),
                    phase.cpu_us_per_call(ticks),
                );
                results[index].runs.push((round, phase));
            }
            Err(e) => {
                println!("!!!!! variant {} FAILED: {e} !!!!!", variant.label());
                results[index].failure = Some(e);
            }
        }
    }
    drop((remote, local));
    client.close().await;
    Ok(())
}

/// Starts the server (stderr to `/dev/null`) with our client, which probes
/// `server/discover` unless told to speak the legacy era.
async fn connect(server: &Path, legacy: bool) -> Result<oxmcp_client::Client, String> {
    let mut command = tokio::process::Command::new(server);
    command.stderr(std::process::Stdio::null());
    let era = if legacy {
        oxmcp_client::Era::Legacy
    } else {
        oxmcp_client::Era::Auto
    };
    oxmcp_client::Client::builder()
        .protocol(era)
        .connect_stdio(command)
        .await
        .map_err(|e| format!("connect to {}: {e}", server.display()))
}

/// Warms up, then measures one phase of `variant`.
async fn measure(stack: &Stack, variant: &Variant, options: &Options) -> Result<Phase, String> {
    let warmup = Limits {
        calls: options.warmup,
        min: Duration::ZERO,
        max: options.max_phase.min(Duration::from_secs(2)),
    };
    let measured = Limits {
        calls: options.calls,
        min: options.min_phase,
        max: options.max_phase,
    };
    run_phase(stack, variant, warmup).await?;
    run_phase(stack, variant, measured).await
}

/// Runs units of `variant` until the limits stop it. The driver's own CPU
/// is this process's: the client library and the agent, not the server.
async fn run_phase(stack: &Stack, variant: &Variant, limits: Limits) -> Result<Phase, String> {
    let per_unit = u64::try_from(variant.width).unwrap_or(1);
    let own_cpu =
        || procfs::cpu_ticks(std::process::id()).map_err(|e| format!("/proc/self/stat: {e}"));
    let cpu_before = own_cpu()?;
    let start = Instant::now();
    let mut calls = 0;
    while limits.more(calls, start) {
        for _ in 0..CHECK_EVERY {
            stack.unit(variant).await?;
        }
        calls += CHECK_EVERY * per_unit;
    }
    let elapsed = start.elapsed();
    let cpu = own_cpu()? - cpu_before;
    Ok(phase(calls, elapsed, &mut [], cpu))
}

fn us_per_call(phase: &Phase) -> f64 {
    1e6 / phase.calls_per_sec()
}

/// Column groups: variant | per tool call | ratios | CPU.
const GROUPS: [usize; 4] = [1, 2, 2, 1];

fn report(results: &[Results<Phase>], options: &Options, ticks: u64) -> String {
    let mut rows = vec![
        ["variant", "µs", "calls/s", "×floor", "×floor K", "µs/call"]
            .map(str::to_owned)
            .to_vec(),
    ];
    let mut notes = Vec::new();
    for (variant, result) in VARIANTS.iter().zip(results) {
        if let Some(failure) = &result.failure {
            notes.push(format!("{} FAILED: {failure}", variant.label()));
        }
        if result.runs.is_empty() {
            rows.push(vec![variant.label(), "FAILED".into()]);
            continue;
        }
        if result
            .runs
            .iter()
            .any(|(_, phase)| phase.calls < options.calls)
        {
            notes.push(format!(
                "{}: some phases hit the {:?} cap before {} calls; rates are over the calls made",
                variant.label(),
                options.max_phase,
                options.calls
            ));
        }
        let ratio = |same_width: bool| {
            let floor = variant.floor(same_width).map(|i| &results[i]);
            fmt(
                floor.map_or(f64::NAN, |floor| median_ratio(result, floor, us_per_call)),
                2,
            )
        };
        rows.push(vec![
            variant.label(),
            fmt(median_of(result, us_per_call), 2),
            fmt(median_of(result, Phase::calls_per_sec), 0),
            ratio(false),
            ratio(true),
            fmt(median_of(result, |phase| phase.cpu_us_per_call(ticks)), 2),
        ]);
    }
    let mut out = format!(
        "\nmedians of {} rounds; K = tool calls per unit (joined, or in one model turn); \
         ×floor = time per call / the sequential floor's (K=1) of the same side in the same round, \
         ×floor K = / the floor with the same K\n",
        options.rounds
    );
    let titles = ["", "per tool call", "time / floor", "driver CPU"];
    out.push_str(&table(&GROUPS, &titles, &rows));
    for note in notes {
        let _ = writeln!(out, "note: {note}");
    }
    out
}
