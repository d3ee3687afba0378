//! The examples run and do what their docs say, driven as a client would.
#![allow(clippy::needless_pass_by_value)] // JSON built inline at each call reads best by value

use mcp_test_support::http_response;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::Duration;

use serde_json::{json, Value};

/// A stdio server in a child process.
struct StdioServer {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl StdioServer {
    fn start(bin: &str) -> Self {
        let mut child = Command::new(bin)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let mut s = StdioServer {
            child,
            stdin,
            stdout,
        };
        s.request(0, "initialize", json!({"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}));
        s.send(&json!({"jsonrpc":"2.0","method":"notifications/initialized"}));
        s
    }

    fn send(&mut self, v: &Value) {
        writeln!(self.stdin, "{v}").unwrap();
    }

    /// Sends a request; returns its response and the notifications before it.
    fn request(&mut self, id: i64, method: &str, params: Value) -> (Value, Vec<Value>) {
        self.send(&json!({"jsonrpc":"2.0","id":id,"method":method,"params":params}));
        let mut notes = Vec::new();
        loop {
            let mut line = String::new();
            assert!(
                self.stdout.read_line(&mut line).unwrap() > 0,
                "server closed stdout"
            );
            let v: Value = serde_json::from_str(&line).unwrap();
            if v["id"] == id && v.get("method").is_none() {
                return (v, notes);
            }
            notes.push(v);
        }
    }

    /// Reads until a notification `method` arrives (the server sends it by itself).
    fn expect_notification(&mut self, method: &str) -> Value {
        loop {
            let mut line = String::new();
            assert!(
                self.stdout.read_line(&mut line).unwrap() > 0,
                "server closed stdout"
            );
            let v: Value = serde_json::from_str(&line).unwrap();
            if v["method"] == method {
                return v;
            }
        }
    }

    fn call(&mut self, id: i64, tool: &str, args: Value) -> (Value, Vec<Value>) {
        self.request(id, "tools/call", json!({"name": tool, "arguments": args}))
    }
}

impl Drop for StdioServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn text(r: &Value) -> &str {
    r["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
}

#[test]
fn plugins_install_and_remove_tools_at_run_time() {
    let mut s = StdioServer::start(env!("CARGO_BIN_EXE_plugins"));
    s.call(
        1,
        "install_greeter",
        json!({"name": "greet_fr", "greeting": "Bonjour"}),
    );
    s.expect_notification("notifications/tools/list_changed");
    let (r, _) = s.call(2, "greet_fr", json!({"who": "Ada"}));
    assert_eq!(text(&r), "Bonjour, Ada!");
    let (r, _) = s.call(3, "greet_fr", json!({"who": ""}));
    assert_eq!(
        r["result"]["isError"], true,
        "the schema's minLength is enforced"
    );
    let (r, _) = s.call(
        4,
        "install_greeter",
        json!({"name": "greet_fr", "greeting": "Salut"}),
    );
    assert_eq!(r["result"]["isError"], true, "names stay unique");
    let (r, _) = s.call(
        5,
        "install_greeter",
        json!({"name": "bad name", "greeting": "x"}),
    );
    assert_eq!(r["result"]["isError"], true, "invalid names are refused");
    let (r, _) = s.call(6, "uninstall", json!({"name": "greet_fr"}));
    assert_eq!(text(&r), "removed `greet_fr`");
    s.expect_notification("notifications/tools/list_changed");
    let (r, _) = s.call(7, "greet_fr", json!({"who": "Ada"}));
    assert_eq!(r["error"]["code"], -32602);
}

#[test]
fn middleware_audits_limits_and_refuses_secrets() {
    let mut s = StdioServer::start(env!("CARGO_BIN_EXE_middleware"));
    let (r, _) = s.call(1, "word_count", json!({"text": "one two three"}));
    assert_eq!(text(&r), "3");
    let (r, _) = s.call(2, "word_count", json!({"text": "sk-live-1234"}));
    assert_eq!(r["result"]["isError"], true);
    assert!(text(&r).contains("looks like a secret"));
    // The burst is 5: the first call took one (the refused one never
    // reached the limit, which sits inside the layers).
    let mut limited = false;
    for id in 3..10 {
        let (r, _) = s.call(id, "word_count", json!({"text": "x"}));
        limited |= text(&r).contains("rate limit");
    }
    assert!(limited, "calls beyond the burst are refused");
}

/// One HTTP POST to the MCP endpoint; returns the JSON body.
fn post(port: u16, auth: Option<&str>, body: &Value) -> Value {
    post_with(port, auth.map(|a| ("Authorization", a)).as_slice(), body).1
}

/// POSTs a 2026-07-28 request with extra headers; the status and the body.
fn post_with(port: u16, headers: &[(&str, &str)], body: &Value) -> (u16, Value) {
    let body = body.to_string();
    let auth = headers.iter().fold(String::new(), |mut acc, (k, v)| {
        use std::fmt::Write as _;
        let _ = write!(acc, "{k}: {v}\r\n");
        acc
    });
    let req = format!(
        "POST /mcp HTTP/1.1\r\nHost: localhost:{port}\r\nConnection: close\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: {}\r\n{}{auth}Content-Length: {}\r\n\r\n{body}",
        serde_json::from_str::<Value>(&body).unwrap()["method"].as_str().unwrap(),
        serde_json::from_str::<Value>(&body).unwrap()["params"]["name"]
            .as_str()
            .map_or(String::new(), |n| format!("Mcp-Name: {n}\r\n")),
        body.len()
    );
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    stream.write_all(req.as_bytes()).unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).unwrap();
    let response = http_response::parse(&raw).unwrap_or_else(|e| panic!("{e}"));
    (response.status, response.json())
}

#[test]
fn permissions_show_admin_tools_only_to_admins() {
    let (mut child, port) = start_http(env!("CARGO_BIN_EXE_permissions"));
    let meta = json!({"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}});
    let list = json!({"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta": meta}});
    let names = |v: &Value| -> Vec<String> {
        v["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(names(&post(port, None, &list)), ["status"]);
    assert_eq!(
        names(&post(port, Some("Bearer let-me-in"), &list)),
        ["flush_caches", "status"]
    );
    let call = json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"flush_caches","arguments":{},"_meta": meta}});
    assert_eq!(post(port, None, &call)["error"]["code"], -32602);
    assert_eq!(
        post(port, Some("Bearer let-me-in"), &call)["result"]["content"][0]["text"],
        "caches flushed"
    );
    let _ = child.kill();
    let _ = child.wait();
}

/// An HTTP example started with `--port 0`, and the port it bound, read
/// from the `listening on http://ADDR/mcp` line it prints on stderr (a port
/// picked here and released before the example binds it could be taken by
/// another test's server in between).
fn start_http(bin: &str) -> (Child, u16) {
    let mut child = Command::new(bin)
        .args(["--port", "0"])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = BufReader::new(child.stderr.take().unwrap());
    let (tx, rx) = std::sync::mpsc::channel();
    // Reads stderr to its end, so the example never blocks on a full pipe.
    std::thread::spawn(move || {
        for line in stderr.lines().map_while(Result::ok) {
            if let Some(addr) = line.strip_prefix("listening on http://") {
                let port = addr
                    .trim_end_matches("/mcp")
                    .rsplit(':')
                    .next()
                    .and_then(|p| p.parse::<u16>().ok());
                let _ = tx.send(port);
            }
        }
    });
    match rx.recv_timeout(Duration::from_secs(20)) {
        Ok(Some(port)) => (child, port),
        other => {
            let _ = child.kill();
            panic!("{bin} did not say where it listens: {other:?}");
        }
    }
}

#[test]
fn tower_layers_authenticate_before_mcp_and_name_the_caller_to_the_permission_hook() {
    let (mut child, port) = start_http(env!("CARGO_BIN_EXE_tower_layers"));
    let meta = json!({"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}});
    let list = json!({"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta": meta}});
    let names = |v: &Value| -> Vec<String> {
        v["result"]["tools"]
            .as_array()
            .unwrap_or_else(|| panic!("no tools: {v}"))
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_owned())
            .collect()
    };
    // No token, an unknown one, or a forged identity: 401 before MCP.
    for headers in [
        &[][..],
        &[("Authorization", "Bearer guess")][..],
        &[("x-authenticated-user", "admin")][..],
    ] {
        let (status, body) = post_with(port, headers, &list);
        assert_eq!(status, 401, "{headers:?}: {body}");
        assert_eq!(body["error"]["code"], -32001, "{body}");
    }
    let reader = ("Authorization", "Bearer reader-token");
    let admin = ("Authorization", "Bearer admin-token");
    let (status, body) = post_with(port, &[reader], &list);
    assert_eq!((status, names(&body)), (200, vec!["status".to_owned()]));
    // A reader claiming to be admin is still a reader: the layer replaces the header.
    let (_, body) = post_with(port, &[reader, ("x-authenticated-user", "admin")], &list);
    assert_eq!(names(&body), ["status"]);
    let (_, body) = post_with(port, &[admin], &list);
    assert_eq!(names(&body), ["flush_caches", "status"]);
    let call = json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"flush_caches","arguments":{},"_meta": meta}});
    assert_eq!(post_with(port, &[reader], &call).1["error"]["code"], -32602);
    assert_eq!(
        post_with(port, &[admin], &call).1["result"]["content"][0]["text"],
        "caches flushed"
    );
    let _ = child.kill();
    let _ = child.wait();
}

/// A bad command line is answered in words that name the bad input, with
/// exit code 2, not a `Debug` dump of an error.
#[test]
fn a_bad_address_is_named_in_plain_words() {
    for bin in [
        env!("CARGO_BIN_EXE_calculator"),
        env!("CARGO_BIN_EXE_notes"),
    ] {
        let out = std::process::Command::new(bin)
            .args(["--http", "nonsense"])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{bin}: {err}");
        assert!(err.contains("--http \"nonsense\""), "{bin}: {err}");
        assert!(err.contains("HOST:PORT"), "{bin}: {err}");
        assert!(
            !err.contains("Io(") && !err.contains("Error {"),
            "{bin}: {err}"
        );
        assert!(out.stdout.is_empty(), "{bin}: nothing on stdout");
    }
}
