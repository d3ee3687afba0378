//! `mcp prompt NAME [key=value ...]`: renders one prompt and prints its messages.

use serde_json::Value;

use crate::args::{prompt_arguments, split_pairs};
use crate::commands::call::pairs_and_url;
use crate::output::{content_text, items, line, Format, Output};
use crate::target::{one_line, Target};

/// Get a prompt, its arguments as key=value.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
    mcp prompt summarise id=7 -- ./target/debug/notes\n  \
    mcp prompt --json simple_prompt http://127.0.0.1:3001/mcp")]
pub(crate) struct Args {
    /// The prompt's name (`mcp list --prompts` shows them).
    name: String,
    /// The arguments as key=value, and the server's URL unless `-- COMMAND ARGS` is given.
    #[arg(value_name = "KEY=VALUE|URL")]
    rest: Vec<String>,
    #[command(flatten)]
    format: Format,
    #[command(flatten)]
    target: Target,
}

/// Runs `mcp prompt`.
pub(crate) async fn run(args: Args) -> Result<(), String> {
    let output = Output::new(&args.format);
    let (pairs, url) = pairs_and_url(args.rest)?;
    let pairs = split_pairs(&pairs)?;
    let name = args.name;
    let result = args
        .target
        .session(url, async |client| get(client, &name, pairs).await)
        .await?;
    if output.json {
        return Output::json(&result);
    }
    for message in items(&result, "messages") {
        let role = message.get("role").and_then(Value::as_str).unwrap_or("");
        let text = message.get("content").map(content_text).unwrap_or_default();
        line(&format!("{}: {text}", output.name(role)))?;
    }
    Ok(())
}

async fn get(
    client: &oxmcp_client::Client,
    name: &str,
    pairs: Vec<(String, String)>,
) -> Result<oxmcp_client::types::GetPromptResult, String> {
    let prompts = if client.server_capabilities().prompts.is_some() {
        client
            .list_prompts()
            .await
            .map_err(|e| format!("the server could not list its prompts ({})", one_line(&e)))?
    } else {
        Vec::new()
    };
    let Some(prompt) = prompts.iter().find(|p| p.name == name) else {
        let names: Vec<&str> = prompts.iter().map(|p| p.name.as_str()).collect();
        return Err(format!(
            "the server has no prompt `{name}`: its prompts are {} (`mcp list --prompts` describes them)",
            if names.is_empty() { "none".to_owned() } else { names.join(", ") }
        ));
    };
    let declared = prompt.arguments.clone().unwrap_or_default();
    let arguments = prompt_arguments(name, &declared, pairs)?;
    client
        .get_prompt(name, arguments)
        .await
        .map_err(|e| format!("getting prompt `{name}` failed: {}", one_line(&e)))
}
