//! [`Server`] and its builder.

use std::sync::Arc;
use std::time::Duration;

use oxmcp_types::{Implementation, JsonObject};

use crate::dispatch::{CallLimits, CoreParts, Policy, ServerCore};
use crate::error::Error;
use crate::handle::ServerHandle;
use crate::policy::{Caller, ToolInfo};
use crate::prompt::PromptEntry;
use crate::registry::Catalog;
use crate::resource::{ResourceEntry, TemplateEntry};
use crate::tool::Items;
use crate::tool::{ToolBox, ToolEntry};

/// Default page size of `tools/list`.
const DEFAULT_PAGE_SIZE: usize = 100;

/// Default limit on one incoming message (a stdio line, an HTTP body).
pub(crate) const DEFAULT_MAX_MESSAGE: usize = 4 * 1024 * 1024;

/// Configures a [`Server`]: identity, tools and limits.
///
/// ```
/// use oxmcp_server::{tool, Server};
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
    items: Items,
    /// Declare prompts and resources even with none at start.
    offer_all: bool,
    /// The key signing `requestState` (random per process when unset).
    state_key: Option<crate::state::SigningKeys>,
    page_size: usize,
    list_ttl: Duration,
    #[cfg(feature = "stdio")]
    stdio: StdioSettings,
    policy: Policy,
    /// Extensions offered, with their settings, in declaration order.
    extensions: Vec<(String, JsonObject)>,
    /// The directory of skills to serve (the skills extension).
    #[cfg(feature = "skills")]
    skills: Option<std::path::PathBuf>,
}

impl std::fmt::Debug for Policy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Policy")
            .field("visibility", &self.tools.visibility.is_some())
            .field("layers", &self.tools.layers)
            .field("call_timeout", &self.tools.call_timeout)
            .finish_non_exhaustive()
    }
}

impl ServerBuilder {
    /// Decides, per caller, which tools it may see and call (least privilege).
    /// Hidden tools are absent from its `tools/list` (then marked
    /// `cacheScope: private`) and calling one is an unknown-tool error.
    ///
    /// ```
    /// use oxmcp_server::Server;
    ///
    /// let server = Server::builder("app", "1.0")
    ///     // Only callers presenting the admin token see the Admin toolbox.
    ///     .visibility(|caller, tool| {
    ///         tool.toolbox != "Admin" || caller.header("authorization") == Some("Bearer admin-token")
    ///     })
    ///     .build();
    /// # let _ = server;
    /// ```
    pub fn visibility(
        mut self,
        hook: impl Fn(&Caller, &ToolInfo<'_>) -> bool + Send + Sync + 'static,
    ) -> Self {
        self.policy.tools.visibility = Some(std::sync::Arc::new(hook));
        self
    }

    /// Decides, per caller, which prompts, resources and resource templates
    /// it may see (as [`visibility`](Self::visibility) does for tools). A
    /// hidden one is absent from its lists (then marked `cacheScope:
    /// private`), and getting, reading or completing it is answered as if it
    /// did not exist.
    ///
    /// ```
    /// use oxmcp_server::policy::Offer;
    /// use oxmcp_server::Server;
    ///
    /// let server = Server::builder("app", "1.0")
    ///     // Internal resources only for callers on the internal network header.
    ///     .offer_visibility(|caller, item| match item.offer {
    ///         Offer::Resource(r) if r.uri.starts_with("internal://") => caller.header("x-internal") == Some("1"),
    ///         _ => true,
    ///     })
    ///     .build();
    /// # let _ = server;
    /// ```
    pub fn offer_visibility(
        mut self,
        hook: impl Fn(&Caller, &crate::policy::OfferInfo<'_>) -> bool + Send + Sync + 'static,
    ) -> Self {
        self.policy.offer_visibility = Some(std::sync::Arc::new(hook));
        self
    }

    /// Adds a tower layer around every tool call: any `Layer` over
    /// [`ToolService`](crate::tool::ToolService), such as tower's
    /// `TimeoutLayer`, `ConcurrencyLimitLayer` or `LoadShedLayer`, a
    /// [`Middleware`](crate::policy::Middleware) through
    /// [`MiddlewareLayer`](crate::policy::MiddlewareLayer) or
    /// [`from_fn`](crate::policy::from_fn), and the built-in
    /// [`AuditLog`](crate::policy::AuditLog) and
    /// [`RateLimit`](crate::policy::RateLimit). Layers run in the order
    /// added, the first outermost, as in `tower::ServiceBuilder`.
    ///
    /// A layer's error never drops the reply: an
    /// [`ErrorObject`](crate::types::ErrorObject) is answered as that
    /// JSON-RPC error, any other error as an `isError` result naming the
    /// tool and what stopped it (a timeout, load shedding, or the error's
    /// message).
    ///
    /// ```
    /// use std::time::Duration;
    /// use tower::limit::ConcurrencyLimitLayer;
    /// use tower::timeout::TimeoutLayer;
    ///
    /// let server = oxmcp_server::Server::builder("app", "1.0")
    ///     .layer(TimeoutLayer::new(Duration::from_secs(30)))
    ///     .layer(ConcurrencyLimitLayer::new(8))
    ///     .build();
    /// # let _ = server;
    /// ```
    pub fn layer<L>(mut self, layer: L) -> Self
    where
        L: tower::Layer<crate::tool::ToolService> + Send + Sync + 'static,
        L::Service: tower::Service<crate::tool::ToolRequest, Response = oxmcp_types::CallToolResult>
            + Clone
            + Send
            + Sync
            + 'static,
        <L::Service as tower::Service<crate::tool::ToolRequest>>::Error: Into<tower::BoxError>,
        <L::Service as tower::Service<crate::tool::ToolRequest>>::Future: Send + 'static,
    {
        self.policy.tools.layers.push(layer);
        self
    }

    /// Tool search, for servers with more tools than a model's context
    /// should hold: `tools/list` offers only the tools `search` pins and
    /// one search tool, which ranks every tool the caller may see (by name,
    /// description, and parameter names and descriptions) and answers with
    /// the best matches' full definitions, as `structuredContent` (by its
    /// output schema) and as JSON text. Every tool stays callable by name,
    /// listed or not, and tools added, removed, enabled or disabled at run
    /// time are searched as they are now. [`try_build`](Self::try_build)
    /// refuses a search tool named as one of the server's tools, a pinned
    /// tool that does not exist, and limits out of range (see
    /// [`ToolSearch::check`](crate::tool::search::ToolSearch::check)).
    ///
    /// ```
    /// use oxmcp_server::tool::search::ToolSearch;
    /// use oxmcp_server::Server;
    ///
    /// let server = Server::builder("app", "1.0")
    ///     .tool_search(ToolSearch::new().limits(5, 20))
    ///     .build();
    /// assert_eq!(server.tool_names(), ["search_tools"]);
    /// ```
    pub fn tool_search(mut self, search: crate::tool::search::ToolSearch) -> Self {
        self.policy.tools.search = Some(Arc::new(search));
        self
    }

    /// Stops any call running longer than this (per-tool timeouts win) and
    /// answers it with an `isError` result.
    pub fn call_timeout(mut self, timeout: Duration) -> Self {
        self.policy.tools.call_timeout = Some(timeout);
        self
    }

    /// Caps what one tool result may carry, in characters of text and of
    /// `structuredContent`, for every tool without a cap of its own
    /// (`#[tool(max_result_chars = ...)]`, [`ToolEntry::with_max_result_chars`]).
    /// The default, [`DEFAULT_MAX_RESULT_CHARS`](crate::tool::DEFAULT_MAX_RESULT_CHARS),
    /// is about what Claude Code shows before it saves a result to a file;
    /// at most [`MAX_RESULT_CHARS`](crate::tool::MAX_RESULT_CHARS), and a
    /// cap above the default is announced to Claude hosts in each tool's
    /// `_meta["anthropic/maxResultSizeChars"]`. A result over its cap is
    /// cut where it stays valid, with a marker saying how much was cut.
    pub fn max_result_chars(mut self, chars: usize) -> Self {
        self.policy.tools.max_result_chars = Some(chars);
        self
    }

    /// Limits the calls each caller makes: in general, per tool, and (on
    /// HTTP) per request; see [`RateLimit`](crate::policy::RateLimit). A
    /// zero rate is refused when the server is built.
    pub fn rate_limit(mut self, limit: crate::policy::RateLimit) -> Self {
        self.policy.tools.rate_limit = Some(limit);
        self
    }

    /// Where the results of tools marked `cache` (`#[tool(read_only, cache
    /// = "60s")]`, [`ToolEntry::with_cache`]) are kept: in memory, and on a
    /// store shared by the instances if it says so. A server with such a
    /// tool and no cache set gets [`ResultCache::new`](crate::policy::ResultCache::new).
    pub fn result_cache(mut self, cache: crate::policy::ResultCache) -> Self {
        self.policy.tools.cache = Some(cache);
        self
    }

    /// Bounds the calls running at once (`running`) and those waiting for a
    /// slot (`waiting`), over all clients; beyond both, a call is refused at
    /// once with a "server busy" error (-32000) instead of queueing without
    /// bound. The default is [`DEFAULT_MAX_RUNNING_CALLS`](crate::policy::DEFAULT_MAX_RUNNING_CALLS) running and
    /// [`DEFAULT_MAX_WAITING_CALLS`](crate::policy::DEFAULT_MAX_WAITING_CALLS) waiting.
    pub fn max_concurrent_calls(mut self, running: usize, waiting: usize) -> Self {
        self.policy.tools.limits = CallLimits::new(running, waiting);
        self
    }

    /// Bounds the tasks (the tasks extension) one caller holds on this
    /// instance, running or ended and not yet expired; beyond it a call
    /// that would become a task is refused with a "server busy" error
    /// (-32000), and other callers are unaffected. A caller is whom the
    /// request speaks for (with authorization), else its legacy session;
    /// requests with neither all count as one caller. The default is
    /// [`DEFAULT_MAX_TASKS_PER_CALLER`](crate::policy::DEFAULT_MAX_TASKS_PER_CALLER).
    pub fn max_tasks_per_caller(mut self, tasks: usize) -> Self {
        self.policy.max_tasks_per_caller = Some(tasks);
        self
    }

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
        self.items.extend(toolbox.into_items().in_toolbox(T::NAME));
        self
    }

    /// Adds one tool on its own (e.g. a [`ToolEntry::dynamic`] tool).
    pub fn tool(mut self, tool: ToolEntry) -> Self {
        self.items.tools.push(tool);
        self
    }

    /// Adds tools made at run time (an OpenAPI document's operations, a
    /// plugin's tools), in order.
    pub fn tools(mut self, tools: impl IntoIterator<Item = ToolEntry>) -> Self {
        self.items.tools.extend(tools);
        self
    }

    /// Adds one prompt on its own (e.g. a [`PromptEntry::dynamic`] prompt).
    pub fn prompt(mut self, prompt: PromptEntry) -> Self {
        self.items.prompts.push(prompt);
        self
    }

    /// Adds one static resource on its own (e.g. a [`ResourceEntry::dynamic`] one).
    pub fn resource(mut self, resource: ResourceEntry) -> Self {
        self.items.resources.push(resource);
        self
    }

    /// Adds one resource template on its own (e.g. a [`TemplateEntry::dynamic`] one).
    pub fn resource_template(mut self, template: TemplateEntry) -> Self {
        self.items.templates.push(template);
        self
    }

    /// Sets the key that signs the `requestState` of 2026-07-28 input rounds
    /// (an elicitation, a sampling or a roots request answered by the
    /// client's retry). Without one, each process draws a random key, so a
    /// retry must reach the same process; servers behind a load balancer
    /// share one key (32 random bytes or more: [`try_build`](Self::try_build)
    /// refuses a shorter one).
    pub fn request_state_key(mut self, key: impl Into<Vec<u8>>) -> Self {
        self.state_key = Some(crate::state::SigningKeys::new("default", key));
        self
    }

    /// Sets the keys that sign and check the `requestState` of 2026-07-28
    /// input rounds, with rotation: one signs, the others still verify
    /// (see [`SigningKeys`](crate::state::SigningKeys)). Every instance of a
    /// service is given the same keys.
    pub fn request_state_keys(mut self, keys: crate::state::SigningKeys) -> Self {
        self.state_key = Some(keys);
        self
    }

    /// Declares the `prompts`, `resources` and `completions` capabilities
    /// even with none at start, for servers that add prompts, resources and
    /// templates (and their completion functions) at run time through
    /// [`ServerHandle`](crate::ServerHandle). A server declares them by
    /// itself when it starts with some: `completions` when a prompt or a
    /// template it starts with has a completion function. Capabilities are
    /// fixed when a client connects, so a server that starts without and
    /// adds a completion later answers `completion/complete` only if it
    /// declared them here (otherwise it stays the -32601 of a method it
    /// does not offer, and adding one logs a warning).
    pub fn offer_prompts_and_resources(mut self) -> Self {
        self.offer_all = true;
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

    /// Sets the largest incoming stdio message accepted, in bytes (default
    /// 4 MiB). A larger one is answered with an error and skipped. (HTTP
    /// bodies have their own limit, `HttpConfig::max_body_size`.)
    #[cfg(feature = "stdio")]
    pub fn max_message_size(mut self, bytes: usize) -> Self {
        self.stdio.max_message = bytes.max(1024);
        self
    }

    /// Whether [`Server::serve_stdio`] redirects the process's stdout to stderr
    /// and keeps a private handle for the protocol (default `true`), so that
    /// a stray `println!` cannot corrupt the protocol stream. Unix only: on
    /// other platforms the protocol shares stdout with the program.
    #[cfg(feature = "stdio")]
    pub fn guard_stdout(mut self, guard: bool) -> Self {
        self.stdio.guard_stdout = guard;
        self
    }

    /// Sets how long calls in flight may run once the client has closed the
    /// connection before they are cancelled (default 5 s).
    #[cfg(feature = "stdio")]
    pub fn shutdown_grace(mut self, grace: Duration) -> Self {
        self.stdio.shutdown_grace = grace;
        self
    }

    /// Offers extension `id` (SEP-2133), with its settings (often empty):
    /// listed in `capabilities.extensions` of `initialize` and
    /// `server/discover`. An extension is in use with a client only when the
    /// client declared it too ([`Context::client_extension`](crate::Context::client_extension)).
    /// [`try_build`](Self::try_build) refuses an identifier that is not
    /// `vendor.prefix/name`.
    pub fn extension(mut self, id: impl Into<String>, settings: JsonObject) -> Self {
        self.extensions.push((id.into(), settings));
        self
    }

    /// Serves the skills in `dir` (SEP-2640, `io.modelcontextprotocol/skills`):
    /// each folder holding a `SKILL.md` (YAML front matter with the skill's
    /// `name`, the folder's, and a `description`; then its instructions) is
    /// a skill, and every file in it a `skill://<name>/<path>` resource.
    /// The server offers the extension (with `directoryRead`) and the
    /// resources capability, and answers `skills/list` and `skills/get`
    /// (every file's SHA-256 digest and size) and `resources/directory/read`.
    /// The directory is read by [`try_build`](Self::try_build), which
    /// refuses a malformed skill (a name against the naming rules, front
    /// matter missing or not naming the folder, more than 512 files or
    /// 16 MiB, a symbolic link inside a skill's folder).
    #[cfg(feature = "skills")]
    pub fn skills(mut self, dir: impl Into<std::path::PathBuf>) -> Self {
        self.skills = Some(dir.into());
        self
    }

    /// Reads the skills directory, if one was given: its files become
    /// resources and the skills extension is offered.
    #[cfg(feature = "skills")]
    fn load_skills(mut self) -> Result<(Self, Option<Arc<crate::skills::Skills>>), Error> {
        let Some(dir) = self.skills.take() else {
            return Ok((self, None));
        };
        let skills = Arc::new(crate::skills::Skills::load(&dir)?);
        self.items.resources.extend(skills.resources()?);
        let mut settings = JsonObject::new();
        settings.insert("directoryRead".into(), true.into());
        self.extensions
            .push((crate::skills::SKILLS.to_owned(), settings));
        Ok((self, Some(skills)))
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
        #[cfg(feature = "skills")]
        let (mut this, skills) = self.load_skills()?;
        #[cfg(not(feature = "skills"))]
        let mut this = self;
        let extensions = declared_extensions(&this.items, this.extensions)?;
        if let Some(keys) = &this.state_key {
            // `SigningKeys::new` cannot fail: its keys are checked here.
            keys.check()
                .map_err(|e| Error::Config(format!("requestState keys: {e}")))?;
        }
        if let Some(limit) = this.policy.tools.call_timeout {
            crate::tool::entry::check_timeout("call_timeout", limit)?;
        }
        let max_result_chars = match this.policy.tools.max_result_chars {
            Some(cap) => {
                crate::tool::entry::check_result_cap("max_result_chars", cap)?;
                cap
            }
            None => crate::tool::DEFAULT_MAX_RESULT_CHARS,
        };
        if let Some(limit) = this.policy.tools.rate_limit.take() {
            this.policy.tools.limiters = Some(Arc::new(limit.build()?));
        }
        match &this.policy.tools.cache {
            Some(cache) => cache.check()?,
            None if this.items.tools.iter().any(|t| t.cache.is_some()) => {
                this.policy.tools.cache = Some(crate::policy::ResultCache::new());
            }
            None => {}
        }
        if let Some(search) = &this.policy.tools.search {
            search.check(this.items.tools.iter().map(ToolEntry::name))?;
            let visibility = this.policy.tools.visibility.clone();
            let entry = crate::tool::search::entry(Arc::clone(search), visibility);
            this.items.tools.push(entry);
        }
        let catalog = Catalog::new(this.items, max_result_chars)?;
        let ttl_ms = u64::try_from(this.list_ttl.as_millis()).unwrap_or(u64::MAX);
        Ok(Server {
            core: Arc::new(ServerCore::new(CoreParts {
                info: this.info,
                instructions: this.instructions,
                offer_all: this.offer_all,
                extensions,
                catalog,
                page_size: this.page_size,
                list_ttl_ms: ttl_ms,
                policy: this.policy,
                signer: crate::ask::request_state::Signer::new(
                    this.state_key,
                    crate::ask::request_state::DEFAULT_STATE_TTL,
                ),
                #[cfg(feature = "skills")]
                skills,
            })),
            #[cfg(feature = "stdio")]
            stdio: this.stdio,
        })
    }
}

/// The extensions a server declares at `initialize`: those its items use,
/// offered without being asked (the tasks extension for a tool that may
/// run as a task, Apps for a page or a tool with Apps settings), and those
/// the builder declared, each once (a declaration may give an automatic
/// one settings of its own).
fn declared_extensions(
    items: &Items,
    declared: Vec<(String, JsonObject)>,
) -> Result<JsonObject, Error> {
    let mut automatic: Vec<&str> = Vec::new();
    if items
        .tools
        .iter()
        .any(|t| t.task != crate::tool::TaskSupport::Never)
    {
        automatic.push(oxmcp_types::extension::TASKS);
    }
    if items
        .resources
        .iter()
        .any(|r| crate::apps::is_page(r.resource()))
        || items
            .tools
            .iter()
            .any(|t| crate::apps::tool_ui(t.tool()).is_some())
    {
        automatic.push(oxmcp_types::extension::UI);
    }
    let mut extensions = JsonObject::new();
    for id in &automatic {
        extensions.insert((*id).to_owned(), JsonObject::new().into());
    }
    for (id, settings) in declared {
        oxmcp_types::extension::check_id(&id).map_err(|e| Error::Config(e.to_string()))?;
        let replaces_automatic = match automatic.iter().position(|a| *a == id) {
            Some(i) => {
                automatic.swap_remove(i);
                true
            }
            None => false,
        };
        if extensions.insert(id.clone(), settings.into()).is_some() && !replaces_automatic {
            return Err(Error::Config(format!("extension `{id}` is declared twice")));
        }
    }
    Ok(extensions)
}

/// An MCP server: tools plus the protocol handling for both eras. Serve it
/// with [`serve_stdio`](Self::serve_stdio).
#[derive(Clone)]
pub struct Server {
    pub(crate) core: Arc<ServerCore>,
    #[cfg(feature = "stdio")]
    pub(crate) stdio: StdioSettings,
}

/// The stdio transport's settings (HTTP has its own, in `HttpConfig`).
#[cfg(feature = "stdio")]
#[derive(Debug, Clone, Copy)]
pub(crate) struct StdioSettings {
    /// The largest message accepted, in bytes.
    pub(crate) max_message: usize,
    /// How long calls may finish once the input has closed.
    pub(crate) shutdown_grace: Duration,
    /// Whether the process's stdout is redirected to stderr while serving.
    pub(crate) guard_stdout: bool,
}

#[cfg(feature = "stdio")]
impl Default for StdioSettings {
    fn default() -> Self {
        StdioSettings {
            max_message: DEFAULT_MAX_MESSAGE,
            shutdown_grace: Duration::from_secs(5),
            guard_stdout: true,
        }
    }
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
            items: Items::default(),
            offer_all: false,
            state_key: None,
            extensions: Vec::new(),
            #[cfg(feature = "skills")]
            skills: None,
            page_size: DEFAULT_PAGE_SIZE,
            list_ttl: Duration::ZERO,
            #[cfg(feature = "stdio")]
            stdio: StdioSettings::default(),
            policy: Policy::default(),
        }
    }

    /// The names of the visible tools, in `tools/list` order.
    pub fn tool_names(&self) -> Vec<String> {
        self.handle().tool_names()
    }

    /// The server's name and version.
    pub fn info(&self) -> &Implementation {
        &self.core.info
    }

    /// A handle to change the server's tools while it serves.
    pub fn handle(&self) -> ServerHandle {
        self.core.handle.as_ref().clone()
    }
}
