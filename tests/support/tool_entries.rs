//! Tools written by hand (no macros) that the test toolboxes of several
//! crates serve (mcp-server's and mcp-client's), and the pieces to write
//! more: [`spec`], [`number_schema`]. Included with `#[path]` by those
//! crates' test helpers.
#![allow(dead_code, unreachable_pub)] // each includer uses part of it

use std::time::Duration;

use mcp_server::types::{CallToolResult, JsonObject};
use mcp_server::{
    __private::Args, __private::InputSchemaBuilder, __private::ToolSpec, Context, ToolEntry,
};

/// A tool's name and description, the rest default.
pub fn spec(name: &'static str, description: &'static str) -> ToolSpec {
    ToolSpec {
        name,
        description,
        ..ToolSpec::default()
    }
}

/// The input schema of number parameters, `(name, description)` each.
pub fn number_schema(params: &[(&str, &str)]) -> JsonObject {
    let mut b = InputSchemaBuilder::new();
    for (name, desc) in params {
        b.param::<f64>(name, desc);
    }
    b.build()
}

/// `add(a, b)`: the sum as text (`5`, not `5.0`).
pub fn add_tool() -> ToolEntry {
    ToolEntry::new(
        &spec("add", "Add two numbers"),
        number_schema(&[("a", "first"), ("b", "second")]),
        None,
        |mut args: Args<'_>, _ctx: Context| {
            let a = args.take::<f64>("a");
            let b = args.take::<f64>("b");
            Box::pin(async move {
                match (a, b) {
                    (Some(a), Some(b)) => CallToolResult::text((a + b).to_string()),
                    _ => args.error_result(),
                }
            })
        },
    )
}

/// `slow`: answers `slow done` after 300 ms.
pub fn slow_tool() -> ToolEntry {
    ToolEntry::new(
        &spec("slow", "Answers after 300 ms"),
        number_schema(&[]),
        None,
        |_args, _ctx| {
            Box::pin(async {
                tokio::time::sleep(Duration::from_millis(300)).await;
                CallToolResult::text("slow done")
            })
        },
    )
}

/// `reconnect`: closes its SSE stream after 20 ms, answers `resumed` 100 ms
/// later (on the stream the client resumes).
pub fn reconnect_tool() -> ToolEntry {
    ToolEntry::new(
        &spec(
            "reconnect",
            "Closes its SSE stream after 20 ms, answers 100 ms later",
        ),
        number_schema(&[]),
        None,
        |_args, ctx: Context| {
            Box::pin(async move {
                tokio::time::sleep(Duration::from_millis(20)).await;
                ctx.close_sse_stream();
                tokio::time::sleep(Duration::from_millis(100)).await;
                CallToolResult::text("resumed")
            })
        },
    )
}
