//! Where a set's tools come from: [`Source`] (a local toolbox or a connected
//! MCP server, with its prefix, allow and block lists), and the state a set
//! keeps for each source ([`SourceState`]): its last listing, the
//! subscription that tells when a modern server's tools change, and whether
//! one of its tools was called since.

use std::collections::HashSet;
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use futures_util::FutureExt as _;
use oxmcp_client::types::modern::SubscriptionFilter;
use oxmcp_client::{Client, Subscription};
use oxmcp_server::{ToolBox, ToolEntry};
use oxmcp_types::error::Chain;
use oxmcp_types::Tool;
use oxmcp_wire::sync::lock;

use crate::catalog::ToolSetError;
use crate::lifecycle::Lifecycle;

/// Where tools come from, with how they join a set: a name prefix, an allow
/// list and a block list (both of the tools' own names, before the prefix).
pub struct Source {
    pub(super) kind: SourceKind,
    label: Option<String>,
    pub(super) prefix: String,
    pub(super) allow: Option<HashSet<String>>,
    block: HashSet<String>,
    pub(super) lifecycle: Lifecycle,
    /// Whether its tools' annotations are believed ([`Source::trust_annotations`]);
    /// `None`: as its kind goes.
    trust_annotations: Option<bool>,
}

pub(super) enum SourceKind {
    Local {
        label: &'static str,
        entries: Vec<ToolEntry>,
    },
    Remote(Client),
    /// Tools the caller executes.
    Caller(Vec<Tool>),
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

    /// Tools the caller executes ([`CallerTool`](crate::pause::CallerTool)): a run
    /// that calls one pauses and hands the call over.
    pub fn caller(tools: impl IntoIterator<Item = super::CallerTool>) -> Source {
        Source::new(SourceKind::Caller(
            tools.into_iter().map(|tool| tool.0).collect(),
        ))
    }

    fn new(kind: SourceKind) -> Source {
        Source {
            kind,
            label: None,
            prefix: String::new(),
            allow: None,
            block: HashSet::new(),
            lifecycle: Lifecycle::default(),
            trust_annotations: None,
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
    /// tools change; [`ToolSet::diagnostics`](super::ToolSet::diagnostics) lists it.
    pub fn allow<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.allow = Some(names.into_iter().map(Into::into).collect());
        self
    }

    /// Work to do once before the first call of one of the source's tools
    /// (build an index, open a pool, warm a cache), or at
    /// [`ToolSet::start`](super::ToolSet::start). While it fails, calls of
    /// the source's tools fail with its error, naming the source (the model
    /// reads it as an error result), and the next call tries again.
    ///
    /// ```
    /// use oxmcp_agent::{Source, ToolSet};
    /// use oxmcp_server::tool;
    /// use std::sync::{Arc, OnceLock};
    ///
    /// pub struct Search { index: Arc<OnceLock<Vec<String>>> }
    ///
    /// #[tool(description = "Search")]
    /// impl Search {
    ///     #[describe("Find documents")]
    ///     pub fn find(&self, #[param("Words")] q: String) -> String {
    ///         let index = self.index.get().map(Vec::as_slice).unwrap_or_default();
    ///         index.iter().filter(|d| d.contains(&q)).cloned().collect::<Vec<_>>().join("\n")
    ///     }
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let index = Arc::new(OnceLock::new());
    /// let building = Arc::clone(&index);
    /// let set = ToolSet::builder()
    ///     .attach(
    ///         Source::toolbox(Search { index })
    ///             .on_start(move || {
    ///                 let index = Arc::clone(&building);
    ///                 async move {
    ///                     let _ = index.set(vec!["rust book".to_owned()]);
    ///                     Ok::<_, std::io::Error>(())
    ///                 }
    ///             })
    ///             .on_shutdown(|| async { /* close the pool */ }),
    ///     )
    ///     .build()
    ///     .await?;
    /// let found = set.call("find", serde_json::json!({"q": "rust"})).await?;
    /// assert!(!found.is_error());
    /// set.close().await; // runs on_shutdown
    /// # Ok(())
    /// # }
    /// ```
    pub fn on_start<F, Fut, E>(mut self, start: F) -> Self
    where
        F: Fn() -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = Result<(), E>> + Send + 'static,
        E: fmt::Display,
    {
        self.lifecycle.set_start(start);
        self
    }

    /// Work to do when the set closes ([`ToolSet::close`](super::ToolSet::close),
    /// or the last clone of the set dropped inside a Tokio runtime), if the
    /// source started.
    pub fn on_shutdown<F, Fut>(mut self, shutdown: F) -> Self
    where
        F: FnOnce() -> Fut + Send + 'static,
        Fut: std::future::Future<Output = ()> + Send + 'static,
    {
        self.lifecycle.set_shutdown(shutdown);
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

    /// Whether [`ApprovalPolicy::UnlessReadOnly`](crate::approval::ApprovalPolicy::UnlessReadOnly)
    /// believes the `readOnlyHint` of this source's tools. The MCP
    /// specification calls tool annotations untrusted unless they come from a
    /// trusted server: a server may say its tool only reads and then delete.
    /// By default local toolboxes and caller tools are trusted (their code is
    /// the application's own) and MCP servers are not, so their tools ask
    /// for an approval under `UnlessReadOnly` whatever they claim; set it for
    /// a server you trust as you trust your own code.
    pub fn trust_annotations(mut self, trust: bool) -> Self {
        self.trust_annotations = Some(trust);
        self
    }

    /// Whether this source's annotations are believed (see [`Source::trust_annotations`]).
    pub(super) fn trusts_annotations(&self) -> bool {
        self.trust_annotations
            .unwrap_or(!matches!(self.kind, SourceKind::Remote(_)))
    }

    pub(super) fn label(&self) -> String {
        if let Some(label) = &self.label {
            return label.clone();
        }
        match &self.kind {
            SourceKind::Local { label, .. } => (*label).to_owned(),
            SourceKind::Remote(client) => client.server_info().name.clone(),
            SourceKind::Caller(_) => "caller tools".to_owned(),
        }
    }

    pub(super) fn admits(&self, name: &str) -> bool {
        self.allow.as_ref().is_none_or(|allow| allow.contains(name)) && !self.block.contains(name)
    }
}

/// A source inside a set, with what it offered last.
pub(super) struct SourceState {
    pub(super) source: Source,
    pub(super) label: Arc<str>,
    pub(super) kind_name: &'static str,
    /// The remote listing the set was last built from.
    pub(super) listing: Mutex<Option<Vec<Tool>>>,
    /// Keeps a modern server's `subscriptions/listen` stream open, so a tool
    /// change invalidates the client's cached listing; drained on refresh.
    pub(super) subscription: Mutex<Option<Subscription>>,
    /// A tool of this server was called since the set last listed it: the
    /// call may have changed its tools, and the notice saying so may arrive
    /// after the call's result.
    pub(super) called: Arc<AtomicBool>,
    /// Its start and shutdown hooks, if it has any.
    pub(super) lifecycle: Option<Arc<Lifecycle>>,
}

pub(super) async fn listen_for_tool_changes(client: &Client, label: &str) -> Option<Subscription> {
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
pub(super) async fn list_source(state: &SourceState) -> Result<Option<Vec<Tool>>, ToolSetError> {
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
