//! `mcp dev`: build the project in this directory (or take a command), run
//! it as a server, print its tool listing and its stderr, and rebuild and
//! restart it when a source file changes.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use notify::Watcher as _;
use oxmcp_client::Client;
use tokio::io::AsyncBufReadExt as _;
use tokio::process::{Child, Command};

/// Run a server while you work on it: build, run, print its tools and its
/// stderr, and rebuild and restart it when a source file changes.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
    mcp dev                       # the Rust project in this directory\n  \
    mcp dev --inspector           # and the MCP Inspector, pointed at it\n  \
    mcp dev -- python server.py   # any server command; files here watched")]
pub(crate) struct Dev {
    /// Also start the MCP Inspector (Node; `MCP_INSPECTOR`, or
    /// `mcp-inspector` on PATH) on the server's command, and print its address.
    #[arg(long)]
    inspector: bool,
    /// With `-- COMMAND`: a file or directory whose changes restart the
    /// server (repeatable; default: the current directory, but for
    /// `target/`, `node_modules/`, `__pycache__/` and hidden entries; keep
    /// the output you redirect out of what is watched).
    #[arg(long, value_name = "PATH", requires = "command")]
    watch: Vec<PathBuf>,
    /// The server's command, instead of the project in this directory.
    #[arg(last = true, value_name = "COMMAND")]
    command: Vec<String>,
}

/// What a change waits on: paths changed under the watched directories.
type Changes = tokio::sync::mpsc::UnboundedReceiver<()>;

/// Runs `mcp dev` until Ctrl-C or SIGTERM.
pub(crate) async fn run(args: Dev) -> Result<(), String> {
    // Listening from the start: a signal during the first build ends
    // `mcp dev` the same way as one later, its children stopped first.
    let mut stop = Stop::listen()?;
    let here = std::env::current_dir().map_err(|e| format!("no current directory: {e}"))?;
    let project = args.command.is_empty();
    if project && !here.join("Cargo.toml").is_file() {
        return Err(format!(
            "{} has no Cargo.toml: run mcp dev in a project (mcp new makes one), or give the server's command after `--`",
            here.display()
        ));
    }
    let (_watcher, mut changes) = watch(&here, project, &args.watch)?;
    let mut inspector: Option<Child> = None;
    loop {
        let command = if project {
            // A signal during the build drops it: cargo is killed with it.
            let built = tokio::select! {
                built = build(&here) => built,
                () = stop.wait() => return finish(None, inspector).await,
            };
            match built {
                Ok(exe) => vec![exe.display().to_string()],
                Err(e) => {
                    eprintln!("mcp dev: {e}; waiting for a change");
                    if !next_change(&mut changes, &mut stop).await {
                        return finish(None, inspector).await;
                    }
                    continue;
                }
            }
        } else {
            args.command.clone()
        };
        if args.inspector && inspector.is_none() {
            inspector = Some(start_inspector(&command).await?);
        }
        // A program that cannot start at all will not after a change either.
        let child = spawn(&command)?;
        let client = match connect(&command[0], child).await {
            Ok((client, child)) => Some((client, child)),
            Err(e) => {
                eprintln!("mcp dev: {e}; waiting for a change");
                None
            }
        };
        let more = next_change(&mut changes, &mut stop).await;
        if !more {
            return finish(client, inspector).await;
        }
        if let Some((client, child)) = client {
            client.close().await;
            end(child).await;
        }
        eprintln!("mcp dev: a change: restarting");
    }
}

/// Stops the server and the Inspector, and ends `mcp dev`.
async fn finish(server: Option<(Client, Child)>, inspector: Option<Child>) -> Result<(), String> {
    if let Some((client, child)) = server {
        client.close().await;
        end(child).await;
    }
    if let Some(inspector) = inspector {
        end(inspector).await;
    }
    Ok(())
}

/// Waits for a change (then lets a burst of them settle), or a signal to
/// stop: `false`.
async fn next_change(changes: &mut Changes, stop: &mut Stop) -> bool {
    tokio::select! {
        got = changes.recv() => {
            tokio::time::sleep(Duration::from_millis(300)).await;
            while changes.try_recv().is_ok() {}
            got.is_some()
        }
        () = stop.wait() => false,
    }
}

/// The signals that end `mcp dev`: Ctrl-C (SIGINT), and on Unix SIGTERM,
/// what `kill`, service managers and editors' task runners send.
struct Stop {
    #[cfg(unix)]
    term: tokio::signal::unix::Signal,
}

impl Stop {
    fn listen() -> Result<Stop, String> {
        Ok(Stop {
            #[cfg(unix)]
            term: tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
                .map_err(|e| format!("cannot listen for SIGTERM: {e}"))?,
        })
    }

    async fn wait(&mut self) {
        #[cfg(unix)]
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = self.term.recv() => {}
        }
        #[cfg(not(unix))]
        let _ = tokio::signal::ctrl_c().await;
    }
}

/// Ends a child started in a process group of its own (see [`child_command`])
/// with everything it started: the Inspector's proxy and the server it
/// spawned, a shell's children. SIGTERM to the group, a moment to exit,
/// then SIGKILL to what is left (no `unsafe` and no libc: the `kill`
/// utility sends the signals).
async fn end(mut child: Child) {
    #[cfg(unix)]
    if let Some(pid) = child.id() {
        let group = format!("-{pid}");
        let signal = |name: &'static str| {
            let group = group.clone();
            async move {
                let _ = Command::new("kill")
                    .args([name, "--", &group])
                    .stdin(Stdio::null())
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .status()
                    .await;
            }
        };
        signal("-TERM").await;
        if tokio::time::timeout(Duration::from_secs(3), child.wait())
            .await
            .is_err()
        {
            signal("-KILL").await;
        }
    }
    let _ = child.kill().await;
}

/// A command for a child `mcp dev` ends with [`end`]: in a process group
/// of its own on Unix, so that what it starts is ended with it, killed if
/// `mcp dev` itself dies first.
fn child_command(program: impl AsRef<std::ffi::OsStr>) -> Command {
    let mut command = Command::new(program);
    command.kill_on_drop(true);
    #[cfg(unix)]
    command.process_group(0);
    command
}

/// Watches `src/` and `Cargo.toml` of a project; for a command, `paths`,
/// else the current directory (but what builds and tools write: `target/`,
/// `node_modules/`, `__pycache__/`, hidden entries such as `.git/`).
fn watch(
    here: &Path,
    project: bool,
    paths: &[PathBuf],
) -> Result<(notify::RecommendedWatcher, Changes), String> {
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let base = here.to_path_buf();
    let mut watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        let Ok(event) = event else { return };
        if !event.kind.is_access() && event.paths.iter().any(|p| !generated(&base, p)) {
            let _ = tx.send(());
        }
    })
    .map_err(|e| format!("cannot watch files: {e}"))?;
    let targets: Vec<(PathBuf, notify::RecursiveMode)> = if project {
        vec![
            (here.join("src"), notify::RecursiveMode::Recursive),
            (here.join("Cargo.toml"), notify::RecursiveMode::NonRecursive),
        ]
    } else if paths.is_empty() {
        vec![(here.to_path_buf(), notify::RecursiveMode::Recursive)]
    } else {
        paths
            .iter()
            .map(|p| (here.join(p), notify::RecursiveMode::Recursive))
            .collect()
    };
    for (path, mode) in targets {
        watcher
            .watch(&path, mode)
            .map_err(|e| format!("cannot watch {}: {e}", path.display()))?;
    }
    Ok((watcher, rx))
}

/// Whether `path` (under `base`) is something builds and tools write, not
/// a source: in `target/`, `node_modules/`, `__pycache__/`, or hidden.
fn generated(base: &Path, path: &Path) -> bool {
    let relative = path.strip_prefix(base).unwrap_or(path);
    relative.components().any(|c| {
        let name = c.as_os_str().to_string_lossy();
        name.starts_with('.') || ["target", "node_modules", "__pycache__"].contains(&&*name)
    })
}

/// `cargo build`s the project (its messages on stderr) and returns its
/// binary.
async fn build(here: &Path) -> Result<PathBuf, String> {
    eprintln!("mcp dev: cargo build");
    let output = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
        .args(["build", "--message-format=json-render-diagnostics"])
        .current_dir(here)
        // A signal during the build drops this future: cargo goes with it.
        .kill_on_drop(true)
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .output()
        .await
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !output.status.success() {
        return Err("the build failed".to_owned());
    }
    let text = String::from_utf8_lossy(&output.stdout);
    text.lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|m| m["reason"] == "compiler-artifact")
        .filter_map(|m| m["executable"].as_str().map(PathBuf::from))
        .next_back()
        .ok_or_else(|| "the project has no binary to run (a [[bin]] or src/main.rs)".to_owned())
}

/// Starts the server, its stdin, stdout and stderr piped.
fn spawn(command: &[String]) -> Result<Child, String> {
    let (program, args) = command.split_first().ok_or("no command")?;
    child_command(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start `{program}`: {e}"))
}

/// Connects to the started server over its stdin and stdout, prints its
/// tool listing, and copies its stderr to ours, each line marked.
async fn connect(program: &str, mut child: Child) -> Result<(Client, Child), String> {
    let (Some(stdin), Some(stdout), Some(stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        return Err("the server's pipes were not opened".to_owned());
    };
    tokio::spawn(async move {
        let mut lines = tokio::io::BufReader::new(stderr).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            eprintln!("server | {line}");
        }
    });
    let client = Client::builder()
        .client_info("mcp-dev", env!("CARGO_PKG_VERSION"))
        .connect_io(stdout, stdin)
        .await
        .map_err(|e| format!("`{program}` did not answer as an MCP server: {e}"))?;
    let tools = client
        .list_tools()
        .await
        .map_err(|e| format!("listing the tools failed: {e}"))?;
    let info = client.server_info();
    println!("{} {}: {} tools", info.name, info.version, tools.len());
    for tool in tools {
        println!("  {}: {}", tool.name, tool.description.unwrap_or_default());
    }
    Ok((client, child))
}

/// Starts the MCP Inspector on the server's command and prints the
/// address it serves its page at.
async fn start_inspector(command: &[String]) -> Result<Child, String> {
    let inspector = std::env::var_os("MCP_INSPECTOR").unwrap_or_else(|| "mcp-inspector".into());
    let mut child = child_command(&inspector)
        .args(command)
        .env("MCP_AUTO_OPEN_ENABLED", "false")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| {
            format!(
                "cannot start the MCP Inspector ({}): {e}; it needs Node: set MCP_INSPECTOR \
                 (scripts/install-tools.sh installs it under .tools) or \
                 `npm install -g @modelcontextprotocol/inspector`",
                Path::new(&inspector).display()
            )
        })?;
    let stdout = child
        .stdout
        .take()
        .ok_or("the Inspector's output was not opened")?;
    let mut lines = tokio::io::BufReader::new(stdout).lines();
    let found = tokio::time::timeout(Duration::from_secs(30), async {
        while let Ok(Some(line)) = lines.next_line().await {
            if let Some(at) = line.find("http://") {
                return Some(line[at..].trim().to_owned());
            }
        }
        None
    })
    .await;
    if let Ok(Some(address)) = found {
        println!("inspector: {address}");
        // The rest of its output, drained so it never blocks on a full pipe.
        tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
        Ok(child)
    } else {
        end(child).await;
        Err("the MCP Inspector did not say its address within 30 s".to_owned())
    }
}
