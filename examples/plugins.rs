//! Tools that appear and disappear at run time: a tool installs new tools
//! (built from a name, a description and a JSON Schema) and removes them;
//! connected clients are told each time (`notifications/tools/list_changed`).
//!
//! Run with: `cargo run -p mcp-examples --bin plugins` (speaks MCP on stdio).
//! Call `install_greeter` with `{"name": "greet_fr", "greeting": "Bonjour"}`,
//! then `greet_fr` with `{"who": "Ada"}`, then `uninstall` with `{"name": "greet_fr"}`.

use oxmcp_server::{tool, Context, Server, ToolEntry, ToolError};
use serde_json::json;

/// Installs and removes greeter tools.
#[derive(Debug)]
pub struct Plugins;

#[tool(description = "Install and remove tools while the server runs")]
impl Plugins {
    #[describe("Install a greeter tool under a new name; it answers `<greeting>, <who>!`")]
    pub fn install_greeter(
        &self,
        #[param("The new tool's name (letters, digits, `_`, `-`, `.`)")] name: String,
        #[param("The greeting it uses, e.g. Bonjour")] greeting: String,
        ctx: Context,
    ) -> Result<String, ToolError> {
        let server = ctx
            .server()
            .ok_or_else(|| ToolError::new("not running inside a server"))?;
        let tool = ToolEntry::dynamic(
            name.clone(),
            format!("Greet someone with \"{greeting}\""),
            json!({
                "type": "object",
                "properties": {"who": {"type": "string", "description": "Who to greet", "minLength": 1}},
                "required": ["who"],
                "additionalProperties": false
            }),
            move |args, _ctx| {
                let greeting = greeting.clone();
                async move {
                    let who = args.get("who").and_then(|v| v.as_str()).unwrap_or_default();
                    format!("{greeting}, {who}!")
                }
            },
        )?
        .in_toolbox("greeters");
        server.add_tool(tool)?;
        Ok(format!("installed `{name}`"))
    }

    #[describe("Remove a tool installed with install_greeter")]
    pub fn uninstall(
        &self,
        #[param("The tool's name")] name: String,
        ctx: Context,
    ) -> Result<String, ToolError> {
        let server = ctx
            .server()
            .ok_or_else(|| ToolError::new("not running inside a server"))?;
        if server.remove_tool(&name) {
            Ok(format!("removed `{name}`"))
        } else {
            Err(ToolError::new(format!("no tool named `{name}`")))
        }
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::process::ExitCode {
    let result = run().await;
    stderr_logs::report("plugins", result)
}

async fn run() -> Result<(), oxmcp_server::Error> {
    Server::builder("plugins", env!("CARGO_PKG_VERSION"))
        .toolbox(Plugins)
        .build()
        .serve_stdio()
        .await
}

use mcp_examples::stderr_logs;
