//! `mcp list`, `call`, `read` and `prompt` against a server on a 127.0.0.1
//! socket: arguments converted by the tool's schema and checked before the
//! call, results printed, `--json` parsed, failures one line and exit 1.

// Tools take `&self` and are `pub`, as `#[tool]` wants them.
#![allow(clippy::unused_self, unreachable_pub)]

use mcp_test_support::calculator::Calculator;
use mcp_test_support::server::HttpServer;
use oxmcp_server::{tool, Server, ToolError};
use serde_json::Value;

use crate::{assert_refused, mcp, stderr, stdout};

/// Tools whose parameters have every JSON type, each echoing what it got.
#[derive(Debug)]
struct Kinds;

#[tool(description = "Echo typed arguments", client = false)]
impl Kinds {
    #[describe("Echo what was received, as JSON")]
    pub fn kinds(
        &self,
        #[param("A count")] n: i64,
        #[param("A switch")] on: bool,
        #[param("Some numbers")] values: Vec<f64>,
        #[param("A label")] label: String,
        #[param("An optional ratio")] ratio: Option<f64>,
    ) -> String {
        serde_json::json!({"n": n, "on": on, "values": values, "label": label, "ratio": ratio})
            .to_string()
    }

    #[describe("Always fails")]
    pub fn broken(&self) -> Result<String, ToolError> {
        Err(ToolError::new("the disk is on fire"))
    }
}

async fn serve() -> (HttpServer, String) {
    let server = Server::builder("cli-test", "1.0.0")
        .toolbox(Calculator)
        .toolbox(Kinds)
        .build();
    let http = HttpServer::start(server, oxmcp_server::http::HttpConfig::default()).await;
    let url = format!("http://{}/mcp", http.addr);
    (http, url)
}

fn json(out: &std::process::Output) -> Value {
    assert!(out.status.success(), "stderr: {}", stderr(out));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", stdout(out)))
}

#[tokio::test]
async fn list_shows_every_tool_with_its_parameters_in_both_eras() {
    let (_http, url) = serve().await;
    for era in ["legacy", "2026-07-28"] {
        let listing = json(&mcp(&["list", "--json", "--era", era, &url]).await);
        let names: Vec<&str> = listing["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["add", "broken", "divide", "kinds"], "{era}");
    }
    let text = stdout(&mcp(&["list", &url]).await);
    assert!(
        text.contains("kinds  Echo what was received, as JSON"),
        "{text}"
    );
    assert!(text.contains("    n: integer, required  A count"), "{text}");
    assert!(
        text.contains("    values: array of number, required  Some numbers"),
        "{text}"
    );
    assert!(
        !text.contains('\u{1b}'),
        "no colour with NO_COLOR: {text:?}"
    );
}

#[tokio::test]
async fn key_values_arrive_with_the_types_of_the_schema() {
    let (_http, url) = serve().await;
    let out = mcp(&[
        "call",
        "kinds",
        "n=7",
        "on=false",
        "values=[1.5, 2]",
        "label=42",
        "ratio=0.5",
        &url,
    ])
    .await;
    let got: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(
        got,
        serde_json::json!({"n": 7, "on": false, "values": [1.5, 2.0], "label": "42", "ratio": 0.5})
    );
    let result = json(
        &mcp(&[
            "call",
            "add",
            "--json",
            "--args",
            r#"{"a": 1, "b": 2}"#,
            &url,
        ])
        .await,
    );
    assert_eq!(result["content"][0]["text"], "3");
}

#[tokio::test]
async fn wrong_arguments_are_refused_before_the_call_in_the_schemas_words() {
    let (_http, url) = serve().await;
    let cases: [(&[&str], &str); 5] = [
        (
            &["n=seven"],
            "argument `n` of tool `kinds` (A count) must be an integer, not `seven`",
        ),
        (
            &["n=1", "on=yes"],
            "argument `on` of tool `kinds` (A switch) must be a boolean (true or false), not `yes`",
        ),
        (
            &["n=1", "on=true", "values=1"],
            "argument `values` of tool `kinds` (Some numbers) must be a JSON array, not `1`",
        ),
        (
            &["n=1", "colour=red"],
            "tool `kinds` has no parameter `colour`: its parameters are ",
        ),
        (
            &["n=1", "on=true", "values=[]"],
            "tool `kinds` needs `label` (A label): add label=VALUE",
        ),
    ];
    for (arguments, want) in cases {
        let mut args = vec!["call", "kinds"];
        args.extend_from_slice(arguments);
        args.push(&url);
        assert_refused(&mcp(&args).await, want);
    }
    assert_refused(
        &mcp(&["call", "nope", &url]).await,
        "the server has no tool `nope`: its tools are add, broken, divide, kinds",
    );
}

#[tokio::test]
async fn a_tool_error_exits_1_with_its_message() {
    let (_http, url) = serve().await;
    assert_refused(
        &mcp(&["call", "broken", &url]).await,
        "tool `broken` reported an error: the disk is on fire",
    );
    // With --json the result is printed as well, for scripts.
    let out = mcp(&["call", "broken", "--json", &url]).await;
    assert_eq!(out.status.code(), Some(1));
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(result["isError"], true);
}

#[tokio::test]
async fn a_server_without_prompts_or_resources_lists_none() {
    let (_http, url) = serve().await;
    let listing = json(
        &mcp(&[
            "list",
            "--prompts",
            "--resources",
            "--no-tools",
            "--json",
            &url,
        ])
        .await,
    );
    assert_eq!(
        listing,
        serde_json::json!({"prompts": [], "resources": [], "resourceTemplates": []})
    );
    assert_refused(
        &mcp(&["prompt", "hello", &url]).await,
        "the server has no prompt `hello`: its prompts are none",
    );
}

#[tokio::test]
async fn an_unreachable_url_names_the_fix() {
    let (http, url) = serve().await;
    drop(http);
    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    assert_refused(
        &mcp(&["list", &url]).await,
        "check that the server is running and the URL is right",
    );
}
