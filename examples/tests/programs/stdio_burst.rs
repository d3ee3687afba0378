//! A client that sends a burst of requests, closes its end, and only then
//! reads: the replies fill the pipe while the server is still writing after
//! its input ended. Every reply must arrive and the server must exit (it
//! used to spin at full CPU without writing, waiting on its own shutdown).

use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

#[test]
fn replies_to_a_burst_all_arrive_after_the_input_closes() {
    const CALLS: usize = 5_000;
    let mut child = Command::new(env!("CARGO_BIN_EXE_calculator"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let mut input = String::new();
    input.push_str(r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#);
    input.push('\n');
    input.push_str(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    input.push('\n');
    for id in 1..=CALLS {
        writeln!(
            input,
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"add","arguments":{{"a":{id},"b":1}}}}}}"#
        )
        .unwrap();
    }
    // Write everything and close before reading a byte: the replies (over
    // the pipe's 64 KiB) wait in the server until the reader starts.
    let writer = std::thread::spawn(move || {
        stdin.write_all(input.as_bytes()).unwrap();
        drop(stdin);
    });
    std::thread::sleep(Duration::from_millis(300));
    let (done, lines) = mpsc::channel();
    std::thread::spawn(move || {
        let lines: Vec<String> = BufReader::new(stdout).lines().map(Result::unwrap).collect();
        let _ = done.send(lines);
    });
    let Ok(lines) = lines.recv_timeout(Duration::from_secs(30)) else {
        let _ = child.kill();
        panic!("the server did not finish writing its replies within 30 s of its input closing");
    };
    writer.join().unwrap();
    assert_eq!(lines.len(), CALLS + 1, "one reply per request");
    for (id, line) in lines.iter().enumerate().skip(1) {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(v["id"], id, "replies in order: {line}");
        assert_eq!(
            v["result"]["content"][0]["text"],
            (id + 1).to_string(),
            "{line}"
        );
    }
    let status = child.wait().unwrap();
    assert!(status.success(), "{status}");
}
