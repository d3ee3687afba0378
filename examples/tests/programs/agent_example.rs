//! The `agent` example, run as a user runs it, against scripted model
//! servers that speak OpenAI's and Anthropic's wire formats and check every
//! request against the official SDKs' types (`tests/agent/scripted_model.py`).

use std::net::TcpListener;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use mcp_test_support::scripted_model::ScriptedModel;
use serde_json::{json, Value};

const KEY: &str = "sk-example";
const CALCULATOR_TOOLS: [&str; 8] = [
    "add", "count_to", "divide", "multiply", "recall", "stats", "store", "subtract",
];

/// Runs the example with the provider's variables pointing at `server`.
fn agent(server: &ScriptedModel, anthropic: bool, args: &[&str]) -> Output {
    let mut command = agent_command(server, anthropic, args);
    command.stdin(Stdio::null());
    command.output().expect("the agent example runs")
}

/// The agent example with `args`, answering `stdin` to its questions.
fn agent_answering(server: &ScriptedModel, args: &[&str], stdin: &str) -> Output {
    let mut child = agent_command(server, false, args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the agent example starts");
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), stdin.as_bytes()).unwrap();
    child.wait_with_output().expect("the agent example runs")
}

/// The agent example pointed at `server`, OpenAI's or Anthropic's API.
fn agent_command(server: &ScriptedModel, anthropic: bool, args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_agent"));
    for var in [
        "OPENAI_BASE_URL",
        "OPENAI_API_KEY",
        "OPENAI_MODEL",
        "ANTHROPIC_BASE_URL",
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_MODEL",
    ] {
        command.env_remove(var);
    }
    if anthropic {
        command
            .env("ANTHROPIC_BASE_URL", server.base_url())
            .env("ANTHROPIC_API_KEY", KEY)
            .env("ANTHROPIC_MODEL", "claude-test")
            .args(["--provider", "anthropic"]);
    } else {
        command
            .env("OPENAI_BASE_URL", server.openai_base_url())
            .env("OPENAI_API_KEY", KEY)
            .env("OPENAI_MODEL", "gpt-test");
    }
    command.args(args);
    command
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn add_then_answer(provider: &str) -> Value {
    json!({"steps": [
        {"provider": provider,
         "expect": {"tools": CALCULATOR_TOOLS, "last_user_contains": "What is 2 + 3?", "stream": true},
         "respond": {"tool_calls": [{"id": "call_1", "name": "add", "arguments": "{\"a\": 2, \"b\": 3}"}]}},
        {"provider": provider,
         "expect": {"tool_results": [{"id": "call_1", "contains": "5", "is_error": false}]},
         "respond": {"text": "2 + 3 = 5."}}
    ]})
}

#[test]
fn what_is_2_plus_3_with_each_provider() {
    for (anthropic, provider) in [(false, "openai"), (true, "anthropic")] {
        let server = ScriptedModel::start(add_then_answer(provider), KEY);
        let out = agent(&server, anthropic, &["What is 2 + 3?"]);
        let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
        assert!(
            out.status.success(),
            "{provider}: {}\n{stderr}\n{}",
            out.status,
            server.log()
        );
        assert!(
            stdout.contains("2 + 3 = 5."),
            "{provider}: stdout: {stdout}"
        );
        assert!(
            stderr.contains("[tool] add {\"a\": 2, \"b\": 3}"),
            "{provider}: {stderr}"
        );
        assert!(
            stderr.contains("[tool] add returned"),
            "{provider}: {stderr}"
        );
        assert!(
            !stdout.contains("[tool]"),
            "tool lines go to stderr: {stdout}"
        );
        server.assert_clean();
    }
}

#[test]
fn reaching_max_turns_fails_with_the_reason() {
    let call =
        json!({"respond": {"tool_calls": [{"name": "add", "arguments": "{\"a\": 1, \"b\": 1}"}]}});
    let server = ScriptedModel::start(json!({"steps": [call, call]}), KEY);
    let out = agent(&server, false, &["--max-turns", "2", "Add forever"]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("limit of 2 turns"), "{stderr}");
    server.assert_clean();
}

#[test]
fn a_provider_error_fails_naming_the_provider_status_and_message() {
    let script =
        json!({"steps": [{"respond": {"status": 401, "message": "Incorrect API key provided"}}]});
    let server = ScriptedModel::start(script, KEY);
    let out = agent(&server, true, &["--no-stream", "hello"]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("anthropic: HTTP 401: Incorrect API key provided"),
        "{stderr}"
    );
    server.assert_clean();
}

#[test]
fn missing_settings_are_named() {
    let server = ScriptedModel::start(json!({"steps": []}), KEY);
    let mut command = Command::new(env!("CARGO_BIN_EXE_agent"));
    let out = command
        .env_remove("OPENAI_MODEL")
        .env_remove("OPENAI_API_KEY")
        .env("OPENAI_BASE_URL", server.openai_base_url())
        .arg("hello")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("OPENAI_MODEL"),
        "{}",
        text(&out.stderr)
    );
    let out = Command::new(env!("CARGO_BIN_EXE_agent"))
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("ANTHROPIC_BASE_URL")
        .env("ANTHROPIC_MODEL", "claude-test")
        .args(["--provider", "anthropic", "hello"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("ANTHROPIC_API_KEY"),
        "{}",
        text(&out.stderr)
    );
    let out = Command::new(env!("CARGO_BIN_EXE_agent"))
        .args(["--max-turns", "zero", "hello"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("Usage: agent"),
        "{}",
        text(&out.stderr)
    );
    server.assert_clean();
}

#[test]
fn a_stdio_server_joins_and_its_new_tool_is_offered_next_turn() {
    // The plugins example installs a tool when asked: the set sees it on the
    // next turn (notifications/tools/list_changed) and the model calls it.
    let mut tools: Vec<&str> = CALCULATOR_TOOLS.to_vec();
    tools.extend(["install_greeter", "uninstall"]);
    let mut grown = tools.clone();
    grown.push("hello");
    let script = json!({"steps": [
        {"expect": {"tools": tools},
         "respond": {"tool_calls": [{"id": "call_i", "name": "install_greeter",
                                     "arguments": "{\"name\": \"hello\", \"greeting\": \"Hi\"}"}]}},
        {"expect": {"tools": grown, "tool_results": [{"id": "call_i", "contains": "installed `hello`"}]},
         "respond": {"tool_calls": [{"id": "call_h", "name": "hello", "arguments": "{\"who\": \"Ada\"}"}]}},
        {"expect": {"tool_results": [{"id": "call_h", "contains": "Hi, Ada!"}]},
         "respond": {"text": "The greeter says: Hi, Ada!"}}
    ]});
    let server = ScriptedModel::start(script, KEY);
    let plugins = env!("CARGO_BIN_EXE_plugins");
    let out = agent(
        &server,
        false,
        &["--mcp", plugins, "Install a greeter and greet Ada"],
    );
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}\n{}", server.log());
    assert!(text(&out.stdout).contains("Hi, Ada!"));
    assert!(stderr.contains("[tools] now:"), "{stderr}");
    server.assert_clean();
}

#[test]
fn a_name_two_sources_share_is_refused_naming_both() {
    let server = ScriptedModel::start(json!({"steps": []}), KEY);
    let calculator = env!("CARGO_BIN_EXE_calculator");
    let out = agent(&server, false, &["--mcp", calculator, "hello"]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("local toolbox `Calculator`") && stderr.contains("MCP server `calculator`"),
        "{stderr}"
    );
    server.assert_clean();
}

/// The conformance fixture serving Streamable HTTP on a free port.
struct HttpServer(Child, u16);

impl HttpServer {
    fn start() -> HttpServer {
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = Command::new(env!("CARGO_BIN_EXE_conformance_server"))
            .args(["--port", &port.to_string()])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(20);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "the fixture did not listen");
            std::thread::sleep(Duration::from_millis(50));
        }
        HttpServer(child, port)
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn an_http_server_joins_the_set() {
    let fixture = HttpServer::start();
    let url = format!("http://127.0.0.1:{}/mcp", fixture.1);
    let script = json!({"steps": [
        {"respond": {"tool_calls": [{"id": "call_t", "name": "test_simple_text", "arguments": "{}"}]}},
        {"expect": {"tool_results": [{"id": "call_t", "contains": "This is a simple text response for testing."}]},
         "respond": {"text": "The fixture answered."}}
    ]});
    let server = ScriptedModel::start(script, KEY);
    let out = agent(&server, true, &["--mcp-url", &url, "Call the fixture"]);
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}\n{}", server.log());
    assert!(text(&out.stdout).contains("The fixture answered."));
    server.assert_clean();
}

#[test]
fn files_and_fetch_toolboxes_attach_locally() {
    let root = std::env::temp_dir().join(format!("agent-files-{}", std::process::id()));
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(root.join("note.txt"), "the note says hello").unwrap();
    let note = root.join("note.txt").display().to_string();
    let arguments = json!({"path": note}).to_string();
    // The calculator's tools, the files toolbox's read-only ones, and HTTP's.
    let mut offered: Vec<&str> = CALCULATOR_TOOLS.to_vec();
    offered.extend([
        "read_text_file",
        "read_media_file",
        "read_multiple_files",
        "list_directory",
        "list_directory_with_sizes",
        "search_files",
        "directory_tree",
        "get_file_info",
        "list_allowed_directories",
        "exists",
        "get",
        "post",
        "fetch",
    ]);
    let script = json!({"steps": [
        {"provider": "openai",
         "expect": {"tools": offered},
         "respond": {"tool_calls": [{"id": "call_1", "name": "read_text_file", "arguments": arguments}]}},
        {"provider": "openai",
         "expect": {"tool_results": [{"id": "call_1", "contains": "the note says hello", "is_error": false}]},
         "respond": {"tool_calls": [{"id": "call_2", "name": "write_file",
                                     "arguments": json!({"path": note, "content": "overwritten"}).to_string()}]}},
        {"provider": "openai",
         "expect": {"tool_results": [{"id": "call_2", "is_error": true}]},
         "respond": {"text": "The note says hello."}}
    ]});
    let server = ScriptedModel::start(script, KEY);
    let root_arg = root.display().to_string();
    let out = agent(
        &server,
        false,
        &["--files", &root_arg, "--fetch", "What does the note say?"],
    );
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}\n{}", server.log());
    assert!(text(&out.stdout).contains("The note says hello."));
    assert!(stderr.contains("[tool] read_text_file"), "{stderr}");
    assert_eq!(
        std::fs::read_to_string(root.join("note.txt")).unwrap(),
        "the note says hello",
        "read-only unless --files-writable: write_file is not offered"
    );
    server.assert_clean();
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn approve_asks_before_a_call_that_changes_things_and_y_runs_it() {
    // `add` is read-only: not asked; `store` changes the register: asked.
    let script = json!({"steps": [
        {"respond": {"tool_calls": [
            {"id": "call_a", "name": "add", "arguments": "{\"a\": 2, \"b\": 3}"},
            {"id": "call_s", "name": "store", "arguments": "{\"value\": 5}"}]}},
        {"expect": {"tool_results": [
            {"id": "call_a", "contains": "5"},
            {"id": "call_s", "contains": "0"}]},
         "respond": {"text": "Stored 5."}}
    ]});
    let server = ScriptedModel::start(script, KEY);
    let out = agent_answering(&server, &["--approve", "Add 2 and 3 and store it"], "y\n");
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}\n{}", server.log());
    assert!(stderr.contains("[approve] store {\"value\":5"), "{stderr}");
    assert!(stderr.contains("[tool] store returned"), "it ran: {stderr}");
    assert!(
        !stderr.contains("[approve] add"),
        "read-only tools are not asked about: {stderr}"
    );
    assert!(text(&out.stdout).contains("Stored 5."));
    server.assert_clean();
}

#[test]
fn approve_all_asks_before_every_call_and_n_refuses_it() {
    let script = json!({"steps": [
        {"respond": {"tool_calls": [{"id": "call_a", "name": "add", "arguments": "{\"a\": 2, \"b\": 3}"}]}},
        {"expect": {"tool_results": [{"id": "call_a", "contains": "refused (the user said no)"}]},
         "respond": {"text": "I was not allowed to add."}}
    ]});
    let server = ScriptedModel::start(script, KEY);
    let out = agent_answering(&server, &["--approve", "all", "Add 2 and 3"], "n\n");
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}\n{}", server.log());
    assert!(stderr.contains("[approve] add"), "{stderr}");
    assert!(
        stderr.contains("[tool] add refused: the user said no"),
        "{stderr}"
    );
    assert!(
        !stderr.contains("[tool] add returned"),
        "the tool did not run: {stderr}"
    );
    assert!(text(&out.stdout).contains("I was not allowed to add."));
    server.assert_clean();
}

#[test]
fn the_fixtures_image_reaches_anthropic_as_an_image_block_inside_tool_result() {
    let fixture = HttpServer::start();
    let url = format!("http://127.0.0.1:{}/mcp", fixture.1);
    let script = json!({"steps": [
        {"provider": "anthropic",
         "respond": {"tool_calls": [{"id": "toolu_i", "name": "test_image_content", "arguments": "{}"}]}},
        {"provider": "anthropic",
         "expect": {"tool_results": [{"id": "toolu_i", "image": "image/png"}]},
         "respond": {"text": "A small image."}}
    ]});
    let server = ScriptedModel::start(script, KEY);
    let out = agent(
        &server,
        true,
        &["--no-stream", "--mcp-url", &url, "Show me the image"],
    );
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}\n{}", server.log());
    assert!(text(&out.stdout).contains("A small image."));
    server.assert_clean();
}

#[test]
fn the_fixtures_image_reaches_the_responses_api_as_an_input_image() {
    let fixture = HttpServer::start();
    let url = format!("http://127.0.0.1:{}/mcp", fixture.1);
    let script = json!({"steps": [
        {"provider": "openai_responses",
         "respond": {"tool_calls": [{"id": "call_i", "name": "test_image_content", "arguments": "{}"}]}},
        {"provider": "openai_responses",
         "expect": {"tool_results": [{"id": "call_i", "image": "image/png"}]},
         "respond": {"text": "A small image."}}
    ]});
    let server = ScriptedModel::start(script, KEY);
    for streaming in [false, true] {
        if streaming {
            server.set_script(json!({"steps": [
                {"provider": "openai_responses", "expect": {"stream": true},
                 "respond": {"tool_calls": [{"id": "call_j", "name": "test_image_content", "arguments": "{}"}]}},
                {"provider": "openai_responses",
                 "expect": {"tool_results": [{"id": "call_j", "image": "image/png"}]},
                 "respond": {"text": "A small image."}}
            ]}));
        }
        let mut args = vec![
            "--provider",
            "openai-responses",
            "--mcp-url",
            &url,
            "Show me the image",
        ];
        if !streaming {
            args.insert(0, "--no-stream");
        }
        let out = agent(&server, false, &args);
        let stderr = text(&out.stderr);
        assert!(out.status.success(), "{stderr}\n{}", server.log());
        assert!(
            text(&out.stdout).contains("A small image."),
            "streaming {streaming}"
        );
    }
    server.assert_clean();
}
