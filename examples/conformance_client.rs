//! The client program for the official client conformance scenarios of
//! `@modelcontextprotocol/conformance@0.1.16`.
//!
//! The runner starts it as `conformance_client <server URL>` (the URL is
//! appended to the command it is given) with the scenario's name in
//! `MCP_CONFORMANCE_SCENARIO`:
//!
//! - `initialize`: connect (and list the tools);
//! - `tools_call`: call `add_numbers {a: 1, b: 2}`;
//! - `elicitation-sep1034-client-defaults`: call
//!   `test_client_elicitation_defaults`, answering the server's
//!   `elicitation/create` by accepting every default of its requested schema;
//! - `sse-retry`: call `test_reconnection` (the server closes the SSE stream
//!   after a `retry`; the client resumes with `GET` and `Last-Event-ID`).
//!
//! Exits 0 on success, 1 with a message on stderr otherwise, 2 on bad usage.
//! Run by `tests/conformance/run_client.sh`.

use std::process::ExitCode;
use std::time::Duration;

use clap::error::ErrorKind;
use clap::{CommandFactory, Parser};
use oxmcp_client::auth::{Algorithm, HeadlessAuthorizer, Issuer, OAuth};
use oxmcp_client::types::{ErrorObject, JsonObject};
use oxmcp_client::{types::error::Chain, Client, Era};

use serde_json::{json, Value};

/// Accepts the elicitation with every default of `requestedSchema.properties`.
async fn accept_defaults(params: Value) -> Result<Value, ErrorObject> {
    let mut content = JsonObject::new();
    if let Some(properties) = params
        .pointer("/requestedSchema/properties")
        .and_then(Value::as_object)
    {
        for (name, schema) in properties {
            if let Some(default) = schema.get("default") {
                content.insert(name.clone(), default.clone());
            }
        }
    }
    Ok(json!({ "action": "accept", "content": content }))
}

/// What the harness tells the client program for a scenario
/// (`MCP_CONFORMANCE_CONTEXT`), `null` when nothing.
fn context() -> Result<Value, String> {
    match std::env::var("MCP_CONFORMANCE_CONTEXT") {
        Ok(text) => {
            serde_json::from_str(&text).map_err(|e| format!("MCP_CONFORMANCE_CONTEXT: {e}"))
        }
        Err(_) => Ok(Value::Null),
    }
}

/// How the client signs in for the `auth/*` scenarios: the test
/// authorization server approves at once, so the authorization request is
/// made here and its redirect read (no browser). Pre-registered
/// credentials and client-credentials keys come from
/// `MCP_CONFORMANCE_CONTEXT`, which does not say for which issuer: they go
/// to the one the harness's server names (the harness runs both).
fn oauth(scenario: &str) -> Result<OAuth, String> {
    let context = context()?;
    let text = |key: &str| context.get(key).and_then(Value::as_str).map(str::to_owned);
    let mut oauth = OAuth::new("mcp-rs-conformance-client")
        .authorizer(HeadlessAuthorizer::new("http://127.0.0.1:3999/callback"))
        .client_metadata_url("https://conformance-test.local/client-metadata.json");
    if let Some(pem) = text("private_key_pem") {
        let id = text("client_id").ok_or("the context has a key but no client_id")?;
        let alg = match text("signing_algorithm").as_deref() {
            None | Some("ES256") => Algorithm::ES256,
            Some("RS256") => Algorithm::RS256,
            Some(other) => return Err(format!("unknown signing algorithm {other}")),
        };
        oauth = oauth
            .client_credentials_key(Issuer::danger_named_by_server(), id, pem.as_bytes(), alg)
            .map_err(|e| e.to_string())?;
    } else if let (Some(id), Some(secret), true) = (
        text("client_id"),
        text("client_secret"),
        scenario.starts_with("auth/client-credentials"),
    ) {
        oauth = oauth.client_credentials(Issuer::danger_named_by_server(), id, secret);
    } else if let (Some(id), Some(secret), Some(idp), Some(id_token)) = (
        text("client_id"),
        text("client_secret"),
        text("idp_token_endpoint"),
        text("idp_id_token"),
    ) {
        // Enterprise-managed: the user's ID token exchanged at the identity
        // provider for an ID-JAG, presented with the JWT-bearer grant.
        oauth = oauth.enterprise_managed(
            Issuer::danger_named_by_server(),
            id,
            secret,
            idp,
            text("idp_client_id"),
            move || id_token.clone(),
        );
    } else if let (Some(id), Some(jwt)) = (text("client_id"), text("valid_jwt")) {
        // Workload identity: the platform's JWT, exchanged with the JWT-bearer grant.
        oauth = oauth.workload_identity(Issuer::danger_named_by_server(), id, move || jwt.clone());
    } else if let Some(id) = text("client_id") {
        oauth = oauth.client(Issuer::danger_named_by_server(), id, text("client_secret"));
    }
    Ok(oauth)
}

async fn run(scenario: &str, url: &str) -> Result<(), String> {
    let mut builder = Client::builder()
        .client_info("mcp-rs-conformance-client", env!("CARGO_PKG_VERSION"))
        .protocol(Era::Auto)
        .timeout(Duration::from_secs(20))
        .elicitation_handler(accept_defaults);
    if scenario.starts_with("auth/") {
        builder = builder.oauth(oauth(scenario)?);
    }
    let client = builder
        .connect_http(url)
        .await
        .map_err(|e| format!("connecting to {url}: {}", Chain(&e)))?;
    eprintln!(
        "connected to {} {} ({})",
        client.server_info().name,
        client.server_info().version,
        client.protocol_version()
    );
    let outcome = match scenario {
        "initialize" => client
            .list_tools()
            .await
            .map(|tools| eprintln!("{} tools", tools.len()))
            .map_err(|e| format!("tools/list: {}", Chain(&e))),
        "tools_call" => call(&client, "add_numbers", json!({ "a": 1, "b": 2 })).await,
        "elicitation-sep1034-client-defaults" => {
            call(&client, "test_client_elicitation_defaults", json!({})).await
        }
        "sse-retry" => call(&client, "test_reconnection", json!({})).await,
        s if s.starts_with("auth/") => authorized(&client).await,
        "json-schema-2020-12-preservation" => echo_schema(&client).await,
        // The skills extension: the index, and no file before a skill is loaded.
        "sep-2640-client-no-prefetch" => client
            .list_skills()
            .await
            .map(|skills| eprintln!("{} skills listed", skills.len()))
            .map_err(|e| format!("skills/list: {}", Chain(&e))),
        s if s.starts_with("sep-2640-client-verify-") => use_first_skill(&client).await,
        _ => exercise(&client).await,
    };
    client.close().await;
    outcome
}

/// What an `auth/*` scenario's server expects once signed in: the tools
/// listed, and the first one called.
async fn authorized(client: &Client) -> Result<(), String> {
    let tools = client
        .list_tools()
        .await
        .map_err(|e| format!("tools/list: {}", Chain(&e)))?;
    if let Some(tool) = tools.first() {
        call(client, &tool.name, json!({})).await?;
    }
    Ok(())
}

/// Loads the first listed skill (its SKILL.md checked against the index),
/// then fetches its other files, each checked. Content that fails a check
/// is refused and nothing after it is fetched: the refusal is reported on
/// stderr, and the program ends normally (refusing is what is asked).
async fn use_first_skill(client: &Client) -> Result<(), String> {
    let skills = client
        .list_skills()
        .await
        .map_err(|e| format!("skills/list: {}", Chain(&e)))?;
    let entry = skills.first().ok_or("no skill listed")?;
    let loaded = match client.load_skill(entry).await {
        Ok(loaded) => loaded,
        Err(e) => {
            eprintln!("{}", Chain(&e));
            return Ok(());
        }
    };
    for file in loaded.entry.resources.iter().filter(|f| f.uri != entry.uri) {
        if let Err(e) = client.skill_file(entry, &file.uri).await {
            eprintln!("{}", Chain(&e));
            return Ok(());
        }
    }
    eprintln!(
        "skill {} loaded ({} bytes of instructions)",
        entry.uri,
        loaded.manifest.len()
    );
    Ok(())
}

/// 0.2.0-alpha.12's JSON Schema preservation: the focal tool's
/// `inputSchema`, as the client holds it, passed back to the echo tool.
async fn echo_schema(client: &Client) -> Result<(), String> {
    let tools = client
        .list_tools()
        .await
        .map_err(|e| format!("tools/list: {}", Chain(&e)))?;
    let focal = tools
        .iter()
        .find(|t| t.name == "json_schema_2020_12_tool")
        .ok_or("no json_schema_2020_12_tool listed")?;
    let schema = serde_json::to_value(&focal.input_schema).map_err(|e| e.to_string())?;
    call(client, "json_schema_echo", json!({ "schema": schema })).await
}

/// The other scenarios (0.2.0-alpha.12: request metadata, input rounds,
/// custom and invalid tool headers, `$ref`s): the calls the harness names
/// in `MCP_CONFORMANCE_CONTEXT` (`toolCalls`), else every listed tool at
/// once with no arguments. A tool the client refuses to call (an invalid
/// header annotation) or that fails is reported on stderr, not fatal: the
/// harness judges what the server saw.
async fn exercise(client: &Client) -> Result<(), String> {
    let tools = client
        .list_tools()
        .await
        .map_err(|e| format!("tools/list: {}", Chain(&e)))?;
    let named: Vec<(String, Value)> = match context()?.get("toolCalls").and_then(Value::as_array) {
        Some(calls) => calls
            .iter()
            .filter_map(|c| {
                Some((
                    c.get("name")?.as_str()?.to_owned(),
                    c.get("arguments").cloned().unwrap_or(json!({})),
                ))
            })
            .collect(),
        None => tools.iter().map(|t| (t.name.clone(), json!({}))).collect(),
    };
    let calls = named
        .iter()
        .map(|(name, arguments)| call(client, name, arguments.clone()));
    for outcome in futures_util::future::join_all(calls).await {
        if let Err(e) = outcome {
            eprintln!("{e}");
        }
    }
    Ok(())
}

async fn call(client: &Client, tool: &str, arguments: Value) -> Result<(), String> {
    let result = client
        .call_tool(tool, arguments)
        .await
        .map_err(|e| format!("calling {tool}: {}", Chain(&e)))?;
    let text: Vec<&str> = result.content.iter().filter_map(|c| c.as_text()).collect();
    eprintln!("{tool} -> {}", text.join(" "));
    Ok(())
}

use mcp_examples::command_line;
use mcp_examples::stderr_logs;

/// The client program of the official client conformance scenarios.
#[derive(Debug, Parser)]
#[command(
    name = "conformance_client",
    version,
    after_help = "The scenario's name comes from MCP_CONFORMANCE_SCENARIO, what the harness \
        tells the client from MCP_CONFORMANCE_CONTEXT (JSON).\n\n\
        Examples:\n  \
        MCP_CONFORMANCE_SCENARIO=initialize conformance_client http://localhost:3001/mcp"
)]
struct Args {
    /// The scenario's server (the runner appends it to the command).
    #[arg(value_name = "SERVER_URL")]
    url: String,
}

#[tokio::main]
async fn main() -> ExitCode {
    let Args { url } = command_line::parse::<Args>();
    stderr_logs::init("warn");
    let Ok(scenario) = std::env::var("MCP_CONFORMANCE_SCENARIO") else {
        Args::command()
            .error(
                ErrorKind::MissingRequiredArgument,
                "MCP_CONFORMANCE_SCENARIO must name the scenario",
            )
            .exit()
    };
    match run(&scenario, &url).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("conformance_client: scenario {scenario}: {message}");
            ExitCode::FAILURE
        }
    }
}
