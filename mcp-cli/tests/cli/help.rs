//! `--help`: an example for every command; a command line refused exits 2.

use crate::{mcp, stderr, stdout};

#[tokio::test]
async fn every_command_shows_examples_of_itself() {
    const ALL: [&str; 10] = [
        "list",
        "call",
        "read",
        "prompt",
        "check",
        "install",
        "uninstall",
        "new",
        "dev",
        "completions",
    ];
    for command in ALL {
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
    for command in ALL {
        assert!(top.contains(command), "{top}");
    }
}

#[tokio::test]
async fn completion_scripts_name_every_command_and_an_unknown_shell_is_refused() {
    for shell in ["bash", "zsh", "fish"] {
        let out = mcp(&["completions", shell]).await;
        assert!(out.status.success(), "{shell}: {}", stderr(&out));
        let script = stdout(&out);
        for command in ["list", "call", "install", "uninstall", "new", "dev"] {
            assert!(script.contains(command), "{shell} script lacks {command}");
        }
    }
    let out = mcp(&["completions", "nosh"]).await;
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("possible values: bash"));
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
