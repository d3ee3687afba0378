//! Several instances, one service: the HTTP transport on a shared
//! [`Store`]. Legacy sessions are kept in the store and cached by each
//! instance that serves them; resumable streams copy their events there;
//! what one instance raises and another owes crosses the store's bus.
//!
//! The hot path pays no round trip: a session this instance holds is used
//! as it is. The store is read when a session is unknown here, and after
//! the bus was lost (when changes may have been missed); it is written when
//! the session changes (`initialize`, `logging/setLevel`,
//! `resources/(un)subscribe`) and ends, and its expiry is refreshed at
//! most every quarter of the idle timeout.
//!
//! Inside: this file (the shared state, the messages between instances,
//! and `requestState` claims), `bus` (listening to and publishing on the
//! bus, and sessions read from and written to the store), `streams`
//! (stream events copied to the store, and read back from it).

mod bus;
mod streams;

pub(super) use streams::{follow, unknown_stream};

use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use http::StatusCode;
use oxmcp_types::jsonrpc::code;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use tokio::sync::{mpsc, watch};

use super::reply::Turned;
use crate::state::{within, Store, StoreError};

/// One event of a resumable stream, on its way to the store.
pub(crate) struct Logged {
    pub(crate) session: Arc<str>,
    pub(crate) stream: u64,
    pub(crate) event: Option<(u64, Bytes)>,
    pub(crate) ended: bool,
}

/// This instance's side of the shared store.
pub(super) struct Shared {
    pub(super) store: Arc<dyn Store>,
    /// This instance, on the bus (it ignores what it published itself).
    instance: u64,
    /// Whether the bus has been subscribed to (the tasks started).
    started: AtomicBool,
    /// `true` once the bus is up.
    ready: watch::Sender<bool>,
    /// Bumped whenever the bus was lost: sessions seen before are checked
    /// in the store again.
    generation: AtomicU64,
    /// The stream events' way to the writer (taken when it starts).
    log: Mutex<Option<mpsc::UnboundedReceiver<Logged>>>,
}

/// How often the bus is tried again while it cannot be subscribed to.
const BUS_RETRY: Duration = Duration::from_millis(500);

/// How long a client is told to wait before trying again (`Retry-After`).
const RETRY_AFTER_SECS: u64 = 2;

/// How often a stream running on another instance is read from the store
/// while a client follows it here.
const FOLLOW_EVERY: Duration = Duration::from_millis(100);

impl Shared {
    pub(super) fn new(store: Arc<dyn Store>) -> (Shared, mpsc::UnboundedSender<Logged>) {
        let mut bytes = [0u8; 8];
        let _ = getrandom::fill(&mut bytes);
        let (tx, rx) = mpsc::unbounded_channel();
        let shared = Shared {
            store,
            instance: u64::from_le_bytes(bytes),
            started: AtomicBool::new(false),
            ready: watch::Sender::new(false),
            generation: AtomicU64::new(1),
            log: Mutex::new(Some(rx)),
        };
        (shared, tx)
    }
}

/// The answer to a request that needed the store when it failed: 503,
/// `Retry-After`, and a JSON-RPC error naming the store.
pub(in crate::transport::http) fn unavailable(error: &StoreError) -> Turned {
    tracing::warn!(error = %oxmcp_types::error::Chain(error), "the shared store failed a request");
    Turned::new(
        StatusCode::SERVICE_UNAVAILABLE,
        code::INTERNAL_ERROR,
        &format!("session store unavailable ({}): try again", error.store()),
    )
    .retry_after(RETRY_AFTER_SECS)
}

impl Shared {
    /// Tasks shared through this store: their records in it, and
    /// operations on them published on the bus for the instance that runs
    /// each.
    pub(super) fn task_share(&self) -> crate::dispatch::TaskShare {
        let store = Arc::clone(&self.store);
        let from = self.instance;
        crate::dispatch::TaskShare {
            store: Arc::clone(&self.store),
            forward: Box::new(move |task: &str, op: crate::dispatch::TaskOp| {
                let notice = Notice {
                    from,
                    kind: Kind::Task,
                    session: Some(task.to_owned()),
                    uri: None,
                    list: None,
                    body: serde_json::to_string(&op)
                        .ok()
                        .and_then(|s| RawValue::from_string(s).ok()),
                };
                let Ok(bytes) = serde_json::to_vec(&notice) else {
                    return;
                };
                let store = Arc::clone(&store);
                tokio::spawn(async move {
                    if let Err(e) = within(&*store, store.publish(Bytes::from(bytes))).await {
                        tracing::warn!(error = %oxmcp_types::error::Chain(&e), "an operation on a task did not reach its instance");
                    }
                });
            }),
        }
    }

    fn notice(&self, kind: Kind) -> Notice {
        Notice {
            from: self.instance,
            kind,
            session: None,
            uri: None,
            list: None,
            body: None,
        }
    }
}

/// What crosses the bus.
#[derive(Serialize, Deserialize)]
struct Notice {
    from: u64,
    kind: Kind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    session: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    uri: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    list: Option<usize>,
    /// A session's record, or a client's message for a session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    body: Option<Box<RawValue>>,
}

#[derive(Serialize, Deserialize, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(rename_all = "lowercase")]
enum Kind {
    /// A list changed on the instance that says so.
    List,
    /// A resource was updated.
    Updated,
    /// A client's response to one of our requests, or its cancellation of
    /// a call, arrived at an instance that does not run what it is for.
    Deliver,
    /// A session's record changed.
    Changed,
    /// A session ended.
    Ended,
    /// `tasks/cancel` or `tasks/update` for a task (its id in `session`)
    /// that the instance running it applies.
    Task,
}
