//! Each crate's root names, listed: a name added to or removed from a
//! crate's root fails this test until the list below changes with it, so
//! the surface users learn changes only on purpose. The names are read from
//! each `lib.rs` (every `pub` item, `pub mod` and `pub use` at the root, of
//! every feature; `#[doc(hidden)]` ones left out).

use std::path::Path;

use syn::{Item, UseTree, Visibility};

// No import cycle of more than two top-level modules in the crates it lists.
mod module_cycles;
// One MSRV, which clippy reads for every member.
mod msrv;

/// The folder of package `krate`: the packages are `oxmcp-*`, their
/// folders kept the names `mcp-*`.
fn folder(krate: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(krate.strip_prefix("ox").unwrap_or(krate))
}

/// The names `lib.rs` of `krate` makes public at the crate's root.
fn root_names(krate: &str) -> Vec<String> {
    let path = folder(krate).join("src/lib.rs");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let file = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut names = Vec::new();
    for item in &file.items {
        let (vis, attrs, name) = match item {
            Item::Use(u) => {
                if is_pub(&u.vis) && !hidden(&u.attrs) {
                    leaves(&u.tree, &mut names);
                }
                continue;
            }
            Item::Mod(m) => (&m.vis, &m.attrs, m.ident.to_string()),
            Item::Fn(f) => (&f.vis, &f.attrs, f.sig.ident.to_string()),
            Item::Struct(s) => (&s.vis, &s.attrs, s.ident.to_string()),
            Item::Enum(e) => (&e.vis, &e.attrs, e.ident.to_string()),
            Item::Trait(t) => (&t.vis, &t.attrs, t.ident.to_string()),
            Item::Type(t) => (&t.vis, &t.attrs, t.ident.to_string()),
            Item::Const(c) => (&c.vis, &c.attrs, c.ident.to_string()),
            Item::Static(s) => (&s.vis, &s.attrs, s.ident.to_string()),
            _ => continue,
        };
        if is_pub(vis) && !hidden(attrs) {
            names.push(name);
        }
    }
    names.sort();
    names.dedup();
    names
}

fn is_pub(vis: &Visibility) -> bool {
    matches!(vis, Visibility::Public(_))
}

fn hidden(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("doc") && a.parse_args::<syn::Ident>().is_ok_and(|i| i == "hidden")
    })
}

/// The names a `use` tree brings in (`a::{b, c as d}`: `b`, `d`; a glob `*`).
fn leaves(tree: &UseTree, out: &mut Vec<String>) {
    match tree {
        UseTree::Path(p) => leaves(&p.tree, out),
        UseTree::Name(n) => out.push(n.ident.to_string()),
        UseTree::Rename(r) => out.push(r.rename.to_string()),
        UseTree::Group(g) => g.items.iter().for_each(|t| leaves(t, out)),
        UseTree::Glob(_) => out.push("*".to_owned()),
    }
}

fn check(krate: &str, listed: &[&str]) {
    let found = root_names(krate);
    let added: Vec<&String> = found
        .iter()
        .filter(|n| !listed.contains(&n.as_str()))
        .collect();
    let removed: Vec<&&str> = listed
        .iter()
        .filter(|n| !found.contains(&(**n).to_owned()))
        .collect();
    assert!(
        added.is_empty() && removed.is_empty(),
        "{krate}'s root changed: added {added:?}, removed {removed:?}. If that is on purpose, \
         update the list in mcp-tests/tests/public_api.rs (and the guide, if users name it)"
    );
}

#[test]
fn mcp_server_root() {
    check(
        "mcp-server",
        &[
            "Context",
            "Error",
            "IntoToolResult",
            "Json",
            "RequestError",
            "Server",
            "ServerBuilder",
            "ServerHandle",
            "ToolBox",
            "ToolEntry",
            "ToolError",
            // the macros
            "complete",
            "describe",
            "param",
            "prompt",
            "resource",
            "tool",
            // modules (`complete`, `prompt`, `resource` and `tool` name a
            // module and a macro)
            "apps",
            "ask",
            "auth",
            "http",
            "policy",
            "state",
            "types",
        ],
    );
}

#[test]
fn mcp_client_root() {
    check(
        "mcp-client",
        &[
            "CallOptions",
            "Client",
            "ClientBuilder",
            "Era",
            "Error",
            "IntoArguments",
            "Json",
            "Notifications",
            "Progress",
            "RequestHandler",
            "Subscription",
            // whether an error says no server answered (retry later)
            "is_unreachable",
            // the macro
            "tool",
            // modules and re-exported crates
            "apps",
            "auth",
            "rustls",
            "skills",
            "types",
        ],
    );
}

#[test]
fn mcp_agent_root() {
    check(
        "mcp-agent",
        &[
            "Agent",
            "AgentBuilder",
            "CallRecord",
            "CancellationToken",
            "Diagnostic",
            "ErrorPolicy",
            "Event",
            "Finish",
            "Outcome",
            "Run",
            "RunError",
            "Source",
            "ToolCallError",
            "ToolSet",
            "ToolSetBuilder",
            "ToolSetError",
            "ToolView",
            // modules (the approval, pause and typed-output families in
            // theirs)
            "approval",
            "chat",
            "model",
            "names",
            "pause",
            "strict",
            "typed",
        ],
    );
}

#[test]
fn mcp_types_root() {
    // The wire model is wide by nature: the messages users name most, the
    // rest in their modules. A glob re-export would show here as `*`.
    check(
        "mcp-types",
        &[
            "Annotations",
            "AudioContent",
            "BlobResourceContents",
            "CacheScope",
            "CallToolParams",
            "CallToolResult",
            "ClientCapabilities",
            "CompleteParams",
            "CompleteResult",
            "Completion",
            "CompletionRef",
            "ContentBlock",
            "DiscoverResult",
            "EmbeddedResource",
            "ErrorObject",
            "GetPromptParams",
            "GetPromptResult",
            "Icon",
            "ImageContent",
            "Implementation",
            "InitializeParams",
            "InitializeResult",
            "JsonObject",
            "ListPromptsResult",
            "ListResourceTemplatesResult",
            "ListResourcesResult",
            "ListToolsParams",
            "ListToolsResult",
            "LoggingLevel",
            "Message",
            "Meta",
            "PaginatedParams",
            "Prompt",
            "PromptArgument",
            "PromptMessage",
            "ProtocolVersion",
            "ReadResourceResult",
            "RequestId",
            "Resource",
            "ResourceContents",
            "ResourceLink",
            "ResourceParams",
            "ResourceTemplate",
            "ResultType",
            "Role",
            "ServerCapabilities",
            "TextContent",
            "TextResourceContents",
            "Tool",
            "ToolAnnotations",
            // modules
            "apps",
            "call",
            "completion",
            "content",
            "elicitation",
            "error",
            "extension",
            "jsonrpc",
            "lifecycle",
            "method",
            "modern",
            "notification",
            "prompt",
            "resource",
            "roots",
            "sampling",
            "structured",
            "tool",
            "version",
        ],
    );
}

#[test]
fn mcp_wire_root() {
    // Internal (no API promise), but what server, client and agent share:
    // one module a concern, nothing at the root.
    check(
        "mcp-wire",
        &[
            "deprecated",
            "dpop",
            "header",
            "http_client",
            "json",
            "keyring",
            "lines",
            "oauth",
            "param_headers",
            "route",
            "schema",
            "skills",
            "sse",
            "sync",
            "time",
        ],
    );
}

#[test]
fn mcp_uri_template_root() {
    check(
        "mcp-uri-template",
        &["TemplateError", "UriTemplate", "percent_decode"],
    );
}

#[test]
fn mcp_toolbox_root() {
    check("mcp-toolbox", &["commands", "files", "http", "openapi"]);
}

#[test]
fn mcp_redis_root() {
    check(
        "mcp-redis",
        &[
            "DEFAULT_PREFIX",
            "DEFAULT_TIMEOUT",
            "RedisStore",
            "RedisStoreBuilder",
            "redis",
        ],
    );
}

#[test]
fn mcp_otel_root() {
    // What a program names: the export it sets up, the handle it gives the
    // HTTP server for `/metrics`, the error, the conventions' names and
    // trace context. What the framework's crates call to record operations
    // is in `instrumentation`.
    check(
        "mcp-otel",
        &[
            "Prometheus",
            "Telemetry",
            "TelemetryError",
            "conventions",
            "instrumentation",
            "propagation",
            "reexport",
        ],
    );
}

#[test]
fn mcp_compose_root() {
    // What a program names: a mount's configuration (or the hosts'
    // `mcpServers` document), the mounting, the running mounts and the refusal.
    check(
        "mcp-compose",
        &["Mount", "MountError", "Mounted", "config", "mount"],
    );
}

#[test]
fn mcp_testing_root() {
    // The harness, why it could not connect, and the snapshot variable.
    check("mcp-testing", &["Error", "SNAPSHOTS_ENV", "TestClient"]);
}
