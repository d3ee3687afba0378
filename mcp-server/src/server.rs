//! [`Server`] and its builder.

use std::sync::Arc;
use std::time::Duration;

use mcp_types::lifecycle::ToolsCapability;
use mcp_types::{Implementation, JsonObject, ServerCapabilities};

use crate::dispatch::ServerCore;
use crate::error::Error;
use crate::registry::Registry;
use crate::tool::{ToolBox, ToolEntry};

/// Default page size of `tools/list`.
const DEFAULT_PAGE_SIZE: usize = 100;
/// Default limit on one incoming message (a stdio line, an HTTP body).
pub(crate) const DEFAULT_MAX_MESSAGE: usize = 4 * 1024 * 1024;

/// Configures a [`Server`]: identity, tools and limits.
///
/// ```
/// use mcp_server::{tool, Server};
///
/// pub struct Hello;
///
/// #[tool(description = "Greetings")]
/// impl Hello {
///     #[describe("Say hello")]
///     pub fn hello(&self, #[param("Who to greet")] name: String) -> String {
///         format!("Hello, {name}!")
///     }
/// }
///
/// let server = Server::builder("hello", "1.0.0")
///     .instructions("Use `hello` to greet someone.")
///     .toolbox(Hello)
///     .build();
/// assert_eq!(server.tool_names(), ["hello"]);
/// ```
#[derive(Debug)]
#[must_use]
pub struct ServerBuilder {
    info: Implementation,
    instructions: Option<String>,
    tools: Vec<ToolEntry>,
    page_size: usize,
    list_ttl: Duration,
    max_message: usize,
    shutdown_grace: Duration,
}

impl ServerBuilder {
    /// Sets the human-readable instructions sent to the client (for the model).
    pub fn instructions(mut self, text: impl Into<String>) -> Self {
        self.instructions = Some(text.into());
        self
    }

    /// Sets the display title in `serverInfo`.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.info.title = Some(title.into());
        self
    }

    /// Adds every tool of a toolbox (a `#[tool]` impl, or a `#[tool]` function's struct).
    pub fn toolbox<T: ToolBox>(mut self, toolbox: T) -> Self {
        self.tools.extend(
            toolbox
                .into_tools()
                .into_iter()
                .map(|t| t.with_toolbox(T::NAME)),
        );
        self
    }

    /// Sets how many tools one `tools/list` page holds (default 100).
    pub fn page_size(mut self, n: usize) -> Self {
        self.page_size = n.max(1);
        self
    }

    /// Sets the `ttlMs` of modern-era `tools/list` and `server/discover` results:
    /// how long a client may cache them (default 0: do not cache).
    pub fn cache_ttl(mut self, ttl: Duration) -> Self {
        self.list_ttl = ttl;
        self
    }

    /// Sets the largest incoming message accepted, in bytes (default 4 MiB).
    /// A larger one is answered with an error and skipped.
    pub fn max_message_size(mut self, bytes: usize) -> Self {
        self.max_message = bytes.max(1024);
        self
    }

    /// Sets how long calls in flight may run once the client has closed the
    /// connection before they are cancelled (default 5 s).
    pub fn shutdown_grace(mut self, grace: Duration) -> Self {
        self.shutdown_grace = grace;
        self
    }

    /// Builds the server.
    ///
    /// # Panics
    ///
    /// If two tools share a name; [`try_build`](Self::try_build) returns the error instead.
    #[track_caller]
    pub fn build(self) -> Server {
        match self.try_build() {
            Ok(server) => server,
            Err(e) => panic!("{e}"),
        }
    }

    /// Builds the server, or says why the configuration is invalid.
    pub fn try_build(self) -> Result<Server, Error> {
        let registry = Registry::new(self.tools)?;
        let capabilities = ServerCapabilities {
            tools: Some(ToolsCapability::default()),
            logging: Some(JsonObject::new()),
            ..ServerCapabilities::default()
        };
        let ttl_ms = u64::try_from(self.list_ttl.as_millis()).unwrap_or(u64::MAX);
        Ok(Server {
            core: Arc::new(ServerCore::new(
                self.info,
                self.instructions,
                capabilities,
                registry,
                self.page_size,
                ttl_ms,
            )),
            max_message: self.max_message,
            shutdown_grace: self.shutdown_grace,
        })
    }
}

/// An MCP server: tools plus the protocol handling for both eras. Serve it
/// with [`serve_stdio`](Self::serve_stdio).
#[derive(Clone)]
pub struct Server {
    pub(crate) core: Arc<ServerCore>,
    pub(crate) max_message: usize,
    pub(crate) shutdown_grace: Duration,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("name", &self.core.info.name)
            .field("tools", &self.tool_names())
            .finish_non_exhaustive()
    }
}

impl Server {
    /// Starts configuring a server named `name` at `version` (its `serverInfo`).
    pub fn builder(name: impl Into<String>, version: impl Into<String>) -> ServerBuilder {
        ServerBuilder {
            info: Implementation::new(name, version),
            instructions: None,
            tools: Vec::new(),
            page_size: DEFAULT_PAGE_SIZE,
            list_ttl: Duration::ZERO,
            max_message: DEFAULT_MAX_MESSAGE,
            shutdown_grace: Duration::from_secs(5),
        }
    }

    /// The names of the tools, in `tools/list` order.
    pub fn tool_names(&self) -> Vec<String> {
        let registry = self
            .core
            .registry
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let (tools, _) = registry.page(None, registry.len()).unwrap_or_default();
        tools.into_iter().map(|t| t.name).collect()
    }

    /// The server's name and version.
    pub fn info(&self) -> &Implementation {
        &self.core.info
    }
}
