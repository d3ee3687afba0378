//! One stdio MCP server under measurement: spawn, handshake, phases, shutdown.

use std::borrow::Cow;
use std::io::{self, BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::Value;

use crate::procfs;
use crate::stats::{phase, Limits, Phase};

/// What one run of one target measured.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RunResult {
    pub(crate) sequential: Phase,
    pub(crate) pipelined: Phase,
    pub(crate) peak_rss_kib: u64,
}

/// How much to measure.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Settings {
    /// A measured phase makes at least this many calls...
    pub(crate) calls: u64,
    /// ...and runs at least this long (CPU time is counted in clock ticks,
    /// 10 ms each, so a phase must be long enough for the floor)...
    pub(crate) min_phase: Duration,
    /// ...but stops issuing requests after this long.
    pub(crate) max_phase: Duration,
    /// Requests kept outstanding in the pipelined phase.
    pub(crate) in_flight: u64,
    /// Calls in each warm-up phase (sequential, then pipelined).
    pub(crate) warmup: u64,
}

/// Runs the whole measurement against the server at `path`.
pub(crate) fn measure(path: &Path, args: &[String], settings: &Settings) -> io::Result<RunResult> {
    let mut server = Server::spawn(path, args)?;
    // A hung server must not hang the benchmark: kill it well after the
    // longest legitimate run.
    let budget = settings.max_phase * 4 + Duration::from_secs(60);
    let (cancel, cancelled) = mpsc::channel::<()>();
    let pid = server.pid;
    let watchdog = thread::spawn(move || {
        if let Err(mpsc::RecvTimeoutError::Timeout) = cancelled.recv_timeout(budget) {
            eprintln!("server {pid} did not finish within {budget:?}: killing it");
            let _ = Command::new("kill")
                .args(["-KILL", &pid.to_string()])
                .status();
        }
    });
    let result = server.run(settings);
    let _ = cancel.send(());
    let _ = watchdog.join();
    server.shutdown();
    result
}

struct Server {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    pid: u32,
    next_id: u64,
    line: Vec<u8>,
}

/// The reply fields the driver checks.
#[derive(Deserialize)]
struct Reply<'a> {
    #[serde(default)]
    id: Option<Value>,
    #[serde(default, borrow)]
    method: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    result: Option<CallResult<'a>>,
    #[serde(default)]
    error: Option<Value>,
}

#[derive(Deserialize)]
struct CallResult<'a> {
    #[serde(default, borrow)]
    content: Vec<Content<'a>>,
    #[serde(default, rename = "isError")]
    is_error: Option<bool>,
}

#[derive(Deserialize)]
struct Content<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(default, borrow)]
    text: Option<Cow<'a, str>>,
}

/// Checks one reply line. Returns `Ok(None)` for a notification from the
/// server (ignored), `Ok(Some(id))` for a correct `tools/call` reply.
fn check_call_reply(line: &[u8]) -> io::Result<Option<u64>> {
    let reply: Reply<'_> =
        serde_json::from_slice(line).map_err(|e| bad_reply(&format!("{e}"), line))?;
    if let Some(method) = &reply.method {
        if reply.id.is_none() {
            return Ok(None);
        }
        return Err(bad_reply(
            &format!("unexpected server request {method}"),
            line,
        ));
    }
    let id = reply
        .id
        .as_ref()
        .and_then(Value::as_u64)
        .ok_or_else(|| bad_reply("reply without a numeric id", line))?;
    if let Some(error) = reply.error {
        return Err(bad_reply(&format!("error reply {error}"), line));
    }
    let result = reply
        .result
        .ok_or_else(|| bad_reply("reply without a result", line))?;
    let ok = result.is_error != Some(true)
        && matches!(result.content.as_slice(),
            [Content { kind, text: Some(text) }] if kind == "text" && text == "3");
    if !ok {
        return Err(bad_reply("expected one text content \"3\"", line));
    }
    Ok(Some(id))
}

fn bad_reply(what: &str, line: &[u8]) -> io::Error {
    let line = String::from_utf8_lossy(line);
    let line: String = line.chars().take(300).collect();
    io::Error::new(io::ErrorKind::InvalidData, format!("{what}: {line}"))
}

fn write_call(buf: &mut Vec<u8>, id: u64) {
    // Writing into a Vec cannot fail.
    let _ = writeln!(
        buf,
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"add","arguments":{{"a":1,"b":2}}}}}}"#
    );
}

/// Reads one line (without its newline) into `line`; EOF is an error.
fn read_line(stdout: &mut BufReader<ChildStdout>, line: &mut Vec<u8>) -> io::Result<()> {
    line.clear();
    if stdout.read_until(b'\n', line)? == 0 {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            "the server closed its stdout",
        ));
    }
    while line.last().is_some_and(|b| matches!(b, b'\n' | b'\r')) {
        line.pop();
    }
    Ok(())
}

impl Server {
    fn spawn(path: &Path, args: &[String]) -> io::Result<Self> {
        let mut child = Command::new(path)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| io::Error::new(e.kind(), format!("spawning {}: {e}", path.display())))?;
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout =
            BufReader::with_capacity(64 * 1024, child.stdout.take().expect("piped stdout"));
        let pid = child.id();
        Ok(Self {
            child,
            stdin,
            stdout,
            pid,
            next_id: 1,
            line: Vec::with_capacity(1024),
        })
    }

    fn run(&mut self, settings: &Settings) -> io::Result<RunResult> {
        self.handshake()?;
        let warmup = Limits {
            calls: settings.warmup,
            min: Duration::ZERO,
            max: settings.max_phase.min(Duration::from_secs(2)),
        };
        let measured = Limits {
            calls: settings.calls,
            min: settings.min_phase,
            max: settings.max_phase,
        };
        self.sequential(warmup)?;
        self.pipelined(warmup, settings.in_flight)?;
        let sequential = self.sequential(measured)?;
        let pipelined = self.pipelined(measured, settings.in_flight)?;
        let peak_rss_kib = procfs::peak_rss_kib(self.pid)?;
        Ok(RunResult {
            sequential,
            pipelined,
            peak_rss_kib,
        })
    }

    /// The legacy (2025-11-25) handshake: initialize, wait for its result,
    /// then `notifications/initialized`.
    fn handshake(&mut self) -> io::Result<()> {
        let initialize = concat!(
            r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","#,
            r#""capabilities":{},"clientInfo":{"name":"mcp-bench","version":"0.1.0"}}}"#,
            "\n"
        );
        self.stdin.write_all(initialize.as_bytes())?;
        self.stdin.flush()?;
        loop {
            read_line(&mut self.stdout, &mut self.line)?;
            let reply: Value = serde_json::from_slice(&self.line)
                .map_err(|e| bad_reply(&format!("{e}"), &self.line))?;
            if reply.get("id") != Some(&Value::from(0)) {
                continue; // a notification (e.g. logging) before the result
            }
            if reply.pointer("/result/protocolVersion").is_none() {
                return Err(bad_reply("initialize failed", &self.line));
            }
            break;
        }
        self.stdin
            .write_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n")?;
        self.stdin.flush()
    }

    /// Sequential round trips: one request, wait for its reply, repeat.
    fn sequential(&mut self, limits: Limits) -> io::Result<Phase> {
        let mut latencies = Vec::with_capacity(slot(limits.calls));
        let mut request = Vec::with_capacity(256);
        let cpu_before = procfs::cpu_ticks(self.pid)?;
        let start = Instant::now();
        let mut done = 0;
        while limits.more(done, start) {
            let id = self.next_id;
            self.next_id += 1;
            request.clear();
            write_call(&mut request, id);
            let sent = Instant::now();
            self.stdin.write_all(&request)?;
            self.stdin.flush()?;
            loop {
                read_line(&mut self.stdout, &mut self.line)?;
                match check_call_reply(&self.line)? {
                    None => {}
                    Some(got) if got == id => break,
                    Some(got) => {
                        return Err(bad_reply(
                            &format!("expected id {id}, got {got}"),
                            &self.line,
                        ))
                    }
                }
            }
            latencies.push(sent.elapsed());
            done += 1;
        }
        let elapsed = start.elapsed();
        let cpu_after = procfs::cpu_ticks(self.pid)?;
        Ok(phase(done, elapsed, &mut latencies, cpu_after - cpu_before))
    }

    /// Pipelined calls: keep `in_flight` requests outstanding, match replies
    /// by id. A writer thread sends (batching whatever the window allows into
    /// one write); this thread reads and checks replies.
    fn pipelined(&mut self, limits: Limits, in_flight: u64) -> io::Result<Phase> {
        let first_id = self.next_id;
        let cpu_before = procfs::cpu_ticks(self.pid)?;
        let start = Instant::now();

        // Writer -> reader: batches sent (first id, count, time), then the total.
        let (sent_tx, sent_rx) = mpsc::channel::<Sent>();
        // Reader -> writer: one credit per reply.
        let (credit_tx, credit_rx) = mpsc::channel::<()>();
        let stdin = &mut self.stdin;
        let stdout = &mut self.stdout;
        let line = &mut self.line;
        let pid = self.pid;

        let (written, read) = thread::scope(|scope| {
            let writer = scope.spawn(move || -> io::Result<u64> {
                let mut window = in_flight;
                let mut sent = 0;
                let mut request = Vec::with_capacity(slot(in_flight * 128));
                while limits.more(sent, start) {
                    if window == 0 {
                        if credit_rx.recv().is_err() {
                            break; // the reader gave up
                        }
                        window += 1;
                    }
                    while credit_rx.try_recv().is_ok() {
                        window += 1;
                    }
                    let count = window;
                    request.clear();
                    for id in first_id + sent..first_id + sent + count {
                        write_call(&mut request, id);
                    }
                    let _ = sent_tx.send(Sent::Batch(first_id + sent, count, Instant::now()));
                    stdin.write_all(&request)?;
                    stdin.flush()?;
                    sent += count;
                    window -= count;
                }
                let _ = sent_tx.send(Sent::Done(sent));
                Ok(sent)
            });

            let read = read_pipelined(stdout, line, first_id, &sent_rx, &credit_tx);
            drop(credit_tx);
            if read.is_err() && !writer.is_finished() {
                // The writer may be blocked on a full pipe: unblock it.
                let _ = Command::new("kill")
                    .args(["-KILL", &pid.to_string()])
                    .status();
            }
            (writer.join().expect("writer thread panicked"), read)
        });
        let (received, mut latencies) = read?;
        let written = written?;
        debug_assert_eq!(received, written);
        self.next_id += written;
        let elapsed = start.elapsed();
        let cpu_after = procfs::cpu_ticks(self.pid)?;
        Ok(phase(
            received,
            elapsed,
            &mut latencies,
            cpu_after - cpu_before,
        ))
    }

    /// Closes stdin, waits up to two seconds for the server to exit, then
    /// kills it.
    fn shutdown(self) {
        let Self {
            mut child, stdin, ..
        } = self;
        drop(stdin);
        let deadline = Instant::now() + Duration::from_secs(2);
        while Instant::now() < deadline {
            match child.try_wait() {
                Ok(Some(_)) | Err(_) => return,
                Ok(None) => thread::sleep(Duration::from_millis(5)),
            }
        }
        let _ = child.kill();
        let _ = child.wait();
    }
}

#[derive(Clone, Copy)]
enum Sent {
    /// `count` requests from id `first` were written at that time.
    Batch(u64, u64, Instant),
    /// The writer is done; it wrote this many requests.
    Done(u64),
}

/// What the reader knows of what the writer sent.
struct Pending {
    first_id: u64,
    sent_at: Vec<Option<Instant>>,
    known_sent: u64,
    total: Option<u64>,
}

impl Pending {
    fn record(&mut self, message: Sent) {
        match message {
            Sent::Batch(first, count, at) => {
                let end = slot(first + count - self.first_id);
                if self.sent_at.len() < end {
                    self.sent_at.resize(end, None);
                }
                self.sent_at[slot(first - self.first_id)..end].fill(Some(at));
                self.known_sent += count;
            }
            Sent::Done(n) => self.total = Some(n),
        }
    }
}

/// The reading half of [`Server::pipelined`]: returns the number of replies
/// and their latencies.
fn read_pipelined(
    stdout: &mut BufReader<ChildStdout>,
    line: &mut Vec<u8>,
    first_id: u64,
    sent_rx: &mpsc::Receiver<Sent>,
    credit_tx: &mpsc::Sender<()>,
) -> io::Result<(u64, Vec<Duration>)> {
    let mut pending = Pending {
        first_id,
        sent_at: Vec::new(),
        known_sent: 0,
        total: None,
    };
    let mut answered = Vec::new();
    let mut latencies = Vec::new();
    let mut received = 0;
    loop {
        while let Ok(message) = sent_rx.try_recv() {
            pending.record(message);
        }
        if pending.total == Some(received) {
            break;
        }
        if received == pending.known_sent {
            // Nothing outstanding: no reply can come before the writer sends more.
            match sent_rx.recv() {
                Ok(message) => pending.record(message),
                Err(_) => return Err(io::Error::other("the writer stopped early")),
            }
            continue;
        }
        read_line(stdout, line)?;
        let Some(id) = check_call_reply(line)? else {
            continue;
        };
        let arrived = Instant::now();
        let index = id
            .checked_sub(first_id)
            .map(slot)
            .ok_or_else(|| bad_reply(&format!("reply to unknown id {id}"), line))?;
        // The writer records a batch before writing it, so a reply's send
        // time is known, possibly still in the channel.
        let sent_at = loop {
            if let Some(&Some(at)) = pending.sent_at.get(index) {
                break at;
            }
            match sent_rx.try_recv() {
                Ok(message) => pending.record(message),
                Err(_) => return Err(bad_reply(&format!("reply to unsent id {id}"), line)),
            }
        };
        if answered.len() <= index {
            answered.resize(pending.sent_at.len(), false);
        }
        if std::mem::replace(&mut answered[index], true) {
            return Err(bad_reply(&format!("second reply to id {id}"), line));
        }
        latencies.push(arrived - sent_at);
        received += 1;
        let _ = credit_tx.send(());
    }
    Ok((received, latencies))
}

fn slot(index: u64) -> usize {
    usize::try_from(index).expect("call counts fit in memory")
}
