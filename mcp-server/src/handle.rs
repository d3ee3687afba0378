//! [`ServerHandle`]: changing a running server's tools, prompts and resources, from outside
//! ([`Server::handle`](crate::Server::handle)) or from inside a tool
//! ([`Context::server`]).

use std::any::Any;
use std::sync::Arc;

use crate::context::Context;
use crate::error::Error;
use crate::prompt::PromptEntry;
use crate::registry::Catalog;
use crate::resource::{ResourceEntry, TemplateEntry};
use crate::tool::{ToolBox, ToolEntry};

/// Changes a running server's tools: add, remove, enable, disable, one tool
/// or a whole toolbox. Every change that alters the visible list notifies the
/// clients that asked (`notifications/tools/list_changed` to initialized
/// legacy sessions; an event on 2026-07-28 `subscriptions/listen` streams that
/// opted in); a burst of changes yields one notification.
///
/// Disabled and removed tools vanish from `tools/list`, and calling them is an
/// unknown-tool error.
///
/// ```
/// use oxmcp_server::{tool, Server};
///
/// pub struct Admin;
///
/// #[tool(description = "Administration")]
/// impl Admin {
///     #[describe("Reset everything")]
///     pub fn reset(&self) -> String { "done".into() }
/// }
///
/// let server = Server::builder("app", "1.0").build();
/// let handle = server.handle();
/// handle.add_toolbox(Admin).unwrap();
/// assert_eq!(handle.tool_names(), ["reset"]);
/// handle.disable_toolbox("Admin");
/// assert!(handle.tool_names().is_empty());
/// assert!(handle.add_toolbox(Admin).is_err(), "names stay unique, even disabled");
/// ```
#[derive(Clone)]
pub struct ServerHandle {
    name: Arc<str>,
    catalog: Arc<Catalog>,
}

impl std::fmt::Debug for ServerHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerHandle")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl ServerHandle {
    pub(crate) fn new(name: &str, catalog: Arc<Catalog>) -> Self {
        ServerHandle {
            name: name.into(),
            catalog,
        }
    }

    /// The live lists (the tool search reads the tools from them).
    pub(crate) fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    /// Adds one tool. A name already in use (even by a disabled tool) is an error.
    pub fn add_tool(&self, tool: ToolEntry) -> Result<(), Error> {
        self.catalog.add(crate::tool::Items {
            tools: vec![tool],
            ..crate::tool::Items::default()
        })
    }

    /// Adds everything a toolbox offers (tools, prompts, resources,
    /// templates), or nothing if one of their names (or URIs) is taken.
    pub fn add_toolbox<T: ToolBox>(&self, toolbox: T) -> Result<(), Error> {
        self.catalog.add(toolbox.into_items().in_toolbox(T::NAME))
    }

    /// Replaces everything the toolbox named `toolbox` offers (tools,
    /// prompts, resources, templates) with `items`, which join that toolbox:
    /// for sources whose offer changes as a whole, such as a mounted server
    /// whose list changed. Each list changes at once, so a client never sees
    /// it half-replaced, and hears of it once; an item the toolbox already had
    /// under the same name keeps its enabled state. A name (or URI) taken by
    /// an item of another toolbox is an error, and then nothing changes.
    ///
    /// ```
    /// use oxmcp_server::{tool::Items, Server, ToolEntry};
    /// use serde_json::json;
    ///
    /// let tool = |name: &str| {
    ///     ToolEntry::dynamic(name, "A plugin's tool", json!({"type": "object"}), |_, _| async { "ok" })
    ///         .unwrap()
    /// };
    /// let server = Server::builder("app", "1.0").build();
    /// let handle = server.handle();
    /// let mut items = Items::default();
    /// items.tools = vec![tool("a"), tool("b")];
    /// handle.replace_toolbox("plugin", items).unwrap();
    /// let mut items = Items::default();
    /// items.tools = vec![tool("c")];
    /// handle.replace_toolbox("plugin", items).unwrap();
    /// assert_eq!(handle.tool_names(), ["c"]);
    /// ```
    pub fn replace_toolbox(&self, toolbox: &str, items: crate::tool::Items) -> Result<(), Error> {
        let items = items.in_toolbox(toolbox.to_owned());
        self.catalog.replace_toolbox(toolbox, items)
    }

    /// Removes a tool; `false` if there was none by that name.
    pub fn remove_tool(&self, name: &str) -> bool {
        self.catalog.tools.remove(|t| t.name() == name) > 0
    }

    /// Removes everything a toolbox offered (by its type name); returns how many items.
    pub fn remove_toolbox(&self, toolbox: &str) -> usize {
        self.catalog.remove_toolbox(toolbox)
    }

    /// Enables a tool; `false` if there is none by that name.
    pub fn enable_tool(&self, name: &str) -> bool {
        self.catalog.tools.set_enabled(|t| t.name() == name, true) > 0
    }

    /// Disables a tool; `false` if there is none by that name.
    pub fn disable_tool(&self, name: &str) -> bool {
        self.catalog.tools.set_enabled(|t| t.name() == name, false) > 0
    }

    /// Enables a toolbox (its items that are themselves enabled reappear).
    pub fn enable_toolbox(&self, toolbox: &str) -> usize {
        self.catalog.set_toolbox_enabled(toolbox, true)
    }

    /// Disables a whole toolbox (tools, prompts, resources), including items added to it later.
    pub fn disable_toolbox(&self, toolbox: &str) -> usize {
        self.catalog.set_toolbox_enabled(toolbox, false)
    }

    /// The names of the visible tools, in `tools/list` order.
    pub fn tool_names(&self) -> Vec<String> {
        keys(&self.catalog.tools)
    }

    /// Adds one prompt. A name already in use (even by a disabled prompt) is an error.
    pub fn add_prompt(&self, prompt: PromptEntry) -> Result<(), Error> {
        let completing = (!prompt.completions.is_empty()).then(|| prompt.name().to_owned());
        self.catalog.prompts.add(vec![prompt])?;
        self.catalog.check_completions(completing.as_deref());
        Ok(())
    }

    /// Removes a prompt; `false` if there was none by that name.
    pub fn remove_prompt(&self, name: &str) -> bool {
        self.catalog.prompts.remove(|p| p.name() == name) > 0
    }

    /// Enables a prompt; `false` if there is none by that name.
    pub fn enable_prompt(&self, name: &str) -> bool {
        self.catalog.prompts.set_enabled(|p| p.name() == name, true) > 0
    }

    /// Disables a prompt; `false` if there is none by that name.
    pub fn disable_prompt(&self, name: &str) -> bool {
        self.catalog
            .prompts
            .set_enabled(|p| p.name() == name, false)
            > 0
    }

    /// The names of the visible prompts, in `prompts/list` order.
    pub fn prompt_names(&self) -> Vec<String> {
        keys(&self.catalog.prompts)
    }

    /// Adds one static resource. A URI already in use is an error.
    pub fn add_resource(&self, resource: ResourceEntry) -> Result<(), Error> {
        // Through the catalog, so a page is checked as at build (its CSP
        // origins) before any client lists it.
        self.catalog.add(crate::tool::Items {
            resources: vec![resource],
            ..crate::tool::Items::default()
        })
    }

    /// Removes a static resource; `false` if there was none with that URI.
    pub fn remove_resource(&self, uri: &str) -> bool {
        self.catalog.resources.remove(|r| r.uri() == uri) > 0
    }

    /// Enables a static resource; `false` if there is none with that URI.
    pub fn enable_resource(&self, uri: &str) -> bool {
        self.catalog.resources.set_enabled(|r| r.uri() == uri, true) > 0
    }

    /// Disables a static resource; `false` if there is none with that URI.
    pub fn disable_resource(&self, uri: &str) -> bool {
        self.catalog
            .resources
            .set_enabled(|r| r.uri() == uri, false)
            > 0
    }

    /// The URIs of the visible static resources, in `resources/list` order.
    pub fn resource_uris(&self) -> Vec<String> {
        keys(&self.catalog.resources)
    }

    /// Adds one resource template. A URI template already in use is an error.
    pub fn add_resource_template(&self, template: TemplateEntry) -> Result<(), Error> {
        let completing =
            (!template.completions.is_empty()).then(|| template.uri_template().to_owned());
        self.catalog.templates.add(vec![template])?;
        self.catalog.check_completions(completing.as_deref());
        Ok(())
    }

    /// Removes a resource template; `false` if there was none with that URI template.
    pub fn remove_resource_template(&self, uri_template: &str) -> bool {
        self.catalog
            .templates
            .remove(|t| t.uri_template() == uri_template)
            > 0
    }

    /// Enables a resource template; `false` if there is none with that URI template.
    pub fn enable_resource_template(&self, uri_template: &str) -> bool {
        self.catalog
            .templates
            .set_enabled(|t| t.uri_template() == uri_template, true)
            > 0
    }

    /// Disables a resource template; `false` if there is none with that URI template.
    pub fn disable_resource_template(&self, uri_template: &str) -> bool {
        self.catalog
            .templates
            .set_enabled(|t| t.uri_template() == uri_template, false)
            > 0
    }

    /// The URI templates of the visible resource templates, in `resources/templates/list` order.
    pub fn resource_templates(&self) -> Vec<String> {
        keys(&self.catalog.templates)
    }

    /// Tells the clients subscribed to `uri` that the resource changed:
    /// `notifications/resources/updated` to legacy sessions that sent
    /// `resources/subscribe` for it, and to 2026-07-28 `subscriptions/listen`
    /// streams whose filter names it. Nobody else hears of it.
    pub fn resource_updated(&self, uri: &str) {
        self.catalog.updated(uri);
    }
}

/// The keys of the visible entries of `live`, in list order.
fn keys<E: crate::registry::Entry>(live: &crate::registry::Live<E>) -> Vec<String> {
    live.snapshot()
        .entries()
        .iter()
        .map(|e| e.key().to_owned())
        .collect()
}

impl Context {
    /// A handle on the server serving this call, to add, remove, enable or
    /// disable tools from inside a tool (plugin loaders, feature flags).
    ///
    /// `Some` whenever a [`Server`](crate::Server) dispatched the request:
    /// every tool call, prompt, resource read and completion it serves, on
    /// every transport (stdio, HTTP, `serve_io` in the same process, a server
    /// mounted by oxmcp-compose, which gets its own handle). `None` only for a
    /// [`detached`](Self::detached) context, which no server made: a tool
    /// method called directly (a unit test), [`ToolEntry::invoke`](crate::ToolEntry::invoke)
    /// with `Context::detached()`, and a local toolbox in an oxmcp-agent tool
    /// set, whose calls the agent makes without a server. A tool that needs
    /// the handle says so in its error rather than panicking:
    ///
    /// ```
    /// use oxmcp_server::{tool, Context, ToolError};
    ///
    /// pub struct Flags;
    ///
    /// #[tool(description = "Feature flags")]
    /// impl Flags {
    ///     #[describe("Hide the tools of the beta toolbox")]
    ///     pub fn hide_beta(&self, ctx: Context) -> Result<String, ToolError> {
    ///         let server = ctx
    ///             .server()
    ///             .ok_or_else(|| ToolError::new("no server serves this call: hide_beta needs one"))?;
    ///         Ok(format!("{} tools hidden", server.disable_toolbox("beta")))
    ///     }
    /// }
    ///
    /// // Called directly, as in a unit test: no server, so the tool says so.
    /// let refused = Flags.hide_beta(Context::detached()).unwrap_err();
    /// assert_eq!(refused.to_string(), "no server serves this call: hide_beta needs one");
    /// ```
    pub fn server(&self) -> Option<ServerHandle> {
        let any: &(dyn Any + Send + Sync) = self.server_any()?;
        any.downcast_ref::<ServerHandle>().cloned()
    }
}
