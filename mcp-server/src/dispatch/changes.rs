//! List-changed notices: each capability with a list that can change gives
//! a [`Feed`]; a connection merges the feeds it listens to into [`Changes`]
//! and sends one notice per list per burst of changes. Legacy sessions hear
//! every list; a 2026-07-28 `subscriptions/listen` stream hears the lists
//! its filter agreed to.

use std::time::Duration;

use futures_util::future::select_all;
use mcp_types::jsonrpc::Notification;
use mcp_types::modern::SubscriptionFilter;
use mcp_types::notification::NotificationMetaParams;
use mcp_types::{method, Meta};
use tokio::sync::watch;

use super::encode;

/// How long a burst of changes may last before subscribers hear of it:
/// every change within this window yields one notice.
pub(crate) const CHANGE_DEBOUNCE: Duration = Duration::from_millis(10);

/// A list a client can be told has changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ListKind {
    /// The tools (`notifications/tools/list_changed`).
    Tools,
}

impl ListKind {
    /// Whether a `subscriptions/listen` filter asks for this list.
    pub(crate) fn is_in(self, filter: &SubscriptionFilter) -> bool {
        match self {
            ListKind::Tools => filter.tools_list_changed == Some(true),
        }
    }

    /// The notification that says this list changed, tagged with the
    /// `subscriptions/listen` request it answers (2026-07-28), if any.
    pub(crate) fn notice(self, subscription: Option<&Meta>) -> Vec<u8> {
        let method = match self {
            ListKind::Tools => method::TOOLS_LIST_CHANGED,
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

/// The feeds one connection or one listen stream follows.
pub(crate) struct Changes {
    feeds: Vec<Feed>,
}

impl Changes {
    pub(crate) fn new(feeds: Vec<Feed>) -> Changes {
        Changes { feeds }
    }

    /// Whether there is no list to follow.
    pub(crate) fn is_empty(&self) -> bool {
        self.feeds.is_empty()
    }

    /// Waits for the next burst of changes to settle and says which lists
    /// changed; `None` when there is nothing to follow (no feed, or the
    /// server is gone).
    pub(crate) async fn next(&mut self) -> Option<Vec<ListKind>> {
        loop {
            if self.feeds.is_empty() {
                return None;
            }
            let (changed, index, _) =
                select_all(self.feeds.iter_mut().map(|f| Box::pin(f.rx.changed()))).await;
            if changed.is_err() {
                // That list's owner is gone: follow the others.
                self.feeds.swap_remove(index);
                continue;
            }
            tokio::time::sleep(CHANGE_DEBOUNCE).await;
            let mut kinds = Vec::new();
            for (i, feed) in self.feeds.iter_mut().enumerate() {
                if i == index || feed.rx.has_changed().unwrap_or(false) {
                    feed.rx.borrow_and_update();
                    kinds.push(feed.kind);
                }
            }
            return Some(kinds);
        }
    }

    /// [`next`](Self::next), as the notices to send (untagged: the legacy era).
    pub(crate) async fn next_notices(&mut self) -> Option<Vec<Vec<u8>>> {
        let kinds = self.next().await?;
        Some(kinds.into_iter().map(|k| k.notice(None)).collect())
    }
}
