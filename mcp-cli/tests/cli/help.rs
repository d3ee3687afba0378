//! `--help`: an example for every command; a command line refused exits 2.

use crate::{mcp, stderr, stdout};

#[tokio::test]
async fn every_command_shows_examples_of_itself() {
    for command in ["list", "call", "read", "prompt", "check"] {
        let out = mcp(&[command, "--help"]).await;
        let text = stdout(&out);
        assert!(out.status.success(), "{command}: {}", stderr(&out));
        let examples = text
            .split_once("Examples:")
            .unwrap_or_else(|| panic!("{command} --help has no examples: {text}"))
            .1;
        assert!(
            examples.contains(&format!("mcp {command} ")),
            "{command}: {examples}"
        );
    }
    let top = stdout(&mcp(&["--help"]).await);
    for command in ["list", "call", "read", "prompt", "check"] {
        assert!(top.contains(command), "{top}");
    }
}

#[tokio::test]
async fn a_command_line_refused_exits_2() {
    let out = mcp(&["list", "--era", "2020-01-01", "--", "true"]).await;
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("expected `legacy`, `2026-07-28` or `auto`"));
    let out = mcp(&[
        "call",
        "add",
        "--header",
        "no colon",
        "http://127.0.0.1:1/mcp",
    ])
    .await;
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("expected `Name: value`"));
    let out = mcp(&["list", "-H", "Bad Name: x", "http://127.0.0.1:1/mcp"]).await;
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("`Bad Name` is not an HTTP header name"));
}
