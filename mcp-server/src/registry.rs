//! The registries of what a server offers (tools, prompts, resources,
//! resource templates): lookup by key and deterministic, paginated listing,
//! and the live sets that run-time changes update.

use oxmcp_wire::sync::lock;
use std::fmt::Write as _;
use std::sync::Arc;

use crate::auth::Scopes;
use crate::error::Error;
use crate::policy::{Offer, OfferInfo};
use crate::prompt::PromptEntry;
use crate::resource::{ResourceEntry, TemplateEntry};
use crate::tool::ToolEntry;

/// What a registry holds: an entry with a unique key (a name, or a
/// resource's URI), the group it came from (its toolbox) and its wire
/// definition, shared so a new snapshot need not copy it.
pub(crate) trait Entry: Clone + Send + Sync + 'static {
    /// The wire definition `*/list` returns.
    type Def: Clone;
    /// What the entry is, for messages: "tool", "prompt", ...
    const KIND: &'static str;
    /// The unique key.
    fn key(&self) -> &str;
    /// The toolbox the entry came from (empty for entries added on their own).
    fn group(&self) -> &str;
    /// The definition.
    fn def(&self) -> &Arc<Self::Def>;
    /// The OAuth scopes a caller's token needs to see and use it.
    fn scopes(&self) -> &Scopes;
}

/// An entry a visibility hook decides on (prompts, resources, templates).
pub(crate) trait Offered {
    /// What the hook is shown.
    fn offer(&self) -> OfferInfo<'_>;
}

/// Each kind of entry is keyed by one field of its definition.
macro_rules! entry {
    ($entry:ty, $def:ty, $kind:literal, $key:ident) => {
        impl Entry for $entry {
            type Def = $def;
            const KIND: &'static str = $kind;

            fn key(&self) -> &str {
                &self.def.$key
            }

            fn group(&self) -> &str {
                &self.toolbox
            }

            fn def(&self) -> &Arc<$def> {
                &self.def
            }

            fn scopes(&self) -> &Scopes {
                &self.scopes
            }
        }
    };
}

entry!(ToolEntry, oxmcp_types::Tool, "tool", name);
entry!(PromptEntry, oxmcp_types::Prompt, "prompt", name);
entry!(ResourceEntry, oxmcp_types::Resource, "resource", uri);
entry!(
    TemplateEntry,
    oxmcp_types::ResourceTemplate,
    "resource template",
    uri_template
);

impl Offered for PromptEntry {
    fn offer(&self) -> OfferInfo<'_> {
        OfferInfo {
            offer: Offer::Prompt(&self.def),
            toolbox: &self.toolbox,
        }
    }
}

impl Offered for ResourceEntry {
    fn offer(&self) -> OfferInfo<'_> {
        OfferInfo {
            offer: Offer::Resource(&self.def),
            toolbox: &self.toolbox,
        }
    }
}

impl Offered for TemplateEntry {
    fn offer(&self) -> OfferInfo<'_> {
        OfferInfo {
            offer: Offer::Template(&self.def),
            toolbox: &self.toolbox,
        }
    }
}

/// An immutable set of entries, sorted by key (so a list is deterministic
/// and the same for every client, and a name is found by binary search).
/// Changes build a new one.
#[derive(Debug)]
pub(crate) struct Registry<E> {
    tools: Vec<E>,
}

impl<E> Default for Registry<E> {
    fn default() -> Self {
        Registry { tools: Vec::new() }
    }
}

/// The cursor could not be read: the client must not invent cursors.
#[derive(Debug)]
pub(crate) struct InvalidCursor;

const CURSOR_PREFIX: &str = "n1.";
/// The longest key a cursor may name (resource URIs are keys too).
const MAX_CURSOR_KEY: usize = 4096;

impl<E: Entry> Registry<E> {
    pub(crate) fn new(tools: Vec<E>) -> Result<Registry<E>, Error> {
        let tools = sorted_by_key(tools);
        if let Some(pair) = tools.windows(2).find(|w| w[0].key() == w[1].key()) {
            return Err(Error::Config(format!(
                "two {kind}s are named `{}` (from `{}` and `{}`): {kind} names must be unique",
                pair[0].key(),
                pair[0].group(),
                pair[1].group(),
                kind = E::KIND,
            )));
        }
        Ok(Registry { tools })
    }

    /// Every entry, in key order.
    pub(crate) fn entries(&self) -> &[E] {
        &self.tools
    }

    pub(crate) fn get(&self, name: &str) -> Option<&E> {
        let i = self.tools.binary_search_by(|t| t.key().cmp(name)).ok()?;
        Some(&self.tools[i])
    }

    /// One page of at most `page_size` tools after `cursor`, and the next cursor.
    ///
    /// A cursor names the last tool of the previous page, so a page boundary
    /// stays put when tools are added or removed between pages.
    pub(crate) fn page(
        &self,
        cursor: Option<&str>,
        page_size: usize,
    ) -> Result<(Vec<E::Def>, Option<String>), InvalidCursor> {
        self.page_filtered(cursor, page_size, |_| true)
    }

    /// Like [`page`](Self::page), over the entries `visible` accepts.
    pub(crate) fn page_filtered(
        &self,
        cursor: Option<&str>,
        page_size: usize,
        visible: impl Fn(&E) -> bool,
    ) -> Result<(Vec<E::Def>, Option<String>), InvalidCursor> {
        let start = match cursor {
            None => 0,
            Some(c) => {
                let after = decode_cursor(c).ok_or(InvalidCursor)?;
                self.tools.partition_point(|t| t.key() <= after.as_str())
            }
        };
        let mut page = Vec::new();
        let mut last = None;
        let mut rest = self.tools[start..].iter().filter(|t| visible(t));
        for t in rest.by_ref() {
            page.push((**t.def()).clone());
            last = Some(t.key());
            if page.len() == page_size.max(1) {
                break;
            }
        }
        let more = rest.next().is_some();
        let next = last.filter(|_| more).map(encode_cursor);
        Ok((page, next))
    }
}

/// `entries` in key order (a stable sort). The keys and their positions are
/// sorted, not the entries: one sort in the binary for every kind of entry.
fn sorted_by_key<E: Entry>(entries: Vec<E>) -> Vec<E> {
    let order = key_order(entries.iter().map(Entry::key).collect());
    let mut slots: Vec<Option<E>> = entries.into_iter().map(Some).collect();
    order.into_iter().filter_map(|i| slots[i].take()).collect()
}

/// The positions of `keys` in key order, equal keys in their order.
fn key_order(keys: Vec<&str>) -> Vec<usize> {
    let mut keyed: Vec<(&str, usize)> = keys.into_iter().zip(0..).collect();
    // Each position appears once, so no two items are equal: unstable is stable here.
    keyed.sort_unstable();
    keyed.into_iter().map(|(_, i)| i).collect()
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
    if hex.len() % 2 != 0 || hex.len() > MAX_CURSOR_KEY * 2 {
        return None;
    }
    let bytes = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok())
        .collect::<Option<Vec<u8>>>()?;
    String::from_utf8(bytes).ok()
}

/// The server's live set of one kind of entry: every entry added (enabled
/// or not), the snapshot of enabled ones that requests read, and a change
/// counter that subscribers watch (a `watch` channel coalesces bursts by
/// nature).
pub(crate) struct Live<E> {
    state: std::sync::Mutex<LiveState<E>>,
    snapshot: std::sync::RwLock<Arc<Registry<E>>>,
    changes: tokio::sync::watch::Sender<u64>,
}

struct LiveState<E> {
    slots: Vec<Slot<E>>,
    disabled_toolboxes: std::collections::HashSet<String>,
}

struct Slot<E> {
    entry: E,
    enabled: bool,
}

impl<E: Entry> LiveState<E> {
    /// The enabled entries, in the order they were added.
    fn visible(&self) -> Vec<E> {
        self.slots
            .iter()
            .filter(|s| s.enabled && !self.disabled_toolboxes.contains(s.entry.group()))
            .map(|s| s.entry.clone())
            .collect()
    }
}

impl<E: Entry> Live<E> {
    pub(crate) fn new(tools: Vec<E>) -> Result<Live<E>, Error> {
        let registry = Registry::new(tools.clone())?;
        Ok(Live {
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
            snapshot: std::sync::RwLock::new(Arc::new(registry)),
            changes: tokio::sync::watch::Sender::new(0),
        })
    }

    /// The enabled entries, as requests see them now.
    pub(crate) fn snapshot(&self) -> Arc<Registry<E>> {
        Arc::clone(&oxmcp_wire::sync::read(&self.snapshot))
    }

    /// How many times the visible list changed.
    pub(crate) fn generation(&self) -> u64 {
        *self.changes.borrow()
    }

    /// A receiver that wakes when the visible list changes.
    pub(crate) fn subscribe(&self) -> tokio::sync::watch::Receiver<u64> {
        self.changes.subscribe()
    }

    /// Applies `change` to the state and publishes a new snapshot.
    fn update<R>(&self, change: impl FnOnce(&mut LiveState<E>) -> R) -> R {
        let mut state = lock(&self.state);
        let result = change(&mut state);
        self.publish(&state);
        result
    }

    /// Publishes the snapshot of `state` (the lock held); subscribers hear
    /// of it only if the visible list really changed. Apart from `update`,
    /// which is compiled for each change, so that this is compiled once
    /// for each kind of entry.
    fn publish(&self, state: &LiveState<E>) {
        // Names are unique among all slots, so this cannot fail.
        let Ok(visible) = Registry::new(state.visible()) else {
            return;
        };
        let old = self.snapshot();
        let same = old.tools.len() == visible.tools.len()
            && old
                .tools
                .iter()
                .zip(&visible.tools)
                .all(|(a, b)| Arc::ptr_eq(a.def(), b.def()));
        if !same {
            *oxmcp_wire::sync::write(&self.snapshot) = Arc::new(visible);
            self.changes.send_modify(|generation| *generation += 1);
        }
    }

    /// Whether `entries` could be added: their keys are new and distinct.
    pub(crate) fn check_new(&self, entries: &[E]) -> Result<(), Error> {
        let state = lock(&self.state);
        Self::check_keys(&state, None, entries)
    }

    /// Whether `entries` have distinct keys, taken by no entry outside
    /// the group `except` (by none at all when it is `None`).
    fn check_keys(state: &LiveState<E>, except: Option<&str>, entries: &[E]) -> Result<(), Error> {
        let mut names: std::collections::HashSet<&str> = state
            .slots
            .iter()
            .filter(|s| except.is_none_or(|group| s.entry.group() != group))
            .map(|s| s.entry.key())
            .collect();
        for e in entries {
            if !names.insert(e.key()) {
                return Err(Error::Config(format!(
                    "a {} named `{}` already exists: remove it first, or pick another name",
                    E::KIND,
                    e.key()
                )));
            }
        }
        Ok(())
    }

    /// Adds entries; all or none: a key already present (enabled or not) is an error.
    pub(crate) fn add(&self, entries: Vec<E>) -> Result<(), Error> {
        if entries.is_empty() {
            return Ok(());
        }
        self.update(|state| {
            Self::check_keys(state, None, &entries)?;
            state.slots.extend(entries.into_iter().map(|entry| Slot {
                entry,
                enabled: true,
            }));
            Ok(())
        })
    }

    /// Whether the entries of `group` could be replaced by `entries`: their
    /// keys are distinct and taken by no entry of another group.
    pub(crate) fn check_replace(&self, group: &str, entries: &[E]) -> Result<(), Error> {
        let state = lock(&self.state);
        Self::check_keys(&state, Some(group), entries)
    }

    /// Replaces every entry of `group` with `entries`, in one change (the
    /// list never shows the group half-replaced); an entry whose key the
    /// group had keeps its enabled state. All or none.
    pub(crate) fn replace_group(&self, group: &str, entries: Vec<E>) -> Result<(), Error> {
        self.update(|state| {
            Self::check_keys(state, Some(group), &entries)?;
            let disabled: std::collections::HashSet<String> = state
                .slots
                .iter()
                .filter(|s| s.entry.group() == group && !s.enabled)
                .map(|s| s.entry.key().to_owned())
                .collect();
            state.slots.retain(|s| s.entry.group() != group);
            state.slots.extend(entries.into_iter().map(|entry| Slot {
                enabled: !disabled.contains(entry.key()),
                entry,
            }));
            Ok(())
        })
    }

    /// Removes the tools matching `pred`; returns how many.
    pub(crate) fn remove(&self, pred: impl Fn(&E) -> bool) -> usize {
        self.update(|state| {
            let before = state.slots.len();
            state.slots.retain(|s| !pred(&s.entry));
            before - state.slots.len()
        })
    }

    /// Enables or disables the tools matching `pred`; returns how many matched.
    pub(crate) fn set_enabled(&self, pred: impl Fn(&E) -> bool, enabled: bool) -> usize {
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
                .filter(|s| s.entry.group() == toolbox)
                .count()
        })
    }
}

/// The live sets of everything a server offers, shared by dispatch and the
/// [`ServerHandle`](crate::ServerHandle).
pub(crate) struct Catalog {
    // Each list is shared by the handle (which changes it) and the
    // capability that serves it (which owns a clone of it).
    pub(crate) tools: Arc<Live<crate::tool::ToolEntry>>,
    pub(crate) prompts: Arc<Live<crate::prompt::PromptEntry>>,
    pub(crate) resources: Arc<Live<crate::resource::ResourceEntry>>,
    pub(crate) templates: Arc<Live<crate::resource::TemplateEntry>>,
    /// URIs the server said changed ([`ServerHandle::resource_updated`](crate::ServerHandle::resource_updated)).
    updates: tokio::sync::broadcast::Sender<Arc<str>>,
    /// The same updates, raised here (not heard from another instance): what
    /// an instance tells the others of.
    local_updates: tokio::sync::broadcast::Sender<Arc<str>>,
    /// Lists another instance said changed (tools, prompts, resources):
    /// this instance's connections hear of them as of their own.
    pub(crate) peer_lists: [tokio::sync::watch::Sender<u64>; 3],
    /// Whether the server declared the `completions` capability (fixed at
    /// build): a completion function added later is served only then.
    pub(crate) completions_offered: bool,
    /// The server's cap on one tool result, for tools without their own.
    max_result_chars: usize,
}

/// How many resource updates a slow connection may fall behind by before
/// it misses some (it is then told of nothing it missed: updates are hints).
const UPDATE_BACKLOG: usize = 1024;

/// The definition of the static resource at `uri` among `resources`.
fn page_in(
    resources: &[crate::resource::ResourceEntry],
    uri: &str,
) -> Option<oxmcp_types::Resource> {
    resources
        .iter()
        .find(|r| r.uri() == uri)
        .map(|r| (*r.def).clone())
}

/// Checks the settings of tools about to be added, and gives those
/// without a result cap of their own the server's.
fn settle_tools(tools: &mut [ToolEntry], max_result_chars: usize) -> Result<(), Error> {
    crate::tool::entry::check_settings(tools)?;
    for tool in tools {
        tool.default_max_result_chars(max_result_chars);
    }
    Ok(())
}

impl Catalog {
    pub(crate) fn new(
        mut items: crate::tool::Items,
        max_result_chars: usize,
    ) -> Result<Catalog, Error> {
        settle_tools(&mut items.tools, max_result_chars)?;
        crate::apps::check_pages(items.tools.iter().map(ToolEntry::tool), |uri| {
            page_in(&items.resources, uri)
        })?;
        crate::apps::check_origins(items.resources.iter().map(ResourceEntry::resource))?;
        Ok(Catalog {
            tools: Arc::new(Live::new(items.tools)?),
            prompts: Arc::new(Live::new(items.prompts)?),
            resources: Arc::new(Live::new(items.resources)?),
            templates: Arc::new(Live::new(items.templates)?),
            updates: tokio::sync::broadcast::Sender::new(UPDATE_BACKLOG),
            local_updates: tokio::sync::broadcast::Sender::new(UPDATE_BACKLOG),
            peer_lists: std::array::from_fn(|_| tokio::sync::watch::Sender::new(0)),
            completions_offered: false,
            max_result_chars,
        })
    }

    fn settle_tools(&self, tools: &mut [ToolEntry]) -> Result<(), Error> {
        settle_tools(tools, self.max_result_chars)
    }

    /// Announces that the resource at `uri` changed.
    pub(crate) fn updated(&self, uri: &str) {
        let uri: Arc<str> = Arc::from(uri);
        // No receiver (no connection listens, no other instance): nothing to tell.
        let _ = self.local_updates.send(Arc::clone(&uri));
        let _ = self.updates.send(uri);
    }

    /// Announces that another instance said the resource at `uri` changed.
    #[cfg(feature = "http")]
    pub(crate) fn updated_elsewhere(&self, uri: Arc<str>) {
        let _ = self.updates.send(uri);
    }

    /// A receiver of the resource updates raised on this instance.
    #[cfg(feature = "http")]
    pub(crate) fn local_updates(&self) -> tokio::sync::broadcast::Receiver<Arc<str>> {
        self.local_updates.subscribe()
    }

    /// A receiver of resource updates.
    pub(crate) fn updates(&self) -> tokio::sync::broadcast::Receiver<Arc<str>> {
        self.updates.subscribe()
    }

    /// Warns when an item added at run time brings completion functions
    /// that clients will never be able to call: the server did not declare
    /// `completions` when it was built.
    pub(crate) fn check_completions<'a>(&self, completing: impl IntoIterator<Item = &'a str>) {
        if self.completions_offered {
            return;
        }
        for key in completing {
            tracing::warn!(
                item = key,
                "a completion function was added at run time, but the server did not declare \
                 the `completions` capability when it was built: `completion/complete` stays \
                 unavailable (build it with `ServerBuilder::offer_prompts_and_resources`)"
            );
        }
    }

    /// [`check_completions`](Self::check_completions) for the prompts and
    /// templates of `items` that bring completion functions.
    fn check_item_completions(&self, items: &crate::tool::Items) {
        self.check_completions(
            items
                .prompts
                .iter()
                .filter(|p| !p.completions.is_empty())
                .map(crate::prompt::PromptEntry::name)
                .chain(
                    items
                        .templates
                        .iter()
                        .filter(|t| !t.completions.is_empty())
                        .map(crate::resource::TemplateEntry::uri_template),
                ),
        );
    }

    /// Adds every item, or none if one of their keys is taken.
    pub(crate) fn add(&self, mut items: crate::tool::Items) -> Result<(), Error> {
        // Checked first, so a refusal adds nothing of any kind.
        self.settle_tools(&mut items.tools)?;
        self.tools.check_new(&items.tools)?;
        self.prompts.check_new(&items.prompts)?;
        self.resources.check_new(&items.resources)?;
        self.templates.check_new(&items.templates)?;
        crate::apps::check_origins(items.resources.iter().map(ResourceEntry::resource))?;
        let served = self.resources.snapshot();
        crate::apps::check_pages(items.tools.iter().map(ToolEntry::tool), |uri| {
            page_in(&items.resources, uri).or_else(|| served.get(uri).map(|r| (*r.def).clone()))
        })?;
        self.check_item_completions(&items);
        self.tools.add(items.tools)?;
        self.prompts.add(items.prompts)?;
        self.resources.add(items.resources)?;
        self.templates.add(items.templates)
    }

    /// Replaces everything `toolbox` offers with `items` (already marked
    /// as its own), kind by kind; checked first, so a refusal changes nothing.
    pub(crate) fn replace_toolbox(
        &self,
        toolbox: &str,
        mut items: crate::tool::Items,
    ) -> Result<(), Error> {
        self.settle_tools(&mut items.tools)?;
        self.tools.check_replace(toolbox, &items.tools)?;
        self.prompts.check_replace(toolbox, &items.prompts)?;
        self.resources.check_replace(toolbox, &items.resources)?;
        self.templates.check_replace(toolbox, &items.templates)?;
        crate::apps::check_origins(items.resources.iter().map(ResourceEntry::resource))?;
        self.check_item_completions(&items);
        self.tools.replace_group(toolbox, items.tools)?;
        self.prompts.replace_group(toolbox, items.prompts)?;
        self.resources.replace_group(toolbox, items.resources)?;
        self.templates.replace_group(toolbox, items.templates)
    }

    /// Removes every item of a toolbox; returns how many.
    pub(crate) fn remove_toolbox(&self, toolbox: &str) -> usize {
        self.tools.remove(|e| e.group() == toolbox)
            + self.prompts.remove(|e| e.group() == toolbox)
            + self.resources.remove(|e| e.group() == toolbox)
            + self.templates.remove(|e| e.group() == toolbox)
    }

    /// Enables or disables a whole toolbox; returns how many of its items exist.
    pub(crate) fn set_toolbox_enabled(&self, toolbox: &str, enabled: bool) -> usize {
        self.tools.set_toolbox_enabled(toolbox, enabled)
            + self.prompts.set_toolbox_enabled(toolbox, enabled)
            + self.resources.set_toolbox_enabled(toolbox, enabled)
            + self.templates.set_toolbox_enabled(toolbox, enabled)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tool::{ToolEntry, ToolSpec};

    fn entry(name: &'static str) -> ToolEntry {
        crate::__private::tool_entry(
            &ToolSpec {
                name,
                description: "d",
                ..ToolSpec::default()
            },
            oxmcp_types::JsonObject::new(),
            None,
            crate::__private::ToolHandler::future(|_, _| {
                Box::pin(async { oxmcp_types::CallToolResult::text("") })
            }),
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
    fn scopes_are_named_once_and_allow_only_a_token_with_all_of_them() {
        let scopes = Scopes::of(&["a"]).with(["b", "a", "c"]);
        assert_eq!(scopes.iter().collect::<Vec<_>>(), ["a", "b", "c"]);
        let some = crate::auth::Identity::new().with_scopes(["a", "b"]);
        let all = crate::auth::Identity::new().with_scopes(["c", "b", "a"]);
        assert!(scopes.allow(None), "no token: nothing to check");
        assert!(!scopes.allow(Some(&some)));
        assert!(scopes.allow(Some(&all)));
        assert!(Scopes::default().allow(Some(&crate::auth::Identity::new())));
    }

    #[test]
    fn rejects_bad_cursors_and_duplicates() {
        let reg = Registry::new(vec![entry("a")]).unwrap();
        assert!(reg.page(Some("garbage"), 10).is_err());
        assert!(reg.page(Some("n1.zz"), 10).is_err());
        assert!(reg.page(Some(""), 10).is_err());
        assert!(Registry::new(vec![entry("a"), entry("a")]).is_err());
    }

    #[test]
    fn a_group_is_replaced_at_once_keeping_what_was_disabled() {
        let live = Live::new(vec![entry("own")]).unwrap();
        let mut changes = live.subscribe();
        let in_group = |name: &'static str| entry(name).with_toolbox("mount".into());
        live.replace_group("mount", vec![in_group("a"), in_group("b")])
            .unwrap();
        live.set_enabled(|t| t.name() == "b", false);
        changes.mark_unchanged();
        live.replace_group("mount", vec![in_group("b"), in_group("c")])
            .unwrap();
        // One change for the whole replacement.
        assert!(changes.has_changed().unwrap());
        assert_eq!(
            *changes.borrow_and_update(),
            3,
            "one more than after the disabling"
        );
        let names = |live: &Live<ToolEntry>| -> Vec<String> {
            live.snapshot()
                .entries()
                .iter()
                .map(|t| t.name().to_owned())
                .collect()
        };
        // `b` stays disabled; `a` is gone; `own` is untouched.
        assert_eq!(names(&live), ["c", "own"]);
        // A name of another group is refused, and nothing changes.
        let e = live
            .replace_group("mount", vec![in_group("own")])
            .unwrap_err();
        assert!(
            e.to_string().contains("a tool named `own` already exists"),
            "{e}"
        );
        assert_eq!(names(&live), ["c", "own"]);
        // An empty replacement removes the group.
        live.replace_group("mount", Vec::new()).unwrap();
        assert_eq!(names(&live), ["own"]);
    }
}
