//! An agent on the command line: a model (OpenAI-compatible or Anthropic)
//! with the calculator toolbox attached locally and any MCP servers you name.
//!
//! ```text
//! agent [--provider openai|openai-responses|anthropic] [--max-turns N] [--no-stream] [--strict]
//!       [--approve [all]] [--no-calculator] [--files ROOT]... [--files-writable] [--fetch]
//!       [--mcp "COMMAND ARGS"]... [--mcp-url URL]... PROMPT
//! ```
//!
//! - `--approve` asks on the terminal before each call of a tool that is not
//!   read-only (by its annotations, believed for the local toolboxes only:
//!   an MCP server's tools always ask), `--approve all` before every call: the
//!   question goes to stderr, the answer (`y` or `n`) comes from stdin; a
//!   refusal is reported to the model and the run goes on.
//! - `--no-calculator` leaves the local calculator toolbox out (to reach
//!   the calculator MCP server instead, say: its tools have the same names).
//! - `--files ROOT` attaches the built-in files toolbox locally, confined to
//!   the roots named (read-only unless `--files-writable`); `--fetch`
//!   attaches the built-in HTTP toolbox (`get`, `post`, `fetch`; public
//!   addresses only).
//!
//! - `--mcp` starts a stdio MCP server (the command line is split on
//!   whitespace); `--mcp-url` connects to a Streamable HTTP or HTTP+SSE one.
//!   Their tools join the calculator's; a name two sources share is an error.
//! - `--provider openai-responses` speaks OpenAI's Responses API with the same
//!   `OPENAI_*` variables as Chat Completions.
//! - The endpoint comes from the providers' usual variables: `OPENAI_BASE_URL`
//!   (default the public API), `OPENAI_API_KEY`, `OPENAI_MODEL`;
//!   `ANTHROPIC_BASE_URL`, `ANTHROPIC_API_KEY`, `ANTHROPIC_MODEL`.
//! - The model's text goes to stdout as it arrives; each tool call and its
//!   outcome to stderr. Exit status: 0 on a final answer, 1 when the run
//!   fails (the reason on stderr), 2 for a usage or configuration error.

use std::io::Write as _;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};

use mcp_agent::chat::ModelError;
use mcp_agent::model::{Anthropic, OpenAiChat, OpenAiResponses};
use mcp_agent::{
    approval::{Approval, ApprovalPolicy, ApprovalRequest},
    chat::ChatModel,
    Agent, Event, Finish, RunError, ToolSet,
};
use mcp_client::{types::error::Chain, Client};

use calculator_tools::Calculator;
use mcp_examples::calculator_tools;

const USAGE: &str = "usage: agent [--provider openai|openai-responses|anthropic] [--max-turns N] [--no-stream] [--strict] [--approve [all]] [--no-calculator] [--files ROOT]... [--files-writable] [--fetch] [--mcp \"COMMAND ARGS\"]... [--mcp-url URL]... PROMPT";

/// Which API the model speaks (`--provider`).
#[derive(Debug, Default, Clone, Copy)]
enum Provider {
    /// OpenAI-compatible Chat Completions.
    #[default]
    OpenAi,
    /// The OpenAI Responses API.
    OpenAiResponses,
    /// Anthropic Messages.
    Anthropic,
}

#[derive(Debug, Default)]
struct Options {
    /// `--approve` (`UnlessReadOnly`) or `--approve all` (`Always`).
    approve: ApprovalPolicy,
    provider: Provider,
    max_turns: Option<usize>,
    streaming: bool,
    strict: bool,
    stdio: Vec<String>,
    urls: Vec<String>,
    local: Builtin,
    prompt: String,
}

/// The built-in toolboxes to attach locally.
#[derive(Debug, Default)]
struct Builtin {
    /// `--no-calculator`: leave the calculator toolbox out.
    no_calculator: bool,
    /// `--files`: the roots of the files toolbox (none: not attached).
    files: Vec<String>,
    /// `--files-writable`: offer its changing tools too.
    writable: bool,
    /// `--fetch`: attach the HTTP toolbox.
    fetch: bool,
}

fn parse(args: impl IntoIterator<Item = String>) -> Result<Options, String> {
    let mut options = Options {
        streaming: true,
        ..Options::default()
    };
    let mut prompt = Vec::new();
    let mut args = args.into_iter().peekable();
    while let Some(arg) = args.next() {
        if arg == "--approve" {
            options.approve = if args.next_if(|next| next == "all").is_some() {
                ApprovalPolicy::Always
            } else {
                ApprovalPolicy::UnlessReadOnly
            };
            continue;
        }
        let mut value = |flag: &str| args.next().ok_or(format!("{flag} needs a value"));
        match arg.as_str() {
            "--provider" => match value("--provider")?.as_str() {
                "openai" => options.provider = Provider::OpenAi,
                "openai-responses" => options.provider = Provider::OpenAiResponses,
                "anthropic" => options.provider = Provider::Anthropic,
                other => {
                    return Err(format!(
                        "unknown provider `{other}`: use openai, openai-responses or anthropic"
                    ))
                }
            },
            "--max-turns" => {
                let n = value("--max-turns")?;
                let n: usize = n
                    .parse()
                    .ok()
                    .filter(|n| *n > 0)
                    .ok_or(format!("--max-turns needs a positive number, not `{n}`"))?;
                options.max_turns = Some(n);
            }
            "--no-calculator" => options.local.no_calculator = true,
            "--files" => options.local.files.push(value("--files")?),
            "--files-writable" => options.local.writable = true,
            "--fetch" => options.local.fetch = true,
            "--mcp" => options.stdio.push(value("--mcp")?),
            "--mcp-url" => options.urls.push(value("--mcp-url")?),
            "--no-stream" => options.streaming = false,
            "--strict" => options.strict = true,
            "-h" | "--help" => return Err(String::new()),
            flag if flag.starts_with("--") => return Err(format!("unknown option `{flag}`")),
            _ => prompt.push(arg),
        }
    }
    options.prompt = prompt.join(" ");
    if options.prompt.trim().is_empty() {
        return Err("a prompt is needed".into());
    }
    Ok(options)
}

fn model(options: &Options) -> Result<Box<dyn ChatModel>, String> {
    let named = |e: ModelError| Chain(&e).to_string();
    Ok(match options.provider {
        Provider::Anthropic => Box::new(
            Anthropic::from_env()
                .map_err(named)?
                .streaming(options.streaming),
        ),
        Provider::OpenAi => Box::new(
            OpenAiChat::from_env()
                .map_err(named)?
                .streaming(options.streaming)
                .strict(options.strict),
        ),
        Provider::OpenAiResponses => Box::new(
            OpenAiResponses::from_env()
                .map_err(named)?
                .streaming(options.streaming)
                .strict(options.strict),
        ),
    })
}

async fn connect(options: &Options) -> Result<Vec<Client>, String> {
    let mut clients = Vec::new();
    for line in &options.stdio {
        let mut words = line.split_whitespace();
        let program = words.next().ok_or("--mcp needs a command".to_owned())?;
        let mut command = tokio::process::Command::new(program);
        command.args(words);
        let client = Client::builder()
            .client_info("mcp-agent-example", env!("CARGO_PKG_VERSION"))
            .connect_stdio(command)
            .await
            .map_err(|e| format!("could not start the MCP server `{line}`: {}", Chain(&e)))?;
        clients.push(client);
    }
    for url in &options.urls {
        let client = Client::builder()
            .client_info("mcp-agent-example", env!("CARGO_PKG_VERSION"))
            .connect_http(url)
            .await
            .map_err(|e| {
                format!(
                    "could not connect to the MCP server at {url}: {}",
                    Chain(&e)
                )
            })?;
        clients.push(client);
    }
    Ok(clients)
}

/// Asks on the terminal whether a call may run: the question on stderr,
/// `y` or `n` from stdin (anything but `y`, or the end of stdin, refuses).
async fn ask(request: ApprovalRequest) -> Approval {
    if MID_LINE.swap(false, Ordering::Relaxed) {
        println!();
    }
    let arguments = serde_json::Value::Object(request.arguments);
    eprint!("[approve] {} {arguments}? [y/n] ", request.tool);
    let answer = tokio::task::spawn_blocking(|| {
        let mut line = String::new();
        std::io::stdin().read_line(&mut line).map(|_| line)
    })
    .await;
    match answer {
        Ok(Ok(line)) if line.trim().eq_ignore_ascii_case("y") => Approval::Allow,
        _ => Approval::Refuse("the user said no".to_owned()),
    }
}

/// Whether stdout's last line is unfinished (streamed text without a newline).
static MID_LINE: AtomicBool = AtomicBool::new(false);

fn show(event: &Event) {
    match event {
        Event::Text(text) => {
            let mut out = std::io::stdout().lock();
            let _ = out.write_all(text.as_bytes());
            let _ = out.flush();
            MID_LINE.store(!text.ends_with('\n'), Ordering::Relaxed);
        }
        Event::ToolCallStarted {
            tool, arguments, ..
        } => {
            if MID_LINE.swap(false, Ordering::Relaxed) {
                println!();
            }
            eprintln!("[tool] {tool} {arguments}");
        }
        Event::ToolCallFinished {
            tool,
            is_error,
            reply,
            duration,
            ..
        } => {
            let verdict = if *is_error { "failed" } else { "returned" };
            eprintln!("[tool] {tool} {verdict} in {duration:.1?}: {reply}");
        }
        Event::ToolCallRetry {
            tool,
            attempt,
            error,
            ..
        } => eprintln!("[tool] {tool} failed ({error}); attempt {attempt}"),
        Event::ToolsChanged { tools } => eprintln!("[tools] now: {}", tools.join(", ")),
        Event::CallRefused { tool, reason, .. } => eprintln!("[tool] {tool} refused: {reason}"),
        _ => {}
    }
}

async fn run(options: Options) -> Result<(), (u8, String)> {
    let model = model(&options).map_err(|e| (2, e))?;
    let clients = connect(&options).await.map_err(|e| (2, e))?;
    let mut tools = ToolSet::builder();
    if !options.local.no_calculator {
        tools = tools.toolbox(Calculator::default());
    }
    if !options.local.files.is_empty() {
        let files = mcp_toolbox::files::Files::builder()
            .roots(&options.local.files)
            .read_only(!options.local.writable)
            .build()
            .map_err(|e| (2, format!("--files: {}", Chain(&e))))?;
        tools = tools.toolbox(files);
    }
    if options.local.fetch {
        tools = tools.toolbox(mcp_toolbox::http::Http::builder().build());
    }
    for client in &clients {
        tools = tools.server(client.clone());
    }
    let tools = tools
        .build()
        .await
        .map_err(|e| (2, Chain(&e).to_string()))?;
    for diagnostic in tools.diagnostics() {
        eprintln!("[tools] {diagnostic}");
    }
    let mut agent = Agent::builder(model, tools).approval(options.approve);
    if let Some(n) = options.max_turns {
        agent = agent.max_turns(n);
    }
    let outcome = agent
        .build()
        .run(&options.prompt)
        .on_event(show)
        .on_approval(ask)
        .await;
    for client in &clients {
        client.close().await;
    }
    match outcome {
        Ok(Finish::Done { outcome, .. }) => {
            if MID_LINE.swap(false, Ordering::Relaxed) {
                println!();
            }
            eprintln!(
                "[done] {} turns, {} tool calls, {} tokens in, {} out",
                outcome.turns,
                outcome.tool_calls.len(),
                outcome.usage.input_tokens,
                outcome.usage.output_tokens
            );
            Ok(())
        }
        // Nothing here executes on the caller's side, and `ask` answers every
        // approval: a pause would be a bug worth reporting.
        Ok(Finish::Paused(paused)) => Err((
            1,
            format!("the run paused on {} calls", paused.pending().len()),
        )),
        Err(e @ RunError::MaxTurns { .. }) => Err((1, format!("{e} (raise --max-turns)"))),
        Err(e) => Err((1, Chain(&e).to_string())),
    }
}

use mcp_examples::stderr_logs;

#[tokio::main]
async fn main() -> ExitCode {
    // Kept to the end: dropping it flushes the last spans and metrics.
    let _telemetry = stderr_logs::init_traced("agent", "warn");
    let options = match parse(std::env::args().skip(1)) {
        Ok(options) => options,
        Err(problem) => {
            if !problem.is_empty() {
                eprintln!("agent: {problem}");
            }
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run(options).await {
        Ok(()) => ExitCode::SUCCESS,
        Err((code, message)) => {
            if MID_LINE.swap(false, Ordering::Relaxed) {
                println!();
            }
            eprintln!("agent: {message}");
            ExitCode::from(code)
        }
    }
}
