//! Stopping a server as orchestrators and hosts do, with SIGTERM (`kill
//! -TERM`): the calculator, started as users start it, finishes the call in
//! flight, its answer arrives whole, and it exits with status 0, over HTTP
//! (`serve_http`) and over stdio with its input still open (`serve_stdio`).
//! Before, SIGTERM ended it at once: exit status 143 and a cut stream.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::killed::Killed;

/// How long any one step may take before the test fails (no hangs).
const STEP: Duration = Duration::from_secs(20);

/// How far the call counts: 10 ms a step, so it runs for a second, long
/// after the signal (sent at its first step).
const COUNT: u32 = 100;

/// SIGTERM and the exit status, on a child process killed when dropped.
trait Stopped {
    fn terminate(&self);
    fn exit_status(&mut self) -> ExitStatus;
}

impl Stopped for Killed {
    /// Sends SIGTERM, as `kill -TERM PID` does.
    fn terminate(&self) {
        let status = Command::new("kill")
            .args(["-TERM", &self.0.id().to_string()])
            .status()
            .expect("running kill");
        assert!(status.success(), "kill -TERM failed: {status}");
    }

    /// Its exit status, within [`STEP`].
    fn exit_status(&mut self) -> ExitStatus {
        let started = Instant::now();
        loop {
            if let Some(status) = self.0.try_wait().expect("waiting for the server") {
                return status;
            }
            assert!(
                started.elapsed() < STEP,
                "the server did not exit within {STEP:?} of SIGTERM"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

fn counted(message: &Value) -> &str {
    message["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text in {message}"))
}

/// The calculator over HTTP on a port it picks, and that port, read from
/// its log line `serving MCP over HTTP addr=Some(127.0.0.1:PORT)` (a port
/// picked here and released first could be taken in between).
fn calculator_over_http() -> (Killed, u16) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_calculator"))
        .args(["--http", "127.0.0.1:0"])
        .env("RUST_LOG", "oxmcp_server=info")
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starting the calculator");
    let stderr = BufReader::new(child.stderr.take().unwrap());
    let child = Killed(child);
    let (tx, rx) = mpsc::channel();
    // Reads stderr to its end, so the server never blocks on a full pipe.
    std::thread::spawn(move || {
        for line in stderr.lines().map_while(Result::ok) {
            if !line.contains("serving MCP over HTTP") {
                continue;
            }
            let port = line.split("127.0.0.1:").nth(1).and_then(|rest| {
                let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
                digits.parse::<u16>().ok()
            });
            let _ = tx.send(port);
        }
    });
    match rx.recv_timeout(STEP) {
        Ok(Some(port)) => (child, port),
        other => panic!("the calculator did not log where it listens: {other:?}"),
    }
}

#[test]
fn sigterm_lets_an_http_call_in_flight_finish_and_exits_0() {
    let (mut server, port) = calculator_over_http();
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "progressToken": "p",
    });
    let body = json!({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"count_to","arguments":{"n": COUNT},"_meta": meta}}).to_string();
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: localhost:{port}\r\nConnection: close\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: count_to\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream.set_read_timeout(Some(STEP)).unwrap();
    stream.write_all(request.as_bytes()).unwrap();
    // The call is running once its first progress event arrives.
    let mut raw = Vec::new();
    let mut chunk = [0u8; 4096];
    while !String::from_utf8_lossy(&raw).contains("notifications/progress") {
        let n = stream.read(&mut chunk).expect("reading the stream");
        assert!(n > 0, "the stream ended before the call reported progress");
        raw.extend_from_slice(&chunk[..n]);
    }
    server.terminate();
    stream
        .read_to_end(&mut raw)
        .expect("the stream ends, not cut");
    let response = mcp_test_support::http_response::parse(&raw).unwrap_or_else(|e| panic!("{e}"));
    let last = response.last();
    assert_eq!(last["id"], 7, "{last}");
    assert_eq!(counted(&last), format!("counted to {COUNT}"), "{last}");
    let status = server.exit_status();
    assert_eq!(status.code(), Some(0), "exit status {status}");
}

#[test]
fn sigterm_lets_a_stdio_call_in_flight_finish_and_exits_0() {
    let child = Command::new(env!("CARGO_BIN_EXE_calculator"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("starting the calculator");
    let mut server = Killed(child);
    let mut stdin = server.0.stdin.take().unwrap();
    let stdout = BufReader::new(server.0.stdout.take().unwrap());
    let (tx, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in stdout.lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let next = || -> Value {
        let line = lines
            .recv_timeout(STEP)
            .expect("a message from the server (stdout ended or went quiet)");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"))
    };
    for message in [
        json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}),
        json!({"jsonrpc":"2.0","method":"notifications/initialized"}),
        json!({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"count_to","arguments":{"n": COUNT},"_meta":{"progressToken":"p"}}}),
    ] {
        writeln!(stdin, "{message}").unwrap();
    }
    assert_eq!(next()["id"], 0);
    assert_eq!(next()["method"], "notifications/progress");
    // Stdin stays open: the signal alone stops the server.
    server.terminate();
    let last = loop {
        let message = next();
        if message["id"] == 7 {
            break message;
        }
    };
    assert_eq!(counted(&last), format!("counted to {COUNT}"), "{last}");
    let status = server.exit_status();
    assert_eq!(status.code(), Some(0), "exit status {status}");
    drop(stdin);
}
