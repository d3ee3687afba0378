//! Running one argument vector: scrubbed environment, capped output, and the whole process group killed at the end.

use std::ffi::OsString;
use std::io;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::time::Duration;

use rustix::process::{Pid, Signal, WaitId, WaitIdOptions};
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::process::Command;

use super::ExecOutput;

/// How long the pipes may stay open once the process group is gone (a
/// process that left the group with `setsid` may still hold them).
const DRAIN_GRACE: Duration = Duration::from_millis(500);

/// One program to run, fully resolved.
#[derive(Debug)]
pub(crate) struct Invocation<'a> {
    /// The program's absolute path, found on the fixed `PATH`.
    pub(crate) program: PathBuf,
    /// Its name as the model wrote it (`argv[0]`).
    pub(crate) name: &'a str,
    /// Its arguments.
    pub(crate) args: &'a [String],
    /// The working directory and `HOME`.
    pub(crate) root: &'a Path,
    /// The `PATH` the program sees.
    pub(crate) path: &'a OsString,
    /// When to kill it.
    pub(crate) timeout: Duration,
    /// How many bytes of stdout, and of stderr, to keep.
    pub(crate) max_output_bytes: usize,
}

/// Runs `invocation` to its end, or to its timeout. Every process left in
/// its group when the program exits (or times out, or this future is
/// dropped) is killed.
pub(crate) async fn run(invocation: Invocation<'_>) -> io::Result<ExecOutput> {
    let mut child = Command::new(&invocation.program)
        .arg0(invocation.name)
        .args(invocation.args)
        .current_dir(invocation.root)
        .env_clear()
        .env("PATH", invocation.path)
        .env("LANG", "C.UTF-8")
        .env("HOME", invocation.root)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true)
        .spawn()?;
    let pid = child
        .id()
        .and_then(|id| i32::try_from(id).ok())
        .and_then(Pid::from_raw)
        .ok_or_else(|| io::Error::other("the child has no process id"))?;
    // From here on, dropping this future kills the group.
    let group = GroupGuard(pid);
    let (stdout, stderr) = (child.stdout.take(), child.stderr.take());
    let mut out = Capture::new(invocation.max_output_bytes);
    let mut err = Capture::new(invocation.max_output_bytes);
    let (gone_tx, gone_rx) = tokio::sync::oneshot::channel::<()>();

    let waiting = async {
        let timed_out = tokio::time::timeout(invocation.timeout, leader_exited(pid))
            .await
            .is_err();
        // The leader is dead or unreaped (a zombie still holds the group's
        // id), so the signal cannot reach a stranger.
        group.kill();
        let status = child.wait().await;
        let _ = gone_tx.send(());
        (status, timed_out)
    };
    let reading = async {
        let drain = async { tokio::join!(out.fill(stdout), err.fill(stderr)) };
        let grace = async {
            let _ = gone_rx.await;
            tokio::time::sleep(DRAIN_GRACE).await;
        };
        tokio::select! {
            _ = drain => {}
            () = grace => {}
        }
    };
    let ((status, timed_out), ()) = tokio::join!(waiting, reading);
    let status = status?;
    Ok(output(status, timed_out, out, err))
}

fn output(status: ExitStatus, timed_out: bool, out: Capture, err: Capture) -> ExecOutput {
    ExecOutput {
        exit_code: status.code(),
        signal: status.signal(),
        timed_out,
        stdout_truncated: out.truncated(),
        stderr_truncated: err.truncated(),
        stdout_bytes: out.total,
        stderr_bytes: err.total,
        stdout: out.into_text(),
        stderr: err.into_text(),
    }
}

/// Waits, on a blocking thread, until the process `pid` has exited,
/// without reaping it (`WNOWAIT`): its group id stays reserved until
/// [`tokio::process::Child::wait`] reaps it.
async fn leader_exited(pid: Pid) {
    let waiting = tokio::task::spawn_blocking(move || {
        let exited = WaitIdOptions::EXITED | WaitIdOptions::NOWAIT;
        // Interrupted by a signal: wait again. Any other error (ECHILD once
        // reaped) ends the wait.
        while let Err(rustix::io::Errno::INTR) = rustix::process::waitid(WaitId::Pid(pid), exited) {
        }
    });
    let _ = waiting.await;
}

/// Kills the process group `0` leads, when told and when dropped.
struct GroupGuard(Pid);

impl GroupGuard {
    fn kill(&self) {
        // ESRCH (no one left) is the usual answer and fine.
        let _ = rustix::process::kill_process_group(self.0, Signal::KILL);
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Up to `cap` bytes of one stream; the rest is read and counted, so the
/// program never blocks on a full pipe.
struct Capture {
    kept: Vec<u8>,
    total: u64,
    cap: usize,
}

impl Capture {
    fn new(cap: usize) -> Self {
        Capture {
            kept: Vec::new(),
            total: 0,
            cap,
        }
    }

    async fn fill(&mut self, reader: Option<impl AsyncRead + Unpin>) {
        let Some(mut reader) = reader else { return };
        let mut buf = vec![0u8; 16 * 1024];
        loop {
            match reader.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(n) => {
                    self.total += n as u64;
                    let room = self.cap - self.kept.len();
                    self.kept.extend_from_slice(&buf[..n.min(room)]);
                }
            }
        }
    }

    fn truncated(&self) -> bool {
        self.total > self.kept.len() as u64
    }

    /// The kept bytes as text: a character cut at the cap is dropped,
    /// other invalid UTF-8 becomes U+FFFD.
    fn into_text(mut self) -> String {
        if self.truncated() {
            if let Err(e) = std::str::from_utf8(&self.kept) {
                if e.error_len().is_none() {
                    self.kept.truncate(e.valid_up_to());
                }
            }
        }
        match String::from_utf8(self.kept) {
            Ok(text) => text,
            Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_character_cut_at_the_cap_is_dropped_not_mangled() {
        let capture = Capture {
            kept: "aé".as_bytes()[..2].to_vec(),
            total: 3,
            cap: 2,
        };
        assert_eq!(capture.into_text(), "a");
    }

    #[test]
    fn invalid_utf8_within_the_cap_becomes_replacement_characters() {
        let capture = Capture {
            kept: vec![b'a', 0xff, b'b'],
            total: 3,
            cap: 10,
        };
        assert_eq!(capture.into_text(), "a\u{fffd}b");
    }
}
