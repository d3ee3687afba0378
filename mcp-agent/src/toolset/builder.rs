//! Building a [`ToolSet`]: sources are attached one by one, then listed
//! together and checked for name collisions.

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

use oxmcp_client::Client;
use oxmcp_server::tool::search::ToolSearch;
use oxmcp_server::{ToolBox, ToolEntry};
use oxmcp_wire::sync::lock;

use super::source::{list_source, listen_for_tool_changes, Source, SourceKind, SourceState};
use super::{assemble, Inner, ToolSet};
use crate::catalog::ToolSetError;

/// Builds a [`ToolSet`].
#[derive(Debug, Default)]
pub struct ToolSetBuilder {
    sources: Vec<Source>,
    search: Option<ToolSearch>,
    caps: ResultCaps,
}

/// How much of a tool result enters the model's context.
#[derive(Debug, Clone)]
pub(crate) struct ResultCaps {
    /// For every tool without its own.
    pub(crate) all: usize,
    /// Per tool (its name in the set).
    pub(crate) tools: Vec<(String, usize)>,
}

impl Default for ResultCaps {
    fn default() -> Self {
        ResultCaps {
            all: oxmcp_server::tool::DEFAULT_MAX_RESULT_CHARS,
            tools: Vec::new(),
        }
    }
}

impl ResultCaps {
    /// The cap of `tool`.
    pub(crate) fn of(&self, tool: &str) -> usize {
        self.tools
            .iter()
            .find(|(name, _)| name == tool)
            .map_or(self.all, |(_, cap)| *cap)
    }

    /// What is wrong with the caps for a set of these tools, if anything.
    fn problem(&self, has: impl Fn(&str) -> bool) -> Option<String> {
        if self.all == 0 {
            return Some("max_result_chars is zero: the model would see nothing of any result; give at least 1".to_owned());
        }
        for (tool, cap) in &self.tools {
            if *cap == 0 {
                return Some(format!(
                    "the cap of tool `{tool}` is zero: the model would see nothing of its results; give at least 1"
                ));
            }
            if !has(tool) {
                return Some(format!("the capped tool `{tool}` is not in the set"));
            }
        }
        None
    }
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

    /// Adds a tool the caller executes ([`CallerTool`](crate::pause::CallerTool)).
    pub fn caller_tool(self, tool: super::CallerTool) -> Self {
        self.attach(Source::caller([tool]))
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

    /// Tool search, for sets with more tools than a model should read each
    /// turn: a run offers the model the tools `search` pins and one search
    /// tool (BM25 over names, descriptions and parameters, as a server's
    /// search mode ranks), and from the next turn on also every tool a
    /// search found. Calls reach the offered tools as usual.
    /// [`build`](Self::build) refuses a search tool named as a tool of the
    /// set, a pinned tool the set does not have, and limits out of range.
    ///
    /// ```
    /// use oxmcp_agent::ToolSet;
    /// use oxmcp_server::tool::search::ToolSearch;
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
    /// # async fn main() {
    /// let set = ToolSet::builder().toolbox(Clock).tool_search(ToolSearch::new().pin(["nope"]));
    /// let error = set.build().await.unwrap_err().to_string();
    /// assert_eq!(error, "tool search: the pinned tool `nope` does not exist");
    /// # }
    /// ```
    pub fn tool_search(mut self, search: ToolSearch) -> Self {
        self.search = Some(search);
        self
    }

    /// Caps what one tool result puts in the model's context, in characters
    /// of text and of structured content (default
    /// [`DEFAULT_MAX_RESULT_CHARS`](oxmcp_server::tool::DEFAULT_MAX_RESULT_CHARS),
    /// as a server caps what it sends). A result over it is cut as a server
    /// cuts one, with the same marker; the run's records keep it whole.
    /// [`build`](Self::build) refuses zero.
    pub fn max_result_chars(mut self, chars: usize) -> Self {
        self.caps.all = chars;
        self
    }

    /// The cap of one tool's results (its name in the set), over
    /// [`max_result_chars`](Self::max_result_chars). [`build`](Self::build)
    /// refuses zero, and a name the set does not have.
    pub fn tool_max_result_chars(mut self, tool: impl Into<String>, chars: usize) -> Self {
        self.caps.tools.push((tool.into(), chars));
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
        for mut source in self.sources {
            let label: Arc<str> = source.label().into();
            let (kind_name, subscription) = match &source.kind {
                SourceKind::Local { .. } => ("local toolbox", None),
                SourceKind::Caller(_) => ("caller-executed tools", None),
                SourceKind::Remote(client) => {
                    let subscription = if client.is_modern() {
                        listen_for_tool_changes(client, &label).await
                    } else {
                        None
                    };
                    ("MCP server", subscription)
                }
            };
            let mut lifecycle = std::mem::take(&mut source.lifecycle);
            lifecycle.label = format!("{kind_name} `{label}`");
            let lifecycle = (!lifecycle.is_empty()).then(|| Arc::new(lifecycle));
            states.push(SourceState {
                source,
                label,
                kind_name,
                listing: Mutex::new(None),
                subscription: Mutex::new(subscription),
                called: Arc::new(AtomicBool::new(false)),
                lifecycle,
            });
        }
        let mut listings = Vec::with_capacity(states.len());
        for state in &states {
            listings.push(list_source(state).await?);
        }
        let tools = assemble(&states, &listings)?;
        if let Some(search) = &self.search {
            if let Some(message) = search.problem(tools.by_name.keys().map(String::as_str)) {
                return Err(ToolSetError::Search { message });
            }
        }
        if let Some(message) = self.caps.problem(|name| tools.by_name.contains_key(name)) {
            return Err(ToolSetError::ResultCap { message });
        }
        for (state, listing) in states.iter().zip(listings) {
            *lock(&state.listing) = listing;
        }
        Ok(ToolSet {
            inner: Arc::new(Inner {
                sources: states,
                search: self.search,
                caps: self.caps,
                tools: Mutex::new(Arc::new(tools)),
                refresh: tokio::sync::Mutex::new(()),
            }),
        })
    }
}
