//! The scripted model server.
//!
//! [`ScriptedModel`] runs `tests/agent/scripted_model.py` (its module doc is
//! the full reference: script format, validation, `/__status`): a stand-in
//! for the model providers that speaks the real OpenAI Chat Completions and
//! Anthropic Messages wire formats, answers from a script (one step per model
//! request), and checks every request against the providers' own published
//! types (the official `openai` / `anthropic` Python SDKs, unknown keys
//! rejected at every level) plus their documented tool-use rules. A refused
//! request is answered 400 in the provider's error shape and recorded, so a
//! test ends with [`ScriptedModel::assert_clean`].
//!
//! ```ignore
//! use mcp_test_support::scripted_model::ScriptedModel;
//! use serde_json::json;
//!
//! let model = ScriptedModel::start(json!({"steps": [
//!     {"provider": "openai",
//!      "expect": {"tools": ["add"], "last_user_contains": "2 + 3"},
//!      "respond": {"tool_calls": [{"id": "call_1", "name": "add", "arguments": "{\"a\":2,\"b\":3}"}]}},
//!     {"expect": {"tool_results": [{"id": "call_1", "contains": "5"}]},
//!      "respond": {"text": "5"}},
//! ]}), "sk-test");
//! // point the agent at model.openai_base_url() (or model.base_url() for Anthropic), run it, then:
//! model.assert_clean();
//! ```
//!
//! The OpenAI Responses API is served too, under the same base URL as Chat
//! Completions: point a Responses client at [`ScriptedModel::openai_base_url`]
//! (requests go to `/responses` under it) and script its steps with
//! `"provider": "openai_responses"`; `previous_response_id` must name a
//! response this server produced (`resp_<n>`, or expect `"previous"`). Tool
//! results may carry images (`"image": "image/png"` in `expect.tool_results`)
//! and requests structured output (`expect.output_schema`): see the Python
//! module doc for each provider's form.
//!
//! Everything here is synchronous and uses only std and `serde_json`: the
//! calls block the calling thread for the few milliseconds a local HTTP
//! exchange takes (`start`, when no server is idle, for the second or more
//! the Python imports take). That is fine
//! in `#[tokio::test]` too, because the server is a separate process: call
//! them before or after awaiting the agent, not from inside a task the agent
//! needs in order to progress.
//!
//! Python: `$MCP_PYTHON` if set, else `<repo>/.tools/pyenv/bin/python`, as
//! made by `scripts/install-tools.sh`. A missing Python is a loud failure,
//! never a skip. The server exits on its own after 600 s and as soon as the
//! test process goes away (it watches its stdin, which only we hold).
//!
//! A server whose [`ScriptedModel`] is dropped (its test over, without a
//! panic) waits for the next test of the same process, which takes it with
//! `POST /__reset`: its script, log and Responses-API memory emptied, its key
//! set, as if just started. One Python start per test thread instead of one
//! per test (the agent tests started 35).

use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex, PoisonError};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::http_response::{parse, Response};

/// How long the server may take to print `PORT <n>` (Python imports the SDKs first).
const START_TIMEOUT: Duration = Duration::from_secs(90);
/// Connect/read/write timeout of one control or raw request.
const IO_TIMEOUT: Duration = Duration::from_secs(30);
/// The server's own lifetime cap, in seconds.
const MAX_SECONDS: &str = "600";

/// The repository root (the support crate's parent directory).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the support crate has a parent directory")
        .to_path_buf()
}

/// The Python that has `openai` and `anthropic`: `$MCP_PYTHON`, else the
/// venv of `scripts/install-tools.sh`. Panics when it does not exist.
pub fn python() -> PathBuf {
    let python = match std::env::var_os("MCP_PYTHON") {
        Some(p) if !p.is_empty() => PathBuf::from(p),
        _ => repo_root().join(".tools/pyenv/bin/python"),
    };
    assert!(
        python.exists(),
        "the scripted model server needs Python with openai and anthropic: run scripts/install-tools.sh \
         (looked for {})",
        python.display()
    );
    python
}

/// A running `tests/agent/scripted_model.py`. See the module docs.
#[derive(Debug)]
pub struct ScriptedModel {
    /// Always `Some` until dropped, when it goes back to [`IDLE`].
    server: Option<Server>,
}

/// Servers whose test is over, for the next [`ScriptedModel::start`].
static IDLE: Mutex<Vec<Server>> = Mutex::new(Vec::new());

/// One server process. Dropping it stops it.
#[derive(Debug)]
struct Server {
    child: Child,
    /// Held open: the server exits when it closes (`--exit-on-stdin-eof`).
    stdin: Option<ChildStdin>,
    port: u16,
    /// The server's stderr (one line per request, refusals spelled out).
    log: Arc<Mutex<String>>,
}

impl Drop for Server {
    fn drop(&mut self) {
        drop(self.stdin.take()); // EOF: the server exits by itself ...
        let _ = self.child.kill(); // ... and is killed in case it did not yet
        let _ = self.child.wait();
    }
}

impl Drop for ScriptedModel {
    fn drop(&mut self) {
        let Some(mut server) = self.server.take() else {
            return;
        };
        if !thread::panicking() && matches!(server.child.try_wait(), Ok(None)) {
            IDLE.lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(server);
        }
    }
}

impl ScriptedModel {
    /// Starts the server with `script` (`{"steps": [...]}`) loaded. With a
    /// non-empty `api_key`, requests must carry exactly that key
    /// (`authorization: Bearer` for OpenAI; `x-api-key` or `authorization:
    /// Bearer` for Anthropic); with `""` the key is not checked (Anthropic
    /// still needs one). Blocks until the server listens; panics, with the
    /// server's output, if it does not start or refuses the script.
    pub fn start(script: Value, api_key: &str) -> ScriptedModel {
        let server = Self::idle(api_key).unwrap_or_else(|| Self::spawn(api_key));
        let model = ScriptedModel {
            server: Some(server),
        };
        model.set_script(script);
        model
    }

    /// An idle server, reset to an empty script and `api_key`; `None` when
    /// none is idle (one that does not answer its reset is stopped).
    fn idle(api_key: &str) -> Option<Server> {
        let key = if api_key.is_empty() {
            Value::Null
        } else {
            Value::from(api_key)
        };
        let body = serde_json::json!({ "api_key": key }).to_string();
        loop {
            let server = IDLE.lock().unwrap_or_else(PoisonError::into_inner).pop()?;
            server
                .log
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .clear();
            let headers = [("content-type", "application/json")];
            match http_request(server.port, "POST", "/__reset", &headers, body.as_bytes()) {
                Ok(reply) if reply.status == 200 => return Some(server),
                _ => drop(server),
            }
        }
    }

    /// A new server process, listening, with an empty script.
    fn spawn(api_key: &str) -> Server {
        let server_py = repo_root().join("tests/agent/scripted_model.py");
        let mut cmd = Command::new(python());
        cmd.arg(&server_py)
            .args(["--script", "-", "--port", "0", "--max-seconds", MAX_SECONDS])
            .arg("--exit-on-stdin-eof")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if !api_key.is_empty() {
            cmd.args(["--api-key", api_key]);
        }
        let mut child = cmd
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", server_py.display()));

        let log = Arc::new(Mutex::new(String::new()));
        let stderr = child.stderr.take().expect("piped stderr");
        let stderr_log = Arc::clone(&log);
        let stderr_thread = thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                let mut log = stderr_log.lock().unwrap_or_else(PoisonError::into_inner);
                log.push_str(&line);
                log.push('\n');
            }
        });
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, rx) = mpsc::channel();
        thread::spawn(move || {
            // Forward every line; the first one is `PORT <n>`. Draining the
            // rest keeps the pipe from ever filling up.
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });

        let port = match rx.recv_timeout(START_TIMEOUT) {
            Ok(line) if line.starts_with("PORT ") => line[5..].trim().parse::<u16>().ok(),
            _ => None,
        };
        let Some(port) = port else {
            let _ = child.kill();
            let _ = child.wait();
            let _ = stderr_thread.join();
            let log = log.lock().unwrap_or_else(PoisonError::into_inner).clone();
            panic!(
                "the scripted model server did not start within {START_TIMEOUT:?} \
                 (no `PORT <n>` line); its stderr:\n{log}"
            );
        };
        let stdin = child.stdin.take();
        Server {
            child,
            stdin,
            port,
            log,
        }
    }

    fn server(&self) -> &Server {
        self.server.as_ref().expect("a server until dropped")
    }

    /// The port on 127.0.0.1.
    pub fn port(&self) -> u16 {
        self.server().port
    }

    /// `http://127.0.0.1:PORT` (the Anthropic base URL: requests go to `/v1/messages`).
    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port())
    }

    /// `http://127.0.0.1:PORT/v1` (the OpenAI base URL: requests go to `/chat/completions` under it).
    pub fn openai_base_url(&self) -> String {
        format!("{}/v1", self.base_url())
    }

    /// Replaces the remaining script (`POST /__script`). The request log and
    /// failures are kept; records carry their script generation (`"script"`).
    /// Panics if the server refuses the script (it names the bad key).
    #[allow(clippy::needless_pass_by_value)] // by value: call sites pass json!(...)
    pub fn set_script(&self, script: Value) {
        let body = serde_json::to_vec(&script).expect("a script serializes");
        let resp = self.request(
            "POST",
            "/__script",
            &[("content-type", "application/json")],
            &body,
        );
        assert!(
            resp.status == 200,
            "the scripted model server refused the script ({}): {}",
            resp.status,
            resp.text()
        );
    }

    /// `GET /__status`: `{"consumed", "remaining", "script", "failures", "requests"}`.
    pub fn status(&self) -> Value {
        let resp = self.request("GET", "/__status", &[], b"");
        assert!(
            resp.status == 200,
            "/__status answered {}: {}",
            resp.status,
            resp.text()
        );
        resp.json()
    }

    /// Every model request received so far (all script generations).
    pub fn requests(&self) -> Vec<Value> {
        match self.status()["requests"].take() {
            Value::Array(v) => v,
            other => panic!("/__status requests is not a list: {other}"),
        }
    }

    /// The bodies of the requests of the current script generation, in order.
    pub fn bodies(&self) -> Vec<Value> {
        let mut status = self.status();
        let generation = status["script"].clone();
        match status["requests"].take() {
            Value::Array(v) => v
                .into_iter()
                .filter(|r| r["script"] == generation)
                .map(|mut r| r["body"].take())
                .collect(),
            other => panic!("/__status requests is not a list: {other}"),
        }
    }

    /// Every refused request so far.
    pub fn failures(&self) -> Vec<Value> {
        match self.status()["failures"].take() {
            Value::Array(v) => v,
            other => panic!("/__status failures is not a list: {other}"),
        }
    }

    /// Polls `/__status` until at least `n` requests have arrived, and returns
    /// it; panics after `timeout`. For tests that must act while a request is
    /// in flight (e.g. cancel during a step's `delay_ms`).
    pub fn wait_for_requests(&self, n: usize, timeout: Duration) -> Value {
        let deadline = Instant::now() + timeout;
        loop {
            let status = self.status();
            let have = status["requests"].as_array().map_or(0, Vec::len);
            if have >= n {
                return status;
            }
            assert!(
                Instant::now() < deadline,
                "waited {timeout:?} for {n} model requests, {have} arrived; server log:\n{}",
                self.log()
            );
            thread::sleep(Duration::from_millis(10));
        }
    }

    /// Polls `/__status` until `pred` holds, and returns it; panics after `timeout`.
    pub fn wait_for(&self, timeout: Duration, what: &str, pred: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + timeout;
        loop {
            let status = self.status();
            if pred(&status) {
                return status;
            }
            assert!(
                Instant::now() < deadline,
                "waited {timeout:?} for {what}; status:\n{}\nserver log:\n{}",
                serde_json::to_string_pretty(&status).unwrap_or_default(),
                self.log()
            );
            thread::sleep(Duration::from_millis(10));
        }
    }

    /// Panics, listing them, if any request was refused or any step of the
    /// current script was not used.
    pub fn assert_clean(&self) {
        let status = self.status();
        let failures = status["failures"].as_array().cloned().unwrap_or_default();
        let remaining = status["remaining"].as_u64().unwrap_or(0);
        if failures.is_empty() && remaining == 0 {
            return;
        }
        let mut report = String::new();
        for f in &failures {
            let _ = writeln!(
                report,
                "  request #{} {} (script {}, step {}):",
                f["request"], f["path"], f["script"], f["step"]
            );
            for p in f["problems"].as_array().into_iter().flatten() {
                let _ = writeln!(report, "    - {}", p.as_str().unwrap_or_default());
            }
        }
        let seen: Vec<String> = status["requests"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|r| format!("#{} {} -> {}", r["index"], r["path"], r["status"]))
            .collect();
        panic!(
            "the scripted model server is not clean: {} refused request(s), {remaining} unused step(s)\n\
             {report}requests: [{}]\nserver log:\n{}",
            failures.len(),
            seen.join(", "),
            self.log()
        );
    }

    /// The server's stderr so far.
    pub fn log(&self) -> String {
        self.server()
            .log
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// One HTTP/1.1 request to the server on a fresh connection
    /// (`connection: close`), for control endpoints and raw wire tests.
    /// Panics on I/O errors (30 s timeouts everywhere).
    pub fn request(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> Response {
        http_request(self.port(), method, path, headers, body)
            .unwrap_or_else(|e| panic!("{method} {path} to the scripted model server: {e}"))
    }
}

/// A minimal HTTP/1.1 client: one request on its own connection, the answer
/// read to EOF and parsed by `crate::http_response`.
pub fn http_request(
    port: u16,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> std::io::Result<Response> {
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    let mut stream = TcpStream::connect_timeout(&addr, IO_TIMEOUT)?;
    stream.set_read_timeout(Some(IO_TIMEOUT))?;
    stream.set_write_timeout(Some(IO_TIMEOUT))?;
    let mut head =
        format!("{method} {path} HTTP/1.1\r\nhost: 127.0.0.1:{port}\r\nconnection: close\r\n");
    for (name, value) in headers {
        let _ = write!(head, "{name}: {value}\r\n");
    }
    let _ = write!(head, "content-length: {}\r\n\r\n", body.len());
    stream.write_all(head.as_bytes())?;
    stream.write_all(body)?;
    stream.flush()?;

    let mut raw = Vec::new();
    stream.read_to_end(&mut raw)?;
    parse(&raw).map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
}
