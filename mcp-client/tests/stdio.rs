//! The client against child processes over stdio: our real server (this
//! test binary re-executed in server mode, so no other binary has to be
//! built first) and small `sh` scripts for servers that misbehave.
//!
//! `harness = false`: `main` either serves (when `MCP_CLIENT_TEST_SERVER`
//! is set) or runs the tests below and prints a libtest-style summary.
#![allow(clippy::too_many_lines)]

mod support;

use std::future::Future;
use std::pin::Pin;
use std::time::{Duration, Instant};

use oxmcp_client::types::ProtocolVersion;
use oxmcp_client::{types::error::Chain, Client, Era, Error};
use serde_json::json;
use tokio::process::Command;

const SERVER_MODE: &str = "MCP_CLIENT_TEST_SERVER";

/// This binary, as a stdio MCP server.
fn our_server() -> Command {
    let mut c = Command::new(std::env::current_exe().expect("the test binary's path"));
    c.env(SERVER_MODE, "1");
    c
}

fn script(body: &str) -> Command {
    let mut c = Command::new("sh");
    c.arg("-c").arg(body);
    c
}

/// Answers the first line (`initialize`) with a legacy result, echoing its id.
const INIT: &str = r#"read line; id=$(printf '%s' "$line" | sed 's/.*"id":\([0-9]*\).*/\1/'); printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"sh","version":"0"}}}\n' "$id"; "#;

async fn wait_for_stderr(client: &Client, needle: &str) -> bool {
    for _ in 0..100 {
        if client.stderr_tail().iter().any(|l| l.contains(needle)) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    false
}

async fn round_trip_in_each_era() {
    for (era, version) in [
        (Era::Auto, ProtocolVersion::V2026_07_28),
        (Era::Legacy, ProtocolVersion::V2025_11_25),
    ] {
        let client = Client::builder()
            .protocol(era)
            .connect_stdio(our_server())
            .await
            .unwrap();
        assert_eq!(client.protocol_version(), version);
        assert_eq!(client.server_info().name, "stdio-test-server");
        let tools = client.list_tools().await.unwrap();
        assert!(tools.iter().any(|t| t.name == "add"));
        let r = client
            .call_tool("add", json!({"a": 20, "b": 22}))
            .await
            .unwrap();
        assert_eq!(r.content[0].as_text(), Some("42"));
        assert!(
            wait_for_stderr(&client, "stdio test server ready").await,
            "stderr is captured: {:?}",
            client.stderr_tail()
        );
        // Closing stdin is enough: the server exits at once.
        let started = Instant::now();
        client.close().await;
        assert!(
            started.elapsed() < Duration::from_millis(1500),
            "{:?}",
            started.elapsed()
        );
    }
}

async fn a_server_that_dies_mid_call_fails_every_pending_call_at_once() {
    for era in [Era::Legacy, Era::Modern] {
        let client = Client::builder()
            .protocol(era)
            .connect_stdio(our_server())
            .await
            .unwrap();
        let waiting: Vec<_> = (0..3)
            .map(|_| {
                let client = client.clone();
                tokio::spawn(async move { client.call_tool("wait", ()).await })
            })
            .collect();
        tokio::time::sleep(Duration::from_millis(100)).await;
        let started = Instant::now();
        let err = client.call_tool("die", ()).await.unwrap_err();
        assert!(
            started.elapsed() < Duration::from_secs(2),
            "at once, not a timeout"
        );
        let Error::Transport(e) = &err else {
            panic!("expected a transport error, got {err:?}")
        };
        let message = e.to_string();
        assert!(message.contains("exited"), "{message}");
        assert!(message.contains('3'), "the exit status: {message}");
        assert!(
            message.contains("the die tool ends the process now"),
            "the last stderr lines: {message}"
        );
        for w in waiting {
            let err = w.await.unwrap().unwrap_err();
            assert!(matches!(err, Error::Transport(_)), "{err:?}");
        }
        // Later calls fail at once with the same reason.
        let err = client
            .call_tool("add", json!({"a": 1, "b": 2}))
            .await
            .unwrap_err();
        let text = Chain(&err).to_string();
        assert!(text.contains("exited"), "{text}");
        assert!(client.is_closed());
        client.close().await;
    }
}

async fn a_script_server_that_exits_on_tools_call() {
    let body = format!(
        r#"{INIT} while read line; do case "$line" in *'"tools/call"'*) echo "fatal: cannot handle calls" >&2; exit 3;; esac; done"#
    );
    let client = Client::builder()
        .protocol(Era::Legacy)
        .connect_stdio(script(&body))
        .await
        .unwrap();
    assert_eq!(client.server_info().name, "sh");
    let err = client.call_tool("anything", ()).await.unwrap_err();
    let text = Chain(&err).to_string();
    assert!(matches!(err, Error::Transport(_)), "{err:?}");
    assert!(text.contains("exit status: 3"), "{text}");
    assert!(text.contains("fatal: cannot handle calls"), "{text}");
}

async fn a_server_that_never_answers_times_out() {
    // Not even the handshake: the probe times out, then initialize.
    let started = Instant::now();
    let err = Client::builder()
        .probe_timeout(Duration::from_millis(200))
        .connect_timeout(Duration::from_millis(300))
        .shutdown_timeout(Duration::from_millis(100))
        .connect_stdio(script("cat > /dev/null"))
        .await
        .unwrap_err();
    assert!(
        matches!(err, Error::Timeout(d) if d == Duration::from_millis(300)),
        "{err:?}"
    );
    assert!(started.elapsed() < Duration::from_secs(3));

    // A handshake, then silence.
    let client = Client::builder()
        .protocol(Era::Legacy)
        .timeout(Duration::from_millis(300))
        .shutdown_timeout(Duration::from_millis(100))
        .connect_stdio(script(&format!("{INIT} cat > /dev/null")))
        .await
        .unwrap();
    let err = client.call_tool("anything", ()).await.unwrap_err();
    assert!(matches!(err, Error::Timeout(_)), "{err:?}");
    assert!(err.to_string().contains("300ms"), "{err}");
    client.close().await;
}

async fn close_escalates_to_sigterm() {
    let body =
        format!(r"trap 'echo got TERM >&2; exit 0' TERM; {INIT} while :; do sleep 0.05; done");
    let client = Client::builder()
        .protocol(Era::Legacy)
        .shutdown_timeout(Duration::from_millis(300))
        .connect_stdio(script(&body))
        .await
        .unwrap();
    let started = Instant::now();
    client.close().await;
    let took = started.elapsed();
    assert!(took >= Duration::from_millis(300), "waited first: {took:?}");
    assert!(
        took < Duration::from_millis(1500),
        "did not need SIGKILL: {took:?}"
    );
    assert!(
        wait_for_stderr(&client, "got TERM").await,
        "{:?}",
        client.stderr_tail()
    );
}

async fn close_escalates_to_sigkill() {
    let body = format!(r#"trap '' TERM; echo "pid $$" >&2; {INIT} while :; do sleep 0.05; done"#);
    let client = Client::builder()
        .protocol(Era::Legacy)
        .shutdown_timeout(Duration::from_millis(300))
        .connect_stdio(script(&body))
        .await
        .unwrap();
    assert!(wait_for_stderr(&client, "pid ").await);
    let pid = client
        .stderr_tail()
        .iter()
        .find_map(|l| l.strip_prefix("pid ").map(str::to_owned))
        .unwrap();
    let started = Instant::now();
    client.close().await;
    let took = started.elapsed();
    assert!(
        took >= Duration::from_millis(600),
        "stdin, then SIGTERM: {took:?}"
    );
    assert!(took < Duration::from_secs(3), "{took:?}");
    let alive = std::process::Command::new("kill")
        .args(["-0", &pid])
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap()
        .success();
    assert!(!alive, "process {pid} is gone");
}

async fn a_missing_program_is_a_transport_error() {
    let err = Client::builder()
        .connect_stdio(Command::new("/nonexistent/mcp-server"))
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Transport(_)), "{err:?}");
    assert_eq!(err.to_string(), "transport failed");
    let text = Chain(&err).to_string();
    assert!(text.contains("cannot start the server"), "{text}");
}

type Test = fn() -> Pin<Box<dyn Future<Output = ()> + Send>>;

fn tests() -> Vec<(&'static str, Test)> {
    vec![
        ("round_trip_in_each_era", || {
            Box::pin(round_trip_in_each_era())
        }),
        (
            "a_server_that_dies_mid_call_fails_every_pending_call_at_once",
            || Box::pin(a_server_that_dies_mid_call_fails_every_pending_call_at_once()),
        ),
        ("a_script_server_that_exits_on_tools_call", || {
            Box::pin(a_script_server_that_exits_on_tools_call())
        }),
        ("a_server_that_never_answers_times_out", || {
            Box::pin(a_server_that_never_answers_times_out())
        }),
        ("close_escalates_to_sigterm", || {
            Box::pin(close_escalates_to_sigterm())
        }),
        ("close_escalates_to_sigkill", || {
            Box::pin(close_escalates_to_sigkill())
        }),
        ("a_missing_program_is_a_transport_error", || {
            Box::pin(a_missing_program_is_a_transport_error())
        }),
    ]
}

fn serve() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let (tools, _events) = support::tools();
        eprintln!("stdio test server ready");
        let served = oxmcp_server::Server::builder("stdio-test-server", "1.0.0")
            .toolbox(tools)
            .build()
            .serve_stdio()
            .await;
        if let Err(e) = served {
            eprintln!("serve_stdio failed: {e}");
            std::process::exit(1);
        }
    });
}

fn main() {
    if std::env::var_os(SERVER_MODE).is_some() {
        serve();
        return;
    }
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--list") {
        for (name, _) in tests() {
            println!("{name}: test");
        }
        return;
    }
    let filters: Vec<&String> = args.iter().filter(|a| !a.starts_with('-')).collect();
    let selected: Vec<_> = tests()
        .into_iter()
        .filter(|(name, _)| filters.is_empty() || filters.iter().any(|f| name.contains(f.as_str())))
        .collect();
    println!("\nrunning {} tests", selected.len());
    let (mut passed, mut failed) = (0, Vec::new());
    for (name, test) in selected {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        let outcome = runtime.block_on(async {
            tokio::time::timeout(Duration::from_secs(60), tokio::spawn(test())).await
        });
        match outcome {
            Ok(Ok(())) => {
                println!("test {name} ... ok");
                passed += 1;
            }
            Ok(Err(_)) => {
                println!("test {name} ... FAILED");
                failed.push(name);
            }
            Err(_) => {
                println!("test {name} ... FAILED (timed out)");
                failed.push(name);
            }
        }
    }
    let status = if failed.is_empty() { "ok" } else { "FAILED" };
    println!(
        "\ntest result: {status}. {passed} passed; {} failed; 0 ignored; 0 measured; 0 filtered out\n",
        failed.len()
    );
    if !failed.is_empty() {
        std::process::exit(1);
    }
}
