//! What must be the same on every instance of a service, and the seam for
//! state that must outlive a process or cross instances.
//!
//! A server in one process needs nothing from here: its legacy sessions,
//! their event logs and its notifications live in memory. To run several
//! instances behind a load balancer, give each the same [`SigningKeys`]
//! (for 2026-07-28 `requestState`) and the same [`Store`] (for legacy
//! sessions, `Last-Event-ID` replay and the bus between instances), with
//! [`HttpConfig::store`](crate::http::HttpConfig::store). The `oxmcp-redis`
//! crate implements [`Store`] on Redis; [`MemoryStore`] implements it in
//! process (several services in one process, and tests).
//!
//! What lives where:
//!
//! | what | where |
//! |---|---|
//! | a legacy session's record: negotiated version, client info and capabilities, log level, subscriptions, owner | the store, expiring after the idle timeout (use refreshes it); each instance caches the sessions it has served |
//! | each resumable SSE stream's events (bounded) | the store, beside the instance's own copy |
//! | list changes, resource updates, a client's answers and cancellations for a call running elsewhere, session changes and ends | the bus |
//! | the 2026-07-28 `requestState`s already accepted (each is accepted once) | the store, until the state expires |
//! | the DPoP proofs already accepted, by key and `jti` (with the `Authorization` on the same `HttpConfig`) | the store, for the proof's window |
//! | each task's state (the tasks extension), as `tasks/get` shows it, with its owner's digest | the store, written by the instance that runs it; `tasks/update` and `tasks/cancel` from its owner reach that instance on the bus while it runs |
//! | calls in flight, open streams, a toolbox's own fields | the instance |
//!
//! Records and bus messages are opaque bytes to a store: the framework
//! writes and reads them.

mod keys;
mod memory;

use std::time::Duration;

use bytes::Bytes;
use tokio::sync::mpsc;

use crate::common::BoxFuture;
pub use keys::{KeysError, SigningKeys};
pub use memory::MemoryStore;

/// A store's answer.
pub type StoreResult<T> = Result<T, StoreError>;

/// The store could not do what was asked (it is down, slow, or refused).
/// Requests that needed it are answered 503 with `Retry-After`.
#[derive(Debug)]
pub struct StoreError {
    store: &'static str,
    source: Option<Box<dyn std::error::Error + Send + Sync>>,
}

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} is unavailable", self.store)
    }
}

impl std::error::Error for StoreError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_deref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}

impl StoreError {
    /// The store named `store` (`"redis"`) failed with `source`.
    pub fn new(
        store: &'static str,
        source: impl Into<Box<dyn std::error::Error + Send + Sync>>,
    ) -> StoreError {
        StoreError {
            store,
            source: Some(source.into()),
        }
    }

    /// The store named `store` did not answer in time.
    pub fn timed_out(store: &'static str) -> StoreError {
        StoreError::new(store, "no answer in time")
    }

    /// The name of the store that failed.
    pub fn store(&self) -> &'static str {
        self.store
    }
}

/// The events a stream's log holds after a point, and whether the stream
/// has ended (its last event was sent).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct StreamLog {
    /// `(sequence number, SSE event bytes)`, oldest first.
    pub events: Vec<(u64, Bytes)>,
    /// The stream ended: nothing will follow.
    pub ended: bool,
}

/// What one instance appends to one stream's log.
#[derive(Debug, Clone)]
pub struct Append {
    /// The session the stream belongs to.
    pub session: String,
    /// The stream (unique within the session, across instances).
    pub stream: u64,
    /// New events, in order.
    pub events: Vec<(u64, Bytes)>,
    /// The stream ended after these events.
    pub ended: bool,
}

/// What the bus hands a subscriber.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BusEvent {
    /// A message another instance (or this one) published.
    Message(Bytes),
    /// The subscription was lost and is back: messages may have been missed
    /// meanwhile (an instance then forgets what it cached).
    Resubscribed,
}

/// Shared state for every instance of a service. Every method answers
/// within the store's own timeout (an implementation must not hang), and
/// everything it keeps expires.
pub trait Store: Send + Sync + 'static {
    /// A short name for logs and errors (`"redis"`).
    fn name(&self) -> &'static str;

    /// Stores session `id`'s record, expiring after `ttl` unless used.
    fn put_session(
        &self,
        id: &str,
        record: Bytes,
        ttl: Duration,
    ) -> BoxFuture<'static, StoreResult<()>>;

    /// Session `id`'s record, if it is alive; refreshes its expiry to `ttl`.
    fn get_session(
        &self,
        id: &str,
        ttl: Duration,
    ) -> BoxFuture<'static, StoreResult<Option<Bytes>>>;

    /// Refreshes session `id`'s expiry (and its streams') to `ttl`; `false`
    /// when it is gone.
    fn touch_session(&self, id: &str, ttl: Duration) -> BoxFuture<'static, StoreResult<bool>>;

    /// Ends session `id`: its record and its streams' logs are gone;
    /// `false` when it was already gone.
    fn remove_session(&self, id: &str) -> BoxFuture<'static, StoreResult<bool>>;

    /// Appends to streams' logs (in order), keeping at most `max_events`
    /// per stream; the logs expire after `ttl` unless appended to.
    fn append_events(
        &self,
        appends: Vec<Append>,
        max_events: usize,
        ttl: Duration,
    ) -> BoxFuture<'static, StoreResult<()>>;

    /// What a stream's log holds after sequence number `after`; `None`
    /// when the store knows no such stream.
    fn read_events(
        &self,
        session: &str,
        stream: u64,
        after: u64,
    ) -> BoxFuture<'static, StoreResult<Option<StreamLog>>>;

    /// Stores task `id`'s record (as `tasks/get` shows it, with the digest
    /// of whom it belongs to), expiring after `ttl`.
    fn put_task(
        &self,
        id: &str,
        record: Bytes,
        ttl: Duration,
    ) -> BoxFuture<'static, StoreResult<()>>;

    /// Task `id`'s record, if the store has it.
    fn get_task(&self, id: &str) -> BoxFuture<'static, StoreResult<Option<Bytes>>>;

    /// Keeps a cached tool result under `key` for `ttl` (the result cache
    /// shared by the instances, [`ResultCache::shared`](crate::policy::ResultCache::shared)).
    fn put_cached(
        &self,
        key: &str,
        result: Bytes,
        ttl: Duration,
    ) -> BoxFuture<'static, StoreResult<()>>;

    /// The cached tool result under `key`, if it has not expired.
    fn get_cached(&self, key: &str) -> BoxFuture<'static, StoreResult<Option<Bytes>>>;

    /// Records `key` as used for `ttl`: `true` the first time, `false` while
    /// it is on record (a 2026-07-28 `requestState` is accepted once across
    /// the instances).
    fn claim(&self, key: &str, ttl: Duration) -> BoxFuture<'static, StoreResult<bool>>;

    /// Sends `message` to every instance subscribed to the bus (this one too).
    fn publish(&self, message: Bytes) -> BoxFuture<'static, StoreResult<()>>;

    /// Subscribes to the bus. The receiver lives as long as the store
    /// (resubscribing after a loss by itself, and saying so).
    fn subscribe(&self) -> BoxFuture<'static, StoreResult<mpsc::Receiver<BusEvent>>>;
}

/// How long a request waits for the store before it is answered 503.
pub(crate) const STORE_DEADLINE: Duration = Duration::from_millis(1500);

/// Runs a store operation with the deadline: a store that does not answer
/// in time has failed.
pub(crate) async fn within<T>(
    store: &dyn Store,
    op: BoxFuture<'static, StoreResult<T>>,
) -> StoreResult<T> {
    match tokio::time::timeout(STORE_DEADLINE, op).await {
        Ok(r) => r,
        Err(_) => Err(StoreError::timed_out(store.name())),
    }
}
