//! The toolboxes of the dispatch tests, written with `#[tool]`:
//! [`TestTools`] for dispatch tests, [`TaskJobs`] that run as tasks, and
//! [`Probed`], whose tools record what
//! happened to their calls (the reliability tests: `hostile`, `props`,
//! `load`, `faults`).
#![allow(
    clippy::unused_async,
    reason = "tools that never wait are `async` all the same, so that every call is a future (ready when first polled), as it was when these tools were built by hand; a `fn` tool is called in place, without one"
)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use oxmcp_server::types::JsonObject;
use oxmcp_server::{tool, Context, Server, ToolBox, ToolEntry};
use serde_json::{json, Value};

use super::{sum_text, with_shared_tools};

/// Tools for dispatch tests: arithmetic, waiting, cancellation, progress
/// and logs, a panic, a stream closed mid-call (its own [`Dispatch`] tools
/// and the shared ones).
pub struct TestTools;

impl ToolBox for TestTools {
    const NAME: &'static str = "TestTools";
    const DESCRIPTION: &'static str = "tools for dispatch tests";

    fn into_tools(self) -> Vec<ToolEntry> {
        with_shared_tools(Dispatch {
            barrier: tokio::sync::Barrier::new(2),
        })
    }
}

/// The tools of [`TestTools`] that only oxmcp-server's tests use.
pub struct Dispatch {
    barrier: tokio::sync::Barrier,
}

#[tool(description = "tools for dispatch tests", client = false)]
impl Dispatch {
    #[describe("Wait for a second caller")]
    pub async fn meet(&self) -> &'static str {
        self.barrier.wait().await;
        "met"
    }

    #[describe("Wait until cancelled")]
    pub async fn wait(&self, ctx: Context) -> &'static str {
        ctx.cancelled().await;
        "cancelled"
    }

    #[describe("Panics")]
    pub async fn boom(&self) -> String {
        panic!("kaboom")
    }

    #[describe("Reports progress and logs")]
    pub async fn chatty(&self, ctx: Context) -> &'static str {
        for i in 0..3 {
            ctx.progress(f64::from(i) * 50.0, Some(100.0));
            #[allow(deprecated)] // logging, tested on purpose
            ctx.debug(format!("debug {i}"));
            #[allow(deprecated)] // logging, tested on purpose
            ctx.info(format!("info {i}"));
        }
        "done"
    }
}

/// A server with the [`TestTools`], small limits (4 KiB messages, pages of 2).
pub fn server() -> Server {
    Server::builder("test-server", "0.0.1")
        .toolbox(TestTools)
        .max_message_size(4096)
        .page_size(2)
        .build()
}

// ------------------------------------------------------------------ Asking

/// One tool that asks the client a question (an elicitation): an input
/// round in 2026-07-28, a request on the stream in a legacy session.
#[derive(Debug)]
pub struct Asking;

#[tool(description = "A tool that asks the client", client = false)]
impl Asking {
    #[describe("Asks the user's name")]
    pub async fn ask_name(&self, ctx: Context) -> Result<String, oxmcp_server::ToolError> {
        match ctx.elicit::<Name>("Your name?").await? {
            oxmcp_server::ask::Elicited::Accepted(n) => Ok(format!("hello {}", n.name)),
            _ => Ok("no name".into()),
        }
    }
}

// ------------------------------------------------------------------ TaskJobs

/// What [`TaskJobs::ask_later`] and [`Asking::ask_name`] ask.
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Name {
    /// Your name
    pub name: String,
}

/// Tools that become tasks (the tasks extension) when the client may have
/// them: one asks a question once it is a task, one holds until cancelled.
#[derive(Debug)]
pub struct TaskJobs;

#[tool(description = "Jobs that run as tasks", client = false)]
impl TaskJobs {
    #[describe("Works a moment as a task, then asks a name")]
    #[tool(task = optional)]
    pub async fn ask_later(&self, ctx: Context) -> Result<String, oxmcp_server::ToolError> {
        tokio::time::sleep(Duration::from_millis(100)).await;
        match ctx.ask("name").elicit::<Name>("Your name?").await? {
            oxmcp_server::ask::Elicited::Accepted(n) => Ok(format!("later, {}", n.name)),
            _ => Ok("no name".into()),
        }
    }

    #[describe("Holds until cancelled; may run as a task")]
    #[tool(task = optional)]
    pub async fn hold(&self, ctx: Context) -> &'static str {
        ctx.cancelled().await;
        "cancelled"
    }
}

// ------------------------------------------------------------------ Probed

/// What happened to the calls of a [`Probed`] toolbox. Every call that
/// started ends in exactly one of `finished`, `cancelled`, `dropped`.
#[derive(Debug, Default)]
pub struct Probe {
    /// Calls that began to run (their future polled once: the server
    /// polls a call as soon as it makes it).
    pub started: AtomicUsize,
    /// Calls that ran to their natural end.
    pub finished: AtomicUsize,
    /// Calls that ended because they were cancelled: their future dropped
    /// with the context cancelled, or the tool returning on seeing it.
    pub cancelled: AtomicUsize,
    /// Calls whose future was dropped before its end without a cancellation
    /// (a timeout, a shutdown, an aborted task).
    pub dropped: AtomicUsize,
}

impl Probe {
    pub fn started(&self) -> usize {
        self.started.load(Ordering::SeqCst)
    }
    pub fn finished(&self) -> usize {
        self.finished.load(Ordering::SeqCst)
    }
    pub fn cancelled(&self) -> usize {
        self.cancelled.load(Ordering::SeqCst)
    }
    pub fn dropped(&self) -> usize {
        self.dropped.load(Ordering::SeqCst)
    }
    /// Calls started and not ended yet.
    pub fn running(&self) -> usize {
        self.started() - self.finished() - self.cancelled() - self.dropped()
    }
}

/// Records how one call ends.
struct CallGuard {
    probe: Arc<Probe>,
    ctx: Context,
    ended: bool,
}

impl CallGuard {
    fn new(probe: &Arc<Probe>, ctx: &Context) -> Self {
        probe.started.fetch_add(1, Ordering::SeqCst);
        CallGuard {
            probe: Arc::clone(probe),
            ctx: ctx.clone(),
            ended: false,
        }
    }

    /// The call returns: finished, or cancelled if it saw a cancellation.
    fn end(mut self) {
        self.ended = true;
        let counter = if self.ctx.is_cancelled() {
            &self.probe.cancelled
        } else {
            &self.probe.finished
        };
        counter.fetch_add(1, Ordering::SeqCst);
    }
}

impl Drop for CallGuard {
    fn drop(&mut self) {
        if !self.ended {
            let counter = if self.ctx.is_cancelled() {
                &self.probe.cancelled
            } else {
                &self.probe.dropped
            };
            counter.fetch_add(1, Ordering::SeqCst);
        }
    }
}

/// Tools for the reliability tests: the [`ProbedTools`] and `echo`. `add`
/// and `count_to` behave as the calculator example's, so one hostile-input
/// table runs against both.
pub struct Probed {
    pub probe: Arc<Probe>,
}

impl ToolBox for Probed {
    const NAME: &'static str = "Probed";
    const DESCRIPTION: &'static str = "tools that record what happens to their calls";

    fn into_tools(self) -> Vec<ToolEntry> {
        let mut tools = ProbedTools { probe: self.probe }.into_tools();
        tools.push(echo_tool());
        tools
    }
}

/// The tools of [`Probed`] that declare their parameters: worded errors
/// and unknown arguments refused, as the calculator's.
pub struct ProbedTools {
    probe: Arc<Probe>,
}

#[tool(
    description = "tools that record what happens to their calls",
    client = false
)]
impl ProbedTools {
    // Its future is ready when first polled.
    #[describe("Add two numbers (answers at once)")]
    pub async fn add(&self, #[param("first")] a: f64, #[param("second")] b: f64) -> String {
        sum_text(a, b)
    }

    #[describe("Add two numbers after yielding (a spawned call)")]
    pub async fn add_later(&self, #[param("first")] a: f64, #[param("second")] b: f64) -> String {
        tokio::task::yield_now().await;
        sum_text(a, b)
    }

    #[describe("Count to n, reporting progress")]
    pub async fn count_to(&self, #[param("how far")] n: u32, ctx: Context) -> String {
        for i in 1..=n {
            tokio::task::yield_now().await;
            ctx.progress_with_message(f64::from(i), Some(f64::from(n)), format!("{i}/{n}"));
        }
        format!("counted to {n}")
    }

    #[describe("Run until cancelled (records what happened)")]
    pub async fn hold(&self, ctx: Context) -> &'static str {
        let guard = CallGuard::new(&self.probe, &ctx);
        ctx.cancelled().await;
        guard.end();
        "saw the cancellation"
    }

    #[describe("Sleep for `ms` milliseconds, then answer")]
    pub async fn sleep(&self, #[param("how long")] ms: u64, ctx: Context) -> String {
        let guard = CallGuard::new(&self.probe, &ctx);
        tokio::time::sleep(Duration::from_millis(ms)).await;
        guard.end();
        format!("slept {ms}")
    }

    #[describe("Send `n` progress notifications of `size` bytes each")]
    pub async fn flood(
        &self,
        #[param("how many")] n: u32,
        #[param("bytes of message each")] size: usize,
        ctx: Context,
    ) -> String {
        let guard = CallGuard::new(&self.probe, &ctx);
        let message = "x".repeat(size);
        for i in 1..=n {
            if i % 64 == 0 {
                tokio::task::yield_now().await;
            }
            ctx.progress_with_message(f64::from(i), None, message.clone());
        }
        guard.end();
        format!("flooded {n}")
    }

    #[describe("Panics")]
    pub async fn panic(&self, ctx: Context) -> String {
        let _guard = CallGuard::new(&self.probe, &ctx);
        panic!("a tool panicked on purpose")
    }
}

/// `echo`: the arguments, whatever they are, as JSON text.
fn echo_tool() -> ToolEntry {
    ToolEntry::dynamic(
        "echo",
        "Return the arguments as JSON text",
        json!({"type": "object", "properties": {}}),
        |args: JsonObject, _ctx| async move { Value::Object(args).to_string() },
    )
    .expect("a valid dynamic tool")
}

/// A server with the [`Probed`] tools and default limits, and its probe.
pub fn probed_server() -> (Server, Arc<Probe>) {
    let probe = Arc::new(Probe::default());
    let server = Server::builder("reliability", "0.0.1")
        .toolbox(Probed {
            probe: Arc::clone(&probe),
        })
        .shutdown_grace(Duration::from_millis(200))
        .build();
    (server, probe)
}

/// A dynamic tool named `name` that answers `name:a+b`.
pub fn extra_tool(name: &str) -> ToolEntry {
    let tag = name.to_owned();
    ToolEntry::dynamic(
        name,
        "A tool added at run time",
        json!({
            "type": "object",
            "properties": {
                "a": {"type": "number", "description": "first"},
                "b": {"type": "number", "description": "second"}
            },
            "required": ["a", "b"]
        }),
        move |args: JsonObject, _ctx| {
            let tag = tag.clone();
            async move {
                let a = args.get("a").and_then(Value::as_f64).unwrap_or(f64::NAN);
                let b = args.get("b").and_then(Value::as_f64).unwrap_or(f64::NAN);
                format!("{tag}:{}", sum_text(a, b))
            }
        },
    )
    .expect("a valid dynamic tool")
}
