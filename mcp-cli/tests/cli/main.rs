//! The `mcp` binary run as users run it: against servers of the tests' own
//! on real 127.0.0.1 sockets (the real servers of others, over stdio and
//! HTTP in both eras, are tests/cli/run.sh at the workspace's root), and
//! installing servers into the hosts' files in a temporary home (the real
//! Claude Code and Gemini CLI reading them are tests/install/run.sh), and
//! the projects `mcp new` writes (built and tested by tests/new/run.sh).

mod help;
mod http;
#[cfg(unix)]
mod install;
mod new;

use std::process::Output;

/// Runs `mcp` with `args` (stdin closed, `NO_COLOR` set so that text is
/// plain, and a config directory of its own), and waits for it.
pub(crate) async fn mcp(args: &[&str]) -> Output {
    let config = std::env::temp_dir().join(format!("mcp-cli-test-{}", std::process::id()));
    tokio::process::Command::new(env!("CARGO_BIN_EXE_mcp"))
        .args(args)
        .env("NO_COLOR", "1")
        .env("XDG_CONFIG_HOME", &config)
        .env("MCP_OPEN_BROWSER", "/bin/false")
        .stdin(std::process::Stdio::null())
        .output()
        .await
        .expect("the mcp binary runs")
}

/// stdout as text.
pub(crate) fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// stderr as text.
pub(crate) fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Asserts a failure as the command line promises it: exit status 1, one
/// line on stderr holding `want`, nothing on stdout.
#[track_caller]
pub(crate) fn assert_refused(out: &Output, want: &str) {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(1), "stderr: {err}");
    assert!(err.contains(want), "wanted {want:?} in {err:?}");
    assert_eq!(err.lines().count(), 1, "one line: {err:?}");
    assert!(out.stdout.is_empty(), "stdout: {}", stdout(out));
}
