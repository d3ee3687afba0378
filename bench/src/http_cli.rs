//! `mcp-bench http`: the options, the rounds and the report of the
//! Streamable HTTP benchmark. The measurement itself is in [`crate::http`].

use std::fmt::Write as _;
use std::process::ExitCode;
use std::time::Duration;

use crate::cli::{self, TargetChoice};
use crate::http::{self, Mode, RunResult, Settings};
use crate::redis::{RedisServer, REDIS_SERVER};
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
  --targets a,b,...    targets to run (default floor,rmcp,rmcp-json,ours, or
                       floor,ours,ours-redis with --redis); targets named here
                       must exist, the others are skipped (loudly) when their
                       binary is missing
  --redis              compare our server with its state on Redis against the
                       in-memory store: the driver starts its own
                       /usr/bin/redis-server on a free port (no persistence),
                       runs ours-redis on it, empties it before every run, and
                       measures Redis's used_memory per idle session
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
  ours         bench-ours-http           this project's oxmcp-server
  ours-redis   bench-ours-http --redis URL
                                         the same with its state on the Redis
                                         the driver starts (run by default only
                                         with --redis)
";

/// The built-in target whose server keeps its state on the driver's Redis;
/// the driver adds `--redis URL` to its arguments.
const OURS_REDIS: &str = "ours-redis";

/// The built-in targets; `redis` (`--redis`) changes the default set to the
/// floor, ours and ours-redis.
fn builtins(redis: bool) -> [Builtin; 6] {
    [
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
            default: !redis,
        },
        Builtin {
            name: "rmcp-json",
            file: "bench-rmcp-http",
            args: &["--json"],
            default: !redis,
        },
        Builtin {
            name: "ours",
            file: "bench-ours-http",
            args: &[],
            default: true,
        },
        Builtin {
            name: OURS_REDIS,
            file: "bench-ours-http",
            args: &[],
            default: redis,
        },
    ]
}

/// Targets compared with `ours` in the closing lines.
const RMCP_TARGETS: [&str; 2] = ["rmcp", "rmcp-json"];

#[derive(Debug)]
struct Options {
    settings: Settings,
    rounds: usize,
    targets: TargetChoice,
    build: bool,
    /// `--redis`: the default targets are floor, ours and ours-redis.
    redis: bool,
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
        redis: false,
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
            "--redis" => options.redis = true,
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
    let mut targets = resolve_targets(&builtins(options.redis), &options.targets, &bin_dir)?;
    // The built-in ours-redis (not a --target-cmd of that name) gets a Redis
    // of its own, which lives until the end of the run.
    let redis_target = targets.iter().position(|target| {
        target.name == OURS_REDIS && !options.targets.cmds.iter().any(|(n, _)| n == OURS_REDIS)
    });
    let redis = match redis_target {
        Some(index) => {
            let redis = RedisServer::start()?;
            targets[index]
                .args
                .extend(["--redis".to_owned(), redis.url()]);
            Some(redis)
        }
        None => None,
    };
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
    if let Some(redis) = &redis {
        println!(
            "redis: {REDIS_SERVER} at {} (no persistence), emptied (FLUSHALL) before every run",
            redis.url()
        );
    }

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
            // Every run starts from an empty Redis; only ours-redis uses it.
            if let Some(redis) = &redis {
                redis
                    .flush_all()
                    .map_err(|e| format!("FLUSHALL on {}: {e}", redis.url()))?;
            }
            let target_redis = redis.as_ref().filter(|_| Some(index) == redis_target);
            let measured = http::measure(
                &target.path,
                &target.args,
                settings,
                measure_sessions,
                target_redis,
            );
            match measured {
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
    drop(redis);
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
    if let Some(bytes) = result.redis_bytes_per_session {
        let _ = write!(out, ", {bytes:.0} B/session in Redis");
        if let Some(keys) = result.redis_keys_added {
            let _ = write!(
                out,
                " ({keys} keys added for {} sessions)",
                settings.sessions
            );
        }
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
    // The Redis column shows only when some run measured Redis.
    let redis_column = results.iter().any(|result| {
        result
            .runs
            .iter()
            .any(|(_, run)| run.redis_bytes_per_session.is_some())
    });

    let mut header = vec!["target".to_owned(), "mode".to_owned()];
    for _ in &settings.clients {
        for title in ["calls/s", "p50 µs", "p99 µs", "×floor", "CPU µs"] {
            header.push(title.to_owned());
        }
    }
    header.push("KiB".to_owned());
    if redis_column {
        header.push("Redis B".to_owned());
    }
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
            let mut row = mode_row(target, result, mode, floor, settings, ticks, &mut notes);
            if redis_column && mode == Mode::Legacy && row.len() > 3 {
                row.push(fmt(median_of(result, redis_bytes), 0));
            }
            rows.push(row);
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
         CPU µs = server CPU per call; KiB = server RSS per idle legacy session{}\n",
        options.rounds,
        if redis_column {
            "; Redis B = Redis used_memory per idle legacy session"
        } else {
            ""
        }
    );
    let mut groups = vec![2];
    let client_titles: Vec<String> = settings.clients.iter().map(|&c| clients_title(c)).collect();
    let mut titles = vec![""];
    for title in &client_titles {
        groups.push(5);
        titles.push(title);
    }
    groups.push(if redis_column { 2 } else { 1 });
    titles.push("session");
    out.push_str(&table(&groups, &titles, &rows));
    if let Some(ours) = find("ours") {
        for other in RMCP_TARGETS {
            if let Some(theirs) = find(other) {
                out.push_str(&versus(ours, other, theirs, &settings.clients, ticks));
            }
        }
        if let Some(on_redis) = find(OURS_REDIS) {
            out.push_str(&redis_block(ours, on_redis, &settings.clients, ticks));
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

fn redis_bytes(run: &RunResult) -> f64 {
    run.redis_bytes_per_session.unwrap_or(f64::NAN)
}

/// The targets for the Redis store: ours-redis calls/s over ours
/// (and ours' CPU per call over ours-redis'), per mode, at least this...
const REDIS_LEGACY_TARGET: f64 = 0.8;
const REDIS_MODERN_TARGET: f64 = 0.95;
/// ...and Redis memory per idle session at most this many bytes.
const REDIS_BYTES_TARGET: f64 = 1024.0;

/// `met` / `NOT met` for a value against a bound; `not measured` when the
/// value is missing.
fn verdict(value: f64, met: bool) -> &'static str {
    if !value.is_finite() {
        "not measured"
    } else if met {
        "met"
    } else {
        "NOT met"
    }
}

/// The closing block on the Redis store: ours-redis against ours (the same
/// server, in-memory store) per mode and client count, and the Redis memory
/// per idle session, each against the target.
fn redis_block(
    ours: &Results<RunResult>,
    on_redis: &Results<RunResult>,
    clients: &[u64],
    ticks: u64,
) -> String {
    let mut rows = Vec::new();
    for mode in Mode::ALL {
        let bound = match mode {
            Mode::Legacy => REDIS_LEGACY_TARGET,
            Mode::Modern => REDIS_MODERN_TARGET,
        };
        for (index, &count) in clients.iter().enumerate() {
            let rate = median_ratio(
                on_redis,
                ours,
                phase_metric(mode, index, Phase::calls_per_sec),
            );
            // Inverted so that, as for throughput, 1 is parity and lower is worse.
            let cpu = median_ratio(
                ours,
                on_redis,
                phase_metric(mode, index, |phase| phase.cpu_us_per_call(ticks)),
            );
            let title = clients_title(count);
            for (what, value) in [
                ("calls/s, ours-redis / ours", rate),
                ("CPU per call, ours / ours-redis", cpu),
            ] {
                rows.push(vec![
                    format!("{} {title}: {what}", mode.name()),
                    fmt(value, 2),
                    format!("≥ {bound:.2}"),
                    verdict(value, value >= bound).to_owned(),
                ]);
            }
        }
    }
    let bytes = median_of(on_redis, redis_bytes);
    rows.push(vec![
        "Redis used_memory per idle legacy session, bytes".to_owned(),
        fmt(bytes, 0),
        format!("≤ {REDIS_BYTES_TARGET:.0}"),
        verdict(bytes, bytes <= REDIS_BYTES_TARGET).to_owned(),
    ]);
    format!(
        "\nRedis store: ours-redis (state on Redis) against ours (in memory), same server; \
         ratios are medians of per-round ratios, 1 = parity, lower = worse\n{}",
        table(
            &[1, 1, 1, 1],
            &["measure", "value", "target", "result"],
            &rows
        )
    )
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
            redis_bytes_per_session: None,
            redis_keys_added: None,
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
        assert!(!text.contains("Redis"), "{text}");
    }

    #[test]
    fn redis_changes_the_default_targets_and_ours_redis_can_be_named() {
        let defaults = |redis: bool| -> Vec<&str> {
            builtins(redis)
                .iter()
                .filter(|b| b.default)
                .map(|b| b.name)
                .collect()
        };
        assert_eq!(defaults(false), ["floor", "rmcp", "rmcp-json", "ours"]);
        assert_eq!(defaults(true), ["floor", "ours", OURS_REDIS]);
        assert!(parse_options(&args("--redis")).unwrap().redis);
        assert!(!parse_options(&args("--targets ours-redis")).unwrap().redis);
    }

    #[test]
    fn the_redis_block_compares_ours_redis_with_ours() {
        let phase = |calls: u64, cpu_ticks: u64| Phase {
            calls,
            elapsed: Duration::from_secs(1),
            p50_us: 1.0,
            p99_us: 2.0,
            cpu_ticks,
        };
        // ours: 1000 calls/s, 10 ticks; ours-redis: 900 calls/s at 1 client
        // and 700 at 32, CPU 10 ticks (so CPU/call 1000/900 of ours')...
        let run = |legacy: [Phase; 2], modern: [Phase; 2], redis_bytes| RunResult {
            modes: vec![
                http::ModeResult {
                    mode: Mode::Legacy,
                    phases: Ok(legacy.to_vec()),
                },
                http::ModeResult {
                    mode: Mode::Modern,
                    phases: Ok(modern.to_vec()),
                },
            ],
            sessions: true,
            kib_per_session: Some(5.0),
            redis_bytes_per_session: redis_bytes,
            redis_keys_added: None,
        };
        let same = [phase(1000, 10), phase(1000, 10)];
        let ours = run(same, same, None);
        let on_redis = run(
            [phase(900, 10), phase(700, 10)],
            [phase(1000, 10), phase(940, 10)],
            Some(1500.0),
        );
        let targets: Vec<Target> = ["floor", "ours", OURS_REDIS]
            .into_iter()
            .map(|name| Target {
                name: name.into(),
                path: std::path::PathBuf::new(),
                args: Vec::new(),
            })
            .collect();
        let results: Vec<Results<RunResult>> = [ours.clone(), ours, on_redis]
            .into_iter()
            .map(|run| Results {
                runs: vec![(0, run)],
                failure: None,
            })
            .collect();
        let options = parse_options(&[]).unwrap();
        let text = report(&targets, &results, &options, 100);
        let line = |start: &str| {
            text.lines()
                .map(|line| line.split_whitespace().collect::<Vec<_>>().join(" "))
                .find(|line| line.starts_with(start))
                .unwrap_or_else(|| panic!("no line {start:?} in {text}"))
        };
        assert!(
            line("legacy 1 client: calls/s").ends_with("| 0.90 | ≥ 0.80 | met"),
            "{text}"
        );
        assert!(
            line("legacy 32 clients: calls/s").ends_with("| 0.70 | ≥ 0.80 | NOT met"),
            "{text}"
        );
        assert!(
            line("legacy 32 clients: CPU").ends_with("| 0.70 | ≥ 0.80 | NOT met"),
            "{text}"
        );
        assert!(
            line("modern 32 clients: calls/s").ends_with("| 0.94 | ≥ 0.95 | NOT met"),
            "{text}"
        );
        assert!(
            line("modern 1 client: CPU").ends_with("| 1.00 | ≥ 0.95 | met"),
            "{text}"
        );
        assert!(
            line("Redis used_memory").ends_with("| 1500 | ≤ 1024 | NOT met"),
            "{text}"
        );
        // The table's legacy row of ours-redis ends with the Redis bytes.
        assert!(line("ours-redis legacy").ends_with("| 5.0 1500"), "{text}");
        assert!(line("ours legacy").ends_with("| 5.0 -"), "{text}");
    }
}
