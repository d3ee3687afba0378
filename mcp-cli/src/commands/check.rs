//! `mcp check`: what in a server's listing breaks hosts and models, found
//! before they see it. It connects in both eras and checks every tool
//! (name, description, input and output schema as JSON Schema 2020-12,
//! OpenAI's strict mode through oxmcp-agent's own conversion, the names the
//! model providers take), prompt and resource, and the listing's size.
//! Errors make the exit status 1; warnings alone leave it 0.

use std::collections::BTreeSet;

use oxmcp_client::{Client, Era};
use serde_json::{json, Value};

use crate::output::{line, Format, Output};
use crate::target::{one_line, Server};

/// About how many tokens of a model's context one tool listing may take
/// before hosts start to cut or defer it (Claude Code warns at 25,000
/// tokens of MCP output; a tenth of a 128 k context is about 12,800).
const LISTING_BUDGET_TOKENS: usize = 12_800;

/// Check a server's tools, prompts and resources for what breaks hosts and models.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
    mcp check -- ./target/debug/calculator\n  \
    mcp check --json http://127.0.0.1:3000/mcp\n  \
    mcp check --call -- python3 server.py\n\n\
    It connects in both eras (legacy, 2026-07-28) whatever --era says.\n\
    Exit status: 1 when any error is found, 0 with warnings only.")]
pub(crate) struct Args {
    /// Also call the read-only tools (`readOnlyHint`), with arguments built
    /// from their schemas, and report results too large for hosts.
    #[arg(long)]
    call: bool,
    #[command(flatten)]
    format: Format,
    #[command(flatten)]
    server: Server,
}

/// How bad a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
enum Level {
    /// Hosts or models refuse or misuse it.
    Error,
    /// It works, but worse than it could.
    Warning,
}

/// One thing found, about one item.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
struct Finding {
    level: Level,
    /// `tool add`, `prompt summarise`, `server`.
    item: String,
    message: String,
}

/// Runs `mcp check`.
pub(crate) async fn run(args: Args) -> Result<(), String> {
    let output = Output::new(&args.format);
    let mut findings = Vec::new();
    let mut listing = None;
    for (era, name) in [(Era::Legacy, "legacy"), (Era::Modern, "2026-07-28")] {
        // The read-only tools are called once, in the first era that works.
        let calling = args.call && listing.is_none();
        let got = args
            .server
            .with_era(era)
            .session(async |client| {
                let listing = listing_of(client).await?;
                let calls = if calling {
                    call_read_only(client, &listing).await
                } else {
                    Vec::new()
                };
                Ok(json!({"listing": listing, "calls": calls}))
            })
            .await;
        match got {
            Ok(mut value) => {
                listing.get_or_insert(value["listing"].take());
                findings.extend(
                    serde_json::from_value::<Vec<Finding>>(value["calls"].take())
                        .unwrap_or_default(),
                );
            }
            Err(e) => findings.push(Finding {
                level: Level::Warning,
                item: "server".into(),
                message: format!("does not work in the {name} era: {e}"),
            }),
        }
    }
    let Some(listing) = listing else {
        // Both eras failed, most often for the same reason: the first says it.
        let why = findings
            .into_iter()
            .next()
            .map(|f| f.message)
            .unwrap_or_default();
        return Err(format!("cannot check the server: it {why}"));
    };
    check_listing(&listing, &mut findings);
    let errors = findings.iter().filter(|f| f.level == Level::Error).count();
    if output.json {
        Output::json(&json!({"findings": findings, "errors": errors}))?;
    } else {
        for f in &findings {
            let level = match f.level {
                Level::Error => output.name("error"),
                Level::Warning => output.dim("warning"),
            };
            line(&format!("{level}: {}: {}", f.item, f.message))?;
        }
        line(&format!(
            "{errors} errors, {} warnings",
            findings.len() - errors
        ))?;
    }
    if errors > 0 {
        return Err(format!(
            "{errors} errors found: fix them before hosts and models see this server"
        ));
    }
    Ok(())
}

/// Every tool, prompt, resource and template, as the server lists them.
async fn listing_of(client: &Client) -> Result<Value, String> {
    let caps = client.server_capabilities();
    let failed = |what: &str, e: &oxmcp_client::Error| {
        format!("listing its {what} failed ({})", one_line(e))
    };
    let tools = client.list_tools().await.map_err(|e| failed("tools", &e))?;
    let prompts = match caps.prompts {
        Some(_) => client
            .list_prompts()
            .await
            .map_err(|e| failed("prompts", &e))?,
        None => Vec::new(),
    };
    let resources = match caps.resources {
        Some(_) => client
            .list_resources()
            .await
            .map_err(|e| failed("resources", &e))?,
        None => Vec::new(),
    };
    Ok(json!({"tools": tools, "prompts": prompts, "resources": resources}))
}

/// How many tokens of one tool result hosts take: Claude Code's default
/// `MAX_MCP_OUTPUT_TOKENS`.
const RESULT_BUDGET_TOKENS: usize = 25_000;

/// Calls every read-only tool (`readOnlyHint: true`) once, with arguments
/// built from its schema, and reports what hosts would make of the result.
async fn call_read_only(client: &Client, listing: &Value) -> Vec<Finding> {
    let mut findings = Vec::new();
    for tool in crate::output::items(listing, "tools") {
        if tool["annotations"]["readOnlyHint"] != json!(true) {
            continue;
        }
        let name = tool["name"].as_str().unwrap_or_default();
        let arguments = example(&tool["inputSchema"]);
        let mut found = |level, message: String| {
            findings.push(Finding {
                level,
                item: format!("tool `{name}`"),
                message,
            });
        };
        match client.call_tool_raw(name, arguments.clone()).await {
            Ok(result) => {
                // What the model reads: the content blocks.
                let tokens = serde_json::to_string(&result.content).map_or(0, |s| s.len() / 4);
                if result.is_error() {
                    found(
                        Level::Warning,
                        format!(
                            "called with {arguments} (built from its schema), it reported an error"
                        ),
                    );
                }
                if tokens > RESULT_BUDGET_TOKENS {
                    found(Level::Warning, format!(
                        "called with {arguments}, its result is about {tokens} tokens, over the {RESULT_BUDGET_TOKENS} hosts take from one call (Claude Code's MAX_MCP_OUTPUT_TOKENS): page or cut it"
                    ));
                }
            }
            Err(e) => found(
                Level::Error,
                format!(
                    "called with {arguments} (built from its schema), it failed: {}",
                    one_line(&e)
                ),
            ),
        }
    }
    findings
}

/// A value `schema` accepts, as plain as it gets: its default, first enum
/// value or const, else the least value of its type (an object with its
/// required properties only).
fn example(schema: &Value) -> Value {
    for key in ["default", "const"] {
        if let Some(v) = schema.get(key) {
            return v.clone();
        }
    }
    if let Some(first) = schema.get("enum").and_then(|e| e.get(0)) {
        return first.clone();
    }
    if let Some(first) = ["anyOf", "oneOf"]
        .iter()
        .find_map(|k| schema.get(*k).and_then(|b| b.get(0)))
    {
        return example(first);
    }
    let ty = match &schema["type"] {
        Value::Array(types) => types.first().and_then(Value::as_str).unwrap_or("null"),
        other => other.as_str().unwrap_or("object"),
    };
    match ty {
        "string" => json!("example"),
        "integer" | "number" => schema.get("minimum").cloned().unwrap_or(json!(1)),
        "boolean" => json!(false),
        // One item at least: an empty list is rarely what a tool is for.
        "array" => {
            let n = schema
                .get("minItems")
                .and_then(Value::as_u64)
                .unwrap_or(1)
                .max(1);
            Value::Array(vec![
                example(&schema["items"]);
                usize::try_from(n).unwrap_or(1)
            ])
        }
        "null" => Value::Null,
        _ => {
            let required: Vec<&str> = crate::output::items(schema, "required")
                .filter_map(Value::as_str)
                .collect();
            let object = required
                .into_iter()
                .map(|name| (name.to_owned(), example(&schema["properties"][name])))
                .collect();
            Value::Object(object)
        }
    }
}

/// The findings of one listing.
fn check_listing(listing: &Value, findings: &mut Vec<Finding>) {
    let mut seen = BTreeSet::new();
    for tool in crate::output::items(listing, "tools") {
        let name = tool["name"].as_str().unwrap_or_default();
        let mut found = |level, message: String| {
            findings.push(Finding {
                level,
                item: format!("tool `{name}`"),
                message,
            });
        };
        if !seen.insert(name.to_owned()) {
            found(
                Level::Error,
                "listed twice: hosts keep one of the two".into(),
            );
        }
        check_tool(tool, &mut found);
    }
    for (kind, key) in [("prompt", "prompts"), ("resource", "resources")] {
        for item in crate::output::items(listing, key) {
            if is_blank(item.get("description")) {
                let name = item["name"].as_str().unwrap_or_default();
                findings.push(Finding {
                    level: Level::Warning,
                    item: format!("{kind} `{name}`"),
                    message: "has no description: users choose it by its name alone".into(),
                });
            }
        }
    }
    let tokens = serde_json::to_string(&listing["tools"]).map_or(0, |s| s.len() / 4);
    if tokens > LISTING_BUDGET_TOKENS {
        findings.push(Finding {
            level: Level::Warning,
            item: "server".into(),
            message: format!(
                "the tool listing is about {tokens} tokens, over the {LISTING_BUDGET_TOKENS} hosts afford: shorten descriptions, or serve fewer tools (tool search)"
            ),
        });
    }
}

fn is_blank(text: Option<&Value>) -> bool {
    text.and_then(Value::as_str)
        .is_none_or(|s| s.trim().is_empty())
}

/// The findings of one tool.
fn check_tool(tool: &Value, found: &mut impl FnMut(Level, String)) {
    let name = tool["name"].as_str().unwrap_or_default();
    let valid_name = (1..=128).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'));
    if !valid_name {
        found(
            Level::Error,
            "its name is not 1 to 128 characters of [A-Za-z0-9_.-], as MCP requires".into(),
        );
    } else if !oxmcp_agent::names::is_provider_name(name) {
        found(Level::Warning, format!(
            "OpenAI and Anthropic take names of 1 to 64 characters of [a-zA-Z0-9_-]: models see it renamed `{}`",
            oxmcp_agent::names::provider_name(name)
        ));
    }
    if is_blank(tool.get("description")) {
        found(
            Level::Error,
            "has no description: models cannot tell when to call it; add one".into(),
        );
    }
    let schema = &tool["inputSchema"];
    if let Some(problem) = schema_problem(schema) {
        found(
            Level::Error,
            format!("its inputSchema is not valid JSON Schema 2020-12: {problem}"),
        );
    } else if schema.get("type") != Some(&json!("object")) {
        found(
            Level::Error,
            "its inputSchema is not of type object, as MCP and Anthropic require".into(),
        );
    } else if let Err(why) = oxmcp_agent::strict::to_strict(schema) {
        found(
            Level::Warning,
            format!(
                "OpenAI's strict mode cannot take its inputSchema ({why}): it is sent non-strict"
            ),
        );
    }
    for (param, property) in schema
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        if is_blank(property.get("description")) {
            found(
                Level::Warning,
                format!("parameter `{param}` has no description: models guess what to pass"),
            );
        }
    }
    if let Some(output) = tool.get("outputSchema") {
        if let Some(problem) = schema_problem(output) {
            found(
                Level::Error,
                format!("its outputSchema is not valid JSON Schema 2020-12: {problem}"),
            );
        }
    }
}

/// Why `schema` is not a valid JSON Schema 2020-12 (its meta-schema, then
/// compiling it: a `$ref` that leads nowhere), if it is not.
fn schema_problem(schema: &Value) -> Option<String> {
    if let Err(e) = jsonschema::draft202012::meta::validate(schema) {
        return Some(e.to_string());
    }
    jsonschema::draft202012::new(schema)
        .err()
        .map(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn findings(tools: &Value) -> Vec<(Level, String)> {
        let mut out = Vec::new();
        check_listing(&json!({"tools": tools}), &mut out);
        out.into_iter().map(|f| (f.level, f.message)).collect()
    }

    #[test]
    fn a_clean_tool_has_no_findings() {
        let tool = json!({"name": "add", "description": "Add", "inputSchema": {
            "type": "object", "properties": {"a": {"type": "number", "description": "A"}}, "required": ["a"]}});
        assert!(findings(&json!([tool])).is_empty());
    }

    #[test]
    fn each_problem_is_found_at_its_level() {
        let bad = json!([
            {"name": "no description", "inputSchema": {"type": "object"}},
            {"name": "a.b", "description": "x", "inputSchema": {"type": "object", "properties": {"m": {"type": "object", "additionalProperties": {"type": "string"}, "description": "m"}}}},
            {"name": "wrong", "description": "x", "inputSchema": {"type": "object", "properties": {"n": {"type": "nonsense"}}}},
            {"name": "wrong", "description": "x", "inputSchema": {"type": "array"}},
        ]);
        let found = findings(&bad);
        let has =
            |level: Level, text: &str| found.iter().any(|(l, m)| *l == level && m.contains(text));
        assert!(has(Level::Error, "not 1 to 128 characters"), "{found:?}");
        assert!(has(Level::Error, "has no description"), "{found:?}");
        assert!(
            has(Level::Warning, "models see it renamed `a_b_"),
            "{found:?}"
        );
        assert!(
            has(Level::Warning, "OpenAI's strict mode cannot take"),
            "{found:?}"
        );
        assert!(
            has(Level::Error, "not valid JSON Schema 2020-12"),
            "{found:?}"
        );
        assert!(has(Level::Error, "listed twice"), "{found:?}");
        assert!(has(Level::Error, "not of type object"), "{found:?}");
        assert!(
            has(Level::Warning, "parameter `n` has no description"),
            "{found:?}"
        );
    }

    #[test]
    fn examples_fit_their_schemas() {
        let schema = json!({"type": "object", "properties": {
            "s": {"type": "string"}, "n": {"type": "integer", "minimum": 3},
            "e": {"enum": ["b", "a"]}, "v": {"type": "array", "items": {"type": "number"}, "minItems": 2},
            "o": {"type": ["number", "null"]}, "skip": {"type": "string"}},
            "required": ["s", "n", "e", "v", "o"]});
        let value = example(&schema);
        assert_eq!(
            value,
            json!({"s": "example", "n": 3, "e": "b", "v": [1, 1], "o": 1})
        );
        assert!(jsonschema::is_valid(&schema, &value));
    }

    #[test]
    fn a_large_listing_is_a_warning() {
        let long = "word ".repeat(60_000);
        let found = findings(
            &json!([{"name": "big", "description": long, "inputSchema": {"type": "object"}}]),
        );
        assert!(
            found
                .iter()
                .any(|(l, m)| *l == Level::Warning && m.contains("the tool listing is about")),
            "{found:?}"
        );
    }
}
