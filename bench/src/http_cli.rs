//! `mcp-bench http`: the options, the rounds and the report of the
//! Streamable HTTP benchmark. The measurement itself is in [`crate::http`].

use std::fmt::Write as _;
use std::process::ExitCode;
use std::time::Duration;

use crate::cli::{self, TargetChoice};
use crate::http::{self, Mode, RunResult, Settings};
use crate::stats::Phase;
use crate::{
    bin_dir, build_servers, fmt, median_of, median_ratio, procfs, resolve_targets, table, Builtin,
    Results, Target,
};

const USAGE: &str = "\
usage: mcp-bench http [options]

options:
  --calls N            a measured phase makes at least N calls (default 5000)...
  --min-phase-secs S   ...and runs at least S seconds (default 1.5)
  --max-phase-secs S   ...but stops issuing requests after S seconds (default 4)
  --rounds R           rounds; targets alternate within a round, medians are shown (default 3)
  --clients a,b,...    concurrent clients of each phase, each on its own
                       keep-alive connection (default 1,32)
  --warmup N           warm-up calls before each measured phase (default 1000)
  --sessions N         idle legacy sessions opened to measure RSS per session
                       (default 1000; 0 skips it)
  --targets a,b,...    targets to run (default floor,rmcp,rmcp-json,ours);
                       targets named here must exist, the others are skipped
                       (loudly) when their binary is missing
  --target-cmd NAME=PATH
                       an extra server (repeatable); always run. It is started
                       as `PATH --port N` and must serve POST /mcp on 127.0.0.1:N
  --no-build           when run by cargo, do not build the server binaries first

built-in targets (binaries next to this executable, run with --port N):
  floor        bench-floor-http          hyper + serde_json parse + canned reply,
                                         current-thread runtime
  floor-mt     bench-floor-http --multi-thread
                                         the same on the multi-threaded runtime
                                         (not run by default)
  rmcp         bench-rmcp-http           rmcp 3.9 StreamableHttpService, default
                                         config: stateful sessions, SSE replies
  rmcp-json    bench-rmcp-http --json    the same, stateless with JSON replies
  ours         bench-ours-http           this project's mcp-server
";

const BUILTIN: [Builtin; 5] = [
    Builtin {
        name: "floor",
        file: "bench-floor-http",
        args: &[],
        default: true,
    },
    Builtin {
        name: "floor-mt",
        file: "bench-floor-http",
        args: &["--multi-thread"],
        default: false,
    },
    Builtin {
        name: "rmcp",
        file: "bench-rmcp-http",
        args: &[],
        default: true,
    },
    Builtin {
        name: "rmcp-json",
        file: "bench-rmcp-http",
        args: &["--json"],
        default: true,
    },
    Builtin {
        name: "ours",
        file: "bench-ours-http",
        args: &[],
        default: true,
    },
];

/// Targets compared with `ours` in the closing lines.
const RMCP_TARGETS: [&str; 2] = ["rmcp", "rmcp-json"];

#[derive(Debug)]
struct Options {
    settings: Settings,
    rounds: usize,
    targets: TargetChoice,
    build: bool,
}

pub(crate) fn main(args: &[String]) -> ExitCode {
    cli::run_mode(args, USAGE, parse_options, run)
}

fn parse_options(args: &[String]) -> Result<Options, String> {
    let mut options = Options {
        settings: Settings {
            calls: 5_000,
            min_phase: Duration::from_millis(1500),
            max_phase: Duration::from_secs(4),
            warmup: 1_000,
            clients: vec![1, 32],
            sessions: 1_000,
        },
        rounds: 3,
        targets: TargetChoice::default(),
        build: true,
    };
    cli::parse_flags(args, |flag| {
        let settings = &mut options.settings;
        match flag.name() {
            "--calls" => settings.calls = flag.count()?,
            "--warmup" => settings.warmup = flag.count_or_zero()?,
            "--sessions" => settings.sessions = flag.count_or_zero()?,
            "--min-phase-secs" => settings.min_phase = flag.seconds()?,
            "--max-phase-secs" => settings.max_phase = flag.seconds()?,
            "--clients" => settings.clients = flag.counts()?,
            "--rounds" => options.rounds = flag.size()?,
            "--no-build" => options.build = false,
            _ => return options.targets.accept(flag),
        }
        Ok(true)
    })?;
    cli::check_phases(options.settings.min_phase, options.settings.max_phase)?;
    Ok(options)
}

/// Runs every round; returns whether every target ran cleanly.
fn run(options: &Options) -> Result<bool, String> {
    let bin_dir = bin_dir()?;
    if options.build {
        build_servers(&bin_dir);
    }
    let targets = resolve_targets(&BUILTIN, &options.targets, &bin_dir)?;
    let ticks = procfs::clock_ticks_per_second();
    let settings = &options.settings;
    let cpus = std::thread::available_parallelism().map_or(0, std::num::NonZero::get);
    println!(
        "http: phases of at least {} calls and {:?}, at most {:?}; clients {:?}; {} warm-up calls; {} idle sessions; {} rounds; {} CPUs; CLK_TCK {}",
        settings.calls,
        settings.min_phase,
        settings.max_phase,
        settings.clients,
        settings.warmup,
        settings.sessions,
        options.rounds,
        cpus,
        ticks
    );

    let mut results: Vec<Results<RunResult>> = targets.iter().map(|_| Results::default()).collect();
    let name_width = targets.iter().map(|t| t.name.len()).max().unwrap_or(0);
    for round in 0..options.rounds {
        // Alternate: every round runs each target once, starting one further.
        for offset in 0..targets.len() {
            let index = (round + offset) % targets.len();
            let target = &targets[index];
            if results[index].failure.is_some() {
                continue;
            }
            // The floor hands out session ids but keeps nothing per session.
            let measure_sessions = !matches!(target.name.as_str(), "floor" | "floor-mt");
            match http::measure(&target.path, &target.args, settings, measure_sessions) {
                Ok(result) => {
                    println!(
                        "  round {}/{} {:<width$} {}",
                        round + 1,
                        options.rounds,
                        target.name,
                        summary(&result, settings, ticks),
                        width = name_width,
                    );
                    for mode in Mode::ALL {
                        if let (0, Some(reason)) = (round, result.skipped(mode)) {
                            println!(
                                "  {} does not serve {} mode: {}",
                                target.name,
                                mode.name(),
                                first_line(reason)
                            );
                        }
                    }
                    results[index].runs.push((round, result));
                }
                Err(e) => {
                    println!("!!!!! target {} FAILED: {e} !!!!!", target.name);
                    results[index].failure = Some(e.to_string());
                }
            }
        }
    }
    print!("{}", report(&targets, &results, options, ticks));
    Ok(results.iter().all(|r| r.failure.is_none()))
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or("")
}

fn summary(result: &RunResult, settings: &Settings, ticks: u64) -> String {
    let mut out = String::new();
    for mode in Mode::ALL {
        if result.skipped(mode).is_some() {
            let _ = write!(out, "{} skipped | ", mode.name());
            continue;
        }
        let _ = write!(out, "{}", mode.name());
        for (index, clients) in settings.clients.iter().enumerate() {
            if let Some(phase) = result.phase(mode, index) {
                let _ = write!(
                    out,
                    " {clients}: {:>6.0}/s p50 {:>6.1} p99 {:>6.1} cpu {:>5.1} µs",
                    phase.calls_per_sec(),
                    phase.p50_us,
                    phase.p99_us,
                    phase.cpu_us_per_call(ticks)
                );
            }
        }
        out.push_str(" | ");
    }
    match result.kib_per_session {
        Some(kib) => {
            let _ = write!(out, "{kib:.1} KiB/session");
        }
        None if !result.sessions => out.push_str("no session ids"),
        None => out.push_str("sessions not measured"),
    }
    out
}

/// A metric of one phase of a run; NaN when the run has no such phase.
fn phase_metric(
    mode: Mode,
    clients: usize,
    metric: impl Fn(&Phase) -> f64,
) -> impl Fn(&RunResult) -> f64 {
    move |run| run.phase(mode, clients).map_or(f64::NAN, &metric)
}

fn clients_title(clients: u64) -> String {
    if clients == 1 {
        "1 client".into()
    } else {
        format!("{clients} clients")
    }
}

fn report(
    targets: &[Target],
    results: &[Results<RunResult>],
    options: &Options,
    ticks: u64,
) -> String {
    let settings = &options.settings;
    let find = |name: &str| {
        targets
            .iter()
            .position(|t| t.name == name)
            .map(|i| &results[i])
            .filter(|r| !r.runs.is_empty())
    };
    let floor = find("floor");

    let mut header = vec!["target".to_owned(), "mode".to_owned()];
    for _ in &settings.clients {
        for title in ["calls/s", "p50 µs", "p99 µs", "×floor", "CPU µs"] {
            header.push(title.to_owned());
        }
    }
    header.push("KiB".to_owned());
    let mut rows = vec![header];
    let mut notes = Vec::new();
    for (target, result) in targets.iter().zip(results) {
        if let Some(failure) = &result.failure {
            notes.push(format!("{} FAILED: {failure}", target.name));
        }
        if result.runs.is_empty() {
            rows.push(vec![target.name.clone(), String::new(), "FAILED".into()]);
            continue;
        }
        if result.runs.iter().any(|(_, run)| !run.sessions) {
            notes.push(format!(
                "{}: initialize returned no Mcp-Session-Id, so its legacy calls carry no session",
                target.name
            ));
        }
        for mode in Mode::ALL {
            rows.push(mode_row(
                target, result, mode, floor, settings, ticks, &mut notes,
            ));
        }
        let capped = result.runs.iter().any(|(_, run)| {
            run.modes
                .iter()
                .filter_map(|m| m.phases.as_ref().ok())
                .flatten()
                .any(|phase| phase.calls < settings.calls)
        });
        if capped {
            notes.push(format!(
                "{}: some phases hit the {:?} cap before {} calls; rates are over the calls made",
                target.name, settings.max_phase, settings.calls
            ));
        }
    }

    let mut out = format!(
        "\nmedians of {} rounds; ×floor = throughput / the floor's throughput in the same round, mode and clients; \
         CPU µs = server CPU per call; KiB = server RSS per idle legacy session\n",
        options.rounds
    );
    let mut groups = vec![2];
    let client_titles: Vec<String> = settings.clients.iter().map(|&c| clients_title(c)).collect();
    let mut titles = vec![""];
    for title in &client_titles {
        groups.push(5);
        titles.push(title);
    }
    groups.push(1);
    titles.push("session");
    out.push_str(&table(&groups, &titles, &rows));
    if let Some(ours) = find("ours") {
        for other in RMCP_TARGETS {
            if let Some(theirs) = find(other) {
                out.push_str(&versus(ours, other, theirs, &settings.clients, ticks));
            }
        }
    }
    if floor.is_none() {
        notes.push("no floor in this run: ×floor is not available".into());
    }
    for note in notes {
        let _ = writeln!(out, "note: {note}");
    }
    out
}

/// The table row of one target in one mode: a group of medians per client
/// count, then (legacy only) the memory per idle session.
fn mode_row(
    target: &Target,
    result: &Results<RunResult>,
    mode: Mode,
    floor: Option<&Results<RunResult>>,
    settings: &Settings,
    ticks: u64,
    notes: &mut Vec<String>,
) -> Vec<String> {
    let rate = |phase: &Phase| phase.calls_per_sec();
    let cpu = move |phase: &Phase| phase.cpu_us_per_call(ticks);
    let mut row = vec![target.name.clone(), mode.name().to_owned()];
    if let Some(reason) = result.runs.iter().find_map(|(_, run)| run.skipped(mode)) {
        row.push("n/a".into());
        notes.push(format!(
            "{} {}: the probe failed: {}",
            target.name,
            mode.name(),
            first_line(reason)
        ));
        return row;
    }
    for index in 0..settings.clients.len() {
        let ratio = floor.map_or(f64::NAN, |floor| {
            median_ratio(result, floor, phase_metric(mode, index, rate))
        });
        row.extend([
            fmt(median_of(result, phase_metric(mode, index, rate)), 0),
            fmt(
                median_of(result, phase_metric(mode, index, |p| p.p50_us)),
                1,
            ),
            fmt(
                median_of(result, phase_metric(mode, index, |p| p.p99_us)),
                1,
            ),
            fmt(ratio, 2),
            fmt(median_of(result, phase_metric(mode, index, cpu)), 1),
        ]);
    }
    if mode == Mode::Legacy {
        row.push(fmt(
            median_of(result, |run| run.kib_per_session.unwrap_or(f64::NAN)),
            1,
        ));
    }
    row
}

/// The lines comparing our server with another target, one per mode both
/// served.
fn versus(
    ours: &Results<RunResult>,
    other: &str,
    theirs: &Results<RunResult>,
    clients: &[u64],
    ticks: u64,
) -> String {
    let mut out = String::new();
    for mode in Mode::ALL {
        let ratio = |index: usize, metric: fn(&Phase, u64) -> f64| {
            median_ratio(
                ours,
                theirs,
                phase_metric(mode, index, |phase| metric(phase, ticks)),
            )
        };
        let mut throughput = Vec::new();
        let mut cpu = Vec::new();
        for (index, &count) in clients.iter().enumerate() {
            let rate = ratio(index, |phase, _| phase.calls_per_sec());
            let cpu_ratio = ratio(index, Phase::cpu_us_per_call);
            if rate.is_finite() {
                throughput.push(format!("×{} {}", fmt(rate, 2), clients_title(count)));
                cpu.push(format!("×{} {}", fmt(cpu_ratio, 2), clients_title(count)));
            }
        }
        if !throughput.is_empty() {
            let _ = writeln!(
                out,
                "ours / {other}, {}: throughput {}; CPU per call {}",
                mode.name(),
                throughput.join(", "),
                cpu.join(", ")
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(text: &str) -> Vec<String> {
        text.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn options_parse() {
        let options = parse_options(&args(
            "--clients 1,8 --targets floor,rmcp --sessions=0 --rounds 2",
        ))
        .unwrap();
        assert_eq!(options.settings.clients, [1, 8]);
        assert_eq!(options.settings.sessions, 0);
        assert_eq!(options.rounds, 2);
        assert_eq!(options.targets.names.unwrap(), ["floor", "rmcp"]);
        assert!(parse_options(&args("--clients 0")).is_err());
        assert!(parse_options(&args("--clients ,")).is_err());
        assert!(parse_options(&args("--bogus")).is_err());
    }

    #[test]
    fn every_result_shows_in_the_table() {
        let phase = Phase {
            calls: 10,
            elapsed: Duration::from_secs(1),
            p50_us: 1.0,
            p99_us: 2.0,
            cpu_ticks: 1,
        };
        let run = |modern: bool| RunResult {
            modes: vec![
                http::ModeResult {
                    mode: Mode::Legacy,
                    phases: Ok(vec![phase, phase]),
                },
                http::ModeResult {
                    mode: Mode::Modern,
                    phases: if modern {
                        Ok(vec![phase, phase])
                    } else {
                        Err("HTTP status 400".into())
                    },
                },
            ],
            sessions: true,
            kib_per_session: Some(50.0),
        };
        let targets: Vec<Target> = ["floor", "rmcp", "ours"]
            .into_iter()
            .map(|name| Target {
                name: name.into(),
                path: std::path::PathBuf::new(),
                args: Vec::new(),
            })
            .collect();
        let results: Vec<Results<RunResult>> = [true, false, true]
            .into_iter()
            .map(|modern| Results {
                runs: vec![(0, run(modern))],
                failure: None,
            })
            .collect();
        let options = parse_options(&[]).unwrap();
        let text = report(&targets, &results, &options, 100);
        assert!(text.contains("rmcp   modern |     n/a"), "{text}");
        assert!(
            text.contains("ours / rmcp, legacy: throughput ×1.00 1 client, ×1.00 32 clients"),
            "{text}"
        );
        assert!(!text.contains("ours / rmcp, modern"), "{text}");
        assert!(text.contains("50.0"), "{text}");
    }
}
