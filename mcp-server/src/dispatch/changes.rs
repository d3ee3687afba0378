//! List-changed notices: each capability with a list that can change gives
//! a [`Feed`]; a connection merges the feeds it listens to into [`Changes`]
//! and sends one notice per list per burst of changes. Legacy sessions hear
//! every list; a 2026-07-28 `subscriptions/listen` stream hears the lists
//! its filter agreed to.

use std::sync::Arc;
use std::time::Duration;

use futures_util::future::select_all;
use oxmcp_types::jsonrpc::Notification;
use oxmcp_types::modern::SubscriptionFilter;
use oxmcp_types::notification::NotificationMetaParams;
use oxmcp_types::resource::ResourceUpdatedParams;
use oxmcp_types::{method, Meta};
use oxmcp_wire::sync::lock;
use tokio::sync::{broadcast, watch};

use super::encode;
use super::session::Session;

/// How long a burst of changes may last before subscribers hear of it:
/// every change within this window yields one notice.
pub(crate) const CHANGE_DEBOUNCE: Duration = Duration::from_millis(10);

/// A list a client can be told has changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ListKind {
    /// The tools (`notifications/tools/list_changed`).
    Tools,
    /// The prompts (`notifications/prompts/list_changed`).
    Prompts,
    /// The resources and templates (`notifications/resources/list_changed`).
    Resources,
}

impl ListKind {
    /// The list's place among the three (tools, prompts, resources).
    pub(crate) fn index(self) -> usize {
        self as usize
    }

    /// Whether a `subscriptions/listen` filter asks for this list.
    pub(crate) fn is_in(self, filter: &SubscriptionFilter) -> bool {
        match self {
            ListKind::Tools => filter.tools_list_changed == Some(true),
            ListKind::Prompts => filter.prompts_list_changed == Some(true),
            ListKind::Resources => filter.resources_list_changed == Some(true),
        }
    }

    /// The notification that says this list changed, tagged with the
    /// `subscriptions/listen` request it answers (2026-07-28), if any.
    pub(crate) fn notice(self, subscription: Option<&Meta>) -> Vec<u8> {
        let method = match self {
            ListKind::Tools => method::TOOLS_LIST_CHANGED,
            ListKind::Prompts => method::PROMPTS_LIST_CHANGED,
            ListKind::Resources => method::RESOURCES_LIST_CHANGED,
        };
        encode(&Notification::new(
            method,
            NotificationMetaParams {
                meta: subscription.cloned(),
            },
        ))
    }
}

/// One list's changes: a receiver that wakes when the list as clients see it
/// changes (its value is a generation counter).
pub(crate) struct Feed {
    kind: ListKind,
    rx: watch::Receiver<u64>,
}

impl Feed {
    pub(crate) fn new(kind: ListKind, rx: watch::Receiver<u64>) -> Feed {
        Feed { kind, rx }
    }

    pub(crate) fn kind(&self) -> ListKind {
        self.kind
    }
}

/// Something a client is told of: a list changed, or a resource it
/// subscribed to was updated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Change {
    /// A list changed.
    List(ListKind),
    /// The resource at this URI changed.
    Updated(Arc<str>),
    /// A task's state (the tasks extension), as `notifications/tasks` carries it.
    Task(Arc<serde_json::Value>),
}

impl Change {
    /// The notification, tagged with the `subscriptions/listen` request it
    /// answers (2026-07-28), if any.
    pub(crate) fn notice(&self, subscription: Option<&Meta>) -> Vec<u8> {
        match self {
            Change::List(kind) => kind.notice(subscription),
            Change::Updated(uri) => encode(&Notification::new(
                method::RESOURCES_UPDATED,
                ResourceUpdatedParams {
                    uri: uri.to_string(),
                    meta: subscription.cloned(),
                },
            )),
            Change::Task(task) => {
                let mut params = (**task).clone();
                if let (Some(map), Some(meta)) = (params.as_object_mut(), subscription) {
                    map.insert("_meta".to_owned(), serde_json::Value::Object(meta.clone()));
                }
                encode(&Notification::new(method::TASKS_NOTIFICATION, params))
            }
        }
    }
}

/// Which resource updates a connection hears of.
pub(crate) enum Watched {
    /// Those its legacy session subscribed to (`resources/subscribe`).
    Session(Arc<Session>),
    /// Those a listen stream's filter names.
    Uris(Vec<String>),
    /// All of them (what an instance tells the others of).
    #[cfg(feature = "http")]
    Everything,
}

impl Watched {
    fn covers(&self, uri: &str) -> bool {
        match self {
            Watched::Session(session) => lock(&session.subscriptions).contains(uri),
            Watched::Uris(uris) => uris.iter().any(|u| u == uri),
            #[cfg(feature = "http")]
            Watched::Everything => true,
        }
    }
}

/// The feeds one connection or one listen stream follows.
pub(crate) struct Changes {
    feeds: Vec<Feed>,
    updates: Option<(broadcast::Receiver<Arc<str>>, Watched)>,
    /// Tasks whose states a listen stream follows.
    tasks: Option<(broadcast::Receiver<super::tasks::TaskNotice>, Vec<String>)>,
}

impl Changes {
    pub(crate) fn new(
        feeds: Vec<Feed>,
        updates: Option<(broadcast::Receiver<Arc<str>>, Watched)>,
    ) -> Changes {
        Changes {
            feeds,
            updates,
            tasks: None,
        }
    }

    /// Follows also the states of the tasks `ids` (none: nothing more).
    pub(crate) fn with_tasks(
        mut self,
        notices: broadcast::Receiver<super::tasks::TaskNotice>,
        ids: Vec<String>,
    ) -> Changes {
        if !ids.is_empty() {
            self.tasks = Some((notices, ids));
        }
        self
    }

    /// Whether there is nothing to follow.
    pub(crate) fn is_empty(&self) -> bool {
        self.feeds.is_empty() && self.updates.is_none() && self.tasks.is_none()
    }

    /// Waits for the next changes: a burst of list changes once it settled,
    /// or an update of a watched resource; `None` when there is nothing to
    /// follow (any more).
    pub(crate) async fn next(&mut self) -> Option<Vec<Change>> {
        loop {
            if self.is_empty() {
                return None;
            }
            let has_feeds = !self.feeds.is_empty();
            tokio::select! {
                first = first_change(&mut self.feeds), if has_feeds => {
                    if let Some(index) = first {
                        // Outside the select: nothing can interrupt the debounce
                        // and lose the change `first_change` marked seen.
                        return Some(self.settle(index).await);
                    }
                }
                update = next_update(&mut self.updates) => match update {
                    Ok(Some(uri)) => return Some(vec![Change::Updated(uri)]),
                    Ok(None) => {}
                    Err(()) => self.updates = None,
                },
                task = next_task(&mut self.tasks) => match task {
                    Ok(Some(state)) => return Some(vec![Change::Task(state)]),
                    Ok(None) => {}
                    Err(()) => self.tasks = None,
                },
            }
        }
    }

    /// Lets a burst of list changes settle, then says which lists changed
    /// (the one at `index`, and any other changed meanwhile).
    async fn settle(&mut self, index: usize) -> Vec<Change> {
        tokio::time::sleep(CHANGE_DEBOUNCE).await;
        let mut changes = Vec::new();
        for (i, feed) in self.feeds.iter_mut().enumerate() {
            if i == index || feed.rx.has_changed().unwrap_or(false) {
                feed.rx.borrow_and_update();
                // A list may have two feeds (here and elsewhere): one notice.
                let change = Change::List(feed.kind);
                if !changes.contains(&change) {
                    changes.push(change);
                }
            }
        }
        changes
    }

    /// [`next`](Self::next), as the notices to send (untagged: the legacy era).
    pub(crate) async fn next_notices(&mut self) -> Option<Vec<Vec<u8>>> {
        let changes = self.next().await?;
        Some(changes.iter().map(|c| c.notice(None)).collect())
    }
}

/// The next update of a watched resource: `Ok(None)` for one not watched
/// (or updates missed by a slow connection: they are hints, not state),
/// `Err` when there will be no more; pending forever without updates.
async fn next_update(
    updates: &mut Option<(broadcast::Receiver<Arc<str>>, Watched)>,
) -> Result<Option<Arc<str>>, ()> {
    let Some((rx, watched)) = updates else {
        return std::future::pending().await;
    };
    match rx.recv().await {
        Ok(uri) => Ok(watched.covers(&uri).then_some(uri)),
        Err(broadcast::error::RecvError::Lagged(_)) => Ok(None),
        Err(broadcast::error::RecvError::Closed) => Err(()),
    }
}

/// The next state of a followed task: `Ok(None)` for a task not followed
/// (or states missed by a slow stream), `Err` when there will be no more;
/// pending forever without tasks to follow.
async fn next_task(
    tasks: &mut Option<(broadcast::Receiver<super::tasks::TaskNotice>, Vec<String>)>,
) -> Result<Option<Arc<serde_json::Value>>, ()> {
    let Some((rx, ids)) = tasks else {
        return std::future::pending().await;
    };
    match rx.recv().await {
        Ok((id, state)) => Ok(ids.iter().any(|i| **i == *id).then_some(state)),
        Err(broadcast::error::RecvError::Lagged(_)) => Ok(None),
        Err(broadcast::error::RecvError::Closed) => Err(()),
    }
}

/// Waits for one list to change and says which (marking it seen); `None`
/// when a list's owner went away (that feed is dropped).
async fn first_change(feeds: &mut Vec<Feed>) -> Option<usize> {
    let (changed, index, _) = select_all(feeds.iter_mut().map(|f| Box::pin(f.rx.changed()))).await;
    if changed.is_err() {
        feeds.swap_remove(index);
        return None;
    }
    Some(index)
}
