//! Tool sets: local toolboxes and connected MCP servers, attached the same
//! way and called the same way.

use std::collections::{BTreeMap, HashSet};
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use futures_util::FutureExt as _;
use mcp_client::types::modern::SubscriptionFilter;
use mcp_client::{Client, Subscription};
use mcp_server::{ToolBox, ToolEntry};
use mcp_types::error::Chain;
use mcp_types::tool::is_valid_tool_name;
use mcp_types::Tool;
use mcp_wire::sync::lock;

use crate::catalog::{Diagnostic, SetTool, Target, ToolSetError, Tools};
use crate::view::ToolView;

/// Tools from local toolboxes and MCP servers, with unique names.
///
/// Cheap to clone: clones share the same tools. Remote tools are refreshed by
/// [`refresh`](Self::refresh), which the agent calls before every model turn:
/// a server's `notifications/tools/list_changed` (legacy era) or a change
/// reported on its `subscriptions/listen` stream (2026-07-28) is seen on the
/// next turn.
///
/// ```
/// use mcp_agent::{Source, ToolSet};
/// use mcp_server::tool;
///
/// pub struct Clock;
///
/// #[tool(description = "Time keeping")]
/// impl Clock {
///     #[describe("The current Unix time in seconds")]
///     pub fn now(&self) -> u64 {
///         1_700_000_000
///     }
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), mcp_agent::ToolSetError> {
/// let tools = ToolSet::builder()
///     .toolbox(Clock)
///     .attach(Source::toolbox(Clock).prefix("utc_"))
///     .build()
///     .await?;
/// assert_eq!(tools.names(), ["now", "utc_now"]);
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct ToolSet {
    inner: Arc<Inner>,
}

struct Inner {
    sources: Vec<SourceState>,
    tools: Mutex<Arc<Tools>>,
    /// Serializes refreshes so two runs do not list the same servers twice.
    refresh: tokio::sync::Mutex<()>,
}

/// Where tools come from, with how they join a set: a name prefix, an allow
/// list and a block list (both of the tools' own names, before the prefix).
pub struct Source {
    kind: SourceKind,
    label: Option<String>,
    prefix: String,
    allow: Option<HashSet<String>>,
    block: HashSet<String>,
}

enum SourceKind {
    Local {
        label: &'static str,
        entries: Vec<ToolEntry>,
    },
    Remote(Client),
}

impl fmt::Debug for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Source")
            .field("label", &self.label())
            .field("prefix", &self.prefix)
            .field("allow", &self.allow)
            .field("block", &self.block)
            .finish_non_exhaustive()
    }
}

impl Source {
    /// A local toolbox: a `#[tool]` impl block or free function, called in-process.
    pub fn toolbox<T: ToolBox>(toolbox: T) -> Source {
        Source::new(SourceKind::Local {
            label: T::NAME,
            entries: toolbox.into_tools(),
        })
    }

    /// Local tools made one by one ([`ToolEntry::dynamic`], or the entries of a toolbox).
    pub fn tools(tools: impl IntoIterator<Item = ToolEntry>) -> Source {
        Source::new(SourceKind::Local {
            label: "local tools",
            entries: tools.into_iter().collect(),
        })
    }

    /// A connected MCP server (stdio, Streamable HTTP or HTTP+SSE).
    pub fn server(client: Client) -> Source {
        Source::new(SourceKind::Remote(client))
    }

    fn new(kind: SourceKind) -> Source {
        Source {
            kind,
            label: None,
            prefix: String::new(),
            allow: None,
            block: HashSet::new(),
        }
    }

    /// Names the source in diagnostics and errors (default: the toolbox's type
    /// name, or the server's `serverInfo.name`).
    pub fn named(mut self, label: impl Into<String>) -> Self {
        self.label = Some(label.into());
        self
    }

    /// Puts `prefix` before each of this source's tool names in the set
    /// (`prefix("calc_")` makes `add` into `calc_add`). A prefixed name must
    /// still be a valid MCP tool name.
    pub fn prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// Takes only these tools from the source (their own names, before the
    /// prefix). A name the source does not offer is ignored, since a server's
    /// tools change; [`ToolSet::diagnostics`] lists it.
    pub fn allow<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.allow = Some(names.into_iter().map(Into::into).collect());
        self
    }

    /// Leaves these tools of the source out (their own names).
    pub fn block<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.block.extend(names.into_iter().map(Into::into));
        self
    }

    fn label(&self) -> String {
        if let Some(label) = &self.label {
            return label.clone();
        }
        match &self.kind {
            SourceKind::Local { label, .. } => (*label).to_owned(),
            SourceKind::Remote(client) => client.server_info().name.clone(),
        }
    }

    fn admits(&self, name: &str) -> bool {
        self.allow.as_ref().is_none_or(|allow| allow.contains(name)) && !self.block.contains(name)
    }
}

/// A source inside a set, with what it offered last.
struct SourceState {
    source: Source,
    label: Arc<str>,
    kind_name: &'static str,
    /// The remote listing the set was last built from.
    listing: Mutex<Option<Vec<Tool>>>,
    /// Keeps a modern server's `subscriptions/listen` stream open, so a tool
    /// change invalidates the client's cached listing; drained on refresh.
    subscription: Mutex<Option<Subscription>>,
    /// A tool of this server was called since the set last listed it: the
    /// call may have changed its tools, and the notice saying so may arrive
    /// after the call's result.
    called: Arc<AtomicBool>,
}

/// Builds a [`ToolSet`].
#[derive(Debug, Default)]
pub struct ToolSetBuilder {
    sources: Vec<Source>,
}

impl ToolSetBuilder {
    /// Adds a local toolbox (a `#[tool]` impl block or free function).
    pub fn toolbox<T: ToolBox>(self, toolbox: T) -> Self {
        self.attach(Source::toolbox(toolbox))
    }

    /// Adds one local tool, e.g. a [`ToolEntry::dynamic`].
    pub fn tool(self, tool: ToolEntry) -> Self {
        self.attach(Source::tools([tool]))
    }

    /// Adds the tools of a connected MCP server.
    pub fn server(self, client: Client) -> Self {
        self.attach(Source::server(client))
    }

    /// Adds a source configured with a prefix, allow or block lists.
    pub fn attach(mut self, source: Source) -> Self {
        self.sources.push(source);
        self
    }

    /// Lists every server's tools and checks that names are unique.
    ///
    /// # Errors
    ///
    /// [`ToolSetError::Collision`] naming both sources of a name;
    /// [`ToolSetError::InvalidName`] for a prefix that makes an invalid name;
    /// [`ToolSetError::Server`] when a server cannot list its tools.
    pub async fn build(self) -> Result<ToolSet, ToolSetError> {
        let mut states = Vec::with_capacity(self.sources.len());
        for source in self.sources {
            let label: Arc<str> = source.label().into();
            let (kind_name, subscription) = match &source.kind {
                SourceKind::Local { .. } => ("local toolbox", None),
                SourceKind::Remote(client) => {
                    let subscription = if client.is_modern() {
                        listen_for_tool_changes(client, &label).await
                    } else {
                        None
                    };
                    ("MCP server", subscription)
                }
            };
            states.push(SourceState {
                source,
                label,
                kind_name,
                listing: Mutex::new(None),
                subscription: Mutex::new(subscription),
                called: Arc::new(AtomicBool::new(false)),
            });
        }
        let mut listings = Vec::with_capacity(states.len());
        for state in &states {
            listings.push(list_source(state).await?);
        }
        let tools = assemble(&states, &listings)?;
        for (state, listing) in states.iter().zip(listings) {
            *lock(&state.listing) = listing;
        }
        Ok(ToolSet {
            inner: Arc::new(Inner {
                sources: states,
                tools: Mutex::new(Arc::new(tools)),
                refresh: tokio::sync::Mutex::new(()),
            }),
        })
    }
}

async fn listen_for_tool_changes(client: &Client, label: &str) -> Option<Subscription> {
    let filter = SubscriptionFilter {
        tools_list_changed: Some(true),
        ..SubscriptionFilter::default()
    };
    match client.listen(filter).await {
        Ok(subscription) => Some(subscription),
        Err(e) => {
            tracing::debug!(server = %label, error = %Chain(&e), "no subscription for tool changes; relying on the listing's ttl");
            None
        }
    }
}

/// A remote source's current listing (`None` for local sources).
async fn list_source(state: &SourceState) -> Result<Option<Vec<Tool>>, ToolSetError> {
    let SourceKind::Remote(client) = &state.source.kind else {
        return Ok(None);
    };
    let called = state.called.swap(false, Ordering::AcqRel);
    if !called && unchanged_since_listed(state) {
        if let Some(listing) = lock(&state.listing).clone() {
            return Ok(Some(listing));
        }
    }
    client
        .list_tools()
        .await
        .map(Some)
        .map_err(|error| ToolSetError::Server {
            origin: state.label.to_string(),
            error,
        })
}

/// Whether a server with an open `subscriptions/listen` stream sent no tool
/// change notice since the set last listed it, so its last listing stands
/// (a modern server's listings may carry `ttlMs: 0`; without this every turn
/// would cost a `tools/list` round trip). Without a subscription (legacy
/// servers, whose client caches until `list_changed`), or once it ended,
/// `false`.
fn unchanged_since_listed(state: &SourceState) -> bool {
    let mut subscription = lock(&state.subscription);
    let Some(open) = subscription.as_mut() else {
        return false;
    };
    let mut changed = false;
    loop {
        match open.recv().now_or_never() {
            Some(Some(_)) => changed = true,
            Some(None) => {
                *subscription = None;
                return false;
            }
            None => return !changed,
        }
    }
}

impl fmt::Debug for ToolSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolSet")
            .field("tools", &self.names())
            .finish_non_exhaustive()
    }
}

impl ToolSet {
    /// Starts a set.
    pub fn builder() -> ToolSetBuilder {
        ToolSetBuilder::default()
    }

    /// A set with no tools.
    pub fn empty() -> ToolSet {
        ToolSet {
            inner: Arc::new(Inner {
                sources: Vec::new(),
                tools: Mutex::new(Arc::new(Tools::default())),
                refresh: tokio::sync::Mutex::new(()),
            }),
        }
    }

    /// The tools' names in the set, sorted.
    pub fn names(&self) -> Vec<String> {
        self.current().by_name.keys().cloned().collect()
    }

    /// What the set noticed while assembling: tools offered non-strict to
    /// OpenAI because their schema cannot be made strict, allow-list entries
    /// a source does not offer, input schemas that cannot be compiled.
    pub fn diagnostics(&self) -> Vec<Diagnostic> {
        self.current().diagnostics.clone()
    }

    /// The set as a run sees it: every tool (restrict or extend it with the
    /// view's methods; the set is never changed).
    pub fn view(&self) -> ToolView {
        ToolView::new(&self.current())
    }

    /// Lists every server's tools again, all servers at once (each client
    /// answers from its cache unless the server reported a change), and
    /// rebuilds the set if any listing changed. Returns whether it did.
    ///
    /// A server that cannot list its tools now keeps offering the tools it
    /// listed last (calls to them fail, and the model is told so): one
    /// server's hiccup does not stop a run that may not need it. It is logged
    /// (`tracing`, warn).
    ///
    /// # Errors
    ///
    /// [`ToolSetError::Collision`] or [`ToolSetError::InvalidName`] when a
    /// server's new tool collides with another source's; the set keeps its
    /// previous tools.
    pub async fn refresh(&self) -> Result<bool, ToolSetError> {
        let _one = self.inner.refresh.lock().await;
        let listed =
            futures_util::future::join_all(self.inner.sources.iter().map(list_source)).await;
        let mut listings = Vec::with_capacity(listed.len());
        let mut changed = false;
        for (state, listing) in self.inner.sources.iter().zip(listed) {
            let previous = lock(&state.listing).clone();
            let listing = listing.unwrap_or_else(|e| {
                tracing::warn!(server = %state.label, error = %Chain(&e), "keeping the last tool listing");
                previous.clone()
            });
            changed |= listing != previous;
            listings.push(listing);
        }
        if !changed {
            return Ok(false);
        }
        let tools = assemble(&self.inner.sources, &listings)?;
        for (state, listing) in self.inner.sources.iter().zip(listings) {
            *lock(&state.listing) = listing;
        }
        *lock(&self.inner.tools) = Arc::new(tools);
        Ok(true)
    }

    pub(crate) fn current(&self) -> Arc<Tools> {
        Arc::clone(&lock(&self.inner.tools))
    }
}

/// Builds a snapshot from each source's tools, refusing collisions.
fn assemble(states: &[SourceState], listings: &[Option<Vec<Tool>>]) -> Result<Tools, ToolSetError> {
    let mut tools = Tools::default();
    let mut origin: BTreeMap<String, String> = BTreeMap::new();
    for (state, listing) in states.iter().zip(listings) {
        let source = &state.source;
        let offered: Vec<(Tool, Target)> = match (&source.kind, listing) {
            (SourceKind::Local { entries, .. }, _) => entries
                .iter()
                .map(|e| (e.tool().clone(), Target::Local(e.clone())))
                .collect(),
            (SourceKind::Remote(client), Some(listing)) => listing
                .iter()
                .map(|t| {
                    (
                        t.clone(),
                        Target::Remote {
                            client: client.clone(),
                            name: t.name.clone(),
                            called: Arc::clone(&state.called),
                        },
                    )
                })
                .collect(),
            (SourceKind::Remote(_), None) => Vec::new(),
        };
        let described = format!("{} `{}`", state.kind_name, state.label);
        if let Some(allow) = &source.allow {
            for name in allow {
                if !offered.iter().any(|(t, _)| &t.name == name) {
                    tools.diagnostics.push(Diagnostic {
                        tool: name.clone(),
                        source: state.label.to_string(),
                        message: "is on the allow list but the source does not offer it".to_owned(),
                    });
                }
            }
        }
        for (mut def, target) in offered {
            if !source.admits(&def.name) {
                continue;
            }
            def.name = format!("{}{}", source.prefix, def.name);
            if !is_valid_tool_name(&def.name) {
                return Err(ToolSetError::InvalidName {
                    name: def.name,
                    origin: described,
                });
            }
            if let Some(first) = origin.get(&def.name) {
                return Err(ToolSetError::Collision {
                    name: def.name,
                    first: first.clone(),
                    second: described,
                });
            }
            origin.insert(def.name.clone(), described.clone());
            let tool = SetTool::new(
                def,
                Arc::clone(&state.label),
                target,
                &mut tools.diagnostics,
            );
            tools.by_name.insert(tool.name().to_owned(), tool);
        }
    }
    Ok(tools)
}
