//! State shared between the client's API and its transports' tasks: calls
//! waiting for a response, progress callbacks, subscriptions, the
//! notification stream, and the routing of every incoming message.

use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};

use oxmcp_types::call::CallError;
use oxmcp_types::jsonrpc::{ErrorResponse, Message, Notification, Request, Response};
use oxmcp_types::modern::meta as meta_key;
use oxmcp_types::notification::{CancelledParams, ProgressParams};
use oxmcp_types::{method, LoggingLevel, RequestId};
use serde::Deserialize;
use serde_json::Value;
use tokio::sync::{broadcast, mpsc, oneshot};
use tokio::task::AbortHandle;

use crate::connection::Transport;
use crate::error::transport;
use crate::handler::Handlers;
use crate::options::{Progress, ProgressFn};
use crate::tools::ToolCache;

/// How many notifications wait for a slow `notifications()` reader before
/// the oldest are dropped.
const NOTIFICATION_BUFFER: usize = 1024;

/// What a waiting call receives.
pub(crate) type Reply = Result<Value, CallError>;

pub(crate) use oxmcp_wire::sync::lock;

/// Why the connection is over.
#[derive(Debug, Clone)]
pub(crate) enum Closed {
    /// `close()` was called: calls in flight are cancelled.
    ByClient,
    /// The server or the transport went away.
    Failed(String),
}

impl Closed {
    fn error(&self) -> CallError {
        match self {
            Closed::ByClient => CallError::Cancelled,
            Closed::Failed(reason) => transport(reason.clone()),
        }
    }
}

#[derive(Default)]
struct State {
    closed: Option<Closed>,
    pending: HashMap<RequestId, oneshot::Sender<Reply>>,
    /// Progress callbacks by the token's JSON text.
    progress: HashMap<String, ProgressFn>,
    /// `subscriptions/listen` streams by their request id.
    subscriptions: HashMap<RequestId, mpsc::UnboundedSender<Notification>>,
    /// Server requests being answered, for `notifications/cancelled`.
    handling: HashMap<RequestId, AbortHandle>,
}

/// Shared by the client and its transport tasks.
pub(crate) struct Shared {
    state: Mutex<State>,
    notifications: Mutex<Option<broadcast::Sender<Notification>>>,
    next_id: AtomicI64,
    pub(crate) handlers: Handlers,
    /// Where answers to server requests go (set once the transport exists).
    transport: OnceLock<Weak<dyn Transport>>,
    pub(crate) tools: ToolCache,
    /// The level sent with modern requests (`_meta` logLevel).
    pub(crate) log_level: Mutex<Option<LoggingLevel>>,
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shared").finish_non_exhaustive()
    }
}

impl Shared {
    pub(crate) fn new(handlers: Handlers, log_level: Option<LoggingLevel>) -> Arc<Shared> {
        let (tx, _) = broadcast::channel(NOTIFICATION_BUFFER);
        Arc::new(Shared {
            state: Mutex::new(State::default()),
            notifications: Mutex::new(Some(tx)),
            next_id: AtomicI64::new(1),
            handlers,
            transport: OnceLock::new(),
            tools: ToolCache::default(),
            log_level: Mutex::new(log_level),
        })
    }

    pub(crate) fn set_transport(&self, transport: &Arc<dyn Transport>) {
        let _ = self.transport.set(Arc::downgrade(transport));
    }

    pub(crate) fn next_id(&self) -> RequestId {
        RequestId::Number(self.next_id.fetch_add(1, Ordering::Relaxed))
    }

    /// Waits for the response to `id`, unless the connection is over.
    pub(crate) fn register(&self, id: &RequestId) -> Result<oneshot::Receiver<Reply>, CallError> {
        let mut st = lock(&self.state);
        if let Some(closed) = &st.closed {
            return Err(closed.error());
        }
        let (tx, rx) = oneshot::channel();
        st.pending.insert(id.clone(), tx);
        Ok(rx)
    }

    /// Stops waiting for `id` (answered, timed out or dropped).
    pub(crate) fn forget(&self, id: &RequestId) {
        lock(&self.state).pending.remove(id);
    }

    pub(crate) fn add_progress(&self, token: String, f: ProgressFn) {
        lock(&self.state).progress.insert(token, f);
    }

    pub(crate) fn remove_progress(&self, token: &str) {
        lock(&self.state).progress.remove(token);
    }

    pub(crate) fn add_subscription(
        &self,
        id: RequestId,
        tx: mpsc::UnboundedSender<Notification>,
    ) -> Result<(), CallError> {
        let mut st = lock(&self.state);
        if let Some(closed) = &st.closed {
            return Err(closed.error());
        }
        st.subscriptions.insert(id, tx);
        Ok(())
    }

    pub(crate) fn remove_subscription(&self, id: &RequestId) {
        lock(&self.state).subscriptions.remove(id);
    }

    /// Why the connection is over, if it is.
    pub(crate) fn closed(&self) -> Option<Closed> {
        lock(&self.state).closed.clone()
    }

    /// Ends the connection: every waiting call fails at once with `why`, new
    /// calls fail the same way, subscriptions and the notification stream end.
    /// The first reason wins.
    #[allow(clippy::needless_pass_by_value)] // callers build it for this call
    pub(crate) fn close(&self, why: Closed) {
        let (pending, handling) = {
            let mut st = lock(&self.state);
            if st.closed.is_some() {
                return;
            }
            st.closed = Some(why.clone());
            st.progress.clear();
            st.subscriptions.clear();
            (
                std::mem::take(&mut st.pending),
                std::mem::take(&mut st.handling),
            )
        };
        if let Closed::Failed(reason) = &why {
            if !pending.is_empty() {
                tracing::warn!(calls = pending.len(), %reason, "connection lost with calls in flight");
            }
        }
        for (_, tx) in pending {
            let _ = tx.send(Err(why.error()));
        }
        for (_, task) in handling {
            task.abort();
        }
        lock(&self.notifications).take();
    }

    /// A receiver of every server notification from now on.
    pub(crate) fn subscribe_notifications(&self) -> broadcast::Receiver<Notification> {
        if let Some(tx) = &*lock(&self.notifications) {
            return tx.subscribe();
        }
        // Closed: a receiver whose sender is already gone ends at once.
        let (tx, rx) = broadcast::channel(1);
        drop(tx);
        rx
    }

    fn publish(&self, n: Notification) {
        if let Some(tx) = &*lock(&self.notifications) {
            // No receiver is fine: nobody asked for notifications.
            let _ = tx.send(n);
        }
    }

    /// Routes one incoming message.
    pub(crate) fn dispatch(self: &Arc<Self>, msg: Message) {
        match msg {
            Message::Response(Response { id, result, .. }) => self.complete(&id, Ok(result)),
            Message::Error(ErrorResponse {
                id: Some(id),
                error,
                ..
            }) => self.complete(&id, Err(CallError::Protocol(error))),
            Message::Error(ErrorResponse {
                id: None, error, ..
            }) => {
                tracing::warn!(code = error.code, message = %error.message, "the server reported an error about a message it could not read");
            }
            Message::Notification(n) => self.notification(n),
            Message::Request(req) => self.server_request(req),
        }
    }

    fn complete(&self, id: &RequestId, reply: Reply) {
        let tx = lock(&self.state).pending.remove(id);
        if let Some(tx) = tx {
            let _ = tx.send(reply);
        } else {
            tracing::debug!(%id, "response to no waiting call (cancelled or timed out)");
        }
    }

    fn notification(self: &Arc<Self>, n: Notification) {
        match n.method.as_ref() {
            method::PROGRESS => {
                if let Some(params) = &n.params {
                    let callback = params
                        .get("progressToken")
                        .and_then(|t| lock(&self.state).progress.get(&t.to_string()).cloned());
                    if let Some(callback) = callback {
                        match ProgressParams::deserialize(params) {
                            Ok(p) => callback(Progress {
                                progress: p.progress,
                                total: p.total,
                                message: p.message,
                            }),
                            Err(e) => {
                                tracing::debug!(error = %e, "malformed progress notification");
                            }
                        }
                        return;
                    }
                }
            }
            method::TOOLS_LIST_CHANGED => self.tools.invalidate(),
            // Warned when log messages really arrive, not when a level is
            // asked for: a gateway asks every mounted server for them.
            method::MESSAGE => {
                oxmcp_wire::deprecated::used(oxmcp_wire::deprecated::Feature::Logging);
            }
            method::CANCELLED => {
                if let Some(Ok(CancelledParams {
                    request_id: Some(id),
                    ..
                })) = n.params.as_ref().map(CancelledParams::deserialize)
                {
                    let mut st = lock(&self.state);
                    if let Some(task) = st.handling.remove(&id) {
                        tracing::debug!(%id, "the server cancelled its request");
                        task.abort();
                    }
                    // A server ends a listen stream this way (2026-07-28).
                    st.subscriptions.remove(&id);
                }
            }
            _ => {}
        }
        let subscription = n
            .params
            .as_ref()
            .and_then(|p| p.get("_meta"))
            .and_then(|m| m.get(meta_key::SUBSCRIPTION_ID))
            .and_then(|id| RequestId::deserialize(id).ok())
            .and_then(|id| lock(&self.state).subscriptions.get(&id).cloned());
        if let Some(tx) = subscription {
            let _ = tx.send(n.clone());
        }
        // An acknowledgement concerns only its subscription.
        if n.method != method::SUBSCRIPTIONS_ACKNOWLEDGED {
            self.publish(n);
        }
    }

    /// A server→client request (legacy era): the installed handler answers,
    /// or -32601; `ping` is always answered.
    fn server_request(self: &Arc<Self>, req: Request) {
        let Some(transport) = self.transport.get().and_then(Weak::upgrade) else {
            return;
        };
        let id = req.id.clone();
        let shared = Arc::clone(self);
        // The lock is held while spawning so the task cannot remove its
        // entry before it is inserted.
        let mut st = lock(&self.state);
        if st.closed.is_some() {
            return;
        }
        let task = tokio::spawn(async move {
            let params = req.params.unwrap_or(Value::Null);
            let outcome = if req.method == method::PING {
                Ok(Value::Object(serde_json::Map::new()))
            } else {
                shared.handlers.run(&req.method, params).await
            };
            lock(&shared.state).handling.remove(&req.id);
            let body = match outcome {
                Ok(result) => serde_json::to_vec(&Response::new(req.id, result)),
                Err(error) => serde_json::to_vec(&ErrorResponse::new(Some(req.id), error)),
            };
            match body {
                Ok(body) => {
                    if let Err(e) = transport.send(body).await {
                        tracing::warn!(error = %oxmcp_types::error::Chain(&e), "could not answer a server request");
                    }
                }
                Err(e) => tracing::warn!(error = %e, "could not serialize an answer"),
            }
        });
        st.handling.insert(id, task.abort_handle());
    }
}

/// A serialized `notifications/cancelled` for `id`.
pub(crate) fn cancelled_notification(id: &RequestId, reason: &str) -> Vec<u8> {
    let params = CancelledParams {
        request_id: Some(id.clone()),
        reason: Some(reason.to_owned()),
        meta: None,
    };
    serde_json::to_vec(&Notification::new(method::CANCELLED, params)).unwrap_or_default()
}
