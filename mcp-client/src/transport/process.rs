//! The server as a child process: spawning it with piped stdio, its stderr
//! (forwarded to `tracing` and the last lines kept), noticing when it dies,
//! and the spec's shutdown: close stdin, wait, SIGTERM, wait, SIGKILL.

use std::collections::VecDeque;
use std::io;
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::StreamExt;
use tokio::process::{Child, ChildStderr, Command};
use tokio::sync::{oneshot, watch};
use tokio_util::codec::{FramedRead, LinesCodec};

use crate::connection::{lock, Closed, Shared};

/// How many stderr lines are kept for [`Client::stderr_tail`](crate::Client::stderr_tail).
pub(crate) const STDERR_LINES: usize = 64;
/// Longest stderr line kept (longer lines are cut).
const STDERR_LINE_MAX: usize = 4096;
/// How long a dead server's stderr may take to reach end of file before its
/// error is written without the rest. It ends at once unless a grandchild
/// holds it open; on a loaded machine the reading task can lag well behind
/// the exit, and the last lines are the ones that say what went wrong.
const STDERR_GRACE: Duration = Duration::from_secs(2);

/// A running (or exited) server process.
pub(crate) struct Process {
    pid: Option<u32>,
    exit: watch::Receiver<Option<ExitStatus>>,
    kill: Mutex<Option<oneshot::Sender<()>>>,
    stderr: Arc<Mutex<VecDeque<String>>>,
    /// Becomes true when the child's stderr reaches end of file.
    stderr_done: watch::Receiver<bool>,
    /// How long to wait after closing stdin, and again after SIGTERM.
    grace: Duration,
    shutdown: tokio::sync::Mutex<()>,
}

impl Process {
    /// Spawns `command` with piped stdin, stdout and stderr.
    pub(crate) fn spawn(
        mut command: Command,
        shared: &Arc<Shared>,
        grace: Duration,
    ) -> io::Result<(
        Arc<Process>,
        tokio::process::ChildStdout,
        tokio::process::ChildStdin,
    )> {
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        let mut child = command.spawn()?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(io::Error::other("the child's stdio was not piped"));
        };
        let pid = child.id();
        let stderr = Arc::new(Mutex::new(VecDeque::new()));
        let (done_tx, stderr_done) = watch::channel(false);
        if let Some(err) = child.stderr.take() {
            tokio::spawn(forward_stderr(err, Arc::clone(&stderr), pid, done_tx));
        }
        let (exit_tx, exit_rx) = watch::channel(None);
        let (kill_tx, kill_rx) = oneshot::channel();
        let process = Arc::new(Process {
            pid,
            exit: exit_rx,
            kill: Mutex::new(Some(kill_tx)),
            stderr,
            stderr_done,
            grace,
            shutdown: tokio::sync::Mutex::new(()),
        });
        tokio::spawn(supervise(
            child,
            exit_tx,
            kill_rx,
            Arc::downgrade(&process),
            Arc::clone(shared),
        ));
        Ok((process, stdout, stdin))
    }

    pub(crate) fn pid(&self) -> Option<u32> {
        self.pid
    }

    pub(crate) fn stderr_tail(&self) -> Vec<String> {
        lock(&self.stderr).iter().cloned().collect()
    }

    fn exit_status(&self) -> Option<ExitStatus> {
        *self.exit.borrow()
    }

    async fn wait_exit(&self, within: Duration) -> Option<ExitStatus> {
        let mut rx = self.exit.clone();
        let waited = tokio::time::timeout(within, async {
            rx.wait_for(Option::is_some).await.ok().and_then(|s| *s)
        })
        .await;
        match waited {
            Ok(Some(status)) => Some(status),
            _ => self.exit_status(),
        }
    }

    /// Why the connection ended, for every pending call: the exit status
    /// (if the process is gone) and the last lines of its stderr.
    pub(crate) async fn ended_reason(&self, read_error: Option<&io::Error>) -> String {
        let status = self.wait_exit(Duration::from_millis(500)).await;
        self.wait_stderr(STDERR_GRACE).await;
        describe_end(status, read_error, &self.stderr_tail())
    }

    /// Waits (bounded) until everything the child wrote to stderr was read,
    /// so that a dying server's last words make it into the error.
    async fn wait_stderr(&self, within: Duration) {
        let mut done = self.stderr_done.clone();
        let _ = tokio::time::timeout(within, done.wait_for(|d| *d)).await;
    }

    /// Stops the process as the spec says: stdin is already closed; wait,
    /// then SIGTERM, wait, then SIGKILL.
    pub(crate) async fn shutdown(&self) {
        let _one_at_a_time = self.shutdown.lock().await;
        if self.wait_exit(self.grace).await.is_some() {
            return;
        }
        #[cfg(unix)]
        if let Some(pid) = self.pid {
            if self.exit_status().is_none() {
                tracing::debug!(
                    pid,
                    "the server did not exit after stdin closed; sending SIGTERM"
                );
                // No `unsafe` (and no libc) here: the `kill` utility sends the signal.
                let sent = Command::new("kill")
                    .arg("-TERM")
                    .arg(pid.to_string())
                    .stdin(Stdio::null())
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .status()
                    .await;
                if let Err(e) = sent {
                    tracing::debug!(error = %e, "could not run `kill -TERM`");
                }
                if self.wait_exit(self.grace).await.is_some() {
                    return;
                }
            }
        }
        tracing::debug!(pid = ?self.pid, "the server is still running; sending SIGKILL");
        if let Some(kill) = lock(&self.kill).take() {
            let _ = kill.send(());
        }
        self.wait_exit(self.grace).await;
    }
}

fn describe_end(
    status: Option<ExitStatus>,
    read_error: Option<&io::Error>,
    stderr: &[String],
) -> String {
    let mut reason = match (status, read_error) {
        (Some(status), _) => format!("the server process exited ({status})"),
        (None, Some(e)) => format!("reading from the server process failed: {e}"),
        (None, None) => "the server process closed its stdout".to_owned(),
    };
    if !stderr.is_empty() {
        let tail = &stderr[stderr.len().saturating_sub(5)..];
        reason.push_str("; its last stderr lines: ");
        reason.push_str(&tail.join(" | "));
    }
    reason
}

/// Waits for the child to exit (or kills it on request), publishes the
/// status, and fails every pending call at once.
async fn supervise(
    mut child: Child,
    exit: watch::Sender<Option<ExitStatus>>,
    kill: oneshot::Receiver<()>,
    process: std::sync::Weak<Process>,
    shared: Arc<Shared>,
) {
    let status = tokio::select! {
        status = child.wait() => status,
        _ = kill => {
            let _ = child.start_kill();
            child.wait().await
        }
    };
    let status = match status {
        Ok(s) => s,
        Err(e) => {
            tracing::warn!(error = %e, "could not wait for the server process");
            return;
        }
    };
    tracing::debug!(%status, "the server process exited");
    let _ = exit.send(Some(status));
    // The reader usually sees end of file first and reports it; if the
    // process's stdout outlives it (a grandchild holds it), report here.
    tokio::time::sleep(Duration::from_millis(100)).await;
    let stderr = match process.upgrade() {
        Some(p) => {
            p.wait_stderr(STDERR_GRACE).await;
            p.stderr_tail()
        }
        None => Vec::new(),
    };
    shared.close(Closed::Failed(describe_end(Some(status), None, &stderr)));
}

async fn forward_stderr(
    err: ChildStderr,
    keep: Arc<Mutex<VecDeque<String>>>,
    pid: Option<u32>,
    done: watch::Sender<bool>,
) {
    let mut lines = FramedRead::new(err, LinesCodec::new_with_max_length(STDERR_LINE_MAX));
    while let Some(line) = lines.next().await {
        let line = match line {
            Ok(line) => line,
            Err(tokio_util::codec::LinesCodecError::MaxLineLengthExceeded) => {
                "[line too long]".to_owned()
            }
            Err(tokio_util::codec::LinesCodecError::Io(e))
                if e.kind() == io::ErrorKind::InvalidData =>
            {
                "[line not UTF-8]".to_owned()
            }
            Err(_) => break,
        };
        tracing::debug!(target: "oxmcp_client::stderr", pid, "{line}");
        let mut keep = lock(&keep);
        if keep.len() == STDERR_LINES {
            keep.pop_front();
        }
        keep.push_back(line);
    }
    let _ = done.send(true);
}
