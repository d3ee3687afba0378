//! The `shell` example over stdio: hostile commands do nothing, runs are confined, and without `--allow` there is no tool.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use oxmcp_client::{Client, Error};
use oxmcp_toolbox::commands::{ExecClient, ExecOutput};
use serde_json::json;

const ALLOWED: &str = "echo,sh,cat,seq,touch";

/// A fresh, empty directory for one test: the server's root.
fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mcp-shell-example-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Starts the example in `dir` with `args`, and connects to it.
async fn start(dir: &Path, args: &[&str]) -> Client {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_shell"));
    command
        .args(args)
        .current_dir(dir)
        .env("SHELL_TEST_SECRET", "hunter2");
    Client::builder()
        .connect_stdio(command)
        .await
        .expect("the shell server starts")
}

async fn run(client: &Client, command: &str) -> ExecOutput {
    ExecClient::new(client)
        .exec(command.to_owned(), None)
        .await
        .unwrap_or_else(|e| panic!("{command}: {e}"))
}

async fn refusal(client: &Client, command: &str) -> String {
    match ExecClient::new(client).exec(command.to_owned(), None).await {
        Err(e @ Error::Tool(_)) => e.tool_message().unwrap_or_default(),
        other => panic!("{command:?} was not refused: {other:?}"),
    }
}

/// The server still answers an ordinary call.
async fn still_serves(client: &Client) {
    assert_eq!(run(client, "echo still here").await.stdout, "still here\n");
}

#[tokio::test]
async fn hostile_commands_are_refused_and_what_they_inject_never_runs() {
    let dir = scratch("hostile");
    std::fs::write(dir.join("keep"), "kept").unwrap();
    let client = start(&dir, &["--allow", ALLOWED]).await;
    let cases = [
        ("echo a; touch m1", "`;`"),
        ("echo a ;touch m2", "`;`"),
        ("echo a | touch m3", "`|`"),
        ("echo a && touch m4", "`&`"),
        ("echo a || touch m5", "`|`"),
        ("touch m6 &", "`&`"),
        ("echo $(touch m7)", "`$`"),
        ("echo \"$(touch m8)\"", "`$`"),
        ("echo `touch m9`", "`` ` ``"),
        ("echo a\ntouch m10", "newline"),
        ("echo a\r\ntouch m11", "newline"),
        ("echo a > m12", "`>`"),
        ("echo a >> m13", "`>`"),
        ("cat < keep > m14", "`<`"),
        ("(touch m15)", "`(`"),
        ("rm keep", "not on the allow list"),
        ("/bin/sh -c 'touch m16'", "never given as a path"),
        ("../sh -c 'touch m17'", "never given as a path"),
        ("./touch m18", "never given as a path"),
        ("/usr/bin/touch m19", "never given as a path"),
        ("SHELL=x touch m20", "not on the allow list"),
    ];
    for (command, expected) in cases {
        let message = refusal(&client, command).await;
        let expected = expected.replace("`` ` ``", "`");
        assert!(message.contains(&expected), "{command:?}: {message}");
        still_serves(&client).await;
    }
    // Nothing an injection would have made exists, and nothing was removed.
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["keep"]);
    assert_eq!(std::fs::read_to_string(dir.join("keep")).unwrap(), "kept");
    client.close().await;
}

#[tokio::test]
async fn globs_are_refused_and_quoted_never_expanded() {
    let dir = scratch("glob");
    std::fs::write(dir.join("secret.txt"), "TOPSECRET").unwrap();
    let client = start(&dir, &["--allow", ALLOWED]).await;
    for command in ["cat *", "cat *.txt", "cat secret.tx?", "cat [s]ecret.txt"] {
        let message = refusal(&client, command).await;
        assert!(message.contains("a glob"), "{command}: {message}");
        assert!(!message.contains("TOPSECRET"), "{command}: {message}");
        still_serves(&client).await;
    }
    let out = run(&client, "cat '*.txt'").await;
    assert_eq!(out.exit_code, Some(1));
    assert!(!out.stdout.contains("TOPSECRET"), "{out:?}");
    assert!(out.stderr.contains("*.txt"), "{out:?}");
    client.close().await;
}

#[tokio::test]
async fn quoted_shell_syntax_reaches_the_program_as_plain_text() {
    let dir = scratch("quoted");
    let client = start(&dir, &["--allow", ALLOWED]).await;
    let out = run(
        &client,
        r#"echo 'a; touch m1' "b | touch m2 && \$(touch m3)" \> m4 '`touch m5`'"#,
    )
    .await;
    assert_eq!(
        out.stdout,
        "a; touch m1 b | touch m2 && $(touch m3) > m4 `touch m5`\n"
    );
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0, "no marker");
    client.close().await;
}

#[tokio::test]
async fn a_command_past_its_timeout_loses_its_whole_process_group() {
    let dir = scratch("timeout");
    let client = start(&dir, &["--allow", ALLOWED]).await;
    // The control: a grandchild that finishes within the call leaves its marker.
    let out = run(&client, "sh -c '(sleep 0.2; touch made) & wait'").await;
    assert_eq!(out.exit_code, Some(0), "{out:?}");
    assert!(dir.join("made").exists(), "the marker method works");
    let started = Instant::now();
    let out = ExecClient::new(&client)
        .exec(
            "sh -c '(sleep 2; touch late) & sleep 100'".to_owned(),
            Some(300),
        )
        .await
        .unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert!(out.timed_out, "{out:?}");
    assert_eq!((out.exit_code, out.signal), (None, Some(9)));
    still_serves(&client).await;
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert!(
        !dir.join("late").exists(),
        "the grandchild outlived the timeout"
    );
    client.close().await;
}

#[tokio::test]
async fn output_past_the_cap_is_cut_and_said() {
    let dir = scratch("cap");
    let client = start(&dir, &["--allow", ALLOWED]).await;
    let out = run(&client, "seq 1 400000").await;
    assert_eq!(out.exit_code, Some(0));
    assert!(out.stdout_truncated);
    assert_eq!(
        out.stdout.len(),
        oxmcp_toolbox::commands::DEFAULT_MAX_OUTPUT_BYTES
    );
    assert!(out.stdout_bytes > 2 * 1024 * 1024, "{}", out.stdout_bytes);
    assert!(out.stdout.starts_with("1\n2\n3\n"));
    assert!(!out.stderr_truncated);
    still_serves(&client).await;
    client.close().await;
}

#[tokio::test]
async fn runs_report_quoted_output_exit_codes_and_stderr_as_json_and_text() {
    let dir = scratch("positive");
    let client = start(&dir, &["--allow", ALLOWED]).await;
    let out = run(&client, r#"echo "hello   world" 'it'\''s' plain"#).await;
    assert_eq!(out.stdout, "hello   world it's plain\n");
    assert_eq!(
        (out.exit_code, out.signal, out.timed_out),
        (Some(0), None, false)
    );

    let out = run(&client, "sh -c 'echo to-out; echo to-err >&2; exit 3'").await;
    assert_eq!(out.exit_code, Some(3));
    assert_eq!(
        (out.stdout.as_str(), out.stderr.as_str()),
        ("to-out\n", "to-err\n")
    );

    let raw = client
        .call_tool("exec", json!({"command": "sh -c 'exit 7'"}))
        .await
        .expect("a non-zero exit is a result, not a tool error");
    let structured = raw.structured_content.expect("structured content");
    assert_eq!(structured["exit_code"], 7);
    let text = raw.content[0].as_text().expect("a text copy");
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(text).unwrap(),
        structured
    );
    client.close().await;
}

#[tokio::test]
async fn the_program_sees_a_scrubbed_environment_rooted_in_the_working_directory() {
    let dir = scratch("env");
    let client = start(&dir, &["--allow", ALLOWED]).await;
    let out = run(&client, "sh -c 'env; pwd'").await;
    let root = dir.canonicalize().unwrap();
    assert!(!out.stdout.contains("hunter2"), "{}", out.stdout);
    assert!(out.stdout.contains("PATH=/usr/local/bin:/usr/bin:/bin\n"));
    assert!(out.stdout.contains(&format!("HOME={}\n", root.display())));
    assert!(out.stdout.ends_with(&format!("\n{}\n", root.display())));
    client.close().await;
}

#[tokio::test]
async fn the_exec_tool_is_destructive_and_open_world() {
    let dir = scratch("list");
    let client = start(&dir, &["--allow", "echo"]).await;
    let tools = client.list_tools().await.unwrap();
    assert_eq!(tools.len(), 1);
    let tool = serde_json::to_value(&tools[0]).unwrap();
    assert_eq!(tool["name"], "exec");
    assert_eq!(tool["annotations"]["destructiveHint"], true);
    assert_eq!(tool["annotations"]["openWorldHint"], true);
    client.close().await;
}

#[tokio::test]
async fn without_allow_there_is_no_exec_tool() {
    let dir = scratch("none");
    let client = start(&dir, &[]).await;
    assert!(client.list_tools().await.unwrap().is_empty());
    match client
        .call_tool("exec", json!({"command": "touch marker"}))
        .await
    {
        Err(Error::Protocol(e)) => assert_eq!(e.code, -32602, "{e:?}"),
        other => panic!("exec answered: {other:?}"),
    }
    assert!(!dir.join("marker").exists());
    client.close().await;
}

#[test]
fn bad_arguments_print_the_usage_and_exit_2() {
    for args in [
        &["--allow"][..],
        &["--bogus"],
        &["--allow", "echo", "extra"],
        &["--allow", "/bin/sh"],
        &["--allow", "echo,,ls"],
    ] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_shell"))
            .args(args)
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("Usage: shell"), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}
