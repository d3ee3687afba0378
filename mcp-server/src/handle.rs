//! [`ServerHandle`]: changing a running server's tools, from outside
//! ([`Server::handle`](crate::Server::handle)) or from inside a tool
//! ([`Context::server`]).

use std::any::Any;
use std::sync::Arc;

use crate::context::Context;
use crate::error::Error;
use crate::registry::LiveTools;
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
/// use mcp_server::{tool, Server};
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
    tools: Arc<LiveTools>,
}

impl std::fmt::Debug for ServerHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerHandle")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl ServerHandle {
    pub(crate) fn new(name: &str, tools: Arc<LiveTools>) -> Self {
        ServerHandle {
            name: name.into(),
            tools,
        }
    }

    /// Adds one tool. A name already in use (even by a disabled tool) is an error.
    pub fn add_tool(&self, tool: ToolEntry) -> Result<(), Error> {
        self.tools.add(vec![tool])
    }

    /// Adds every tool of a toolbox, or none if one of their names is taken.
    pub fn add_toolbox<T: ToolBox>(&self, toolbox: T) -> Result<(), Error> {
        self.tools.add(
            toolbox
                .into_tools()
                .into_iter()
                .map(|t| t.with_toolbox(T::NAME))
                .collect(),
        )
    }

    /// Removes a tool; `false` if there was none by that name.
    pub fn remove_tool(&self, name: &str) -> bool {
        self.tools.remove(|t| t.name() == name) > 0
    }

    /// Removes every tool of a toolbox (by its type name); returns how many.
    pub fn remove_toolbox(&self, toolbox: &str) -> usize {
        self.tools.remove(|t| t.toolbox() == toolbox)
    }

    /// Enables a tool; `false` if there is none by that name.
    pub fn enable_tool(&self, name: &str) -> bool {
        self.tools.set_enabled(|t| t.name() == name, true) > 0
    }

    /// Disables a tool; `false` if there is none by that name.
    pub fn disable_tool(&self, name: &str) -> bool {
        self.tools.set_enabled(|t| t.name() == name, false) > 0
    }

    /// Enables a toolbox (its tools that are themselves enabled reappear).
    pub fn enable_toolbox(&self, toolbox: &str) -> usize {
        self.tools.set_toolbox_enabled(toolbox, true)
    }

    /// Disables a whole toolbox, including tools added to it later.
    pub fn disable_toolbox(&self, toolbox: &str) -> usize {
        self.tools.set_toolbox_enabled(toolbox, false)
    }

    /// The names of the visible tools, in `tools/list` order.
    pub fn tool_names(&self) -> Vec<String> {
        let registry = self.tools.snapshot();
        let (tools, _) = registry.page(None, registry.len()).unwrap_or_default();
        tools.into_iter().map(|t| t.name).collect()
    }
}

impl Context {
    /// A handle on the server serving this call, to add, remove, enable or
    /// disable tools from inside a tool (plugin loaders, feature flags).
    /// `None` for a [`detached`](Self::detached) context.
    pub fn server(&self) -> Option<ServerHandle> {
        let any: &(dyn Any + Send + Sync) = self.server_any()?;
        any.downcast_ref::<ServerHandle>().cloned()
    }
}
