//! Hand-written toolboxes (no macros): [`TestTools`] for dispatch tests,
//! and [`Probed`], whose tools record what happened to their calls (the
//! reliability tests: `hostile`, `props`, `load`, `faults`).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use mcp_server::types::{CallToolResult, JsonObject};
use mcp_server::{
    __private::Args, __private::InputSchemaBuilder, Context, Server, ToolBox, ToolEntry,
};
use serde_json::{json, Value};

use super::{add_tool, number_schema, reconnect_tool, slow_tool, spec};

/// Tools for dispatch tests: arithmetic, waiting, cancellation, progress
/// and logs, a panic, a stream closed mid-call.
pub struct TestTools;

impl ToolBox for TestTools {
    const NAME: &'static str = "TestTools";
    const DESCRIPTION: &'static str = "tools for dispatch tests";

    fn into_tools(self) -> Vec<ToolEntry> {
        let barrier = Arc::new(tokio::sync::Barrier::new(2));
        vec![
            ToolEntry::new(
                &spec("meet", "Wait for a second caller"),
                number_schema(&[]),
                None,
                move |_args, _ctx| {
                    let barrier = Arc::clone(&barrier);
                    Box::pin(async move {
                        barrier.wait().await;
                        CallToolResult::text("met")
                    })
                },
            ),
            add_tool(),
            ToolEntry::new(
                &spec("wait", "Wait until cancelled"),
                number_schema(&[]),
                None,
                |_args, ctx: Context| {
                    Box::pin(async move {
                        ctx.cancelled().await;
                        CallToolResult::text("cancelled")
                    })
                },
            ),
            reconnect_tool(),
            slow_tool(),
            ToolEntry::new(
                &spec("boom", "Panics"),
                number_schema(&[]),
                None,
                |_args, _ctx| Box::pin(async move { panic!("kaboom") }),
            ),
            ToolEntry::new(
                &spec("chatty", "Reports progress and logs"),
                number_schema(&[]),
                None,
                |_args, ctx: Context| {
                    Box::pin(async move {
                        for i in 0..3 {
                            ctx.progress(f64::from(i) * 50.0, Some(100.0));
                            ctx.debug(format!("debug {i}"));
                            ctx.info(format!("info {i}"));
                        }
                        CallToolResult::text("done")
                    })
                },
            ),
        ]
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

// ------------------------------------------------------------------ Probed

/// What happened to the calls of a [`Probed`] toolbox. Every call that
/// started ends in exactly one of `finished`, `cancelled`, `dropped`.
#[derive(Debug, Default)]
pub struct Probe {
    /// Calls whose handler was invoked (their future made).
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

/// Tools for the reliability tests. `add` and `count_to` behave as the
/// calculator example's, so one hostile-input table runs against both.
pub struct Probed {
    pub probe: Arc<Probe>,
}

/// `a` and `b`: their schema, and the rules generated code decodes them by
/// (worded errors, unknown arguments refused), as the calculator's `add`.
fn a_and_b() -> (JsonObject, mcp_server::__private::Params) {
    let mut b = InputSchemaBuilder::new();
    b.param::<f64>("a", "first");
    b.param::<f64>("b", "second");
    b.finish()
}

/// Takes `a` and `b` as generated code does.
fn take_a_and_b(args: &mut Args<'_>, params: &mcp_server::__private::Params) -> Option<(f64, f64)> {
    let a = args.param::<f64>(params, 0);
    let b = args.param::<f64>(params, 1);
    args.refuse_unknown(params);
    match (a, b, args.is_ok()) {
        (Some(a), Some(b), true) => Some((a, b)),
        _ => None,
    }
}

/// `a + b` as the calculator writes it (`5`, not `5.0`).
pub fn sum_text(a: f64, b: f64) -> String {
    (a + b).to_string()
}

impl ToolBox for Probed {
    const NAME: &'static str = "Probed";
    const DESCRIPTION: &'static str = "tools that record what happens to their calls";

    fn into_tools(self) -> Vec<ToolEntry> {
        let p1 = Arc::clone(&self.probe);
        let p2 = Arc::clone(&self.probe);
        let p3 = Arc::clone(&self.probe);
        let p4 = Arc::clone(&self.probe);
        let (add_input, add_params) = a_and_b();
        let (later_input, later_params) = a_and_b();
        vec![
            ToolEntry::new(
                &spec("add", "Add two numbers (answers at once)"),
                add_input,
                None,
                move |mut args: Args<'_>, _ctx| {
                    let ab = take_a_and_b(&mut args, &add_params);
                    Box::pin(async move {
                        match ab {
                            Some((a, b)) => CallToolResult::text(sum_text(a, b)),
                            None => args.error_result(),
                        }
                    })
                },
            ),
            ToolEntry::new(
                &spec(
                    "add_later",
                    "Add two numbers after yielding (a spawned call)",
                ),
                later_input,
                None,
                move |mut args: Args<'_>, _ctx| {
                    let ab = take_a_and_b(&mut args, &later_params);
                    Box::pin(async move {
                        tokio::task::yield_now().await;
                        match ab {
                            Some((a, b)) => CallToolResult::text(sum_text(a, b)),
                            None => args.error_result(),
                        }
                    })
                },
            ),
            ToolEntry::new(
                &spec("echo", "Return the arguments as JSON text"),
                number_schema(&[]),
                None,
                |args: Args<'_>, _ctx| {
                    let result = match args.into_object() {
                        Ok(args) => CallToolResult::text(Value::Object(args).to_string()),
                        Err(e) => e.into_result(),
                    };
                    Box::pin(async move { result })
                },
            ),
            ToolEntry::new(
                &spec("count_to", "Count to n, reporting progress"),
                number_schema(&[("n", "how far")]),
                None,
                |mut args: Args<'_>, ctx: Context| {
                    let n = args.take::<u32>("n");
                    Box::pin(async move {
                        let Some(n) = n else {
                            return args.error_result();
                        };
                        for i in 1..=n {
                            tokio::task::yield_now().await;
                            ctx.progress_with_message(
                                f64::from(i),
                                Some(f64::from(n)),
                                format!("{i}/{n}"),
                            );
                        }
                        CallToolResult::text(format!("counted to {n}"))
                    })
                },
            ),
            ToolEntry::new(
                &spec("hold", "Run until cancelled (records what happened)"),
                number_schema(&[]),
                None,
                move |_args, ctx: Context| {
                    let guard = CallGuard::new(&p1, &ctx);
                    Box::pin(async move {
                        ctx.cancelled().await;
                        guard.end();
                        CallToolResult::text("saw the cancellation")
                    })
                },
            ),
            ToolEntry::new(
                &spec("sleep", "Sleep for `ms` milliseconds, then answer"),
                number_schema(&[("ms", "how long")]),
                None,
                move |mut args: Args<'_>, ctx: Context| {
                    let ms = args.take::<u64>("ms").unwrap_or(0);
                    let guard = CallGuard::new(&p2, &ctx);
                    Box::pin(async move {
                        tokio::time::sleep(Duration::from_millis(ms)).await;
                        guard.end();
                        CallToolResult::text(format!("slept {ms}"))
                    })
                },
            ),
            ToolEntry::new(
                &spec(
                    "flood",
                    "Send `n` progress notifications of `size` bytes each",
                ),
                number_schema(&[("n", "how many"), ("size", "bytes of message each")]),
                None,
                move |mut args: Args<'_>, ctx: Context| {
                    let n = args.take::<u32>("n").unwrap_or(0);
                    let size = args.take::<usize>("size").unwrap_or(0);
                    let guard = CallGuard::new(&p3, &ctx);
                    Box::pin(async move {
                        let message = "x".repeat(size);
                        for i in 1..=n {
                            if i % 64 == 0 {
                                tokio::task::yield_now().await;
                            }
                            ctx.progress_with_message(f64::from(i), None, message.clone());
                        }
                        guard.end();
                        CallToolResult::text(format!("flooded {n}"))
                    })
                },
            ),
            ToolEntry::new(
                &spec("panic", "Panics"),
                number_schema(&[]),
                None,
                move |_args, ctx: Context| {
                    let _guard = CallGuard::new(&p4, &ctx);
                    Box::pin(async move { panic!("a tool panicked on purpose") })
                },
            ),
        ]
    }
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
