//! `mcp call TOOL [key=value ...]`: calls one tool, its arguments checked
//! against the tool's input schema first, its result printed, progress
//! shown while it runs.

use std::io::IsTerminal;

use serde_json::Value;

use crate::args::{split_pairs, tool_arguments};
use crate::output::{content_text, items, line, Format, Output};
use crate::target::{is_url, one_line, Target};

/// Call a tool: arguments as key=value (converted by the tool's input
/// schema) or --args JSON.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
    mcp call add a=2 b=3 -- ./target/debug/calculator\n  \
    mcp call stats 'values=[1,2,3]' --json -- ./target/debug/calculator\n  \
    mcp call add --args '{\"a\": 2, \"b\": 3}' http://127.0.0.1:3000/mcp\n  \
    mcp call count_to n=5 --progress --era 2026-07-28 http://127.0.0.1:3000/mcp")]
pub(crate) struct Args {
    /// The tool to call.
    tool: String,
    /// The arguments as key=value (JSON for objects and arrays), and the
    /// server's URL unless `-- COMMAND ARGS` is given.
    #[arg(value_name = "KEY=VALUE|URL")]
    rest: Vec<String>,
    /// All arguments as one JSON object (key=value pairs are set over it).
    #[arg(long = "args", value_name = "JSON")]
    arguments_json: Option<String>,
    /// Show progress notifications on stderr (shown anyway on a terminal).
    #[arg(long)]
    progress: bool,
    #[command(flatten)]
    format: Format,
    #[command(flatten)]
    target: Target,
}

/// Splits positional words into `key=value` pairs and at most one URL.
pub(crate) fn pairs_and_url(rest: Vec<String>) -> Result<(Vec<String>, Option<String>), String> {
    let (urls, pairs): (Vec<String>, Vec<String>) = rest.into_iter().partition(|w| is_url(w));
    match urls.as_slice() {
        [] => Ok((pairs, None)),
        [url] => Ok((pairs, Some(url.clone()))),
        _ => Err(format!(
            "several URLs given ({}): give the server's URL once",
            urls.join(", ")
        )),
    }
}

/// Runs `mcp call`.
pub(crate) async fn run(args: Args) -> Result<(), String> {
    let output = Output::new(&args.format);
    let (pairs, url) = pairs_and_url(args.rest)?;
    let pairs = split_pairs(&pairs)?;
    let (tool, json, progress) = (&args.tool, args.arguments_json.as_deref(), args.progress);
    let result = args
        .target
        .session(url, async |client| {
            call(client, tool, json, &pairs, progress).await
        })
        .await?;
    let failed = result.get("isError") == Some(&Value::Bool(true));
    let text = blocks_text(&result);
    if output.json {
        Output::json(&result)?;
    } else if !failed {
        if !text.is_empty() {
            line(&text)?;
        }
        if let Some(structured) = result.get("structuredContent") {
            // Printed when the text does not already say it (most servers
            // repeat it as a text block for older clients).
            let said: Option<Value> = serde_json::from_str(&text).ok();
            if said.as_ref() != Some(structured) {
                line(&serde_json::to_string_pretty(structured).map_err(|e| e.to_string())?)?;
            }
        }
    }
    if failed {
        let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
        return Err(format!("tool `{}` reported an error: {text}", args.tool));
    }
    Ok(())
}

/// The tool's content blocks as text, one after the other.
fn blocks_text(result: &Value) -> String {
    items(result, "content")
        .map(content_text)
        .collect::<Vec<_>>()
        .join(
            "
",
        )
}

/// Finds the tool, checks and converts the arguments, and calls it.
async fn call(
    client: &oxmcp_client::Client,
    name: &str,
    json: Option<&str>,
    pairs: &[(String, String)],
    progress: bool,
) -> Result<oxmcp_client::types::CallToolResult, String> {
    let tools = client
        .list_tools()
        .await
        .map_err(|e| format!("the server could not list its tools ({})", one_line(&e)))?;
    let Some(tool) = tools.iter().find(|t| t.name == name) else {
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
        return Err(format!(
            "the server has no tool `{name}`: its tools are {} (`mcp list` describes them)",
            if names.is_empty() {
                "none".to_owned()
            } else {
                names.join(", ")
            }
        ));
    };
    let arguments = tool_arguments(name, &tool.input_schema, json, pairs)?;
    let mut options = oxmcp_client::CallOptions::new();
    if progress || std::io::stderr().is_terminal() {
        options = options.on_progress(|p| {
            let total = p.total.map(|t| format!("/{t}")).unwrap_or_default();
            let message = p.message.map(|m| format!(": {m}")).unwrap_or_default();
            eprintln!("progress {}{total}{message}", p.progress);
        });
    }
    client
        .call_tool_raw_with(name, arguments, options)
        .await
        .map_err(|e| format!("calling `{name}` failed: {}", one_line(&e)))
}
