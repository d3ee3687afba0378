//! `mcp-bench`: side-by-side benchmark of MCP servers over stdio and
//! Streamable HTTP, against a bare `serde_json` floor. See `bench/README.md`.

mod agent;
mod build;
mod cli;
mod client;
mod http;
mod http_cli;
mod procfs;
mod redis;
mod stats;
mod stdio;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Duration;

use cli::TargetChoice;
use stdio::{RunResult, Settings};

const USAGE: &str = "\
usage: mcp-bench stdio [options]    (mcp-bench stdio --help)
       mcp-bench http [options]     (mcp-bench http --help)
       mcp-bench client [options]   (mcp-bench client --help)
       mcp-bench agent [options]    (mcp-bench agent --help)
       mcp-bench build [options]    (mcp-bench build --help)
";

const STDIO_USAGE: &str = "\
usage: mcp-bench stdio [options]

options:
  --calls N            a measured phase makes at least N calls (default 10000)
  --min-phase-secs S   ...and runs at least S seconds (default 1.5)
  --max-phase-secs S   ...but stops issuing requests after S seconds (default 5)
  --rounds R           rounds; targets alternate within a round, medians are shown (default 3)
  --in-flight K        requests outstanding in the pipelined phase (default 64)
  --warmup N           warm-up calls, sequential then pipelined (default 2000)
  --targets a,b,...    targets to run (default floor,rmcp,rmcp-best,ours);
                       targets named here must exist, the others are skipped
                       (loudly) when their binary is missing
  --target-cmd NAME=PATH
                       an extra stdio server (repeatable); always run
  --no-build           when run by cargo, do not build the server binaries first

built-in targets (binaries next to this executable):
  floor         bench-floor-stdio       serde_json parse + canned reply
  rmcp          bench-rmcp-stdio        rmcp 3.9, default setup (stdio(), router per call)
  rmcp-best     bench-rmcp-best-stdio   rmcp 3.9, stdio_pipes(), router built once,
                                        current-thread runtime
  rmcp-best-mt  bench-rmcp-best-stdio --multi-thread
                                        the same on the multi-threaded runtime
                                        (not run by default)
  ours          bench-ours-stdio        this project's oxmcp-server
  ours-ct       bench-ours-stdio --current-thread   the same on a current-thread runtime
  ours-otel-export  bench-ours-stdio --otel-export
                                        spans and metrics exported as OTEL_* says
                                        (needs --features otel; not run by default)
";

/// A built-in target: name, binary next to the driver, arguments, and
/// whether it runs by default.
struct Builtin {
    name: &'static str,
    file: &'static str,
    args: &'static [&'static str],
    default: bool,
}

const BUILTIN: [Builtin; 7] = [
    Builtin {
        name: "floor",
        file: "bench-floor-stdio",
        args: &[],
        default: true,
    },
    Builtin {
        name: "rmcp",
        file: "bench-rmcp-stdio",
        args: &[],
        default: true,
    },
    Builtin {
        name: "rmcp-best",
        file: "bench-rmcp-best-stdio",
        args: &[],
        default: true,
    },
    Builtin {
        name: "rmcp-best-mt",
        file: "bench-rmcp-best-stdio",
        args: &["--multi-thread"],
        default: false,
    },
    Builtin {
        name: "ours",
        file: "bench-ours-stdio",
        args: &[],
        default: true,
    },
    Builtin {
        name: "ours-ct",
        file: "bench-ours-stdio",
        args: &["--current-thread"],
        default: true,
    },
    Builtin {
        name: "ours-otel-export",
        file: "bench-ours-stdio",
        args: &["--otel-export"],
        default: false,
    },
];

#[derive(Debug)]
struct Options {
    settings: Settings,
    rounds: usize,
    targets: TargetChoice,
    build: bool,
}

#[derive(Debug)]
struct Target {
    name: String,
    path: PathBuf,
    args: Vec<String>,
}

/// Every run of one target (with its round), and its first failure if any.
#[derive(Debug)]
struct Results<R> {
    runs: Vec<(usize, R)>,
    failure: Option<String>,
}

impl<R> Default for Results<R> {
    fn default() -> Self {
        Self {
            runs: Vec::new(),
            failure: None,
        }
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("stdio") => stdio_main(&args[1..]),
        Some("http") => http_cli::main(&args[1..]),
        Some("client") => client::main(&args[1..]),
        Some("agent") => agent::main(&args[1..]),
        Some("build") => build::main(&args[1..]),
        Some("-h" | "--help") => {
            print!("{USAGE}");
            ExitCode::SUCCESS
        }
        _ => {
            eprint!("{USAGE}");
            ExitCode::from(2)
        }
    }
}

fn stdio_main(args: &[String]) -> ExitCode {
    cli::run_mode(args, STDIO_USAGE, parse_options, run)
}

fn parse_options(args: &[String]) -> Result<Options, String> {
    let mut options = Options {
        settings: Settings {
            calls: 10_000,
            min_phase: Duration::from_millis(1500),
            max_phase: Duration::from_secs(5),
            in_flight: 64,
            warmup: 2_000,
        },
        rounds: 3,
        targets: TargetChoice::default(),
        build: true,
    };
    cli::parse_flags(args, |flag| {
        let settings = &mut options.settings;
        match flag.name() {
            "--calls" => settings.calls = flag.count()?,
            "--in-flight" => settings.in_flight = flag.count()?,
            "--warmup" => settings.warmup = flag.count()?,
            "--min-phase-secs" => settings.min_phase = flag.seconds()?,
            "--max-phase-secs" => settings.max_phase = flag.seconds()?,
            "--rounds" => options.rounds = flag.size()?,
            "--no-build" => options.build = false,
            _ => return options.targets.accept(flag),
        }
        Ok(true)
    })?;
    cli::check_phases(options.settings.min_phase, options.settings.max_phase)?;
    Ok(options)
}

/// Resolves the targets to run: those named (built-in or `--target-cmd`), or
/// the default built-ins and every `--target-cmd`. A missing binary is an
/// error when the target was asked for by name, and a loud skip otherwise.
fn resolve_targets(
    builtins: &[Builtin],
    choice: &TargetChoice,
    bin_dir: &Path,
) -> Result<Vec<Target>, String> {
    let target_cmds = &choice.cmds;
    let builtin = |name: &str| {
        builtins.iter().find(|b| b.name == name).map(|b| {
            let args = b.args.iter().map(|&arg| arg.to_owned()).collect();
            (bin_dir.join(b.file), args)
        })
    };
    let custom = |name: &str| {
        target_cmds
            .iter()
            .find(|(custom, _)| custom == name)
            .map(|(_, path)| (path.clone(), Vec::new()))
    };
    // (target, asked for by name)
    let mut wanted: Vec<(Target, bool)> = Vec::new();
    let mut want = |name: &str, (path, args): (PathBuf, Vec<String>), explicit: bool| {
        if !wanted.iter().any(|(target, _)| target.name == name) {
            let name = name.to_owned();
            wanted.push((Target { name, path, args }, explicit));
        }
    };
    match &choice.names {
        Some(names) => {
            for name in names {
                let found = custom(name)
                    .or_else(|| builtin(name))
                    .ok_or_else(|| format!("unknown target {name:?}"))?;
                want(name, found, true);
            }
        }
        None => {
            for b in builtins.iter().filter(|b| b.default) {
                if custom(b.name).is_none() {
                    want(b.name, builtin(b.name).expect("a built-in"), false);
                }
            }
        }
    }
    for (name, path) in target_cmds {
        want(name, (path.clone(), Vec::new()), true);
    }

    let mut targets = Vec::new();
    for (target, explicit) in wanted {
        if target.path.is_file() {
            targets.push(target);
        } else if explicit {
            return Err(format!(
                "target {}: {} does not exist",
                target.name,
                target.path.display()
            ));
        } else {
            println!(
                "!!!!! SKIPPED target `{}`: {} does not exist (name it in --targets to make this an error) !!!!!",
                target.name,
                target.path.display()
            );
        }
    }
    if targets.is_empty() {
        return Err("no target to run".into());
    }
    Ok(targets)
}

/// The directory of this executable, where the server binaries are.
fn bin_dir() -> Result<PathBuf, String> {
    let exe = std::env::current_exe().map_err(|e| format!("current_exe: {e}"))?;
    Ok(exe
        .parent()
        .ok_or("the executable has no directory")?
        .to_path_buf())
}

/// When run by `cargo run`, builds this package's binaries (the servers) in
/// the same profile and target directory, since `cargo run` builds only the
/// driver. A failure is reported and the run goes on with what exists.
fn build_servers(bin_dir: &Path) {
    let Some(cargo) = std::env::var_os("CARGO") else {
        return;
    };
    let mut command = Command::new(cargo);
    command.args([
        "build",
        "--quiet",
        "-p",
        "mcp-bench",
        "--bins",
        "--manifest-path",
    ]);
    command.arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml"));
    if cfg!(feature = "otel") {
        command.args(["--features", "otel"]);
    }
    match bin_dir.file_name().and_then(|name| name.to_str()) {
        Some("release") => {
            command.arg("--release");
        }
        Some("debug") => {
            println!(
                "!!!!! WARNING: this is a debug build; run with --release for real numbers !!!!!"
            );
        }
        Some(profile) => {
            command.args(["--profile", profile]);
        }
        None => return,
    }
    if let Some(target_dir) = bin_dir.parent() {
        command.arg("--target-dir").arg(target_dir);
    }
    println!("building the server binaries (--no-build to skip)...");
    match command.status() {
        Ok(status) if status.success() => {}
        Ok(status) => println!(
            "!!!!! WARNING: building the server binaries failed ({status}); using whatever binaries exist !!!!!"
        ),
        Err(e) => println!("!!!!! WARNING: could not run cargo ({e}); using whatever binaries exist !!!!!"),
    }
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
        "stdio: phases of at least {} calls and {:?}, at most {:?}; {} in flight; {} warm-up calls; {} rounds; {} CPUs; CLK_TCK {}",
        settings.calls,
        settings.min_phase,
        settings.max_phase,
        settings.in_flight,
        settings.warmup,
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
            match stdio::measure(&target.path, &target.args, settings) {
                Ok(result) => {
                    println!(
                        "  round {}/{} {:<width$} {}",
                        round + 1,
                        options.rounds,
                        target.name,
                        summary(&result, ticks),
                        width = name_width,
                    );
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

fn summary(result: &RunResult, ticks: u64) -> String {
    let phases = stats::two_phases(&result.sequential, &result.pipelined, ticks);
    let mib = stats::to_f64(result.peak_rss_kib) / 1024.0;
    format!("{phases} | {mib:.1} MiB")
}

/// Median over rounds of `metric`.
fn median_of<R>(results: &Results<R>, metric: impl Fn(&R) -> f64) -> f64 {
    stats::median(results.runs.iter().map(|(_, run)| metric(run)))
}

/// Median over the rounds both ran of `metric(a) / metric(b)`.
fn median_ratio<R>(a: &Results<R>, b: &Results<R>, metric: impl Fn(&R) -> f64) -> f64 {
    stats::median(a.runs.iter().filter_map(|(round, run_a)| {
        b.runs
            .iter()
            .find(|(other, _)| other == round)
            .map(|(_, run_b)| metric(run_a) / metric(run_b))
    }))
}

fn fmt(value: f64, decimals: usize) -> String {
    if value.is_finite() {
        format!("{value:.decimals$}")
    } else {
        "-".into()
    }
}

/// Column groups of the table: target | sequential | in flight | CPU | RSS.
const GROUPS: [usize; 5] = [1, 4, 4, 2, 1];

fn report(
    targets: &[Target],
    results: &[Results<RunResult>],
    options: &Options,
    ticks: u64,
) -> String {
    let seq_rate = |r: &RunResult| r.sequential.calls_per_sec();
    let pipe_rate = |r: &RunResult| r.pipelined.calls_per_sec();
    let seq_cpu = |r: &RunResult| r.sequential.cpu_us_per_call(ticks);
    let pipe_cpu = |r: &RunResult| r.pipelined.cpu_us_per_call(ticks);
    let find = |name: &str| {
        targets
            .iter()
            .position(|t| t.name == name)
            .map(|i| &results[i])
            .filter(|r| !r.runs.is_empty())
    };
    let floor = find("floor");
    let in_flight = options.settings.in_flight;

    let mut rows = vec![header_row()];
    let mut notes = Vec::new();
    for (target, result) in targets.iter().zip(results) {
        if let Some(failure) = &result.failure {
            notes.push(format!("{} FAILED: {failure}", target.name));
        }
        if result.runs.is_empty() {
            rows.push(vec![target.name.clone(), "FAILED".into()]);
            continue;
        }
        if result.runs.iter().any(|(_, r)| {
            r.sequential.calls < options.settings.calls
                || r.pipelined.calls < options.settings.calls
        }) {
            notes.push(format!(
                "{}: some phases hit the {:?} cap before {} calls; rates are over the calls made",
                target.name, options.settings.max_phase, options.settings.calls
            ));
        }
        let ratio = |metric: &dyn Fn(&RunResult) -> f64| {
            floor.map_or(f64::NAN, |floor| median_ratio(result, floor, metric))
        };
        rows.push(vec![
            target.name.clone(),
            fmt(median_of(result, seq_rate), 0),
            fmt(median_of(result, |r| r.sequential.p50_us), 1),
            fmt(median_of(result, |r| r.sequential.p99_us), 1),
            fmt(ratio(&seq_rate), 2),
            fmt(median_of(result, pipe_rate), 0),
            fmt(median_of(result, |r| r.pipelined.p50_us), 1),
            fmt(median_of(result, |r| r.pipelined.p99_us), 1),
            fmt(ratio(&pipe_rate), 2),
            fmt(median_of(result, seq_cpu), 1),
            fmt(median_of(result, pipe_cpu), 1),
            fmt(
                median_of(result, |r| stats::to_f64(r.peak_rss_kib) / 1024.0),
                1,
            ),
        ]);
    }

    let mut out = format!(
        "\nmedians of {} rounds; ×floor = throughput / the floor's throughput in the same round\n",
        options.rounds
    );
    let in_flight_title = format!("{in_flight} in flight");
    let titles = ["", "sequential", &in_flight_title, "CPU µs/call", "peak"];
    out.push_str(&table(&GROUPS, &titles, &rows));
    if let Some(ours) = find("ours") {
        for other in ["rmcp", "rmcp-best"] {
            if let Some(theirs) = find(other) {
                out.push_str(&versus(ours, other, theirs, in_flight, ticks));
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

/// Renders the group titles and the rows as aligned columns, `groups[i]`
/// columns under `titles[i]`: the columns of the first group left-aligned,
/// the others right-aligned.
fn table(groups: &[usize], titles: &[&str], rows: &[Vec<String>]) -> String {
    let columns = groups.iter().sum::<usize>();
    let mut widths = vec![0; columns];
    for row in rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    // Widen a group's last column if its title is longer than the group.
    let mut first = 0;
    for (&group, title) in groups.iter().zip(titles) {
        let span: usize = widths[first..first + group].iter().sum::<usize>() + group - 1;
        let title = title.chars().count();
        if title > span {
            widths[first + group - 1] += title - span;
        }
        first += group;
    }

    let mut out = String::new();
    let mut line = String::new();
    let mut first = 0;
    for (index, (&group, title)) in groups.iter().zip(titles).enumerate() {
        let span: usize = widths[first..first + group].iter().sum::<usize>() + group - 1;
        if index > 0 {
            line.push_str(" | ");
        }
        let _ = write!(line, "{title:<span$}");
        first += group;
    }
    out.push_str(line.trim_end());
    out.push('\n');
    for row in rows {
        let mut line = String::new();
        let mut column = 0;
        for (index, &group) in groups.iter().enumerate() {
            if index > 0 {
                line.push_str(" |");
            }
            for within in 0..group {
                let cell = row.get(column).map_or("", String::as_str);
                let width = widths[column];
                match (index, within) {
                    (0, 0) => {
                        let _ = write!(line, "{cell:<width$}");
                    }
                    (0, _) => {
                        let _ = write!(line, " {cell:<width$}");
                    }
                    _ => {
                        let _ = write!(line, " {cell:>width$}");
                    }
                }
                column += 1;
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

fn header_row() -> Vec<String> {
    [
        "target",
        "calls/s",
        "p50 µs",
        "p99 µs",
        "×floor",
        "calls/s",
        "p50 µs",
        "p99 µs",
        "×floor",
        "seq",
        "in flight",
        "RSS MiB",
    ]
    .map(str::to_owned)
    .to_vec()
}

/// The line comparing our server with another target.
fn versus(
    ours: &Results<RunResult>,
    other: &str,
    theirs: &Results<RunResult>,
    in_flight: u64,
    ticks: u64,
) -> String {
    let ratio = |metric: &dyn Fn(&RunResult) -> f64| fmt(median_ratio(ours, theirs, metric), 2);
    format!(
        "ours / {other}: throughput ×{} sequential, ×{} {in_flight} in flight; \
         CPU per call ×{} sequential, ×{} {in_flight} in flight\n",
        ratio(&|r| r.sequential.calls_per_sec()),
        ratio(&|r| r.pipelined.calls_per_sec()),
        ratio(&|r| r.sequential.cpu_us_per_call(ticks)),
        ratio(&|r| r.pipelined.cpu_us_per_call(ticks)),
    )
}
