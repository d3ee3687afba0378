//! Commands from an allow list, run without a shell.
//!
//! [`Commands`] is a toolbox with one tool, `exec` (`command`, `timeout_ms`
//! default 30000; annotated destructive and open-world). It is off unless
//! the host allows programs by name: with none allowed the toolbox offers no
//! tool at all.
//!
//! ```no_run
//! use oxmcp_server::Server;
//! use oxmcp_toolbox::commands::Commands;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // Programs that only read their arguments: see "What it cannot make safe".
//! let commands = Commands::builder()
//!     .allow("wc")
//!     .allow("date")
//!     .root("/srv/notes")            // default: the current directory
//!     .max_output_bytes(100_000)     // default: 30,000 bytes each of stdout and stderr
//!     .build()?;
//! Server::builder("notes", "1.0").toolbox(commands).build().serve_stdio().await?;
//! # Ok(())
//! # }
//! ```
//!
//! # What one call does
//!
//! - The command is split into words as a POSIX shell splits them (quotes
//!   and backslashes, with `shell-words`) and run as an argument vector:
//!   **no shell** is involved. Shell syntax that no shell will act on is
//!   refused rather than passed on, so the model learns at once that it
//!   does nothing: unquoted `;`, `&`, `|`, `<`, `>`, `(`, `)`, `$`, `` ` ``,
//!   the globs `*`, `?`, `[`, a word starting with `#` or `~`, and `$` or
//!   `` ` `` inside double quotes. Quoted (`'...'`, or a backslash), each
//!   reaches the program as plain text. A newline, carriage return or NUL
//!   anywhere is refused: one command per call.
//! - The program, the first word, must be on the allow list by name; a name
//!   with a `/` never is. It is looked up on a fixed `PATH` (default
//!   `/usr/local/bin:/usr/bin:/bin`, [`CommandsBuilder::path`]), never the
//!   server's own.
//! - The environment is emptied, then holds only `PATH` (that one),
//!   `LANG=C.UTF-8` and `HOME` (the root).
//! - The working directory is the root ([`CommandsBuilder::root`]; default
//!   the current directory when built), canonicalised.
//! - Standard input is `/dev/null`. Standard output and standard error are
//!   captured, each up to [`CommandsBuilder::max_output_bytes`]; the rest is
//!   read, counted and dropped, and the result says it was cut. The output
//!   is shortened further, the longer stream first, when its JSON would not
//!   fit in the tool's result cap (`Context::max_result_chars`): the server
//!   would otherwise have to drop the structured result.
//! - The program leads a process group of its own. At the timeout, when the
//!   call is cancelled, and also when the program exits, the whole group is
//!   killed (`SIGKILL`): nothing it started outlives the call.
//! - Refusals (a program not allowed, shell syntax, a bad timeout) are tool
//!   errors (`isError`); a run, whatever its exit status, is an
//!   [`ExecOutput`]: exit code or signal, stdout, stderr, whether it timed
//!   out and whether each stream was cut.
//!
//! # What it cannot make safe
//!
//! The allow list is the whole of the security: **an allowed program runs
//! with whatever arguments the model writes**. An interpreter, or any
//! program that runs other programs, runs anything it is given: `sh -c`,
//! `bash`, `python -c`, `node -e`, `perl`, `env`, `xargs`, `find -exec`,
//! `awk` (`system()`), `git` (aliases, hooks, `-c core.sshCommand=...`),
//! `make`, `cargo` (build scripts), `npm` (install scripts), `ssh`,
//! `tar --to-command`, `rsync -e`... Allowing one of them allows
//! everything. Arguments are not confined either: the working directory is
//! the root, but `cat /etc/passwd` or `rm -rf ../..` name paths outside it,
//! and the program runs with the server's user and permissions, network
//! included. A process that leaves the group (`setsid`) escapes the kill.
//! Allow only programs whose every argument is harmless to you, or run the
//! server in a sandbox (a container, a user namespace, seccomp) that makes
//! them so.
//!
//! [`CommandsBuilder::build`] logs a warning (`tracing`, target
//! `oxmcp_toolbox::commands`) for each allowed program it knows to run other
//! programs, and [`Commands::program_runners`] names them, so a host can
//! refuse such a list or say so to its user. The list it knows
//! ([`program_runs_others`]) is not complete: a program it does not name is
//! not thereby safe.

mod parse;
mod run;
mod tool;

use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use oxmcp_server::{ToolBox, ToolEntry};

use tool::Policy;
pub use tool::{Exec, ExecClient, ExecOutput};

/// The `PATH` programs are looked up on, and see, unless
/// [`CommandsBuilder::path`] says otherwise.
pub const DEFAULT_PATH: &str = "/usr/local/bin:/usr/bin:/bin";
/// The default cap of stdout, and of stderr, per call: 30,000 bytes, what
/// Claude Code's own shell tool keeps of a command's output; both fit in
/// the server's default result cap (100,000 characters).
pub const DEFAULT_MAX_OUTPUT_BYTES: usize = 30_000;
/// The default upper bound of `timeout_ms`: 10 minutes.
pub const DEFAULT_MAX_TIMEOUT: Duration = Duration::from_secs(600);

/// The commands toolbox: `exec` over an allow list of programs, or nothing
/// when no program is allowed. Made by [`Commands::builder`]; register it
/// with `ServerBuilder::toolbox`.
#[derive(Debug, Clone)]
pub struct Commands {
    policy: Arc<Policy>,
}

impl Commands {
    /// A builder with the safe defaults: no program allowed (so no tool),
    /// the current directory as root, [`DEFAULT_PATH`],
    /// [`DEFAULT_MAX_OUTPUT_BYTES`] and [`DEFAULT_MAX_TIMEOUT`].
    pub fn builder() -> CommandsBuilder {
        CommandsBuilder::default()
    }

    /// The programs allowed, in the order given.
    pub fn allowed(&self) -> &[String] {
        &self.policy.allowed
    }

    /// The allowed programs known to run other programs (shells,
    /// interpreters, `env`, `xargs`, `find`, `git`, build tools...; see
    /// [`program_runs_others`]), in the order given: allowing one of them
    /// allows any program. Empty does not mean safe, only that none of
    /// these is allowed.
    pub fn program_runners(&self) -> Vec<&str> {
        self.policy
            .allowed
            .iter()
            .map(String::as_str)
            .filter(|name| program_runs_others(name))
            .collect()
    }

    /// The working directory of every run (canonical).
    pub fn root(&self) -> &std::path::Path {
        &self.policy.root
    }

    /// The `exec` tool itself, when a program is allowed.
    pub fn exec(&self) -> Option<Exec> {
        (!self.policy.allowed.is_empty()).then(|| Exec {
            policy: Arc::clone(&self.policy),
        })
    }
}

/// The toolbox's tool list is built here rather than by `#[tool]`: it is
/// [`Exec`]'s (`exec`) when a program is allowed, and empty otherwise.
impl ToolBox for Commands {
    const NAME: &'static str = "Commands";
    const DESCRIPTION: &'static str = Exec::DESCRIPTION;

    /// With more output kept than the default result cap holds, `exec`
    /// raises its own cap to fit both streams (announced to Claude hosts).
    fn into_tools(self) -> Vec<ToolEntry> {
        let want = self.policy.max_output_bytes.saturating_mul(2) + 1_000;
        let tools = self.exec().map(Exec::into_tools).unwrap_or_default();
        if want <= oxmcp_server::tool::DEFAULT_MAX_RESULT_CHARS {
            return tools;
        }
        let cap = want.min(oxmcp_server::tool::MAX_RESULT_CHARS);
        tools
            .into_iter()
            .map(|t| t.with_max_result_chars(cap))
            .collect()
    }
}

/// Configures [`Commands`]; see the [module docs](self).
#[derive(Debug, Clone, Default)]
pub struct CommandsBuilder {
    allowed: Vec<String>,
    root: Option<PathBuf>,
    path: Option<OsString>,
    max_output_bytes: Option<usize>,
    max_timeout: Option<Duration>,
}

impl CommandsBuilder {
    /// Allows the program `name` (a bare name such as `wc`, looked up on
    /// the fixed `PATH`). Every argument the model writes reaches it: see
    /// [what this cannot make safe](self#what-it-cannot-make-safe). A
    /// program that runs others (`git`, `sh`, `python`, `env`, `xargs`,
    /// `find`...) allows them all, and [`build`](Self::build) warns of it.
    pub fn allow(mut self, name: impl Into<String>) -> Self {
        let name = name.into();
        if !self.allowed.contains(&name) {
            self.allowed.push(name);
        }
        self
    }

    /// The working directory of every run, and its `HOME` (default: the
    /// current directory when [`build`](Self::build) runs). Canonicalised.
    pub fn root(mut self, dir: impl Into<PathBuf>) -> Self {
        self.root = Some(dir.into());
        self
    }

    /// The directories programs are looked up in, and the `PATH` they see,
    /// `:`-separated absolute paths (default [`DEFAULT_PATH`]).
    pub fn path(mut self, path: impl Into<OsString>) -> Self {
        self.path = Some(path.into());
        self
    }

    /// How many bytes of stdout, and of stderr, a call keeps (default
    /// [`DEFAULT_MAX_OUTPUT_BYTES`]).
    pub fn max_output_bytes(mut self, bytes: usize) -> Self {
        self.max_output_bytes = Some(bytes);
        self
    }

    /// The largest `timeout_ms` a call may ask for (default
    /// [`DEFAULT_MAX_TIMEOUT`]); more is refused.
    pub fn max_timeout(mut self, timeout: Duration) -> Self {
        self.max_timeout = Some(timeout);
        self
    }

    /// Checks the configuration and resolves the root. Each allowed program
    /// known to run others ([`program_runs_others`]) is logged as a warning:
    /// the build goes on, since a sandbox around the server may make it
    /// harmless, but nothing here does.
    pub fn build(self) -> Result<Commands, BuildError> {
        for name in &self.allowed {
            let bare = !name.is_empty()
                && name != "."
                && name != ".."
                && !name.contains(['/', '\0'])
                && !name.chars().any(char::is_whitespace);
            if !bare {
                return Err(BuildError::Program(name.clone()));
            }
        }
        let path = self.path.unwrap_or_else(|| DEFAULT_PATH.into());
        if std::env::split_paths(&path).any(|dir| !dir.is_absolute()) {
            return Err(BuildError::Path(path));
        }
        let root = match self.root {
            Some(root) => root,
            None => std::env::current_dir().map_err(|source| BuildError::Root {
                root: PathBuf::from("."),
                source,
            })?,
        };
        let root = root
            .canonicalize()
            .and_then(|dir| {
                if dir.is_dir() {
                    Ok(dir)
                } else {
                    Err(std::io::Error::other("not a directory"))
                }
            })
            .map_err(|source| BuildError::Root { root, source })?;
        let commands = Commands {
            policy: Arc::new(Policy {
                allowed: self.allowed,
                root,
                path,
                max_output_bytes: self.max_output_bytes.unwrap_or(DEFAULT_MAX_OUTPUT_BYTES),
                max_timeout: self.max_timeout.unwrap_or(DEFAULT_MAX_TIMEOUT),
            }),
        };
        for name in commands.program_runners() {
            tracing::warn!(
                program = name,
                "the commands toolbox allows `{name}`, which runs other programs: the model can run any program through it"
            );
        }
        Ok(commands)
    }
}

/// Programs known to run other programs from their arguments, their
/// configuration or their environment: shells, interpreters, wrappers that
/// exec their arguments, and tools with hooks, aliases or a command option.
/// Versioned names count as their program (`python3.12`, `perl5`).
#[rustfmt::skip] // grouped by kind, a line per group
const PROGRAM_RUNNERS: &[&str] = &[
    // shells
    "sh", "bash", "dash", "zsh", "ksh", "mksh", "csh", "tcsh", "fish", "busybox", "toybox",
    // interpreters
    "python", "pypy", "perl", "ruby", "node", "nodejs", "deno", "bun", "php", "lua", "luajit",
    "tclsh", "wish", "expect", "awk", "gawk", "mawk", "nawk", "sed", "osascript", "pwsh", "java",
    "julia", "Rscript",
    // wrappers that run their arguments
    "env", "xargs", "find", "nice", "nohup", "timeout", "time", "stdbuf", "setsid", "sudo", "su",
    "doas", "chroot", "unshare", "nsenter", "flock", "watch", "script", "strace", "ltrace", "gdb",
    "parallel", "ionice", "taskset", "runuser", "systemd-run",
    // tools with hooks, aliases, build scripts or a command option
    "git", "hg", "make", "cmake", "ninja", "cargo", "rustc", "go", "npm", "npx", "yarn", "pnpm",
    "pip", "uv", "uvx", "ssh", "scp", "sftp", "rsync", "tar", "zip", "man", "vi", "vim", "nvim",
    "emacs", "docker", "podman", "kubectl", "crontab", "at",
];

/// Whether `program` (a bare name) is one of the programs known to run
/// other programs: shells, interpreters, `env`, `xargs`, `find -exec`,
/// `git` (aliases, hooks, `-c core.sshCommand=...`), build tools,
/// `tar --to-command`, `rsync -e`... A name it does not know is not
/// thereby safe: the list is what is well known, not a proof.
pub fn program_runs_others(program: &str) -> bool {
    let base = program.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    PROGRAM_RUNNERS.contains(&program) || (!base.is_empty() && PROGRAM_RUNNERS.contains(&base))
}

/// A configuration [`CommandsBuilder::build`] refused.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// A program to allow that is not a bare name (empty, `.`, `..`, or
    /// holding a `/`, a NUL or white space).
    #[error("`{0}` is not a program name: allow programs by bare name, e.g. `wc`")]
    Program(String),
    /// A `PATH` entry that is not absolute.
    #[error("the PATH {0:?} has a directory that is not absolute")]
    Path(OsString),
    /// The root cannot be used as a working directory.
    #[error("the root {root:?} cannot be used")]
    Root {
        /// The root as given.
        root: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn with_no_program_allowed_the_toolbox_offers_no_tool() {
        let commands = Commands::builder().build().unwrap();
        assert!(commands.exec().is_none());
        assert!(commands.into_tools().is_empty());
    }

    #[test]
    fn an_allowed_program_brings_one_destructive_open_world_exec_tool() {
        let tools = Commands::builder()
            .allow("echo")
            .build()
            .unwrap()
            .into_tools();
        assert_eq!(tools.len(), 1);
        let def = serde_json::to_value(tools[0].tool()).unwrap();
        assert_eq!(def["name"], "exec");
        assert_eq!(def["annotations"]["destructiveHint"], true);
        assert_eq!(def["annotations"]["openWorldHint"], true);
        assert_eq!(
            def["inputSchema"]["properties"]["timeout_ms"]["default"],
            30_000
        );
        assert_eq!(
            def["inputSchema"]["required"],
            serde_json::json!(["command"])
        );
    }

    #[test]
    fn programs_are_allowed_by_bare_name_only() {
        for name in ["/bin/sh", "../sh", "./sh", "bin/sh", "", ".", "..", "sh -c"] {
            let built = Commands::builder().allow(name).build();
            assert!(matches!(built, Err(BuildError::Program(_))), "{name:?}");
        }
    }

    #[test]
    fn programs_that_run_other_programs_are_named_and_harmless_ones_are_not() {
        let commands = Commands::builder()
            .allow("wc")
            .allow("git")
            .allow("date")
            .allow("python3.12")
            .allow("env")
            .allow("uname")
            .build()
            .unwrap();
        assert_eq!(commands.program_runners(), ["git", "python3.12", "env"]);
        for runner in ["sh", "bash", "find", "xargs", "perl5", "awk", "make", "tar"] {
            assert!(program_runs_others(runner), "{runner}");
        }
        for harmless in ["wc", "date", "echo", "uname", "ls", "cat", "3", "."] {
            assert!(!program_runs_others(harmless), "{harmless}");
        }
    }

    /// The log lines written while `f` runs, through a file (which
    /// `tracing_subscriber` writes to as it is).
    fn logged(f: impl FnOnce()) -> String {
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let path =
            std::env::temp_dir().join(format!("mcp-commands-log-{}-{n}.txt", std::process::id()));
        let file = std::fs::File::create(&path).unwrap();
        let subscriber = tracing_subscriber::fmt()
            .with_writer(file)
            .with_ansi(false)
            .finish();
        tracing::subscriber::with_default(subscriber, f);
        let log = std::fs::read_to_string(&path).unwrap();
        let _ = std::fs::remove_file(&path);
        log
    }

    #[test]
    fn building_with_a_program_runner_allowed_warns_and_a_harmless_list_does_not() {
        let log = logged(|| {
            Commands::builder()
                .allow("date")
                .allow("git")
                .build()
                .unwrap();
        });
        assert!(log.contains("WARN"), "{log}");
        assert!(
            log.contains("allows `git`, which runs other programs"),
            "{log}"
        );
        assert!(!log.contains("`date`"), "{log}");
        let log = logged(|| {
            Commands::builder()
                .allow("wc")
                .allow("date")
                .build()
                .unwrap();
        });
        assert_eq!(log, "");
    }

    #[test]
    fn a_relative_path_entry_is_refused() {
        let built = Commands::builder().allow("ls").path("/bin:bin").build();
        assert!(matches!(built, Err(BuildError::Path(_))));
    }

    #[test]
    fn the_root_is_canonicalised_and_must_be_a_directory() {
        let commands = Commands::builder().root("/usr/../usr/bin").build().unwrap();
        assert_eq!(commands.root(), std::path::Path::new("/usr/bin"));
        let missing = Commands::builder().root("/nonexistent/mcp-toolbox").build();
        assert!(matches!(missing, Err(BuildError::Root { .. })));
        let file = Commands::builder().root("/bin/sh").build();
        assert!(matches!(file, Err(BuildError::Root { .. })));
    }

    #[test]
    fn the_root_defaults_to_the_current_directory() {
        let commands = Commands::builder().build().unwrap();
        let here = std::env::current_dir().unwrap().canonicalize().unwrap();
        assert_eq!(commands.root(), here);
    }
}
