//! `mcp list`: what a server offers: its tools (name, description,
//! parameters), and on request its prompts, resources and templates.

use serde_json::{json, Map, Value};

use crate::output::{items, line, Format, Output};
use crate::target::Server;

/// List a server's tools (and with --prompts/--resources, its prompts,
/// resources and resource templates).
// Each bool is one switch of the command line.
#[allow(clippy::struct_excessive_bools)]
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
    mcp list -- ./target/debug/calculator\n  \
    mcp list --prompts --resources -- python3 server.py\n  \
    mcp list --json http://127.0.0.1:3000/mcp\n  \
    mcp list --era legacy --header 'Authorization: Bearer TOKEN' https://mcp.example.com/mcp")]
pub(crate) struct Args {
    /// Also list the prompts.
    #[arg(long)]
    prompts: bool,
    /// Also list the resources and resource templates.
    #[arg(long)]
    resources: bool,
    /// Only the prompts and resources asked for, not the tools.
    #[arg(long)]
    no_tools: bool,
    #[command(flatten)]
    format: Format,
    #[command(flatten)]
    server: Server,
}

impl Args {
    /// Whether --prompts or --resources was given (for --no-tools).
    fn kinds(&self) -> bool {
        self.prompts || self.resources
    }
}

/// Runs `mcp list`.
pub(crate) async fn run(args: Args) -> Result<(), String> {
    if args.no_tools && !args.kinds() {
        return Err("--no-tools leaves nothing to list: add --prompts or --resources".into());
    }
    let output = Output::new(&args.format);
    let (tools, prompts, resources) = (!args.no_tools, args.prompts, args.resources);
    let listing = args
        .server
        .session(async |client| listing(client, tools, prompts, resources).await)
        .await?;
    if output.json {
        return Output::json(&listing);
    }
    let listing = listing.as_object().cloned().unwrap_or_default();
    // People read the tools first; JSON keeps the map's own order.
    let kinds = ["tools", "prompts", "resources", "resourceTemplates"];
    for (kind, items) in kinds
        .iter()
        .filter_map(|k| listing.get(*k).map(|items| (*k, items)))
    {
        if listing.len() > 1 {
            let label = if kind == "resourceTemplates" {
                "resource templates"
            } else {
                kind
            };
            line(&output.name(&format!("{label}:")))?;
        }
        let items = items.as_array().map_or(&[][..], Vec::as_slice);
        if items.is_empty() {
            line("  (none)")?;
        }
        for item in items {
            print_item(output, kind, item)?;
        }
    }
    Ok(())
}

/// The listings asked for, by kind, each as the server gave it.
async fn listing(
    client: &oxmcp_client::Client,
    tools: bool,
    prompts: bool,
    resources: bool,
) -> Result<Map<String, Value>, String> {
    let failed = |what: &str, e: &oxmcp_client::Error| {
        format!(
            "the server could not list its {what} ({})",
            crate::target::one_line(e)
        )
    };
    let caps = client.server_capabilities();
    let mut out = Map::new();
    if tools {
        let list = client.list_tools().await.map_err(|e| failed("tools", &e))?;
        out.insert("tools".into(), json!(list));
    }
    if prompts {
        let list = if caps.prompts.is_some() {
            client
                .list_prompts()
                .await
                .map_err(|e| failed("prompts", &e))?
        } else {
            Vec::new()
        };
        out.insert("prompts".into(), json!(list));
    }
    if resources {
        let (list, templates) = if caps.resources.is_some() {
            let list = client
                .list_resources()
                .await
                .map_err(|e| failed("resources", &e))?;
            let templates = client
                .list_resource_templates()
                .await
                .map_err(|e| failed("resource templates", &e))?;
            (list, templates)
        } else {
            (Vec::new(), Vec::new())
        };
        out.insert("resources".into(), json!(list));
        out.insert("resourceTemplates".into(), json!(templates));
    }
    Ok(out)
}

/// One tool, prompt, resource or template, with its parameters or arguments.
fn print_item(output: Output, kind: &str, item: &Value) -> Result<(), String> {
    let str_of = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).map(str::to_owned);
    let head = match kind {
        "resources" => str_of(item, "uri"),
        "resourceTemplates" => str_of(item, "uriTemplate"),
        _ => str_of(item, "name"),
    }
    .unwrap_or_default();
    let description = str_of(item, "description").unwrap_or_default();
    let description = description.lines().next().unwrap_or("");
    line(&format!("{}  {description}", output.name(&head)))?;
    if kind == "tools" {
        let schema = item.get("inputSchema").cloned().unwrap_or(Value::Null);
        let required: Vec<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
            for (name, property) in properties {
                let ty = type_words(property);
                let need = if required.contains(&name.as_str()) {
                    ", required"
                } else {
                    ""
                };
                let said = str_of(property, "description").unwrap_or_default();
                line(&format!(
                    "    {name}: {}  {said}",
                    output.dim(&format!("{ty}{need}"))
                ))?;
            }
        }
    } else if kind == "prompts" {
        for argument in items(item, "arguments") {
            let name = str_of(argument, "name").unwrap_or_default();
            let need = if argument.get("required") == Some(&Value::Bool(true)) {
                "string, required"
            } else {
                "string"
            };
            let said = str_of(argument, "description").unwrap_or_default();
            line(&format!("    {name}: {}  {said}", output.dim(need)))?;
        }
    } else if let Some(name) = str_of(item, "name") {
        line(&format!("    {}", output.dim(&name)))?;
    }
    Ok(())
}

/// A property's type as people write it: `number`, `integer | null`, `array of number`.
fn type_words(property: &Value) -> String {
    let ty = match property.get("type") {
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join(" | "),
        _ if property.get("anyOf").is_some() || property.get("oneOf").is_some() => "any of".into(),
        _ => "any".into(),
    };
    match property.get("items").map(type_words) {
        Some(items) if ty == "array" => format!("array of {items}"),
        _ => ty,
    }
}
