//! `mcp-bench client`: the client side. Our `oxmcp-client` and rmcp 3.9's
//! client each drive our server and rmcp's best server over stdio, and the
//! driver measures round trips and its own CPU per call. See `bench/README.md`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rmcp::model::CallToolRequestParams;
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::TokioChildProcess;
use rmcp::ServiceExt as _;
use serde_json::json;

use crate::cli;
use crate::stats::{phase, Limits, Phase};
use crate::{fmt, median_of, median_ratio, procfs, table, Results};

const USAGE: &str = "\
usage: mcp-bench client [options]

Measures MCP clients over stdio: our oxmcp-client and rmcp 3.9's client, each
driving our server (bench-ours-stdio) and rmcp's best server
(bench-rmcp-best-stdio). The CPU column is the driver's own CPU (the client).

options:
  --calls N            a measured phase makes at least N calls (default 10000)
  --min-phase-secs S   ...and runs at least S seconds (default 1.5)
  --max-phase-secs S   ...but stops issuing requests after S seconds (default 5)
  --rounds R           rounds; pairs alternate within a round, medians are shown (default 3)
  --in-flight K        concurrent tasks in the in-flight phase (default 64)
  --warmup N           warm-up calls, sequential then in flight (default 2000)
  --era E              our client's era: auto, legacy or modern (default auto)
  --current-thread     run the driver on a current-thread tokio runtime
                       (default: multi-threaded, as #[tokio::main])
  --no-build           when run by cargo, do not build the server binaries first
";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ClientKind {
    Ours,
    Rmcp,
}

/// One client/server pair.
struct Pair {
    name: &'static str,
    client: ClientKind,
    server: &'static str,
}

const PAIRS: [Pair; 4] = [
    Pair {
        name: "ours -> ours",
        client: ClientKind::Ours,
        server: "bench-ours-stdio",
    },
    Pair {
        name: "rmcp -> ours",
        client: ClientKind::Rmcp,
        server: "bench-ours-stdio",
    },
    Pair {
        name: "ours -> rmcp-best",
        client: ClientKind::Ours,
        server: "bench-rmcp-best-stdio",
    },
    Pair {
        name: "rmcp -> rmcp-best",
        client: ClientKind::Rmcp,
        server: "bench-rmcp-best-stdio",
    },
];

struct Options {
    calls: u64,
    min_phase: Duration,
    max_phase: Duration,
    rounds: usize,
    in_flight: u64,
    warmup: u64,
    era: oxmcp_client::Era,
    current_thread: bool,
    build: bool,
}

/// What one run of one pair measured; `cpu_ticks` in each phase is the
/// driver's own.
#[derive(Debug, Clone)]
struct RunResult {
    sequential: Phase,
    in_flight: Phase,
    protocol: String,
}

/// A connected client of either kind.
#[derive(Clone)]
enum Client {
    Ours(oxmcp_client::Client),
    Rmcp(Arc<RunningService<RoleClient, ()>>),
}

impl Client {
    async fn connect(
        kind: ClientKind,
        path: &Path,
        era: oxmcp_client::Era,
    ) -> Result<Self, String> {
        let mut command = tokio::process::Command::new(path);
        command.stderr(std::process::Stdio::null());
        match kind {
            ClientKind::Ours => oxmcp_client::Client::builder()
                .protocol(era)
                .connect_stdio(command)
                .await
                .map(Client::Ours)
                .map_err(|e| format!("connect: {e}")),
            ClientKind::Rmcp => {
                let (transport, _) = TokioChildProcess::builder(command)
                    .stderr(std::process::Stdio::null())
                    .spawn()
                    .map_err(|e| format!("spawn {}: {e}", path.display()))?;
                let service = ().serve(transport).await.map_err(|e| format!("connect: {e}"))?;
                Ok(Client::Rmcp(Arc::new(service)))
            }
        }
    }

    fn protocol(&self) -> String {
        match self {
            Client::Ours(client) => client.protocol_version().to_string(),
            Client::Rmcp(service) => service
                .peer_info()
                .map_or_else(|| "?".into(), |info| info.protocol_version.to_string()),
        }
    }

    /// One `tools/call add {a:1, b:2}`, checked to return the text "3".
    async fn call(&self) -> Result<(), String> {
        match self {
            Client::Ours(client) => {
                let result = client
                    .call_tool("add", json!({"a": 1, "b": 2}))
                    .await
                    .map_err(|e| format!("call: {e}"))?;
                match result.content.as_slice() {
                    [oxmcp_client::types::ContentBlock::Text(text)] if text.text == "3" => Ok(()),
                    _ => Err(format!("expected one text content \"3\": {result:?}")),
                }
            }
            Client::Rmcp(service) => {
                let arguments = json!({"a": 1, "b": 2});
                let serde_json::Value::Object(arguments) = arguments else {
                    unreachable!("an object literal");
                };
                let result = service
                    .call_tool(CallToolRequestParams::new("add").with_arguments(arguments))
                    .await
                    .map_err(|e| format!("call: {e}"))?;
                let ok = result.is_error != Some(true)
                    && matches!(result.content.as_slice(),
                        [block] if block.as_text().is_some_and(|t| t.text == "3"));
                if ok {
                    Ok(())
                } else {
                    Err(format!("expected one text content \"3\": {result:?}"))
                }
            }
        }
    }

    async fn close(self) {
        match self {
            Client::Ours(client) => client.close().await,
            Client::Rmcp(service) => {
                if let Ok(service) = Arc::try_unwrap(service) {
                    let _ = service.cancel().await;
                }
            }
        }
    }
}

pub(crate) fn main(args: &[String]) -> ExitCode {
    cli::run_mode(args, USAGE, parse_options, run)
}

fn parse_options(args: &[String]) -> Result<Options, String> {
    let mut options = Options {
        calls: 10_000,
        min_phase: Duration::from_millis(1500),
        max_phase: Duration::from_secs(5),
        rounds: 3,
        in_flight: 64,
        warmup: 2_000,
        era: oxmcp_client::Era::Auto,
        current_thread: false,
        build: true,
    };
    cli::parse_flags(args, |flag| {
        match flag.name() {
            "--calls" => options.calls = flag.count()?,
            "--in-flight" => options.in_flight = flag.count()?,
            "--warmup" => options.warmup = flag.count()?,
            "--min-phase-secs" => options.min_phase = flag.seconds()?,
            "--max-phase-secs" => options.max_phase = flag.seconds()?,
            "--rounds" => options.rounds = flag.size()?,
            "--era" => {
                options.era = match flag.text()? {
                    "auto" => oxmcp_client::Era::Auto,
                    "legacy" => oxmcp_client::Era::Legacy,
                    "modern" => oxmcp_client::Era::Modern,
                    other => {
                        return Err(format!("--era needs auto, legacy or modern, not {other:?}"))
                    }
                };
            }
            "--current-thread" => options.current_thread = true,
            "--no-build" => options.build = false,
            _ => return Ok(false),
        }
        Ok(true)
    })?;
    cli::check_phases(options.min_phase, options.max_phase)?;
    Ok(options)
}

/// Runs every round; returns whether every pair ran cleanly.
fn run(options: &Options) -> Result<bool, String> {
    let bin_dir = crate::bin_dir()?;
    if options.build {
        crate::build_servers(&bin_dir);
    }
    let paths: Vec<PathBuf> = PAIRS.iter().map(|p| bin_dir.join(p.server)).collect();
    for path in &paths {
        if !path.is_file() {
            return Err(format!("{} does not exist", path.display()));
        }
    }
    let runtime = if options.current_thread {
        tokio::runtime::Builder::new_current_thread()
    } else {
        tokio::runtime::Builder::new_multi_thread()
    }
    .enable_all()
    .build()
    .map_err(|e| format!("tokio runtime: {e}"))?;
    let ticks = procfs::clock_ticks_per_second();
    let cpus = std::thread::available_parallelism().map_or(0, std::num::NonZero::get);
    println!(
        "client: phases of at least {} calls and {:?}, at most {:?}; {} tasks in flight; {} warm-up calls; {} rounds; {} driver runtime; our client's era {:?}; {} CPUs; CLK_TCK {}",
        options.calls,
        options.min_phase,
        options.max_phase,
        options.in_flight,
        options.warmup,
        options.rounds,
        if options.current_thread { "current-thread" } else { "multi-thread" },
        options.era,
        cpus,
        ticks
    );

    let mut results: Vec<Results<RunResult>> = PAIRS.iter().map(|_| Results::default()).collect();
    let width = PAIRS.iter().map(|p| p.name.len()).max().unwrap_or(0);
    for round in 0..options.rounds {
        for offset in 0..PAIRS.len() {
            let index = (round + offset) % PAIRS.len();
            if results[index].failure.is_some() {
                continue;
            }
            let pair = &PAIRS[index];
            let budget = options.max_phase * 4 + Duration::from_secs(60);
            let outcome = runtime.block_on(async {
                tokio::time::timeout(budget, measure(pair.client, &paths[index], options))
                    .await
                    .unwrap_or_else(|_| Err(format!("did not finish within {budget:?}")))
            });
            match outcome {
                Ok(result) => {
                    println!(
                        "  round {}/{} {:<width$} {}",
                        round + 1,
                        options.rounds,
                        pair.name,
                        summary(&result, ticks),
                    );
                    results[index].runs.push((round, result));
                }
                Err(e) => {
                    println!("!!!!! pair {} FAILED: {e} !!!!!", pair.name);
                    results[index].failure = Some(e);
                }
            }
        }
    }
    print!("{}", report(&results, options, ticks));
    Ok(results.iter().all(|r| r.failure.is_none()))
}

async fn measure(kind: ClientKind, path: &Path, options: &Options) -> Result<RunResult, String> {
    let client = Client::connect(kind, path, options.era).await?;
    let result = phases(&client, options).await;
    client.close().await;
    result
}

async fn phases(client: &Client, options: &Options) -> Result<RunResult, String> {
    let protocol = client.protocol();
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
    sequential(client, warmup).await?;
    in_flight(client, warmup, options.in_flight).await?;
    let sequential = sequential(client, measured).await?;
    let in_flight = in_flight(client, measured, options.in_flight).await?;
    Ok(RunResult {
        sequential,
        in_flight,
        protocol,
    })
}

fn own_cpu_ticks() -> Result<u64, String> {
    procfs::cpu_ticks(std::process::id()).map_err(|e| format!("/proc/self/stat: {e}"))
}

async fn sequential(client: &Client, limits: Limits) -> Result<Phase, String> {
    let mut latencies = Vec::with_capacity(usize::try_from(limits.calls).unwrap_or(0));
    let cpu_before = own_cpu_ticks()?;
    let start = Instant::now();
    let mut calls = 0;
    while limits.more(calls, start) {
        let sent = Instant::now();
        client.call().await?;
        latencies.push(sent.elapsed());
        calls += 1;
    }
    let elapsed = start.elapsed();
    let cpu = own_cpu_ticks()? - cpu_before;
    Ok(phase(calls, elapsed, &mut latencies, cpu))
}

/// `tasks` tasks, each making one call at a time, until the limits stop them.
async fn in_flight(client: &Client, limits: Limits, tasks: u64) -> Result<Phase, String> {
    let issued = Arc::new(AtomicU64::new(0));
    let cpu_before = own_cpu_ticks()?;
    let start = Instant::now();
    let mut handles = Vec::new();
    for _ in 0..tasks {
        let client = client.clone();
        let issued = Arc::clone(&issued);
        handles.push(tokio::spawn(async move {
            let mut latencies = Vec::new();
            while limits.more(issued.fetch_add(1, Ordering::Relaxed), start) {
                let sent = Instant::now();
                client.call().await?;
                latencies.push(sent.elapsed());
            }
            Ok::<_, String>(latencies)
        }));
    }
    let mut latencies = Vec::new();
    let mut failure = None;
    for handle in handles {
        match handle.await {
            Ok(Ok(mut mine)) => latencies.append(&mut mine),
            Ok(Err(e)) => failure = failure.or(Some(e)),
            Err(e) => failure = failure.or(Some(format!("task: {e}"))),
        }
    }
    let elapsed = start.elapsed();
    let cpu = own_cpu_ticks()? - cpu_before;
    if let Some(e) = failure {
        return Err(e);
    }
    let calls = u64::try_from(latencies.len()).unwrap_or(u64::MAX);
    Ok(phase(calls, elapsed, &mut latencies, cpu))
}

fn summary(result: &RunResult, ticks: u64) -> String {
    let phases = crate::stats::two_phases(&result.sequential, &result.in_flight, ticks);
    format!("{phases} | {}", result.protocol)
}

/// Column groups: pair | sequential | in flight | client CPU | protocol.
const GROUPS: [usize; 5] = [1, 3, 3, 2, 1];

fn report(results: &[Results<RunResult>], options: &Options, ticks: u64) -> String {
    let mut rows = vec![[
        "client -> server",
        "calls/s",
        "p50 µs",
        "p99 µs",
        "calls/s",
        "p50 µs",
        "p99 µs",
        "seq",
        "in flight",
        "version",
    ]
    .map(str::to_owned)
    .to_vec()];
    let mut notes = Vec::new();
    for (pair, result) in PAIRS.iter().zip(results) {
        if let Some(failure) = &result.failure {
            notes.push(format!("{} FAILED: {failure}", pair.name));
        }
        if result.runs.is_empty() {
            rows.push(vec![pair.name.to_owned(), "FAILED".into()]);
            continue;
        }
        if result
            .runs
            .iter()
            .any(|(_, r)| r.sequential.calls < options.calls || r.in_flight.calls < options.calls)
        {
            notes.push(format!(
                "{}: some phases hit the {:?} cap before {} calls; rates are over the calls made",
                pair.name, options.max_phase, options.calls
            ));
        }
        rows.push(vec![
            pair.name.to_owned(),
            fmt(median_of(result, |r| r.sequential.calls_per_sec()), 0),
            fmt(median_of(result, |r| r.sequential.p50_us), 1),
            fmt(median_of(result, |r| r.sequential.p99_us), 1),
            fmt(median_of(result, |r| r.in_flight.calls_per_sec()), 0),
            fmt(median_of(result, |r| r.in_flight.p50_us), 1),
            fmt(median_of(result, |r| r.in_flight.p99_us), 1),
            fmt(
                median_of(result, |r| r.sequential.cpu_us_per_call(ticks)),
                1,
            ),
            fmt(median_of(result, |r| r.in_flight.cpu_us_per_call(ticks)), 1),
            result.runs[0].1.protocol.clone(),
        ]);
    }
    let mut out = format!(
        "\nmedians of {} rounds; CPU is the driver's (the client's) own utime + stime per call\n",
        options.rounds
    );
    let in_flight_title = format!("{} in flight", options.in_flight);
    let titles = [
        "",
        "sequential",
        &in_flight_title,
        "client CPU µs/call",
        "protocol",
    ];
    out.push_str(&table(&GROUPS, &titles, &rows));
    // Pairs 0/1 share our server, 2/3 rmcp's.
    for (ours, theirs, server) in [(0, 1, "ours"), (2, 3, "rmcp-best")] {
        let (a, b) = (&results[ours], &results[theirs]);
        if a.runs.is_empty() || b.runs.is_empty() {
            continue;
        }
        let ratio = |metric: &dyn Fn(&RunResult) -> f64| fmt(median_ratio(a, b, metric), 2);
        let _ = writeln!(
            out,
            "ours client / rmcp client, on the {server} server: throughput ×{} sequential, ×{} {} in flight; client CPU per call ×{} sequential, ×{} in flight",
            ratio(&|r| r.sequential.calls_per_sec()),
            ratio(&|r| r.in_flight.calls_per_sec()),
            options.in_flight,
            ratio(&|r| r.sequential.cpu_us_per_call(ticks)),
            ratio(&|r| r.in_flight.cpu_us_per_call(ticks)),
        );
    }
    for note in notes {
        let _ = writeln!(out, "note: {note}");
    }
    out
}
