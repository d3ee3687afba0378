//! A stray `println!` in a stdio server's tool goes to stderr, not the wire.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

#[test]
fn stray_prints_do_not_corrupt_the_protocol() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_stdout_guard"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"protocolVersion":"2025-11-25","capabilities":{{}},"clientInfo":{{"name":"t","version":"1"}}}}}}"#
    )
    .unwrap();
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","method":"notifications/initialized"}}"#
    )
    .unwrap();
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"hello","arguments":{{"name":"Ada"}}}}}}"#
    )
    .unwrap();
    drop(stdin);
    let stdout = BufReader::new(child.stdout.take().unwrap());
    let lines: Vec<String> = stdout.lines().map(Result::unwrap).collect();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    assert_eq!(
        lines.len(),
        2,
        "only the two responses on stdout: {lines:?}"
    );
    for line in &lines {
        let v: serde_json::Value =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("{line:?}: {e}"));
        assert_eq!(v["jsonrpc"], "2.0");
    }
    assert!(lines[1].contains("Hello, Ada!"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("DEBUG: greeting Ada"),
        "the stray print went to stderr: {stderr}"
    );
}
