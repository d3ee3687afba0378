//! `mcp install` and `mcp uninstall`: a server put into (or taken out of) a
//! host's config file, so that the host starts it or connects to it. The
//! files and their shapes are in `crate::hosts`; this module turns the
//! command line into a [`Server`]: a relative command made absolute (hosts
//! start servers from their own working directory, with their own PATH),
//! or, with neither a command nor a URL, the current Cargo project built in
//! release.

use std::path::{Path, PathBuf};
use std::process::Command as Process;

use crate::hosts::{self, Change, Host, Scope, Server};
use crate::output::{line, Format, Output};

const INSTALL_EXAMPLES: &str = "\
Examples:
  mcp install claude-code calc -- ./target/release/calculator
  mcp install claude-code calc --scope project -- calculator --verbose
  mcp install claude-desktop notes --env NOTES_DIR=/home/me/notes -- notes
  mcp install cursor calc https://calc.example.com/mcp
  mcp install vscode calc --scope project -- ./target/release/calculator
  mcp install gemini-cli calc -- npx -y my-mcp-server
  mcp install codex calc --force -- /opt/bin/calculator
  mcp install claude-code calc      (in a Cargo project: builds it in release first)

Files written (user scope / project scope):
  claude-code     ~/.claude.json / .mcp.json
  claude-desktop  claude_desktop_config.json in the OS's config folder (user only)
  cursor          ~/.cursor/mcp.json / .cursor/mcp.json
  vscode          Code/User/mcp.json in the OS's config folder / .vscode/mcp.json
  gemini-cli      ~/.gemini/settings.json / .gemini/settings.json
  codex           ~/.codex/config.toml / .codex/config.toml
The file's other entries and formatting are kept; before its first change
it is copied to FILE.bak.";

const UNINSTALL_EXAMPLES: &str = "\
Examples:
  mcp uninstall claude-code calc
  mcp uninstall cursor calc --scope project
  mcp uninstall codex calc";

/// Add a server to a host's config file.
#[derive(Debug, clap::Args)]
#[command(after_help = INSTALL_EXAMPLES)]
pub(crate) struct Install {
    /// The host: claude-code, claude-desktop, cursor, vscode, gemini-cli or codex.
    host: String,
    /// The server's name in the host.
    name: String,
    /// The server's Streamable HTTP URL, instead of a command.
    url: Option<String>,
    /// The command that starts the server over stdio, and its arguments
    /// (after `--`). A relative command is made absolute.
    #[arg(last = true, value_name = "COMMAND ARGS")]
    command: Vec<String>,
    /// An environment variable for the server (repeatable).
    #[arg(long = "env", value_name = "KEY=VALUE", value_parser = parse_env)]
    env: Vec<(String, String)>,
    /// The project's file (in the current directory) or the user's.
    #[arg(long, value_enum, default_value = "user")]
    scope: Scope,
    /// Replace a different server of the same name.
    #[arg(long)]
    force: bool,
    #[command(flatten)]
    format: Format,
}

/// Remove a server from a host's config file.
#[derive(Debug, clap::Args)]
#[command(after_help = UNINSTALL_EXAMPLES)]
pub(crate) struct Uninstall {
    /// The host: claude-code, claude-desktop, cursor, vscode, gemini-cli or codex.
    host: String,
    /// The server's name in the host.
    name: String,
    /// The project's file (in the current directory) or the user's.
    #[arg(long, value_enum, default_value = "user")]
    scope: Scope,
    #[command(flatten)]
    format: Format,
}

fn parse_env(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((k, v)) if !k.is_empty() => Ok((k.to_owned(), v.to_owned())),
        _ => Err(format!("`{s}` is not KEY=VALUE")),
    }
}

pub(crate) fn install(args: &Install) -> Result<(), String> {
    let (host, cwd, file) = target(&args.host, args.scope)?;
    let server = server(args, &cwd)?;
    let change =
        hosts::install(host, &file, &args.name, &server, args.force).map_err(|e| e.to_string())?;
    let (name, shown) = (&args.name, file.display());
    let text = match change {
        Change::Added => format!("added `{name}` to {shown}"),
        Change::Replaced => format!("replaced `{name}` in {shown}"),
        Change::Unchanged => format!("`{name}` is already in {shown} as given: nothing changed"),
        Change::Removed | Change::Absent => unreachable!("an install adds or keeps"),
    };
    if let Some(note) = host.first_start_note(args.scope) {
        eprintln!("note: {note}");
    }
    report(&args.format, host, name, &file, change, &text)
}

pub(crate) fn uninstall(args: &Uninstall) -> Result<(), String> {
    let (host, _, file) = target(&args.host, args.scope)?;
    let change = hosts::uninstall(host, &file, &args.name).map_err(|e| e.to_string())?;
    let (name, shown) = (&args.name, file.display());
    let text = match change {
        Change::Removed => format!("removed `{name}` from {shown}"),
        _ => format!("no server named `{name}` in {shown}: nothing changed"),
    };
    report(&args.format, host, name, &file, change, &text)
}

/// What was done, as `text` or (`--json`) one document: the host, the
/// server's name, the file, what changed (`added`, `replaced`,
/// `unchanged`, `removed`, `absent`) and the backup kept of the file as it
/// was before `mcp` first changed it, when there is one.
fn report(
    format: &Format,
    host: Host,
    name: &str,
    file: &Path,
    change: Change,
    text: &str,
) -> Result<(), String> {
    if !Output::new(format).json {
        return line(text);
    }
    // The backup sits beside the file a symbolic link points at.
    let real = std::fs::canonicalize(file).unwrap_or_else(|_| file.to_path_buf());
    let mut backup = real.into_os_string();
    backup.push(".bak");
    let backup = Path::new(&backup);
    Output::json(&serde_json::json!({
        "host": host.name(),
        "name": name,
        "file": file.display().to_string(),
        "change": change.name(),
        "backup": backup.is_file().then(|| backup.display().to_string()),
    }))
}

/// The host named `host`, the current (project) directory and the file
/// to edit.
fn target(host: &str, scope: Scope) -> Result<(Host, PathBuf, PathBuf), String> {
    let host = Host::parse(host).map_err(|e| e.to_string())?;
    let cwd =
        std::env::current_dir().map_err(|e| format!("cannot read the current directory: {e}"))?;
    let file = host.config_file(scope, &cwd).map_err(|e| e.to_string())?;
    Ok((host, cwd, file))
}

/// The server the command line describes.
fn server(args: &Install, cwd: &Path) -> Result<Server, String> {
    match (&args.url, args.command.split_first()) {
        (Some(_), Some(_)) => Err(
            "both a URL and a command were given: give one (a URL, or `-- COMMAND ARGS`)".into(),
        ),
        (Some(url), None) => {
            if !(url.starts_with("http://") || url.starts_with("https://")) {
                return Err(format!(
                    "`{url}` is not an http:// or https:// URL: to install a command, put it after `--`"
                ));
            }
            if !args.env.is_empty() {
                return Err("--env is for a server the host starts, not a URL: drop it".into());
            }
            Ok(Server::Http { url: url.clone() })
        }
        (None, Some((command, rest))) => Ok(Server::Stdio {
            command: absolute_command(command, cwd)?,
            args: rest.to_vec(),
            env: args.env.clone(),
        }),
        (None, None) => Ok(Server::Stdio {
            command: build_project(cwd, &args.name)?,
            args: Vec::new(),
            env: args.env.clone(),
        }),
    }
}

/// `command` as an absolute path: a path is taken from `cwd`, a bare name
/// looked up on PATH, as a shell would.
fn absolute_command(command: &str, cwd: &Path) -> Result<String, String> {
    let path = Path::new(command);
    if path.is_absolute() {
        return Ok(command.to_owned());
    }
    let found = if path.components().count() > 1 {
        let full = std::path::absolute(cwd.join(path))
            .map_err(|e| format!("cannot make `{command}` absolute: {e}"))?;
        if !full.is_file() {
            return Err(format!(
                "`{command}` is not a file (looked for {}): check the path",
                full.display()
            ));
        }
        full
    } else {
        which::which(command).map_err(|_| {
            format!("`{command}` is not on PATH: give its path (./{command} or /full/path)")
        })?
    };
    Ok(found.display().to_string())
}

/// Builds the Cargo project around `cwd` in release and returns its
/// binary's absolute path: the binary named `name`, or the only one.
fn build_project(cwd: &Path, name: &str) -> Result<String, String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let no_project = "no command or URL given, and no Cargo project here: give `-- COMMAND ARGS` or a URL, or run inside a project with a binary";
    let located = Process::new(&cargo)
        .args(["locate-project", "--message-format", "plain"])
        .current_dir(cwd)
        .output()
        .map_err(|e| format!("cannot run cargo ({e}): {no_project}"))?;
    if !located.status.success() {
        return Err(no_project.into());
    }
    let manifest = String::from_utf8_lossy(&located.stdout).trim().to_owned();
    let metadata = Process::new(&cargo)
        .args(["metadata", "--no-deps", "--format-version", "1"])
        .args(["--manifest-path", &manifest])
        .current_dir(cwd)
        .output()
        .map_err(|e| format!("cannot run cargo metadata: {e}"))?;
    if !metadata.status.success() {
        return Err(format!(
            "cargo metadata failed for {manifest}: {}",
            first_line(&metadata.stderr)
        ));
    }
    let metadata: serde_json::Value = serde_json::from_slice(&metadata.stdout)
        .map_err(|e| format!("cargo metadata printed something unexpected: {e}"))?;
    let bin = pick_binary(&metadata, &manifest, name)?;
    eprintln!("building `{bin}` in release (cargo build --release)");
    let status = Process::new(&cargo)
        .args(["build", "--release", "--bin", &bin])
        .args(["--manifest-path", &manifest])
        .current_dir(cwd)
        .status()
        .map_err(|e| format!("cannot run cargo build: {e}"))?;
    if !status.success() {
        return Err(
            "cargo build --release failed (its errors are above): fix them and run again".into(),
        );
    }
    let target = metadata["target_directory"]
        .as_str()
        .ok_or("cargo metadata named no target directory")?;
    let path = Path::new(target)
        .join("release")
        .join(format!("{bin}{}", std::env::consts::EXE_SUFFIX));
    if !path.is_file() {
        return Err(format!(
            "cargo built `{bin}` but {} is missing",
            path.display()
        ));
    }
    Ok(path.display().to_string())
}

/// The binary target to install from the package at `manifest`.
fn pick_binary(metadata: &serde_json::Value, manifest: &str, name: &str) -> Result<String, String> {
    let package = metadata["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|p| p["manifest_path"].as_str() == Some(manifest))
        .ok_or_else(|| format!("{manifest} is a workspace with no package of its own: run in the folder of the package to install, or give `-- COMMAND`"))?;
    let bins: Vec<&str> = package["targets"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|t| {
            t["kind"]
                .as_array()
                .is_some_and(|k| k.iter().any(|k| k == "bin"))
        })
        .filter_map(|t| t["name"].as_str())
        .collect();
    match bins.as_slice() {
        [] => Err(format!("{manifest} has no binary to install: add one, or give `-- COMMAND`")),
        [only] => Ok((*only).to_owned()),
        several => several
            .iter()
            .find(|b| **b == name)
            .map(|b| (*b).to_owned())
            .ok_or_else(|| {
                format!(
                    "{manifest} has several binaries ({}): name the server after one of them, or give `-- COMMAND`",
                    several.join(", ")
                )
            }),
    }
}

fn first_line(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes)
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("no message")
        .to_owned()
}
