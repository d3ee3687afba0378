//! The `exec` tool: the policy checks, then the run, then its result.

use std::ffi::OsString;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use oxmcp_server::{tool, Context, Json, ToolError};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::parse;
use super::run::{self, Invocation};

/// What one `exec` call did: the structured result of the tool (its text
/// copy is the same JSON).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct ExecOutput {
    /// The exit code, when the program exited on its own.
    pub exit_code: Option<i32>,
    /// The signal that ended the program, when one did (9, `SIGKILL`, at a timeout).
    pub signal: Option<i32>,
    /// The timeout was reached and the program's process group killed.
    pub timed_out: bool,
    /// Standard output, up to the cap (invalid UTF-8 as U+FFFD).
    pub stdout: String,
    /// Standard error, up to the cap.
    pub stderr: String,
    /// Standard output went past the cap: `stdout` holds its beginning.
    pub stdout_truncated: bool,
    /// Standard error went past the cap: `stderr` holds its beginning.
    pub stderr_truncated: bool,
    /// How many bytes the program wrote to standard output in all.
    pub stdout_bytes: u64,
    /// How many bytes the program wrote to standard error in all.
    pub stderr_bytes: u64,
}

/// The policy [`Commands`](super::Commands) was built with.
#[derive(Debug)]
pub(crate) struct Policy {
    /// Program names, each without `/`.
    pub(crate) allowed: Vec<String>,
    /// The canonical working directory, also `HOME`.
    pub(crate) root: PathBuf,
    /// Where programs are looked up, and the `PATH` they see.
    pub(crate) path: OsString,
    pub(crate) max_output_bytes: usize,
    pub(crate) max_timeout: Duration,
}

/// The `exec` tool bound to a policy. It is made only by
/// [`Commands`](super::Commands), whose toolbox offers it when a program is
/// allowed; [`ExecClient`] is its typed client.
#[derive(Debug, Clone)]
pub struct Exec {
    pub(crate) policy: Arc<Policy>,
}

#[tool(description = "Run an allowed program with arguments, without a shell")]
impl Exec {
    #[describe(
        "Run one program from the allow list with its arguments, in the working directory, \
         without a shell. The command is split into words like a POSIX shell does (quotes \
         and backslashes), and nothing else: `;`, `|`, `&&`, redirections, `$(...)`, \
         backticks, variables and globs are refused unless quoted, and quoted they reach \
         the program as plain text. One command per call. Returns the exit code (or \
         signal), stdout, stderr, and whether the run timed out or its output was cut."
    )]
    #[tool(destructive, open_world)]
    /// Runs `command` under the policy; see the [module docs](super).
    pub async fn exec(
        &self,
        #[param(
            "The command line, e.g. `wc -l notes.txt`: an allowed program, then its arguments"
        )]
        command: String,
        #[param(
            "Kill the program (and every process it started) after this many milliseconds",
            default = 30_000
        )]
        timeout_ms: u64,
        ctx: Context,
    ) -> Result<Json<ExecOutput>, ToolError> {
        let policy = &self.policy;
        let timeout = Duration::from_millis(timeout_ms);
        if timeout_ms == 0 || timeout > policy.max_timeout {
            return Err(ToolError::new(format!(
                "refused: timeout_ms is 1 to {}",
                policy.max_timeout.as_millis()
            )));
        }
        let words = parse::words(&command).map_err(|r| ToolError::new(r.to_string()))?;
        let Some((name, args)) = words.split_first() else {
            return Err(ToolError::new("refused: the command is empty"));
        };
        let program = self.resolve(name)?;
        let output = run::run(Invocation {
            program,
            name,
            args,
            root: &policy.root,
            path: &policy.path,
            timeout,
            max_output_bytes: policy.max_output_bytes,
        })
        .await
        .map_err(|e| ToolError::new(format!("`{name}` could not be started: {e}")))?;
        Ok(Json(fit(output, ctx.max_result_chars())))
    }
}

/// Shortens the longer of stdout and stderr until the output's JSON (the
/// result's structured content, and its text copy) fits in `cap`
/// characters, so the result is never cut by the server, which would drop
/// the structured content the output schema requires.
fn fit(mut output: ExecOutput, cap: usize) -> ExecOutput {
    loop {
        let len = serde_json::to_string(&output).map_or(0, |s| s.chars().count());
        if len <= cap {
            return output;
        }
        let excess = len - cap;
        let (text, truncated) = if output.stdout.len() >= output.stderr.len() {
            (&mut output.stdout, &mut output.stdout_truncated)
        } else {
            (&mut output.stderr, &mut output.stderr_truncated)
        };
        if text.is_empty() {
            // Nothing left to shorten: the rest of the output is fixed-size.
            return output;
        }
        // Each character dropped shortens the JSON by at least one (up to
        // six, `\u0001`): one round does it unless the other stream is long.
        let chars = text.chars().count();
        let keep = chars.saturating_sub(excess);
        let end = text.char_indices().nth(keep).map_or(text.len(), |(i, _)| i);
        text.truncate(end);
        *truncated = true;
    }
}

impl Exec {
    /// The allowed program `name`, found on the fixed `PATH`.
    fn resolve(&self, name: &str) -> Result<PathBuf, ToolError> {
        let policy = &self.policy;
        if !policy.allowed.iter().any(|a| a == name) {
            let why = if name.contains('/') {
                "programs are named, never given as a path"
            } else {
                "it is not on the allow list"
            };
            return Err(ToolError::new(format!(
                "refused: `{name}` may not run ({why}); allowed: {}",
                policy.allowed.join(", ")
            )));
        }
        std::env::split_paths(&policy.path)
            .map(|dir| dir.join(name))
            .find(|candidate| is_executable(candidate))
            .ok_or_else(|| {
                ToolError::new(format!(
                    "`{name}` is allowed but not installed (looked in {})",
                    policy.path.to_string_lossy()
                ))
            })
    }
}

fn is_executable(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use super::super::Commands;
    use super::*;

    /// A fresh, empty directory for one test.
    fn scratch(test: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "mcp-toolbox-commands-{}-{test}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn exec_in(dir: &Path, programs: &[&str]) -> Exec {
        let builder = programs
            .iter()
            .fold(Commands::builder().root(dir), |b, p| b.allow(*p));
        builder.build().unwrap().exec().unwrap()
    }

    async fn ok(exec: &Exec, command: &str, timeout_ms: u64) -> ExecOutput {
        match exec
            .exec(command.to_owned(), timeout_ms, Context::detached())
            .await
        {
            Ok(Json(output)) => output,
            Err(e) => panic!("{command}: {}", e.message()),
        }
    }

    async fn refused(exec: &Exec, command: &str) -> String {
        match exec
            .exec(command.to_owned(), 5_000, Context::detached())
            .await
        {
            Ok(Json(output)) => panic!("{command} ran: {output:?}"),
            Err(e) => e.message().to_owned(),
        }
    }

    #[tokio::test]
    async fn quoted_arguments_reach_the_program_as_single_words() {
        let dir = scratch("quoted");
        let exec = exec_in(&dir, &["echo"]);
        let out = ok(&exec, r#"echo "hello   world" 'a;b' c\ d"#, 5_000).await;
        assert_eq!(out.stdout, "hello   world a;b c d\n");
        assert_eq!(out.exit_code, Some(0));
        assert_eq!(out.signal, None);
        assert!(!out.timed_out && !out.stdout_truncated && !out.stderr_truncated);
    }

    #[tokio::test]
    async fn exit_codes_signals_and_stderr_are_reported() {
        let dir = scratch("status");
        let exec = exec_in(&dir, &["sh"]);
        let out = ok(&exec, "sh -c 'echo oops >&2; exit 3'", 5_000).await;
        assert_eq!((out.exit_code, out.stderr.as_str()), (Some(3), "oops\n"));
        let out = ok(&exec, "sh -c 'kill -9 $$'", 5_000).await;
        assert_eq!((out.exit_code, out.signal), (None, Some(9)));
    }

    #[tokio::test]
    async fn the_program_sees_only_the_fixed_environment_in_the_root() {
        let dir = scratch("env");
        let exec = exec_in(&dir, &["sh"]);
        let out = ok(&exec, "sh -c 'env; pwd'", 5_000).await;
        let root = dir.canonicalize().unwrap();
        assert!(
            out.stdout.contains("PATH=/usr/local/bin:/usr/bin:/bin\n"),
            "{}",
            out.stdout
        );
        assert!(out.stdout.contains("LANG=C.UTF-8\n"), "{}", out.stdout);
        assert!(out.stdout.contains(&format!("HOME={}\n", root.display())));
        assert!(out.stdout.ends_with(&format!("{}\n", root.display())));
        // `cargo test` hands its own process a dozen CARGO_* variables.
        assert!(!out.stdout.contains("CARGO"), "{}", out.stdout);
    }

    #[tokio::test]
    async fn standard_input_is_empty() {
        let dir = scratch("stdin");
        let exec = exec_in(&dir, &["cat"]);
        let out = ok(&exec, "cat", 5_000).await;
        assert_eq!((out.exit_code, out.stdout.as_str()), (Some(0), ""));
    }

    #[tokio::test]
    async fn output_past_the_cap_is_cut_counted_and_said() {
        let dir = scratch("cap");
        let commands = Commands::builder()
            .allow("echo")
            .root(&dir)
            .max_output_bytes(10);
        let exec = commands.build().unwrap().exec().unwrap();
        let out = ok(&exec, "echo 0123456789abcdef", 5_000).await;
        assert_eq!(out.stdout, "0123456789");
        assert!(out.stdout_truncated);
        assert_eq!(out.stdout_bytes, 17);
        assert!(!out.stderr_truncated);
    }

    #[tokio::test]
    async fn the_timeout_kills_the_whole_process_group() {
        let dir = scratch("timeout");
        let exec = exec_in(&dir, &["sh"]);
        let started = Instant::now();
        let out = ok(&exec, "sh -c '(sleep 2; touch late) & sleep 100'", 300).await;
        assert!(started.elapsed() < Duration::from_secs(3));
        assert!(out.timed_out);
        assert_eq!(out.signal, Some(9));
        tokio::time::sleep(Duration::from_millis(2_500)).await;
        assert!(
            !dir.join("late").exists(),
            "the grandchild outlived the timeout"
        );
    }

    #[tokio::test]
    async fn background_processes_die_when_the_program_exits() {
        let dir = scratch("background");
        let exec = exec_in(&dir, &["sh"]);
        let started = Instant::now();
        let out = ok(
            &exec,
            "sh -c '(sleep 2; touch late) & echo started'",
            10_000,
        )
        .await;
        assert!(started.elapsed() < Duration::from_secs(2));
        assert_eq!((out.exit_code, out.stdout.as_str()), (Some(0), "started\n"));
        assert!(!out.timed_out);
        tokio::time::sleep(Duration::from_millis(2_500)).await;
        assert!(
            !dir.join("late").exists(),
            "a background child outlived the call"
        );
    }

    #[tokio::test]
    async fn a_dropped_call_kills_its_process_group() {
        let dir = scratch("dropped");
        let exec = exec_in(&dir, &["sh"]);
        let call = exec.exec(
            "sh -c '(sleep 2; touch late) & sleep 100'".to_owned(),
            60_000,
            Context::detached(),
        );
        assert!(tokio::time::timeout(Duration::from_millis(300), call)
            .await
            .is_err());
        tokio::time::sleep(Duration::from_millis(2_500)).await;
        assert!(
            !dir.join("late").exists(),
            "the group outlived the cancelled call"
        );
    }

    #[tokio::test]
    async fn programs_off_the_list_and_paths_are_refused_before_anything_runs() {
        let dir = scratch("list");
        std::fs::write(dir.join("keep"), "x").unwrap();
        let exec = exec_in(&dir, &["echo"]);
        assert!(refused(&exec, "rm keep")
            .await
            .contains("not on the allow list"));
        for command in ["/bin/rm keep", "../rm keep", "./echo x", "/bin/echo x"] {
            let message = refused(&exec, command).await;
            assert!(message.contains("never given as a path"), "{message}");
        }
        assert!(dir.join("keep").exists());
    }

    #[tokio::test]
    async fn programs_are_looked_up_on_the_fixed_path_only() {
        let dir = scratch("path");
        let commands = Commands::builder()
            .allow("echo")
            .root(&dir)
            .path("/nonexistent");
        let exec = commands.build().unwrap().exec().unwrap();
        assert!(refused(&exec, "echo hi").await.contains("not installed"));
    }

    #[tokio::test]
    async fn a_timeout_outside_its_bounds_is_refused() {
        let dir = scratch("bounds");
        let exec = exec_in(&dir, &["echo"]);
        for timeout_ms in [0, 600_001] {
            let message = match exec
                .exec("echo hi".to_owned(), timeout_ms, Context::detached())
                .await
            {
                Err(e) => e.message().to_owned(),
                Ok(_) => panic!("{timeout_ms} ran"),
            };
            assert!(message.contains("timeout_ms is 1 to 600000"), "{message}");
        }
    }

    #[test]
    fn output_is_fitted_to_the_result_cap_on_character_boundaries() {
        let output = |stdout: &str, stderr: &str| ExecOutput {
            exit_code: Some(0),
            signal: None,
            timed_out: false,
            stdout: stdout.to_owned(),
            stderr: stderr.to_owned(),
            stdout_truncated: false,
            stderr_truncated: false,
            stdout_bytes: stdout.len() as u64,
            stderr_bytes: stderr.len() as u64,
        };
        let small = output("fine", "");
        assert_eq!(fit(small.clone(), 1_000), small, "under the cap: untouched");
        for (stdout, stderr) in [
            ("é".repeat(5_000), "x".repeat(100)),
            ("\u{1}".repeat(3_000), String::new()),
            ("a".repeat(40_000), "b".repeat(39_000)),
        ] {
            let fitted = fit(output(&stdout, &stderr), 2_000);
            let json = serde_json::to_string(&fitted).unwrap();
            assert!(json.chars().count() <= 2_000, "{}", json.len());
            assert!(fitted.stdout_truncated);
            assert!(stdout.starts_with(&fitted.stdout));
            assert!(stderr.starts_with(&fitted.stderr));
            assert_eq!(fitted.stdout_bytes, stdout.len() as u64, "the totals stay");
        }
    }
}
