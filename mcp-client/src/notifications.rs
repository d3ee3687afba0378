//! What the server sends on its own: the notification stream, and
//! `subscriptions/listen` streams (2026-07-28).

use std::fmt;
use std::sync::Arc;

use futures_util::stream::{self, BoxStream, StreamExt};
use oxmcp_types::jsonrpc::Notification;
use oxmcp_types::modern::SubscriptionFilter;
use oxmcp_types::RequestId;
use tokio::sync::{broadcast, mpsc};
use tokio::task::AbortHandle;

use crate::connection::Shared;

/// Every notification the server sends from the moment this was created:
/// log messages (`notifications/message`), list changes, progress that
/// belongs to no call with a callback, subscription events.
///
/// Each [`Client::notifications`](crate::Client::notifications) call makes
/// an independent receiver. A receiver that falls more than 1,024
/// notifications behind loses the oldest (a warning is logged). It ends when
/// the connection does.
pub struct Notifications {
    rx: broadcast::Receiver<Notification>,
}

impl fmt::Debug for Notifications {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Notifications")
            .field("queued", &self.rx.len())
            .finish()
    }
}

impl Notifications {
    pub(crate) fn new(rx: broadcast::Receiver<Notification>) -> Self {
        Notifications { rx }
    }

    /// The next notification; `None` once the connection is closed and
    /// everything received was read.
    pub async fn recv(&mut self) -> Option<Notification> {
        loop {
            match self.rx.recv().await {
                Ok(n) => return Some(n),
                Err(broadcast::error::RecvError::Lagged(n)) => {
                    tracing::warn!(lost = n, "a slow notification reader lost notifications");
                }
                Err(broadcast::error::RecvError::Closed) => return None,
            }
        }
    }

    /// The next notification if one is waiting.
    pub fn try_recv(&mut self) -> Option<Notification> {
        loop {
            match self.rx.try_recv() {
                Ok(n) => return Some(n),
                Err(broadcast::error::TryRecvError::Lagged(_)) => {}
                Err(_) => return None,
            }
        }
    }

    /// As a [`Stream`](futures_util::Stream).
    pub fn into_stream(self) -> BoxStream<'static, Notification> {
        stream::unfold(self, |mut n| async move { n.recv().await.map(|x| (x, n)) }).boxed()
    }
}

/// An open `subscriptions/listen` stream (2026-07-28): the notifications the
/// server agreed to send. Dropping it (or [`close`](Self::close)) cancels the
/// subscription: the HTTP stream is closed, or `notifications/cancelled` is
/// sent on stdio.
pub struct Subscription {
    pub(crate) id: RequestId,
    pub(crate) agreed: SubscriptionFilter,
    pub(crate) rx: mpsc::UnboundedReceiver<Notification>,
    /// A first message that was not the acknowledgement, kept for `recv`.
    pub(crate) first: Option<Notification>,
    pub(crate) task: AbortHandle,
    pub(crate) shared: Arc<Shared>,
}

impl fmt::Debug for Subscription {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Subscription")
            .field("id", &self.id)
            .field("agreed", &self.agreed)
            .finish_non_exhaustive()
    }
}

impl Subscription {
    /// What the server agreed to send (its acknowledgement), which may be
    /// less than what was asked.
    pub fn agreed(&self) -> &SubscriptionFilter {
        &self.agreed
    }

    /// The id of the `subscriptions/listen` request.
    pub fn id(&self) -> &RequestId {
        &self.id
    }

    /// The next notification on this subscription; `None` when the server or
    /// the connection ended it.
    pub async fn recv(&mut self) -> Option<Notification> {
        if let Some(first) = self.first.take() {
            return Some(first);
        }
        self.rx.recv().await
    }

    /// Cancels the subscription.
    pub fn close(self) {}
}

impl Drop for Subscription {
    fn drop(&mut self) {
        self.task.abort();
        self.shared.remove_subscription(&self.id);
    }
}
