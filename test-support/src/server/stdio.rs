//! [`Client`]: one stdio connection seen from the client, lines in and lines
//! out, to `Server::serve_io` on in-memory pipes or to the calculator
//! example as a child process.

use std::path::PathBuf;
use std::time::Duration;

use oxmcp_server::Server;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, Lines};

use super::{initialize_request_with, initialized, truncate};

type BoxRead = Box<dyn AsyncRead + Unpin + Send>;
type BoxWrite = Box<dyn AsyncWrite + Unpin + Send>;

/// How long a reader waits for one line before failing the test.
pub const LINE_TIMEOUT: Duration = Duration::from_secs(20);

/// One stdio connection, seen from the client.
pub struct Client {
    /// The server's input; `None` once closed (an end of input).
    pub write: Option<BoxWrite>,
    /// The server's output, line by line.
    pub lines: Lines<BufReader<BoxRead>>,
    /// `serve_io`, when the server runs in this process.
    pub task: Option<tokio::task::JoinHandle<Result<(), oxmcp_server::Error>>>,
    /// The server, when it is a child process.
    pub child: Option<tokio::process::Child>,
}

impl Client {
    /// `server.serve_io` on in-memory pipes of 1 MiB.
    pub fn start(server: Server) -> Client {
        Self::with_capacity(server, 1 << 20)
    }

    /// `server.serve_io` on in-memory pipes (one per direction, so that
    /// closing the input is an end of input) of `capacity` bytes.
    pub fn with_capacity(server: Server, capacity: usize) -> Client {
        let (to_server, server_in) = tokio::io::duplex(capacity);
        let (server_out, from_server) = tokio::io::duplex(capacity);
        let task = tokio::spawn(server.serve_io(server_in, server_out));
        Client {
            write: Some(Box::new(to_server)),
            lines: BufReader::new(Box::new(from_server) as BoxRead).lines(),
            task: Some(task),
            child: None,
        }
    }

    /// The calculator example as a child process.
    pub fn calculator() -> Client {
        let mut child = tokio::process::Command::new(calculator_bin())
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("the calculator example starts");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        Client {
            write: Some(Box::new(stdin)),
            lines: BufReader::new(Box::new(stdout) as BoxRead).lines(),
            task: None,
            child: Some(child),
        }
    }

    /// Writes `bytes` as they are (no newline added).
    pub async fn write_bytes(&mut self, bytes: &[u8]) {
        let w = self.write.as_mut().expect("input still open");
        w.write_all(bytes)
            .await
            .expect("the server reads its input");
        w.flush().await.unwrap();
    }

    /// Writes `text` and a newline.
    pub async fn send_raw(&mut self, text: &str) {
        self.write_bytes(format!("{text}\n").as_bytes()).await;
    }

    pub async fn send(&mut self, v: Value) {
        self.send_raw(&v.to_string()).await;
    }

    /// The next line, parsed; panics on a non-JSON line, on timeout or at the end.
    pub async fn recv(&mut self) -> Value {
        let line = tokio::time::timeout(LINE_TIMEOUT, self.lines.next_line())
            .await
            .expect("timed out waiting for the server")
            .expect("reading the server's output")
            .expect("the server closed its output");
        serde_json::from_str(&line).unwrap_or_else(|e| {
            panic!(
                "the server wrote a non-JSON line ({e}): {:?}",
                truncate(&line)
            )
        })
    }

    /// Receives until the response with `id`, returning it and the
    /// notifications (and other replies) before it.
    pub async fn recv_response(&mut self, id: Value) -> (Value, Vec<Value>) {
        let mut before = Vec::new();
        loop {
            let v = self.recv().await;
            if v.get("id") == Some(&id) && v.get("method").is_none() {
                return (v, before);
            }
            before.push(v);
        }
    }

    /// Sends a whole request and returns its response.
    pub async fn send_request(&mut self, request: Value) -> Value {
        let id = request["id"].clone();
        self.send(request).await;
        self.recv_response(id).await.0
    }

    pub async fn request(&mut self, id: i64, method: &str, params: Value) -> Value {
        self.send_request(json!({"jsonrpc":"2.0","id":id,"method":method,"params":params}))
            .await
    }

    /// The legacy handshake at `version`: `initialize` (which must succeed), then `initialized`.
    pub async fn initialize(&mut self, version: &str) -> Value {
        self.initialize_with(version, &json!({})).await
    }

    /// As [`initialize`](Self::initialize), declaring `capabilities`.
    pub async fn initialize_with(&mut self, version: &str, capabilities: &Value) -> Value {
        let r = self
            .send_request(initialize_request_with(&json!(0), version, capabilities))
            .await;
        assert!(r.get("result").is_some(), "initialize failed: {r}");
        self.send(initialized()).await;
        r
    }

    /// Closes the input and waits for the server to end: how `serve_io`
    /// ended (a child process must exit with success).
    pub async fn close(mut self) -> Result<(), oxmcp_server::Error> {
        drop(self.write.take());
        if let Some(mut child) = self.child.take() {
            let status = tokio::time::timeout(LINE_TIMEOUT, child.wait())
                .await
                .expect("the child did not exit after its stdin closed")
                .unwrap();
            assert!(status.success(), "the server exited with {status}");
        }
        match self.task.take() {
            Some(task) => tokio::time::timeout(LINE_TIMEOUT, task)
                .await
                .expect("serve_io did not return after its input closed")
                .expect("serve_io panicked"),
            None => Ok(()),
        }
    }

    /// Closes the input, reads what the server writes until it closes its
    /// output, and waits for it to end well; returns those messages.
    pub async fn finish(mut self) -> Vec<Value> {
        drop(self.write.take());
        let mut rest = Vec::new();
        while let Some(line) = tokio::time::timeout(LINE_TIMEOUT, self.lines.next_line())
            .await
            .expect("the server did not close its output after its input closed")
            .expect("reading the server's output")
        {
            rest.push(
                serde_json::from_str(&line)
                    .unwrap_or_else(|e| panic!("a non-JSON line ({e}): {:?}", truncate(&line))),
            );
        }
        self.close().await.expect("serve_io failed");
        rest
    }
}

/// `target/<profile>/calculator`, built by `cargo test --workspace` (the
/// examples crate has tests, so its binaries are built first). Run on its
/// own (`cargo test -p oxmcp-server`), the test builds it.
pub fn calculator_bin() -> PathBuf {
    static BUILT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BUILT
        .get_or_init(|| {
            let exe = std::env::current_exe().unwrap();
            // target/<profile>/deps/<test>-<hash>
            let dir = exe.parent().and_then(|d| d.parent()).unwrap().to_owned();
            let bin = dir.join(format!("calculator{}", std::env::consts::EXE_SUFFIX));
            // Always asked for: cargo does nothing when it is up to date, and a
            // binary left from an earlier build would test old code. Built as
            // `cargo test --workspace` builds it (the examples' integration
            // tests need every example binary), so that under that command
            // this finds it fresh; `cargo build -p mcp-examples` resolves
            // features of its own and built the server and the examples again.
            let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
            let mut cmd = std::process::Command::new(cargo);
            cmd.args([
                "test",
                "-q",
                "--workspace",
                "--no-run",
                "--test",
                "programs",
            ]);
            // Without what cargo set for this test (`CARGO_MANIFEST_DIR`,
            // `CARGO_PKG_NAME`...): build scripts that watch them (ring's)
            // would see them changed, and run again with all that depends on them.
            for (key, _) in std::env::vars_os() {
                let key = key.to_string_lossy();
                if key == "OUT_DIR"
                    || [
                        "CARGO_MANIFEST_",
                        "CARGO_PKG_",
                        "CARGO_CRATE_NAME",
                        "CARGO_BIN_",
                        "CARGO_PRIMARY_PACKAGE",
                        "CARGO_TARGET_TMPDIR",
                        "CARGO_RUSTC_CURRENT_DIR",
                    ]
                    .iter()
                    .any(|set| key.starts_with(set))
                {
                    cmd.env_remove(&*key);
                }
            }
            if !cfg!(debug_assertions) {
                cmd.arg("--release");
            }
            let status = cmd.status().expect("cargo runs");
            assert!(status.success(), "building the calculator example failed");
            assert!(bin.exists(), "no calculator binary at {}", bin.display());
            bin
        })
        .clone()
}
