//! Tool sets: local toolboxes and connected MCP servers, attached the same
//! way and called the same way.
//!
//! The set itself ([`ToolSet`]) and its refresh live here; where tools come
//! from is in `source`, how a set is built in `builder`, and how the
//! sources' listings become one snapshot of uniquely named tools in
//! `assemble`.

mod assemble;
mod builder;
mod caller;
mod search;
mod source;

use std::fmt;
use std::sync::{Arc, Mutex};

use oxmcp_types::error::Chain;
use oxmcp_wire::sync::lock;

use crate::catalog::{Diagnostic, ToolSetError, Tools};
use crate::view::ToolView;

use assemble::assemble;
pub use builder::ToolSetBuilder;
pub use caller::{CallerTool, CallerToolError};
pub use source::Source;
use source::{list_source, SourceState};

/// Tools from local toolboxes and MCP servers, with unique names.
///
/// Cheap to clone: clones share the same tools. Remote tools are refreshed by
/// [`refresh`](Self::refresh), which the agent calls before every model turn:
/// a server's `notifications/tools/list_changed` (legacy era) or a change
/// reported on its `subscriptions/listen` stream (2026-07-28) is seen on the
/// next turn.
///
/// ```
/// use oxmcp_agent::{Source, ToolSet};
/// use oxmcp_server::tool;
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
/// # async fn main() -> Result<(), oxmcp_agent::ToolSetError> {
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
    /// Tool search: a turn offers the pinned tools, those found, and the search tool.
    search: Option<oxmcp_server::tool::search::ToolSearch>,
    /// How much of a result enters the model's context.
    caps: builder::ResultCaps,
    tools: Mutex<Arc<Tools>>,
    /// Serializes refreshes so two runs do not list the same servers twice.
    refresh: tokio::sync::Mutex<()>,
}

impl fmt::Debug for ToolSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolSet")
            .field("tools", &self.names())
            .finish_non_exhaustive()
    }
}

impl ToolSet {
    /// How many characters of one result of `tool` the model reads.
    pub(crate) fn result_cap(&self, tool: &str) -> usize {
        self.inner.caps.of(tool)
    }

    /// Starts a set.
    pub fn builder() -> ToolSetBuilder {
        ToolSetBuilder::default()
    }

    /// A set with no tools.
    pub fn empty() -> ToolSet {
        ToolSet {
            inner: Arc::new(Inner {
                sources: Vec::new(),
                search: None,
                caps: builder::ResultCaps::default(),
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

    /// The tools a turn offers: with [tool search](ToolSetBuilder::tool_search),
    /// the pinned ones, those the run's searches found (read from
    /// `transcript`) and the search tool; else all of `view`.
    pub(crate) fn offered(
        &self,
        view: ToolView,
        transcript: &[crate::chat::ChatMessage],
    ) -> ToolView {
        match &self.inner.search {
            Some(search) => search::offered(search, view, transcript),
            None => view,
        }
    }

    pub(crate) fn current(&self) -> Arc<Tools> {
        Arc::clone(&lock(&self.inner.tools))
    }

    /// Starts every source with an [`on_start`](Source::on_start) hook now,
    /// rather than at the first call of one of its tools.
    ///
    /// # Errors
    ///
    /// [`ToolSetError::Start`] naming the first source that could not start.
    pub async fn start(&self) -> Result<(), ToolSetError> {
        for state in &self.inner.sources {
            if let Some(lifecycle) = &state.lifecycle {
                lifecycle
                    .ensure_started()
                    .await
                    .map_err(|e| ToolSetError::Start {
                        origin: e.label,
                        message: e.message,
                    })?;
            }
        }
        Ok(())
    }

    /// Runs the [`on_shutdown`](Source::on_shutdown) hook of every source
    /// that started, once (a second `close` does nothing). Dropping the last
    /// clone of the set inside a Tokio runtime does it too, in a task of its
    /// own; `close` lets you wait for it.
    pub async fn close(&self) {
        futures_util::future::join_all(self.inner.shutdowns()).await;
    }
}

impl Inner {
    fn shutdowns(&self) -> Vec<futures_util::future::BoxFuture<'static, ()>> {
        self.sources
            .iter()
            .filter_map(|s| s.lifecycle.as_ref()?.take_shutdown())
            .collect()
    }
}

impl Drop for Inner {
    fn drop(&mut self) {
        let shutdowns = self.shutdowns();
        if shutdowns.is_empty() {
            return;
        }
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(futures_util::future::join_all(shutdowns));
        } else {
            tracing::warn!(
                "a tool set with shutdown hooks was dropped outside a Tokio runtime: call ToolSet::close"
            );
        }
    }
}
