//! The tool registry: name lookup and deterministic, paginated listing.

use mcp_wire::sync::lock;
use std::collections::HashMap;
use std::fmt::Write as _;

use mcp_types::Tool;

use crate::error::Error;
use crate::tool::ToolEntry;

/// An immutable set of tools, sorted by name (so `tools/list` is deterministic
/// and the same for every client). Changes build a new one.
#[derive(Debug, Default)]
pub(crate) struct Registry {
    tools: Vec<ToolEntry>,
    index: HashMap<String, usize>,
}

/// The cursor could not be read: the client must not invent cursors.
#[derive(Debug)]
pub(crate) struct InvalidCursor;

const CURSOR_PREFIX: &str = "n1.";

impl Registry {
    pub(crate) fn new(mut tools: Vec<ToolEntry>) -> Result<Registry, Error> {
        tools.sort_by(|a, b| a.name().cmp(b.name()));
        if let Some(pair) = tools.windows(2).find(|w| w[0].name() == w[1].name()) {
            return Err(Error::Config(format!(
                "two tools are named `{}` (from `{}` and `{}`): tool names must be unique",
                pair[0].name(),
                pair[0].toolbox(),
                pair[1].toolbox()
            )));
        }
        let index = tools
            .iter()
            .enumerate()
            .map(|(i, t)| (t.name().to_owned(), i))
            .collect();
        Ok(Registry { tools, index })
    }

    pub(crate) fn get(&self, name: &str) -> Option<&ToolEntry> {
        self.index.get(name).map(|&i| &self.tools[i])
    }

    pub(crate) fn len(&self) -> usize {
        self.tools.len()
    }

    /// One page of at most `page_size` tools after `cursor`, and the next cursor.
    ///
    /// A cursor names the last tool of the previous page, so a page boundary
    /// stays put when tools are added or removed between pages.
    pub(crate) fn page(
        &self,
        cursor: Option<&str>,
        page_size: usize,
    ) -> Result<(Vec<Tool>, Option<String>), InvalidCursor> {
        let start = match cursor {
            None => 0,
            Some(c) => {
                let after = decode_cursor(c).ok_or(InvalidCursor)?;
                self.tools.partition_point(|t| t.name() <= after.as_str())
            }
        };
        let end = start.saturating_add(page_size.max(1)).min(self.tools.len());
        let page: Vec<Tool> = self.tools[start..end]
            .iter()
            .map(|t| t.tool().clone())
            .collect();
        let next = (end < self.tools.len()).then(|| encode_cursor(self.tools[end - 1].name()));
        Ok((page, next))
    }
}

impl Registry {
    /// Like [`page`](Self::page), over the tools `visible` accepts.
    pub(crate) fn page_filtered(
        &self,
        cursor: Option<&str>,
        page_size: usize,
        visible: impl Fn(&ToolEntry) -> bool,
    ) -> Result<(Vec<Tool>, Option<String>), InvalidCursor> {
        let start = match cursor {
            None => 0,
            Some(c) => {
                let after = decode_cursor(c).ok_or(InvalidCursor)?;
                self.tools.partition_point(|t| t.name() <= after.as_str())
            }
        };
        let mut page = Vec::new();
        let mut rest = self.tools[start..].iter().filter(|t| visible(t));
        for t in rest.by_ref() {
            page.push(t.tool().clone());
            if page.len() == page_size.max(1) {
                break;
            }
        }
        let more = rest.next().is_some();
        let next = (more && !page.is_empty()).then(|| encode_cursor(&page[page.len() - 1].name));
        Ok((page, next))
    }
}

fn encode_cursor(name: &str) -> String {
    let mut s = String::with_capacity(CURSOR_PREFIX.len() + name.len() * 2);
    s.push_str(CURSOR_PREFIX);
    for b in name.bytes() {
        let _ = write!(s, "{b:02x}");
    }
    s
}

fn decode_cursor(cursor: &str) -> Option<String> {
    let hex = cursor.strip_prefix(CURSOR_PREFIX)?;
    if hex.len() % 2 != 0 || hex.len() > 256 {
        return None;
    }
    let bytes = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok())
        .collect::<Option<Vec<u8>>>()?;
    let name = String::from_utf8(bytes).ok()?;
    mcp_types::tool::is_valid_tool_name(&name).then_some(name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tool::ToolSpec;

    fn entry(name: &'static str) -> ToolEntry {
        ToolEntry::new(
            &ToolSpec {
                name,
                description: "d",
                ..ToolSpec::default()
            },
            mcp_types::JsonObject::new(),
            None,
            |_, _| Box::pin(async { mcp_types::CallToolResult::text("") }),
        )
    }

    #[test]
    fn pages_cover_every_tool_once_in_order() {
        let names: Vec<&'static str> = vec!["e", "a", "d", "c", "b"];
        let reg = Registry::new(names.iter().map(|n| entry(n)).collect()).unwrap();
        let mut seen = Vec::new();
        let mut cursor = None;
        loop {
            let (page, next) = reg.page(cursor.as_deref(), 2).unwrap();
            seen.extend(page.into_iter().map(|t| t.name));
            match next {
                Some(c) => cursor = Some(c),
                None => break,
            }
        }
        assert_eq!(seen, ["a", "b", "c", "d", "e"]);
    }

    #[test]
    fn rejects_bad_cursors_and_duplicates() {
        let reg = Registry::new(vec![entry("a")]).unwrap();
        assert!(reg.page(Some("garbage"), 10).is_err());
        assert!(reg.page(Some("n1.zz"), 10).is_err());
        assert!(reg.page(Some(""), 10).is_err());
        assert!(Registry::new(vec![entry("a"), entry("a")]).is_err());
    }
}

/// The server's live tool set: every tool added (enabled or not), the
/// snapshot of enabled ones that requests read, and a change counter that
/// subscribers watch (a `watch` channel coalesces bursts by nature).
pub(crate) struct LiveTools {
    state: std::sync::Mutex<LiveState>,
    snapshot: std::sync::RwLock<std::sync::Arc<Registry>>,
    changes: tokio::sync::watch::Sender<u64>,
}

#[derive(Default)]
struct LiveState {
    slots: Vec<Slot>,
    disabled_toolboxes: std::collections::HashSet<String>,
}

struct Slot {
    entry: ToolEntry,
    enabled: bool,
}

impl LiveState {
    /// The enabled tools, sorted by name like a [`Registry`].
    fn visible(&self) -> Vec<ToolEntry> {
        let mut visible: Vec<ToolEntry> = self
            .slots
            .iter()
            .filter(|s| s.enabled && !self.disabled_toolboxes.contains(s.entry.toolbox()))
            .map(|s| s.entry.clone())
            .collect();
        visible.sort_by(|a, b| a.name().cmp(b.name()));
        visible
    }
}

impl LiveTools {
    pub(crate) fn new(tools: Vec<ToolEntry>) -> Result<LiveTools, Error> {
        let registry = Registry::new(tools.clone())?;
        Ok(LiveTools {
            state: std::sync::Mutex::new(LiveState {
                slots: tools
                    .into_iter()
                    .map(|entry| Slot {
                        entry,
                        enabled: true,
                    })
                    .collect(),
                disabled_toolboxes: std::collections::HashSet::new(),
            }),
            snapshot: std::sync::RwLock::new(std::sync::Arc::new(registry)),
            changes: tokio::sync::watch::Sender::new(0),
        })
    }

    /// The enabled tools, as requests see them now.
    pub(crate) fn snapshot(&self) -> std::sync::Arc<Registry> {
        std::sync::Arc::clone(&mcp_wire::sync::read(&self.snapshot))
    }

    /// A receiver that wakes when the visible tool list changes.
    pub(crate) fn subscribe(&self) -> tokio::sync::watch::Receiver<u64> {
        self.changes.subscribe()
    }

    /// Applies `change` to the state and publishes a new snapshot; subscribers
    /// hear of it only if the visible list really changed.
    fn update<R>(&self, change: impl FnOnce(&mut LiveState) -> R) -> R {
        let mut state = lock(&self.state);
        let result = change(&mut state);
        let visible = state.visible();
        let old = self.snapshot();
        let same = old.tools.len() == visible.len()
            && old
                .tools
                .iter()
                .zip(&visible)
                .all(|(a, b)| std::sync::Arc::ptr_eq(&a.def, &b.def));
        if !same {
            // Names are unique among all slots, so this cannot fail.
            if let Ok(registry) = Registry::new(visible) {
                *mcp_wire::sync::write(&self.snapshot) = std::sync::Arc::new(registry);
                self.changes.send_modify(|generation| *generation += 1);
            }
        }
        result
    }

    /// Adds tools; all or none: a name already present (enabled or not) is an error.
    pub(crate) fn add(&self, entries: Vec<ToolEntry>) -> Result<(), Error> {
        self.update(|state| {
            let mut names: std::collections::HashSet<&str> =
                state.slots.iter().map(|s| s.entry.name()).collect();
            for e in &entries {
                if !names.insert(e.name()) {
                    return Err(Error::Config(format!(
                        "a tool named `{}` already exists: remove it first, or pick another name",
                        e.name()
                    )));
                }
            }
            state.slots.extend(entries.into_iter().map(|entry| Slot {
                entry,
                enabled: true,
            }));
            Ok(())
        })
    }

    /// Removes the tools matching `pred`; returns how many.
    pub(crate) fn remove(&self, pred: impl Fn(&ToolEntry) -> bool) -> usize {
        self.update(|state| {
            let before = state.slots.len();
            state.slots.retain(|s| !pred(&s.entry));
            before - state.slots.len()
        })
    }

    /// Enables or disables the tools matching `pred`; returns how many matched.
    pub(crate) fn set_enabled(&self, pred: impl Fn(&ToolEntry) -> bool, enabled: bool) -> usize {
        self.update(|state| {
            let mut n = 0;
            for s in state.slots.iter_mut().filter(|s| pred(&s.entry)) {
                s.enabled = enabled;
                n += 1;
            }
            n
        })
    }

    /// Enables or disables a whole toolbox (tools added to it later included);
    /// returns how many of its tools exist now.
    pub(crate) fn set_toolbox_enabled(&self, toolbox: &str, enabled: bool) -> usize {
        self.update(|state| {
            if enabled {
                state.disabled_toolboxes.remove(toolbox);
            } else {
                state.disabled_toolboxes.insert(toolbox.to_owned());
            }
            state
                .slots
                .iter()
                .filter(|s| s.entry.toolbox() == toolbox)
                .count()
        })
    }
}
