//! `mcp read URI`: reads one resource and prints its contents.

use crate::output::{items, line, resource_text, Format, Output};
use crate::target::{one_line, Server};

/// Read a resource by its URI.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
    mcp read notes://all -- ./target/debug/notes\n  \
    mcp read --json file:///tmp/a.txt http://127.0.0.1:3000/mcp")]
pub(crate) struct Args {
    /// The resource's URI (`mcp list --resources` shows them).
    uri: String,
    #[command(flatten)]
    format: Format,
    #[command(flatten)]
    server: Server,
}

/// Runs `mcp read`.
pub(crate) async fn run(args: Args) -> Result<(), String> {
    let output = Output::new(&args.format);
    let uri = args.uri;
    let result = args.server.session(async |client| {
            client.read_resource(&uri).await.map_err(|e| {
                format!(
                    "reading `{uri}` failed: {} (`mcp list --resources` shows what the server offers)",
                    one_line(&e)
                )
            })
        })
        .await?;
    if output.json {
        return Output::json(&result);
    }
    for contents in items(&result, "contents") {
        line(&resource_text(contents))?;
    }
    Ok(())
}
