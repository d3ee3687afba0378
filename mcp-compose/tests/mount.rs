//! Mounting servers on a front server, driven by a real client of the
//! front server: the names, calls, prompts, resources, completion,
//! progress, cancellation and elicitation that pass through a mount; list
//! changes upstream seen downstream; a mounted child process killed and
//! coming back; configurations refused before anything starts.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use oxmcp_client::{CallOptions, Client};
use oxmcp_compose::{mount, Mount, MountError};
use oxmcp_server::ask::Elicited;
use oxmcp_server::types::completion::CompletionRef;
use oxmcp_server::{tool, Context, RequestError, Server, ToolEntry, ToolError};
use serde_json::json;

/// The mounted server's toolbox: a tool of each kind, a prompt with a
/// completion, a resource and a template.
#[derive(Debug, Default)]
pub struct Desk {
    /// How many `wait` calls ended (cancelled: they never finish otherwise).
    cancelled: Arc<AtomicUsize>,
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct Confirm {
    /// Type yes to go on
    answer: String,
}

#[tool(description = "A desk: arithmetic, waiting, confirming, greeting, reading")]
impl Desk {
    #[describe("Add two numbers")]
    #[tool(read_only)]
    pub fn add(&self, #[param("First")] a: f64, #[param("Second")] b: f64) -> f64 {
        a + b
    }

    #[describe("Fail, always")]
    pub fn fail(&self) -> Result<String, ToolError> {
        Err(ToolError::new("it failed on purpose"))
    }

    #[describe("Name the client's roots")]
    pub async fn roots(&self, ctx: Context) -> Result<String, ToolError> {
        #[allow(deprecated)] // roots, tested on purpose
        let roots = ctx.roots().await?;
        Ok(roots
            .iter()
            .map(|r| r.uri.as_str())
            .collect::<Vec<_>>()
            .join(","))
    }

    #[describe("Log a message, then answer")]
    pub fn chatty(&self, ctx: Context) -> &'static str {
        #[allow(deprecated)] // logging, tested on purpose
        ctx.info("working on it");
        #[allow(deprecated)] // logging, tested on purpose
        ctx.debug("the details");
        "done"
    }

    #[describe("Report progress in steps, then finish")]
    pub async fn count(&self, #[param("How many steps")] steps: u32, ctx: Context) -> String {
        for i in 1..=steps {
            ctx.progress_with_message(f64::from(i), Some(f64::from(steps)), format!("step {i}"));
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        format!("counted {steps}")
    }

    #[describe("Wait until cancelled")]
    pub async fn wait(&self, ctx: Context) -> String {
        // The server drops a cancelled call's future: the guard counts it.
        struct Counted(Arc<AtomicUsize>);
        impl Drop for Counted {
            fn drop(&mut self) {
                self.0.fetch_add(1, Ordering::SeqCst);
            }
        }
        let _counted = Counted(Arc::clone(&self.cancelled));
        ctx.cancelled().await;
        "cancelled".into()
    }

    #[describe("Ask the user to confirm")]
    pub async fn confirm(&self, ctx: Context) -> Result<String, ToolError> {
        match ctx.elicit::<Confirm>("Go on?").await? {
            Elicited::Accepted(c) => Ok(format!("answered {}", c.answer)),
            Elicited::Declined | Elicited::Cancelled => Ok("declined".into()),
        }
    }

    #[describe("Change the message of the day")]
    pub fn touch(&self, ctx: Context) -> &'static str {
        if let Some(server) = ctx.server() {
            server.resource_updated("desk://motd");
        }
        "touched"
    }

    #[prompt]
    #[describe("Greet someone")]
    #[param(who, "Whom to greet")]
    pub fn greet(&self, who: String) -> String {
        format!("Say hello to {who}")
    }

    #[complete(greet, who)]
    pub fn people(&self, typed: &str) -> Vec<&'static str> {
        ["Ada", "Alan", "Grace"]
            .into_iter()
            .filter(|p| p.starts_with(typed))
            .collect()
    }

    #[resource(
        uri = "desk://motd",
        mime_type = "text/plain",
        title = "Message of the day"
    )]
    #[describe("The message of the day")]
    pub fn motd(&self) -> &'static str {
        "Mount everything"
    }

    #[resource(template = "desk://notes/{id}", mime_type = "text/plain")]
    #[describe("One note")]
    pub fn note(&self, id: u32) -> Result<String, RequestError> {
        if id > 9 {
            return Err(RequestError::not_found());
        }
        Ok(format!("note {id}"))
    }
}

/// A server of the test, offering `desk`.
fn desk_server(desk: Desk) -> Server {
    Server::builder("desk", "1.0").toolbox(desk).build()
}

/// A front server with nothing of its own but an `echo` tool.
fn front() -> Server {
    let echo = ToolEntry::dynamic(
        "echo",
        "Echo the text",
        json!({"type": "object", "properties": {"text": {"type": "string", "description": "Text"}}}),
        |args, _ctx| async move { args.get("text").and_then(|t| t.as_str()).unwrap_or_default().to_owned() },
    )
    .unwrap();
    Server::builder("front", "1.0")
        .offer_prompts_and_resources()
        .tool(echo)
        .build()
}

/// A client of `server`, in this process, answering elicitations with
/// `answer` and keeping every log message it hears.
async fn client_of(server: &Server) -> Client {
    client_in(server, oxmcp_client::Era::Auto).await
}

/// A client of `server` as [`client_of`], speaking the era `era`.
#[allow(deprecated)] // a roots handler, for the mounted servers that ask
async fn client_in(server: &Server, era: oxmcp_client::Era) -> Client {
    let (client_end, server_end) = tokio::io::duplex(256 * 1024);
    let (read, write) = tokio::io::split(server_end);
    tokio::spawn(server.clone().serve_io(read, write));
    let (read, write) = tokio::io::split(client_end);
    Client::builder()
        .protocol(era)
        .elicitation_handler(|params: serde_json::Value| async move {
            assert_eq!(params["message"], "Go on?");
            Ok(json!({"action": "accept", "content": {"answer": "yes"}}))
        })
        .roots_handler(|_| async {
            Ok(json!({"roots": [{"uri": "file:///work", "name": "work"}]}))
        })
        .connect_io(read, write)
        .await
        .unwrap()
}

/// Two desks mounted on `front`: `desk` spoken to in the era the client
/// picks (2026-07-28), `old` in the legacy era.
async fn desk_in_both_eras(front: &Server) -> oxmcp_compose::Mounted {
    mount(
        &front.handle(),
        [
            Mount::server("desk", desk_server(Desk::default())),
            Mount::server("old", desk_server(Desk::default()))
                .client(|b| b.protocol(oxmcp_client::Era::Legacy)),
        ],
    )
    .await
    .unwrap()
}

/// Polls `check` until it holds, for at most 10 s.
async fn eventually<F, Fut>(what: &str, mut check: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    for _ in 0..200 {
        if check().await {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("never happened: {what}");
}

fn names(tools: &[oxmcp_server::types::Tool]) -> Vec<&str> {
    tools.iter().map(|t| t.name.as_str()).collect()
}

#[tokio::test]
async fn a_mounted_server_is_offered_under_its_prefix() {
    let front = front();
    let mounts = mount(
        &front.handle(),
        [Mount::server("desk", desk_server(Desk::default()))],
    )
    .await
    .unwrap();
    assert!(mounts.is_up("desk").await);
    let client = client_of(&front).await;

    let tools = client.list_tools().await.unwrap();
    assert_eq!(
        names(&tools),
        [
            "desk_add",
            "desk_chatty",
            "desk_confirm",
            "desk_count",
            "desk_fail",
            "desk_roots",
            "desk_touch",
            "desk_wait",
            "echo"
        ]
    );
    let add = tools.iter().find(|t| t.name == "desk_add").unwrap();
    assert_eq!(add.description.as_deref(), Some("Add two numbers"));
    assert_eq!(add.annotations.as_ref().unwrap().read_only_hint, Some(true));
    assert_eq!(add.input_schema["required"], json!(["a", "b"]));

    let sum = client
        .call_tool("desk_add", json!({"a": 2, "b": 3}))
        .await
        .unwrap();
    assert_eq!(sum.content[0].as_text(), Some("5"));
    // A tool error stays a tool error, with its text.
    let failed = client.call_tool_raw("desk_fail", json!({})).await.unwrap();
    assert_eq!(failed.is_error, Some(true));
    assert_eq!(failed.content[0].as_text(), Some("it failed on purpose"));
    // Arguments the mounted server refuses: its own refusal, as a tool error.
    let refused = client
        .call_tool_raw("desk_add", json!({"a": "two"}))
        .await
        .unwrap();
    assert_eq!(refused.is_error, Some(true), "{refused:?}");
    // The front server's own tool is untouched.
    let echoed = client
        .call_tool("echo", json!({"text": "hi"}))
        .await
        .unwrap();
    assert_eq!(echoed.content[0].as_text(), Some("hi"));

    // Prompts, with their completion.
    let prompts = client.list_prompts().await.unwrap();
    assert_eq!(
        prompts.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(),
        ["desk_greet"]
    );
    let got = client
        .get_prompt("desk_greet", [("who", "Ada")])
        .await
        .unwrap();
    assert_eq!(got.messages[0].content.as_text(), Some("Say hello to Ada"));
    let missing = client
        .get_prompt("desk_greet", Vec::<(String, String)>::new())
        .await;
    assert!(matches!(missing, Err(oxmcp_client::Error::Protocol(e)) if e.code == -32602));
    let completed = client
        .complete(
            CompletionRef::Prompt {
                name: "desk_greet".into(),
                title: None,
            },
            "who",
            "A",
            Vec::<(String, String)>::new(),
        )
        .await
        .unwrap();
    assert_eq!(completed.values, ["Ada", "Alan"]);

    // Resources and templates: the prefix joins the scheme, and comes off
    // on the way back.
    let resources = client.list_resources().await.unwrap();
    assert_eq!(
        resources.iter().map(|r| r.uri.as_str()).collect::<Vec<_>>(),
        ["desk+desk://motd"]
    );
    let motd = client.read_resource("desk+desk://motd").await.unwrap();
    assert_eq!(motd.contents[0].uri(), "desk+desk://motd");
    let templates = client.list_resource_templates().await.unwrap();
    assert_eq!(templates[0].uri_template, "desk+desk://notes/{id}");
    let note = client.read_resource("desk+desk://notes/3").await.unwrap();
    assert_eq!(note.contents[0].uri(), "desk+desk://notes/3");
    let missing = client.read_resource("desk+desk://notes/12").await;
    match missing {
        Err(oxmcp_client::Error::Protocol(e)) => {
            assert_eq!(e.code, -32602);
            assert_eq!(e.data.unwrap()["uri"], "desk+desk://notes/12");
        }
        other => panic!("{other:?}"),
    }
    mounts.close().await;
}

#[tokio::test]
async fn progress_cancellation_and_elicitation_pass_through() {
    let desk = Desk::default();
    let cancelled = Arc::clone(&desk.cancelled);
    let front = front();
    let mounts = mount(&front.handle(), [Mount::server("desk", desk_server(desk))])
        .await
        .unwrap();
    let client = client_of(&front).await;

    let seen = Arc::new(Mutex::new(Vec::new()));
    let seen_by = Arc::clone(&seen);
    let counted = client
        .call_tool_with(
            "desk_count",
            json!({"steps": 3}),
            CallOptions::new().on_progress(move |p| {
                seen_by
                    .lock()
                    .unwrap()
                    .push((p.progress, p.total, p.message));
            }),
        )
        .await
        .unwrap();
    assert_eq!(counted.content[0].as_text(), Some("counted 3"));
    assert_eq!(
        *seen.lock().unwrap(),
        [1.0, 2.0, 3.0].map(|i| (i, Some(3.0), Some(format!("step {i}"))))
    );

    // The mounted server asks its client; the front server's client answers.
    let confirmed = client.call_tool("desk_confirm", json!({})).await.unwrap();
    assert_eq!(confirmed.content[0].as_text(), Some("answered yes"));
    let roots = client.call_tool("desk_roots", json!({})).await.unwrap();
    assert_eq!(roots.content[0].as_text(), Some("file:///work"));

    // A call the front client gives up on is cancelled on the mounted server.
    let gave_up = client
        .call_tool_with(
            "desk_wait",
            json!({}),
            CallOptions::new().timeout(Duration::from_millis(300)),
        )
        .await;
    assert!(
        matches!(gave_up, Err(oxmcp_client::Error::Timeout(_))),
        "{gave_up:?}"
    );
    eventually("the mounted call cancelled", || {
        let n = cancelled.load(Ordering::SeqCst);
        async move { n == 1 }
    })
    .await;
    mounts.close().await;
}

/// The next notification `method` that `notifications` hears, within 10 s.
async fn next_notification(
    notifications: &mut oxmcp_client::Notifications,
    method: &str,
) -> oxmcp_types::jsonrpc::Notification {
    let heard = tokio::time::timeout(Duration::from_secs(10), async {
        while let Some(n) = notifications.recv().await {
            if n.method == method {
                return Some(n);
            }
        }
        None
    })
    .await;
    heard
        .ok()
        .flatten()
        .unwrap_or_else(|| panic!("no {method} reached the front client"))
}

/// A front client in `front` subscribes to the mounted `uri` and touches
/// it until an update comes back, naming the front URI.
async fn updates_come_back(client: &Client, tool: &str, uri: &str) {
    let mut notifications = client.notifications();
    // Held open: a 2026-07-28 client follows the URI on this stream.
    let _stream = if client.is_modern() {
        let filter = oxmcp_types::modern::SubscriptionFilter {
            resource_subscriptions: Some(vec![uri.to_owned()]),
            ..Default::default()
        };
        Some(client.listen(filter).await.unwrap())
    } else {
        client.subscribe_resource(uri).await.unwrap();
        None
    };
    // The subscription reaches the mounted server on a task of its own:
    // touch until an update comes back.
    let heard = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            client.call_tool(tool, json!({})).await.unwrap();
            let update = tokio::time::timeout(
                Duration::from_millis(200),
                next_notification(&mut notifications, "notifications/resources/updated"),
            )
            .await;
            if let Ok(update) = update {
                return update;
            }
        }
    })
    .await
    .expect("no update reached the front client");
    assert_eq!(heard.params.unwrap()["uri"], uri);
}

/// Subscriptions pass through mounts in both eras, each side.
#[tokio::test]
async fn a_subscription_reaches_the_mounted_server_and_its_updates_come_back() {
    let front = front();
    let mounts = desk_in_both_eras(&front).await;
    for era in [oxmcp_client::Era::Modern, oxmcp_client::Era::Legacy] {
        let client = client_in(&front, era).await;
        updates_come_back(&client, "desk_touch", "desk+desk://motd").await;
        updates_come_back(&client, "old_touch", "old+desk://motd").await;
    }
    mounts.close().await;
}

#[tokio::test]
async fn list_changes_upstream_reach_the_front_server() {
    let desk = desk_server(Desk::default());
    let upstream = desk.handle();
    let front = front();
    let mounts = mount(&front.handle(), [Mount::server("desk", desk)])
        .await
        .unwrap();
    let client = client_of(&front).await;
    let mut notifications = client.notifications();
    assert!(names(&client.list_tools().await.unwrap()).contains(&"desk_add"));

    let plugin = ToolEntry::dynamic(
        "shout",
        "Upper-case a text",
        json!({"type": "object", "properties": {"text": {"type": "string", "description": "Text"}}}),
        |args, _| async move { args["text"].as_str().unwrap_or_default().to_uppercase() },
    )
    .unwrap();
    upstream.add_tool(plugin).unwrap();
    upstream.remove_tool("add");
    // The front server's client hears of it...
    next_notification(&mut notifications, "notifications/tools/list_changed").await;
    // ...and lists the new offer.
    eventually("the new tool offered", || {
        let client = &client;
        async move {
            let tools = client.list_tools().await.unwrap();
            names(&tools).contains(&"desk_shout") && !names(&tools).contains(&"desk_add")
        }
    })
    .await;
    let shouted = client
        .call_tool("desk_shout", json!({"text": "hey"}))
        .await
        .unwrap();
    assert_eq!(shouted.content[0].as_text(), Some("HEY"));
    mounts.close().await;
}

#[tokio::test]
async fn allow_and_block_lists_choose_what_is_offered() {
    let front = front();
    let mounts = mount(
        &front.handle(),
        [Mount::server("desk", desk_server(Desk::default()))
            .allow_tools(["a*", "c*", "wait"])
            .block_tools(["count"])
            .block_prompts(["*"])
            .allow_resources(["desk://notes/*"])],
    )
    .await
    .unwrap();
    let client = client_of(&front).await;
    assert_eq!(
        names(&client.list_tools().await.unwrap()),
        [
            "desk_add",
            "desk_chatty",
            "desk_confirm",
            "desk_wait",
            "echo"
        ]
    );
    assert!(client.list_prompts().await.unwrap().is_empty());
    assert!(client.list_resources().await.unwrap().is_empty());
    assert_eq!(client.list_resource_templates().await.unwrap().len(), 1);
    // What is not offered cannot be called either.
    let hidden = client
        .call_tool_raw("desk_count", json!({"steps": 1}))
        .await;
    assert!(hidden.is_err() || hidden.unwrap().is_error == Some(true));
    mounts.close().await;
}

#[tokio::test]
async fn a_proxy_keeps_the_names() {
    let front = Server::builder("proxy", "1.0")
        .offer_prompts_and_resources()
        .build();
    let mounts = mount(
        &front.handle(),
        [Mount::server("desk", desk_server(Desk::default())).without_prefix()],
    )
    .await
    .unwrap();
    let client = client_of(&front).await;
    assert_eq!(
        names(&client.list_tools().await.unwrap()),
        ["add", "chatty", "confirm", "count", "fail", "roots", "touch", "wait"]
    );
    let motd = client.read_resource("desk://motd").await.unwrap();
    assert_eq!(motd.contents[0].uri(), "desk://motd");
    mounts.close().await;
}

#[tokio::test]
async fn configurations_that_cannot_work_are_refused_before_anything_starts() {
    let front = front();
    let refused = |r: Result<oxmcp_compose::Mounted, MountError>| match r {
        Err(e) => e.to_string(),
        Ok(m) => panic!("mounted: {m:?}"),
    };
    let e = refused(
        mount(
            &front.handle(),
            [Mount::server("my_desk", desk_server(Desk::default()))],
        )
        .await,
    );
    assert!(
        e.contains("mount `my_desk`") && e.contains("invalid tool names or URIs"),
        "{e}"
    );
    let e = refused(
        mount(
            &front.handle(),
            [Mount::stdio("calc", "/no/such/program", ["x"])],
        )
        .await,
    );
    assert!(e.contains("`/no/such/program` does not exist"), "{e}");
    let e = refused(
        mount(
            &front.handle(),
            [Mount::stdio(
                "calc",
                "no-such-program-anywhere",
                Vec::<String>::new(),
            )],
        )
        .await,
    );
    assert!(e.contains("not found on PATH"), "{e}");
    let e = refused(
        mount(
            &front.handle(),
            [
                Mount::server("desk", desk_server(Desk::default())),
                Mount::server("desk", desk_server(Desk::default())),
            ],
        )
        .await,
    );
    assert!(e.contains("two mounts have this name"), "{e}");
    let e = refused(
        mount(
            &front.handle(),
            [Mount::server("desk", desk_server(Desk::default())).allow_tools(["a[b"])],
        )
        .await,
    );
    assert!(e.contains("the tool pattern \"a[b\" is invalid"), "{e}");
    // Nothing was offered by any of them.
    assert_eq!(front.handle().tool_names(), ["echo"]);
}

/// A mounted server's log messages reach the front client of the call, at
/// the level that client chose, naming the mount as their logger.
#[tokio::test]
async fn log_messages_reach_the_front_client_at_its_level() {
    use oxmcp_server::types::LoggingLevel;
    let front = front();
    let mounts = desk_in_both_eras(&front).await;
    let (client_end, server_end) = tokio::io::duplex(256 * 1024);
    let (read, write) = tokio::io::split(server_end);
    tokio::spawn(front.clone().serve_io(read, write));
    let (read, write) = tokio::io::split(client_end);
    #[allow(deprecated)] // logging, tested on purpose
    let client = Client::builder()
        .protocol(oxmcp_client::Era::Legacy)
        .log_level(LoggingLevel::Info)
        .connect_io(read, write)
        .await
        .unwrap();
    let mut notifications = client.notifications();
    for tool in ["desk_chatty", "old_chatty"] {
        client.call_tool(tool, json!({})).await.unwrap();
        let message = next_notification(&mut notifications, "notifications/message").await;
        let params = message.params.unwrap();
        let mount = tool.split('_').next().unwrap();
        assert_eq!(params["data"], "working on it", "{params}");
        assert_eq!(params["level"], "info");
        assert!(
            params["logger"].as_str().unwrap().starts_with(mount),
            "{params}"
        );
    }
    // Nothing below the client's level came through.
    while let Some(n) = notifications.try_recv() {
        assert_ne!(n.params.unwrap_or_default()["data"], "the details");
    }
    mounts.close().await;
}

/// A server that answers, but not as an MCP server, is refused at start,
/// and nothing stays started: an HTTP endpoint that serves a web page, a
/// program that prints and exits.
#[cfg(feature = "http")]
#[tokio::test]
async fn what_answers_but_not_as_mcp_is_refused_and_nothing_stays_started() {
    let page = axum::Router::new().route(
        "/mcp",
        axum::routing::any(|| async { axum::response::Html("<html><body>A shop</body></html>") }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, page).await });
    let front = front();
    let refused = mount(
        &front.handle(),
        [
            Mount::server("desk", desk_server(Desk::default())),
            Mount::http("shop", &url),
        ],
    )
    .await
    .unwrap_err()
    .to_string();
    assert!(
        refused.starts_with("mount `shop`: it does not answer as an MCP server:"),
        "{refused}"
    );
    // The mount that did connect offers nothing: its items were taken back.
    assert_eq!(front.handle().tool_names(), ["echo"]);

    let refused = mount(&front.handle(), [Mount::stdio("echo", "echo", ["hello"])])
        .await
        .unwrap_err()
        .to_string();
    assert!(
        refused.starts_with("mount `echo`: it does not answer as an MCP server:"),
        "{refused}"
    );
}

#[tokio::test]
async fn a_name_the_front_server_has_is_not_taken_by_a_mount() {
    let clash = ToolEntry::dynamic(
        "desk_add",
        "Mine",
        json!({"type": "object"}),
        |_, _| async { "mine" },
    )
    .unwrap();
    let front = Server::builder("front", "1.0").tool(clash).build();
    let mounts = mount(
        &front.handle(),
        [Mount::server("desk", desk_server(Desk::default()))],
    )
    .await
    .unwrap();
    // The front server keeps its own tool; the mount offers nothing (and says why).
    assert_eq!(front.handle().tool_names(), ["desk_add"]);
    let client = client_of(&front).await;
    let mine = client.call_tool("desk_add", json!({})).await.unwrap();
    assert_eq!(mine.content[0].as_text(), Some("mine"));
    mounts.close().await;
}

/// A mounted child process that dies: its calls say so, the other mounts
/// go on, and it is started again.
#[tokio::test]
async fn a_mounted_process_that_dies_is_reported_and_comes_back() {
    let dir = std::env::temp_dir().join(format!("mcp-compose-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pids = dir.join("pids");
    let calculator = mcp_test_support::server::calculator_bin();
    // The shell records the process's id, then becomes the calculator.
    let script = format!(
        "echo $$ >> '{}'; exec '{}'",
        pids.display(),
        calculator.display()
    );
    let front = front();
    let mounts = mount(
        &front.handle(),
        [
            Mount::stdio("calc", "sh", ["-c", &script]),
            Mount::server("desk", desk_server(Desk::default())),
        ],
    )
    .await
    .unwrap();
    let client = client_of(&front).await;
    let sum = client
        .call_tool("calc_add", json!({"a": 1, "b": 2}))
        .await
        .unwrap();
    assert_eq!(sum.content[0].as_text(), Some("3"));

    let first = std::fs::read_to_string(&pids).unwrap().trim().to_owned();
    assert!(std::process::Command::new("kill")
        .args(["-9", &first])
        .status()
        .unwrap()
        .success());

    // `calc_add` of 1 and 2: whether it failed, and its text.
    let add = || async {
        let r = client
            .call_tool_raw("calc_add", json!({"a": 1, "b": 2}))
            .await
            .unwrap();
        let text = r.content[0].as_text().unwrap_or_default().to_owned();
        (r.is_error == Some(true), text)
    };
    // Its calls report it, naming the mount, and its tools stay listed.
    eventually("a call reporting the dead mount", || async {
        let (failed, text) = add().await;
        failed && text.contains("the mounted server `calc`")
    })
    .await;
    assert!(names(&client.list_tools().await.unwrap()).contains(&"calc_add"));
    // The other mount never noticed.
    let other = client
        .call_tool("desk_add", json!({"a": 2, "b": 2}))
        .await
        .unwrap();
    assert_eq!(other.content[0].as_text(), Some("4"));

    // A later call, after the back-off, starts it again.
    eventually("the mount back", || async {
        add().await == (false, "3".to_owned())
    })
    .await;
    let started = std::fs::read_to_string(&pids).unwrap();
    assert_eq!(started.lines().count(), 2, "started again once: {started}");
    mounts.close().await;
    std::fs::remove_dir_all(&dir).ok();
}

/// A free port on 127.0.0.1 (nothing listens on it when this returns).
#[cfg(feature = "http")]
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A mounted HTTP server that is down when the front server starts: the
/// front server starts without it, and offers its items once it is up.
#[cfg(feature = "http")]
#[tokio::test]
async fn a_mount_down_at_start_is_offered_once_it_comes_up() {
    let port = free_port();
    let front = front();
    let started = std::time::Instant::now();
    let mounts = mount(
        &front.handle(),
        [Mount::http("late", format!("http://127.0.0.1:{port}/mcp"))],
    )
    .await
    .unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "mounting waited for the dead mount"
    );
    assert!(!mounts.is_up("late").await);
    assert_eq!(front.handle().tool_names(), ["echo"]);

    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
        .await
        .unwrap();
    let late = desk_server(Desk::default());
    tokio::spawn(late.serve_http_on(
        listener,
        oxmcp_server::http::HttpConfig::default(),
        std::future::pending(),
    ));
    eventually("the late mount's tools offered", || {
        let handle = front.handle();
        async move { handle.tool_names().contains(&"late_add".to_owned()) }
    })
    .await;
    assert!(mounts.is_up("late").await);
    let client = client_of(&front).await;
    let sum = client
        .call_tool("late_add", json!({"a": 20, "b": 22}))
        .await
        .unwrap();
    assert_eq!(sum.content[0].as_text(), Some("42"));
    mounts.close().await;
}

/// A front server protected by OAuth, mounting an HTTP server that records
/// every request's headers: the front server's client's token never reaches
/// it; the mount's own credentials do.
#[cfg(feature = "http")]
#[tokio::test]
async fn the_front_servers_token_never_reaches_a_mounted_server() {
    use mcp_test_support::server::issuer::Issuer;
    use oxmcp_server::auth::{Authorization, JwtVerifier};

    // The mounted server, recording the headers it receives.
    let seen: Arc<Mutex<Vec<http::HeaderMap>>> = Arc::default();
    let record = Arc::clone(&seen);
    let upstream =
        desk_server(Desk::default()).http_service(oxmcp_server::http::HttpConfig::default());
    let app = axum::Router::new()
        .route_service("/mcp", upstream)
        .layer(axum::middleware::from_fn(
            move |request: axum::extract::Request, next: axum::middleware::Next| {
                record.lock().unwrap().push(request.headers().clone());
                next.run(request)
            },
        ));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let upstream_url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });

    // The front server, a protected resource.
    let issuer = Issuer::start().await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let resource = format!("http://{}/mcp", listener.local_addr().unwrap());
    let auth = Authorization::new(&resource, JwtVerifier::new(issuer.url.clone(), &resource))
        .unwrap()
        .authorization_server(issuer.url.clone());
    let front = front();
    let mounts = mount(
        &front.handle(),
        [Mount::http("desk", &upstream_url).header("X-Api-Key", "the-mounts-own-key")],
    )
    .await
    .unwrap();
    tokio::spawn(front.clone().serve_http_on(
        listener,
        oxmcp_server::http::HttpConfig::default().authorization(auth),
        std::future::pending(),
    ));
    let token = issuer.sign(&issuer.claims(&resource, "mcp"), "k1");
    let client = Client::builder()
        .http_header("Authorization", format!("Bearer {token}"))
        .connect_http(&resource)
        .await
        .unwrap();
    let sum = client
        .call_tool("desk_add", json!({"a": 1, "b": 1}))
        .await
        .unwrap();
    assert_eq!(sum.content[0].as_text(), Some("2"));
    // A client without the token is refused by the front server itself.
    let refused = Client::builder().connect_http(&resource).await;
    assert!(refused.is_err());

    let seen = std::mem::take(&mut *seen.lock().unwrap());
    assert!(
        seen.len() >= 2,
        "the mount's requests reached it: {}",
        seen.len()
    );
    for headers in &seen {
        assert_eq!(headers["x-api-key"], "the-mounts-own-key");
        assert!(
            headers.get(http::header::AUTHORIZATION).is_none(),
            "{headers:?}"
        );
        for value in headers.values() {
            assert!(
                !value.to_str().unwrap_or_default().contains(&token),
                "the token leaked: {headers:?}"
            );
        }
    }
    mounts.close().await;
}

/// The front server's tool-call middleware runs for mounted tools as for
/// its own: here it refuses one of them.
#[tokio::test]
async fn the_front_servers_middleware_applies_to_mounted_tools() {
    use oxmcp_server::policy::from_fn;
    let calls = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&calls);
    let front = Server::builder("front", "1.0")
        .layer(from_fn(
            move |call: oxmcp_server::tool::ToolRequest, next| {
                counted.fetch_add(1, Ordering::SeqCst);
                async move {
                    if call.name == "desk_fail" {
                        return Ok(oxmcp_server::types::CallToolResult::error(
                            "refused by the front server",
                        ));
                    }
                    next.run(call).await
                }
            },
        ))
        .build();
    let mounts = mount(
        &front.handle(),
        [Mount::server("desk", desk_server(Desk::default()))],
    )
    .await
    .unwrap();
    let client = client_of(&front).await;
    let sum = client
        .call_tool("desk_add", json!({"a": 1, "b": 2}))
        .await
        .unwrap();
    assert_eq!(sum.content[0].as_text(), Some("3"));
    let refused = client.call_tool_raw("desk_fail", json!({})).await.unwrap();
    assert_eq!(
        refused.content[0].as_text(),
        Some("refused by the front server")
    );
    assert_eq!(calls.load(Ordering::SeqCst), 2);
    mounts.close().await;
}

/// A server that speaks only HTTP+SSE (2024-11-05), mounted with `Mount::sse`.
#[cfg(feature = "http")]
#[tokio::test]
async fn an_http_sse_server_is_mounted() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let sse_url = format!("http://{}/sse", listener.local_addr().unwrap());
    tokio::spawn(desk_server(Desk::default()).serve_http_on(
        listener,
        oxmcp_server::http::HttpConfig::default(),
        std::future::pending(),
    ));
    let front = front();
    #[allow(deprecated)] // HTTP+SSE, tested on purpose
    let mounts = mount(&front.handle(), [Mount::sse("old", &sse_url)])
        .await
        .unwrap();
    assert!(mounts.is_up("old").await);
    let client = client_of(&front).await;
    let sum = client
        .call_tool("old_add", json!({"a": 4, "b": 4}))
        .await
        .unwrap();
    assert_eq!(sum.content[0].as_text(), Some("8"));
    mounts.close().await;
}

/// A mounted server that hangs: the call ends with an `isError` result
/// naming the mount, after the mount's timeout.
#[tokio::test]
async fn a_mounted_server_that_hangs_is_reported() {
    let front = front();
    let mounts = mount(
        &front.handle(),
        [Mount::server("desk", desk_server(Desk::default()))
            .client(|b| b.timeout(Duration::from_millis(300)))],
    )
    .await
    .unwrap();
    let client = client_of(&front).await;
    let hung = client.call_tool_raw("desk_wait", json!({})).await.unwrap();
    assert_eq!(hung.is_error, Some(true));
    let text = hung.content[0].as_text().unwrap();
    assert!(
        text.contains("the mounted server `desk` did not answer within 0.3 s"),
        "{text}"
    );
    mounts.close().await;
}

/// A legacy-era mounted server asks its client on its own (a server→client
/// request naming no call): elicitation and roots reach the front client of
/// the call.
#[tokio::test]
async fn a_legacy_mounted_server_asks_the_front_client() {
    let front = front();
    let mounts = mount(
        &front.handle(),
        [Mount::server("desk", desk_server(Desk::default()))
            .client(|b| b.protocol(oxmcp_client::Era::Legacy))],
    )
    .await
    .unwrap();
    for era in [oxmcp_client::Era::Legacy, oxmcp_client::Era::Modern] {
        let client = client_in(&front, era).await;
        let confirmed = client.call_tool("desk_confirm", json!({})).await.unwrap();
        assert_eq!(
            confirmed.content[0].as_text(),
            Some("answered yes"),
            "{era:?}"
        );
    }
    mounts.close().await;
}
