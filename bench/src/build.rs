//! `mcp-bench build`: the build cost a user pays for a calculator server
//! written with our framework and with rmcp 3.9, each built with the
//! features of a few server set-ups (stdio only, with HTTP, everything),
//! measured in one run on one machine. See the "Build cost" section of
//! `bench/README.md`.

use std::io::{BufRead as _, BufReader, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::cli;

mod report;

const USAGE: &str = "\
usage: mcp-bench build [options]

Builds a stdio calculator server (add, subtract, multiply, divide) written
with oxmcp-server and with rmcp 3.9, as standalone projects, each framework
with the features of a few server set-ups (the same main.rs): clean release
build, release and dev rebuild after an edit of one tool description, binary
size. See bench/README.md.

projects:
  ours-stdio    oxmcp-server, features stdio
  ours-http     oxmcp-server, features stdio, http
  ours-all      oxmcp-server, features stdio, http, auth, validation, skills
  rmcp-stdio    rmcp, features server, macros, transport-io
  rmcp-http     rmcp, features server, macros, transport-io,
                transport-streamable-http-server
compared: ours-stdio/rmcp-stdio, ours-http/rmcp-http, ours-all/rmcp-http
built only when --only names them:
  ours-four     oxmcp-server, -client, -toolbox and -redis at their
                defaults; the calculator, the files toolbox, an upstream
                server's tools listed, sessions in Redis over HTTP
  ours-four-all the same with every feature of the four

options:
  --rounds N    rounds; the tables show medians (default 3)
  --only LIST   the projects to build, comma-separated (default the five
                above);
                a pair's ratios are shown when both of its projects are built
  --keep DIR    generate the projects in DIR (outside this workspace) and
                keep them; by default a temporary directory, removed after a
                successful run
";

/// The description of `add`, the one edited between builds.
const ADD: &str = "Add two numbers";

/// The manifest of both projects: cargo's default profiles, written out, and
/// `[workspace]` so that each project is a workspace of its own.
const CARGO_TOML: &str = r#"[package]
name = "calc-{NAME}"
version = "0.1.0"
edition = "2021"
publish = false

[dependencies]
{DEPS}tokio = { version = "1", features = ["rt-multi-thread", "macros"] }

[profile.dev]
incremental = true

[profile.release]
incremental = false

[workspace]
"#;

const OURS_DEPS: &str = "oxmcp-server = { path = '{ROOT}/mcp-server', default-features = false, features = [{FEATURES}] }\n";

const RMCP_DEPS: &str = r#"rmcp = { version = "3.9", default-features = false, features = [{FEATURES}] }
serde = { version = "1", features = ["derive"] }
"#;

const OURS_MAIN: &str = r#"//! A calculator MCP server over stdio, written with oxmcp-server.

use oxmcp_server::{tool, Server, ToolError};

{TOOLS}#[tokio::main]
async fn main() -> Result<(), oxmcp_server::Error> {
    Server::builder("calculator", env!("CARGO_PKG_VERSION"))
        .toolbox(Calculator)
        .build()
        .serve_stdio()
        .await
}
"#;

/// The calculator of our projects, in place of `{TOOLS}`.
const OURS_TOOLS: &str = r#"/// Four arithmetic tools.
#[derive(Debug)]
pub struct Calculator;

#[tool(description = "Arithmetic on two numbers")]
impl Calculator {
    #[describe("{ADD}")]
    #[param(a, "The first number")]
    #[param(b, "The second number")]
    pub fn add(&self, a: f64, b: f64) -> f64 {
        a + b
    }

    #[describe("Subtract b from a")]
    pub fn subtract(&self, #[param("The first number")] a: f64, #[param("The second number")] b: f64) -> f64 {
        a - b
    }

    #[describe("Multiply two numbers")]
    pub fn multiply(&self, #[param("The first number")] a: f64, #[param("The second number")] b: f64) -> f64 {
        a * b
    }

    #[describe("Divide a by b")]
    pub fn divide(&self, #[param("The first number")] a: f64, #[param("The second number")] b: f64) -> Result<f64, ToolError> {
        if b == 0.0 {
            return Err(ToolError::new("division by zero"));
        }
        Ok(a / b)
    }
}

"#;

/// The projects that use the four crates a server commonly takes together.
const FOUR_DEPS: &str = "oxmcp-server = { path = '{ROOT}/mcp-server'{SERVER} }
oxmcp-client = { path = '{ROOT}/mcp-client'{CLIENT} }
oxmcp-toolbox = { path = '{ROOT}/mcp-toolbox'{TOOLBOX} }
oxmcp-redis = { path = '{ROOT}/mcp-redis' }
";

const FOUR_MAIN: &str = r#"//! The calculator and a read-only files toolbox, written with the four
//! crates a server commonly takes: oxmcp-server, oxmcp-toolbox,
//! oxmcp-client (with UPSTREAM set, the tools of that stdio server are
//! listed first) and oxmcp-redis (with REDIS_URL set, it serves Streamable
//! HTTP on 127.0.0.1:3000 with its sessions in that Redis; else stdio).

use oxmcp_server::{tool, Server, ToolError};

{TOOLS}#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    if let Some(upstream) = std::env::var_os("UPSTREAM") {
        let client = oxmcp_client::Client::builder()
            .connect_stdio(tokio::process::Command::new(upstream))
            .await?;
        for tool in client.list_tools().await? {
            eprintln!("upstream: {}", tool.name);
        }
        client.close().await;
    }
    let files = oxmcp_toolbox::files::Files::builder().root(".").build()?;
    let server = Server::builder("calculator", env!("CARGO_PKG_VERSION"))
        .toolbox(Calculator)
        .toolbox(files)
        .build();
    match std::env::var("REDIS_URL") {
        Ok(url) => {
            let store = oxmcp_redis::RedisStore::connect(&url).await?;
            let config = oxmcp_server::http::HttpConfig::default().store(store);
            server.serve_http("127.0.0.1:3000", config).await?;
        }
        Err(_) => server.serve_stdio().await?,
    }
    Ok(())
}
"#;

const RMCP_MAIN: &str = r#"//! A calculator MCP server over stdio, written with rmcp.

use rmcp::handler::server::wrapper::Parameters;
use rmcp::{schemars, tool, tool_handler, tool_router, ServerHandler, ServiceExt};
use serde::Deserialize;

/// The arguments of every tool.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct TwoNumbers {
    #[schemars(description = "The first number")]
    pub a: f64,
    #[schemars(description = "The second number")]
    pub b: f64,
}

/// Four arithmetic tools.
#[derive(Debug, Clone)]
pub struct Calculator;

#[tool_router]
impl Calculator {
    #[tool(description = "{ADD}")]
    fn add(&self, Parameters(TwoNumbers { a, b }): Parameters<TwoNumbers>) -> String {
        (a + b).to_string()
    }

    #[tool(description = "Subtract b from a")]
    fn subtract(&self, Parameters(TwoNumbers { a, b }): Parameters<TwoNumbers>) -> String {
        (a - b).to_string()
    }

    #[tool(description = "Multiply two numbers")]
    fn multiply(&self, Parameters(TwoNumbers { a, b }): Parameters<TwoNumbers>) -> String {
        (a * b).to_string()
    }

    #[tool(description = "Divide a by b")]
    fn divide(&self, Parameters(TwoNumbers { a, b }): Parameters<TwoNumbers>) -> Result<String, String> {
        if b == 0.0 {
            return Err("division by zero".to_owned());
        }
        Ok((a / b).to_string())
    }
}

#[tool_handler]
impl ServerHandler for Calculator {}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let service = Calculator.serve(rmcp::transport::stdio()).await?;
    service.waiting().await?;
    Ok(())
}
"#;

/// The framework a project is written with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Framework {
    /// oxmcp-server alone, with `features` (no defaults).
    Ours,
    Rmcp,
    /// oxmcp-server, -client, -toolbox and -redis: at their defaults
    /// without `features`; with them, each crate's defaults plus every
    /// feature of `features` it has (the crates' feature names differ).
    Four,
}

impl Framework {
    /// The dependency lines, with `{FEATURES}` (and `{ROOT}`) to fill in.
    fn deps(self) -> &'static str {
        match self {
            Self::Ours => OURS_DEPS,
            Self::Rmcp => RMCP_DEPS,
            Self::Four => FOUR_DEPS,
        }
    }

    /// `main.rs`, with `{ADD}` to fill in; the same for all its projects.
    fn main_template(self) -> &'static str {
        match self {
            Self::Ours => OURS_MAIN,
            Self::Rmcp => RMCP_MAIN,
            Self::Four => FOUR_MAIN,
        }
    }
}

/// A project the driver can build: a framework and the features its crate
/// (`oxmcp-server` or `rmcp`, without default features) is built with.
#[derive(Debug)]
struct Spec {
    name: &'static str,
    framework: Framework,
    features: &'static [&'static str],
}

/// Every project, in the order of a round's first turn and of the tables.
static SPECS: [Spec; 7] = [
    Spec {
        name: "ours-stdio",
        framework: Framework::Ours,
        features: &["stdio"],
    },
    Spec {
        name: "rmcp-stdio",
        framework: Framework::Rmcp,
        features: &["server", "macros", "transport-io"],
    },
    Spec {
        name: "ours-http",
        framework: Framework::Ours,
        features: &["stdio", "http"],
    },
    Spec {
        name: "rmcp-http",
        framework: Framework::Rmcp,
        features: &[
            "server",
            "macros",
            "transport-io",
            "transport-streamable-http-server",
        ],
    },
    Spec {
        name: "ours-all",
        framework: Framework::Ours,
        features: &["stdio", "http", "auth", "validation", "skills"],
    },
    Spec {
        name: "ours-four",
        framework: Framework::Four,
        features: &[],
    },
    Spec {
        name: "ours-four-all",
        framework: Framework::Four,
        features: &[
            "auth",
            "validation",
            "skills",
            "tls",
            "http",
            "commands",
            "openapi",
        ],
    },
];

/// The projects a run builds without `--only`: the pairs compared with rmcp.
const DEFAULT_PROJECTS: usize = 5;

#[derive(Debug)]
struct Options {
    rounds: usize,
    keep: Option<PathBuf>,
    /// The projects to build, in the order of `SPECS`.
    specs: Vec<&'static Spec>,
}

/// One generated project.
#[derive(Debug)]
struct Project {
    spec: &'static Spec,
    dir: PathBuf,
    /// Edits made so far; the current description of `add` follows it.
    edits: u32,
}

impl Project {
    fn description(&self) -> String {
        if self.edits == 0 {
            ADD.to_owned()
        } else {
            format!("{ADD} (edit {})", self.edits)
        }
    }

    /// Writes `src/main.rs` with the current description of `add`.
    fn write_main(&self) -> Result<(), String> {
        let template = self.spec.framework.main_template();
        let text = template
            .replace("{TOOLS}", OURS_TOOLS)
            .replace("{ADD}", &self.description());
        write(&self.dir.join("src/main.rs"), &text)
    }

    /// Changes the description of `add`: a real edit of the source.
    fn edit(&mut self) -> Result<(), String> {
        self.edits += 1;
        self.write_main()
    }

    fn binary(&self, profile: &str) -> PathBuf {
        self.dir
            .join("target")
            .join(profile)
            .join(format!("calc-{}", self.spec.name))
    }
}

/// One round of one target.
#[derive(Debug, Clone, Copy)]
struct Sample {
    clean_release: f64,
    release_rebuild: f64,
    dev_build: f64,
    dev_rebuild: f64,
    size: u64,
    stripped: Option<u64>,
}

pub(crate) fn main(args: &[String]) -> ExitCode {
    cli::run_mode(args, USAGE, parse_options, run)
}

fn parse_options(args: &[String]) -> Result<Options, String> {
    let mut options = Options {
        rounds: 3,
        keep: None,
        specs: SPECS.iter().take(DEFAULT_PROJECTS).collect(),
    };
    cli::parse_flags(args, |flag| {
        match flag.name() {
            "--rounds" => options.rounds = flag.size()?,
            "--keep" => options.keep = Some(PathBuf::from(flag.text()?)),
            "--only" => options.specs = select(&flag.names()?)?,
            _ => return Ok(false),
        }
        Ok(true)
    })?;
    Ok(options)
}

/// The projects named in `--only`, in the order of `SPECS`.
fn select(names: &[String]) -> Result<Vec<&'static Spec>, String> {
    if let Some(unknown) = names.iter().find(|n| !SPECS.iter().any(|s| s.name == *n)) {
        let known: Vec<&str> = SPECS.iter().map(|s| s.name).collect();
        return Err(format!(
            "--only: no project {unknown:?} (there are {})",
            known.join(", ")
        ));
    }
    let specs: Vec<&'static Spec> = SPECS
        .iter()
        .filter(|s| names.iter().any(|n| n == s.name))
        .collect();
    if specs.is_empty() {
        return Err("--only needs at least one project".into());
    }
    Ok(specs)
}

/// The workspace this crate is in: the parent of `bench/`.
fn workspace_root() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().unwrap_or(manifest).to_path_buf()
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("writing {}: {e}", path.display()))
}

/// Generates the projects of `specs` under `base`, each with the
/// workspace's `Cargo.lock` as a start (so shared crates get the same
/// versions), and resolves and downloads their dependencies.
fn generate(base: &Path, root: &Path, specs: &[&'static Spec]) -> Result<Vec<Project>, String> {
    let root_text = root.to_str().filter(|r| !r.contains(['\'', '\n']));
    let root_text = root_text.ok_or_else(|| format!("unusable path {}", root.display()))?;
    let mut projects = Vec::new();
    for &spec in specs {
        let dir = base.join(spec.name);
        std::fs::create_dir_all(dir.join("src"))
            .map_err(|e| format!("creating {}: {e}", dir.display()))?;
        let deps = spec
            .framework
            .deps()
            .replace("{ROOT}", root_text)
            .replace("{FEATURES}", &quoted(spec.features));
        let deps = four_features(&deps, spec.features);
        let toml = CARGO_TOML
            .replace("{NAME}", spec.name)
            .replace("{DEPS}", &deps);
        write(&dir.join("Cargo.toml"), &toml)?;
        std::fs::copy(root.join("Cargo.lock"), dir.join("Cargo.lock"))
            .map_err(|e| format!("copying Cargo.lock: {e}"))?;
        let project = Project {
            spec,
            dir,
            edits: 0,
        };
        project.write_main()?;
        cargo(&project.dir, &["fetch", "--quiet"])?;
        projects.push(project);
    }
    Ok(projects)
}

/// `"a", "b"`: features as a TOML list's items.
fn quoted(features: &[&str]) -> String {
    let quoted: Vec<String> = features.iter().map(|f| format!("{f:?}")).collect();
    quoted.join(", ")
}

/// Fills the feature slots of `FOUR_DEPS`: each crate gets those of
/// `features` it has (none: its defaults alone).
fn four_features(deps: &str, features: &[&str]) -> String {
    let slots = [
        ("{SERVER}", &["auth", "validation", "skills"][..]),
        ("{CLIENT}", &["validation", "skills", "tls", "auth"][..]),
        ("{TOOLBOX}", &["http", "commands", "openapi"][..]),
    ];
    let mut deps = deps.to_owned();
    for (slot, known) in slots {
        let own: Vec<&str> = features
            .iter()
            .copied()
            .filter(|f| known.contains(f))
            .collect();
        let line = if own.is_empty() {
            String::new()
        } else {
            format!(", features = [{}]", quoted(&own))
        };
        deps = deps.replace(slot, &line);
    }
    deps
}

/// Prefixes of the environment variables removed for the builds.
const DROPPED_ENV: &str = "CARGO_PKG_ CARGO_MANIFEST_ CARGO_CRATE_ CARGO_BIN_ CARGO_PRIMARY_PACKAGE \
    CARGO_PROFILE_ CARGO_TARGET_DIR CARGO_BUILD_ CARGO_INCREMENTAL RUSTC_WRAPPER RUSTC_WORKSPACE_WRAPPER";

/// A cargo command in `dir`, with the same clean environment for every
/// project: no compiler wrapper (sccache), no inherited target directory,
/// incremental left to the profiles, and none of the variables `cargo run`
/// set for this driver.
fn cargo_command(dir: &Path) -> Command {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(cargo);
    command.current_dir(dir);
    for (key, _) in std::env::vars_os() {
        let Some(key) = key.to_str() else { continue };
        if DROPPED_ENV.split(' ').any(|prefix| key.starts_with(prefix)) {
            command.env_remove(key);
        }
    }
    command
}

/// Runs cargo with `args` in `dir`; its output is shown only on failure.
fn cargo(dir: &Path, args: &[&str]) -> Result<(), String> {
    let output = cargo_command(dir)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("running cargo: {e}"))?;
    if output.status.success() {
        return Ok(());
    }
    Err(format!(
        "`cargo {}` in {} failed ({}):\n{}",
        args.join(" "),
        dir.display(),
        output.status,
        String::from_utf8_lossy(&output.stderr)
    ))
}

/// Wall time of a `cargo build` (`--frozen`: nothing is resolved or
/// downloaded while timed), in seconds.
fn timed_build(project: &Project, release: bool) -> Result<f64, String> {
    let mut args = vec!["build", "--frozen", "--quiet"];
    if release {
        args.push("--release");
    }
    let start = Instant::now();
    cargo(&project.dir, &args)?;
    Ok(start.elapsed().as_secs_f64())
}

/// Runs `program args` in `dir` and returns its stdout's first line.
fn first_line(dir: &Path, program: &str, args: &[&str]) -> Option<String> {
    let output = Command::new(program)
        .args(args)
        .current_dir(dir)
        .output()
        .ok()
        .filter(|o| o.status.success())?;
    let text = String::from_utf8_lossy(&output.stdout);
    text.lines().next().map(str::to_owned)
}

/// The size of `binary` after `strip` (all symbols), on a copy; `None`
/// without `strip`.
fn stripped_size(binary: &Path) -> Result<Option<u64>, String> {
    let copy = binary.with_extension("stripped");
    std::fs::copy(binary, &copy).map_err(|e| format!("copying the binary: {e}"))?;
    let stripped = Command::new("strip")
        .arg(&copy)
        .status()
        .ok()
        .filter(std::process::ExitStatus::success)
        .and_then(|_| std::fs::metadata(&copy).ok())
        .map(|m| m.len());
    let _ = std::fs::remove_file(&copy);
    Ok(stripped)
}

/// One round of one project: the four measures, each binary checked.
fn measure(project: &mut Project) -> Result<Sample, String> {
    let target = project.dir.join("target");
    if target.exists() {
        std::fs::remove_dir_all(&target)
            .map_err(|e| format!("removing {}: {e}", target.display()))?;
    }
    let clean_release = timed_build(project, true)?;
    let release = project.binary("release");
    check_binary(&release, &project.description())?;
    let size = std::fs::metadata(&release).map_err(|e| format!("{}: {e}", release.display()))?;
    let size = size.len();
    let stripped = stripped_size(&release)?;

    project.edit()?;
    let release_rebuild = timed_build(project, true)?;
    check_binary(&release, &project.description())?;

    let dev_build = timed_build(project, false)?;
    project.edit()?;
    let dev_rebuild = timed_build(project, false)?;
    check_binary(&project.binary("debug"), &project.description())?;
    Ok(Sample {
        clean_release,
        release_rebuild,
        dev_build,
        dev_rebuild,
        size,
        stripped,
    })
}

/// What `check_binary` sends, one JSON-RPC message a line.
const REQUESTS: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"mcp-bench","version":"0"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":3}}}
{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"divide","arguments":{"a":1,"b":0}}}
{"jsonrpc":"2.0","id":4,"method":"tools/list"}
"#;

/// Speaks to `binary` over stdio: `initialize` (2025-06-18),
/// `notifications/initialized`, then `add(2, 3)` must give 5, `divide(1, 0)`
/// an error result, and `tools/list` the four tools with `add` described
/// as `description`.
fn check_binary(binary: &Path, description: &str) -> Result<(), String> {
    let mut child = Command::new(binary)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("spawning {}: {e}", binary.display()))?;
    let stdout = child.stdout.take().expect("piped stdout");
    let (sender, replies) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if sender.send(line).is_err() {
                break;
            }
        }
    });
    let mut stdin = child.stdin.take().expect("piped stdin");
    let sent = stdin
        .write_all(REQUESTS.as_bytes())
        .and_then(|()| stdin.flush());
    let answers = sent
        .map_err(|e| format!("writing to the server: {e}"))
        .and_then(|()| collect_replies(&replies, 4));
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
    let answers = answers.and_then(|answers| check_answers(&answers, description));
    answers.map_err(|e| format!("{} does not work: {e}", binary.display()))
}

/// Reads replies until ids 1 to `last` have all arrived, for at most 30 s.
fn collect_replies(replies: &mpsc::Receiver<String>, last: u64) -> Result<Vec<Value>, String> {
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut answers: Vec<Option<Value>> = vec![None; usize::try_from(last).unwrap_or(0)];
    while answers.iter().any(Option::is_none) {
        let left = deadline.saturating_duration_since(Instant::now());
        let line = replies
            .recv_timeout(left)
            .map_err(|_| "no complete set of replies within 30 s".to_owned())?;
        let reply: Value = serde_json::from_str(&line)
            .map_err(|e| format!("a reply is not JSON ({e}): {line}"))?;
        let slot = reply["id"]
            .as_u64()
            .and_then(|id| usize::try_from(id).ok())
            .and_then(|id| answers.get_mut(id.wrapping_sub(1)));
        if let Some(slot) = slot {
            *slot = Some(reply);
        }
    }
    Ok(answers.into_iter().flatten().collect())
}

fn check_answers(answers: &[Value], description: &str) -> Result<(), String> {
    let text = |reply: &Value| {
        reply["result"]["content"][0]["text"]
            .as_str()
            .map(str::to_owned)
    };
    let sum = text(&answers[1]).and_then(|t| t.trim().parse::<f64>().ok());
    if sum != Some(5.0) {
        return Err(format!("add(2, 3) answered {}", answers[1]));
    }
    if answers[2]["result"]["isError"] != json!(true) {
        return Err(format!("divide(1, 0) answered {}", answers[2]));
    }
    let tools = answers[3]["result"]["tools"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    // The four of the calculator; the `ours-four` projects serve the files
    // toolbox's beside them.
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    if ["add", "divide", "multiply", "subtract"]
        .iter()
        .any(|n| !names.contains(n))
    {
        return Err(format!("tools/list answered {}", answers[3]));
    }
    let add = tools.iter().find(|t| t["name"] == "add");
    if add.and_then(|t| t["description"].as_str()) != Some(description) {
        return Err(format!("add is not described as {description:?}: {add:?}"));
    }
    Ok(())
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg").map_or_else(
        |_| "?".into(),
        |l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "),
    )
}

fn run(options: &Options) -> Result<bool, String> {
    let root = workspace_root();
    let (base, temporary) = match &options.keep {
        Some(dir) => (
            std::path::absolute(dir).map_err(|e| format!("--keep: {e}"))?,
            false,
        ),
        None => (
            std::env::temp_dir().join(format!("mcp-bench-build-{}", std::process::id())),
            true,
        ),
    };
    if base.starts_with(&root) {
        return Err(format!(
            "{} is inside the workspace {}: its .cargo/config.toml would apply",
            base.display(),
            root.display()
        ));
    }
    println!(
        "build: generating and fetching the projects in {}",
        base.display()
    );
    let mut projects = generate(&base, &root, &options.specs)?;
    let strip = print_setup(&projects[0].dir, options.rounds);

    let mut samples: Vec<Vec<Sample>> = vec![Vec::new(); projects.len()];
    for round in 0..options.rounds {
        for offset in 0..projects.len() {
            let index = (round + offset) % projects.len();
            let project = &mut projects[index];
            let sample = measure(project).map_err(|e| {
                format!(
                    "!!!!! target {} FAILED in round {} (projects left in {}): {e}",
                    project.spec.name,
                    round + 1,
                    base.display()
                )
            })?;
            println!(
                "  round {}/{} {}: {} | load {}",
                round + 1,
                options.rounds,
                project.spec.name,
                report::raw(&sample),
                load_average()
            );
            samples[index].push(sample);
        }
    }
    print!(
        "{}",
        report::report(&options.specs, &samples, strip.as_deref())
    );
    if temporary {
        let _ = std::fs::remove_dir_all(&base);
    } else {
        println!("projects kept in {}", base.display());
    }
    Ok(true)
}

/// Prints the toolchain and the settings; returns `strip`'s version, if
/// there is a `strip`.
fn print_setup(dir: &Path, rounds: usize) -> Option<String> {
    let rustc = first_line(dir, "rustc", &["-V"]).unwrap_or_else(|| "rustc: ?".into());
    let cargo_version = cargo_command(dir).arg("-V").output().ok();
    let cargo_version = cargo_version.map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned());
    println!("{rustc}; {}", cargo_version.unwrap_or_default());
    println!(
        "profiles: cargo's defaults (release: opt-level 3, no debug info, strip = \"debuginfo\", \
         codegen-units 16, no LTO, incremental off; dev: opt-level 0, full debug info, \
         incremental on), RUSTC_WRAPPER cleared; {rounds} rounds; load average {}",
        load_average()
    );
    for flags in ["RUSTFLAGS", "CARGO_ENCODED_RUSTFLAGS"] {
        if let Some(value) = std::env::var_os(flags) {
            println!("note: {flags}={value:?} applies to every project");
        }
    }
    first_line(dir, "strip", &["--version"])
}
