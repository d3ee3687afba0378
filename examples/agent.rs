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
use std::num::NonZeroUsize;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};

use clap::error::ErrorKind;
use clap::{ArgMatches, CommandFactory, FromArgMatches, Parser, ValueEnum};
use mcp_examples::command_line;

use oxmcp_agent::chat::ModelError;
use oxmcp_agent::model::{Anthropic, OpenAiChat, OpenAiResponses};
use oxmcp_agent::{
    approval::{Approval, ApprovalPolicy, ApprovalRequest},
    chat::ChatModel,
    Agent, Event, Finish, RunError, ToolSet,
};
use oxmcp_client::{types::error::Chain, Client};

use calculator_tools::Calculator;
use mcp_examples::calculator_tools;

/// An agent on the command line: a model (OpenAI-compatible or Anthropic)
/// with the calculator toolbox attached locally and any MCP servers you name.
#[derive(Debug, Parser)]
#[command(
    name = "agent",
    version,
    args_override_self = true,
    allow_negative_numbers = true,
    after_help = "The endpoint comes from OPENAI_BASE_URL, OPENAI_API_KEY and OPENAI_MODEL \
        (ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY and ANTHROPIC_MODEL with --provider anthropic).\n\n\
        Examples:\n  \
        agent 'What is 2 + 3?'\n  \
        agent --provider anthropic --approve --mcp 'target/debug/notes' 'Add a note: buy milk'\n  \
        agent --no-calculator --mcp-url http://127.0.0.1:3000/mcp --approve all 'Store 42'\n  \
        agent --files ~/project --fetch 'Summarise README.md'"
)]
struct Args {
    /// Which API the model speaks.
    #[arg(long, value_enum, default_value_t = Provider::OpenAi)]
    provider: Provider,
    /// Stop after N model turns.
    #[arg(long, value_name = "N")]
    max_turns: Option<NonZeroUsize>,
    /// Take each answer whole rather than as it is written.
    #[arg(long)]
    no_stream: bool,
    /// Ask for strict tool schemas (the OpenAI providers).
    #[arg(long)]
    strict: bool,
    /// Ask on the terminal before each call of a tool that is not read-only
    /// (`--approve all`: before every call); `y` or `n` from stdin.
    #[arg(long)]
    approve: bool,
    /// The built-in toolboxes attached locally.
    #[command(flatten)]
    local: Builtin,
    /// Start a stdio MCP server (the command line is split on whitespace).
    #[arg(long, value_name = "COMMAND ARGS")]
    mcp: Vec<String>,
    /// Connect to a Streamable HTTP or HTTP+SSE MCP server.
    #[arg(long, value_name = "URL")]
    mcp_url: Vec<String>,
    /// What to ask (the words are joined with spaces).
    #[arg(value_name = "PROMPT", required = true)]
    prompt: Vec<String>,
}

/// Which API the model speaks (`--provider`).
#[derive(Debug, Default, Clone, Copy, ValueEnum)]
enum Provider {
    /// OpenAI-compatible Chat Completions.
    #[default]
    #[value(name = "openai")]
    OpenAi,
    /// The OpenAI Responses API.
    #[value(name = "openai-responses")]
    OpenAiResponses,
    /// Anthropic Messages.
    Anthropic,
}

/// What the command line asks for.
#[derive(Debug)]
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
#[derive(Debug, clap::Args)]
struct Builtin {
    /// Leave the local calculator toolbox out.
    #[arg(long)]
    no_calculator: bool,
    /// Attach the files toolbox locally, confined to ROOT (read-only unless
    /// --files-writable).
    #[arg(long, value_name = "ROOT")]
    files: Vec<String>,
    /// Offer the files toolbox's changing tools too.
    #[arg(long = "files-writable")]
    writable: bool,
    /// Attach the HTTP toolbox (`get`, `post`, `fetch`; public addresses only).
    #[arg(long)]
    fetch: bool,
}

/// The command line's options, or the program exits (2) with the usage.
fn parse() -> Options {
    let matches = command_line::matches::<Args>();
    let mut args = Args::from_arg_matches(&matches)
        .unwrap_or_else(|e| command_line::refuse::<Args>(e.format(&mut Args::command())));
    let approve = approval(&matches, args.approve, &mut args.prompt);
    let prompt = args.prompt.join(" ");
    if prompt.trim().is_empty() {
        Args::command()
            .error(ErrorKind::MissingRequiredArgument, "a prompt is needed")
            .exit();
    }
    Options {
        approve,
        provider: args.provider,
        max_turns: args.max_turns.map(NonZeroUsize::get),
        streaming: !args.no_stream,
        strict: args.strict,
        stdio: args.mcp,
        urls: args.mcp_url,
        local: args.local,
        prompt,
    }
}

/// The approval policy: `Never` without `--approve`; `Always` when the word
/// right after the (last) `--approve` is `all` (clap took it for a word of
/// the prompt, which it then leaves); else `UnlessReadOnly`.
fn approval(matches: &ArgMatches, approve: bool, prompt: &mut Vec<String>) -> ApprovalPolicy {
    if !approve {
        return ApprovalPolicy::Never;
    }
    let next = matches.index_of("approve").map(|at| at + 1);
    let word = matches
        .indices_of("prompt")
        .into_iter()
        .flatten()
        .position(|at| Some(at) == next);
    match word {
        Some(word) if prompt.get(word).is_some_and(|w| w == "all") => {
            prompt.remove(word);
            ApprovalPolicy::Always
        }
        _ => ApprovalPolicy::UnlessReadOnly,
    }
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
        let files = oxmcp_toolbox::files::Files::builder()
            .roots(&options.local.files)
            .read_only(!options.local.writable)
            .build()
            .map_err(|e| (2, format!("--files: {}", Chain(&e))))?;
        tools = tools.toolbox(files);
    }
    if options.local.fetch {
        tools = tools.toolbox(oxmcp_toolbox::http::Http::builder().build());
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
    let options = parse();
    // Kept to the end: dropping it flushes the last spans and metrics.
    let _telemetry = stderr_logs::init_traced("agent", "warn");
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
