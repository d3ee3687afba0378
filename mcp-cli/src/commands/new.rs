//! `mcp new`: a project that builds and whose own test passes, from the
//! templates under `mcp-cli/templates/` (compiled in with `include_str!`,
//! so the binary works from anywhere).

use std::path::{Path, PathBuf};

/// Create a new MCP project: a server (stdio by default, `--http`, or
/// `--prompts` with prompts and resources) or an agent, with a test that
/// uses the oxmcp-testing harness.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
    mcp new weather --framework-path ~/src/mcp-rs\n  \
    mcp new weather-http --http --framework-path ~/src/mcp-rs\n  \
    mcp new glossary --prompts --framework-path ~/src/mcp-rs\n  \
    mcp new helper --agent --framework-path ~/src/mcp-rs")]
pub(crate) struct New {
    /// The directory to create; its last part is the crate's name
    /// (letters, digits, `-` and `_`, starting with a letter).
    #[arg(value_name = "NAME")]
    path: PathBuf,
    /// A server over Streamable HTTP instead of stdio.
    #[arg(long, group = "kind")]
    http: bool,
    /// A server with prompts and resources besides its tools.
    #[arg(long, group = "kind")]
    prompts: bool,
    /// An agent: a model calling the project's tools.
    #[arg(long, group = "kind")]
    agent: bool,
    /// A checkout of this framework (the directory holding `mcp-server/`):
    /// until its crates are published, projects depend on it by path.
    #[arg(long, value_name = "PATH")]
    framework_path: Option<PathBuf>,
}

/// Why a project was not created: the line the user reads.
#[derive(Debug, thiserror::Error)]
pub(crate) enum NewError {
    #[error(
        "the framework's crates are not published yet: pass --framework-path PATH, \
         a checkout of mcp-rs (the directory holding mcp-server/)"
    )]
    NoFramework,
    #[error("--framework-path {0}: not a checkout of mcp-rs (no mcp-server/Cargo.toml or mcp-testing/Cargo.toml in it)")]
    NotFramework(String),
    #[error("`{0}` already exists: choose another name, or remove it")]
    Exists(String),
    #[error("`{name}` is not a valid crate name: {why}")]
    InvalidName { name: String, why: String },
    /// The I/O error's text is part of the line (it is not a `source`: the
    /// line is all the user reads).
    #[error("cannot write {path}: {reason}")]
    Write { path: String, reason: String },
}

/// The kinds of project, one per template.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Stdio,
    Http,
    Prompts,
    Agent,
}

/// What a template puts in the new project, given its name and the
/// framework's path.
struct Values<'a> {
    name: &'a str,
    /// The crate's name as Rust code names it (`-` becomes `_`).
    krate: String,
    /// The framework's path.
    framework: String,
}

impl Values<'_> {
    /// `template` with its `{{...}}` placeholders filled; `{{path CRATE}}`
    /// is the framework's crate as a quoted TOML string.
    fn fill(&self, template: &str) -> String {
        let mut text = template.to_owned();
        for krate in ["mcp-server", "mcp-testing", "mcp-agent"] {
            let path = toml_string(&format!("{}/{krate}", self.framework));
            text = text.replace(&format!("{{{{path {krate}}}}}"), &path);
        }
        text.replace("{{name}}", self.name)
            .replace("{{crate}}", &self.krate)
            .replace("{{framework}}", &self.framework)
    }
}

/// Runs `mcp new`.
pub(crate) fn run(args: &New) -> Result<(), NewError> {
    let kind = match (args.http, args.prompts, args.agent) {
        (true, _, _) => Kind::Http,
        (_, true, _) => Kind::Prompts,
        (_, _, true) => Kind::Agent,
        _ => Kind::Stdio,
    };
    let name = crate_name(&args.path)?;
    let framework = framework(args.framework_path.as_deref())?;
    if args.path.exists() {
        return Err(NewError::Exists(args.path.display().to_string()));
    }
    let values = Values {
        name: &name,
        krate: name.replace('-', "_"),
        framework: framework.display().to_string(),
    };
    let files = files(kind, &values);
    std::fs::create_dir_all(&args.path).map_err(|e| write_error(&args.path, &e))?;
    let written = write_all(&args.path, &files, &framework);
    if written.is_err() {
        // Nothing half-made is left behind (the directory did not exist).
        let _ = std::fs::remove_dir_all(&args.path);
    }
    written?;
    let dir = args.path.display();
    println!(
        "created {dir} ({}): cd {dir} && cargo test",
        kind.describe()
    );
    Ok(())
}

impl Kind {
    fn describe(self) -> &'static str {
        match self {
            Kind::Stdio => "an MCP server over stdio",
            Kind::Http => "an MCP server over Streamable HTTP",
            Kind::Prompts => "an MCP server with tools, prompts and resources",
            Kind::Agent => "an agent calling its tools",
        }
    }
}

/// Each file of the new project (path relative to it, contents) for `kind`.
fn files(kind: Kind, values: &Values<'_>) -> Vec<(&'static str, String)> {
    let dependencies = match kind {
        Kind::Agent => "oxmcp-agent = { path = {{path mcp-agent}} }\n",
        _ => "",
    };
    let cargo = CARGO_TOML.replace("{{dependencies}}", dependencies);
    let (about, run, host, lib, main, test, snapshot) = match kind {
        Kind::Stdio => (
            STDIO_ABOUT,
            STDIO_RUN,
            HOST,
            TOOLS,
            STDIO_MAIN,
            TOOLS_TEST,
            TOOLS_JSON,
        ),
        Kind::Http => (
            HTTP_ABOUT, HTTP_RUN, HTTP_HOST, TOOLS, HTTP_MAIN, TOOLS_TEST, TOOLS_JSON,
        ),
        Kind::Prompts => (
            PROMPTS_ABOUT,
            STDIO_RUN,
            HOST,
            PROMPTS_LIB,
            STDIO_MAIN,
            PROMPTS_TEST,
            PROMPTS_JSON,
        ),
        Kind::Agent => (
            AGENT_ABOUT,
            AGENT_RUN,
            "",
            TOOLS,
            AGENT_MAIN,
            TOOLS_TEST,
            TOOLS_JSON,
        ),
    };
    let readme = README
        .replace("{{about}}", about.trim_end())
        .replace("{{run}}", run.trim_end())
        .replace("{{host}}", host);
    let mut lib = lib.to_owned();
    if kind == Kind::Agent {
        lib.push_str(AGENT_LIB);
    }
    let mut files = vec![
        ("Cargo.toml", values.fill(&cargo)),
        ("README.md", values.fill(&readme)),
        (".gitignore", "/target\n".to_owned()),
        ("src/lib.rs", values.fill(&lib)),
        ("src/main.rs", values.fill(main)),
        ("tests/server.rs", values.fill(test)),
        ("tests/listing.rs", values.fill(LISTING_TEST)),
        ("tests/tools.json", snapshot.to_owned()),
    ];
    if kind == Kind::Agent {
        files.push(("tests/agent.rs", values.fill(AGENT_TEST)));
    }
    files
}

/// Writes `files` under `dir`, and the framework's `Cargo.lock` (the
/// versions it is tested with; cargo drops what the project does not use).
fn write_all(dir: &Path, files: &[(&str, String)], framework: &Path) -> Result<(), NewError> {
    for (relative, contents) in files {
        let path = dir.join(relative);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| write_error(parent, &e))?;
        }
        std::fs::write(&path, contents).map_err(|e| write_error(&path, &e))?;
    }
    let lock = framework.join("Cargo.lock");
    if lock.is_file() {
        let to = dir.join("Cargo.lock");
        std::fs::copy(&lock, &to).map_err(|e| write_error(&to, &e))?;
    }
    Ok(())
}

fn write_error(path: &Path, error: &std::io::Error) -> NewError {
    NewError::Write {
        path: path.display().to_string(),
        reason: error.to_string(),
    }
}

/// The framework checkout, absolute (projects may move; it does not).
fn framework(path: Option<&Path>) -> Result<PathBuf, NewError> {
    let path = path.ok_or(NewError::NoFramework)?;
    let not = || NewError::NotFramework(path.display().to_string());
    let path = std::fs::canonicalize(path).map_err(|_| not())?;
    let has = |krate: &str| path.join(krate).join("Cargo.toml").is_file();
    if has("mcp-server") && has("mcp-testing") {
        Ok(path)
    } else {
        Err(not())
    }
}

/// A TOML string holding `text`, quoted and escaped as TOML wants.
fn toml_string(text: &str) -> String {
    toml::Value::String(text.to_owned()).to_string()
}

/// The crate name `path` gives (its last part), checked as cargo checks it.
fn crate_name(path: &Path) -> Result<String, NewError> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let invalid = |why: &str| NewError::InvalidName {
        name: name.clone(),
        why: why.to_owned(),
    };
    let Some(first) = name.chars().next() else {
        return Err(invalid("it is empty"));
    };
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || *c == '-' || *c == '_'))
    {
        return Err(invalid(&format!(
            "`{c}` is not allowed (use letters, digits, `-` and `_`)"
        )));
    }
    if !first.is_ascii_alphabetic() {
        return Err(invalid("it must start with a letter"));
    }
    let rust = name.replace('-', "_");
    if KEYWORDS.contains(&rust.as_str()) {
        return Err(invalid("it is a Rust keyword (choose another name)"));
    }
    if RESERVED.contains(&rust.as_str()) {
        return Err(invalid(
            "it is the name of a crate of Rust's standard library (choose another name)",
        ));
    }
    Ok(name)
}

/// Rust's keywords, strict and reserved (a crate cannot be named one).
const KEYWORDS: &[&str] = &[
    "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "crate",
    "do", "dyn", "else", "enum", "extern", "false", "final", "fn", "for", "gen", "if", "impl",
    "in", "let", "loop", "macro", "match", "mod", "move", "mut", "override", "priv", "pub", "ref",
    "return", "self", "static", "struct", "super", "trait", "true", "try", "type", "typeof",
    "unsafe", "unsized", "use", "virtual", "where", "while", "yield",
];

/// The standard library's crates, which cargo refuses as package names.
const RESERVED: &[&str] = &["alloc", "core", "proc_macro", "std", "test"];

// Not named `Cargo.toml`: cargo leaves a directory holding one out of the
// package, and the published `mcp` would not build without it.
const CARGO_TOML: &str = include_str!("../../templates/common/Cargo.toml.in");
const README: &str = include_str!("../../templates/common/README.md");
const HOST: &str = include_str!("../../templates/common/host.md");
const TOOLS: &str = include_str!("../../templates/common/tools.rs");
const TOOLS_TEST: &str = include_str!("../../templates/common/tools_test.rs");
const LISTING_TEST: &str = include_str!("../../templates/common/listing_test.rs");
const TOOLS_JSON: &str = include_str!("../../templates/common/tools.json");
const STDIO_ABOUT: &str = include_str!("../../templates/stdio/about.md");
const STDIO_RUN: &str = include_str!("../../templates/stdio/run.md");
const STDIO_MAIN: &str = include_str!("../../templates/stdio/main.rs");
const HTTP_ABOUT: &str = include_str!("../../templates/http/about.md");
const HTTP_RUN: &str = include_str!("../../templates/http/run.md");
const HTTP_HOST: &str = include_str!("../../templates/http/host.md");
const HTTP_MAIN: &str = include_str!("../../templates/http/main.rs");
const PROMPTS_ABOUT: &str = include_str!("../../templates/prompts/about.md");
const PROMPTS_LIB: &str = include_str!("../../templates/prompts/lib.rs");
const PROMPTS_TEST: &str = include_str!("../../templates/prompts/server_test.rs");
const PROMPTS_JSON: &str = include_str!("../../templates/prompts/tools.json");
const AGENT_ABOUT: &str = include_str!("../../templates/agent/about.md");
const AGENT_RUN: &str = include_str!("../../templates/agent/run.md");
const AGENT_MAIN: &str = include_str!("../../templates/agent/main.rs");
const AGENT_LIB: &str = include_str!("../../templates/agent/lib_agent.rs");
const AGENT_TEST: &str = include_str!("../../templates/agent/agent_test.rs");
