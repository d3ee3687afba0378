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

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http::{Response, StatusCode};
use mcp_types::jsonrpc::{code, RawMessage};
use mcp_types::RequestId;
use mcp_wire::sync::lock;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use tokio::sync::{mpsc, watch};

use super::reply::{respond, sse_builder, transport_error};
use super::session::{HttpSession, Owner};
use super::{Inner, McpBody};
use crate::context::Outbound;
use crate::dispatch::{Change, Changes, RequestInfo, Session, SessionRecord, Watched};
use crate::policy::TransportKind;
use crate::state::{within, Append, BusEvent, Store, StoreError};

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
pub(super) fn unavailable(error: &StoreError) -> Response<McpBody> {
    tracing::warn!(error = %mcp_types::error::Chain(error), "the shared store failed a request");
    let mut r = transport_error(
        StatusCode::SERVICE_UNAVAILABLE,
        code::INTERNAL_ERROR,
        &format!("session store unavailable ({}): try again", error.store()),
    );
    r.headers_mut()
        .insert(http::header::RETRY_AFTER, RETRY_AFTER_SECS.into());
    r
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
                        tracing::warn!(error = %mcp_types::error::Chain(&e), "an operation on a task did not reach its instance");
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

impl Inner {
    /// Starts this instance's side of the bus, once: subscribing (tried
    /// again until it works), the bus reader, the publisher of local
    /// changes and the writer of stream events.
    pub(super) fn start_shared(self: &Arc<Self>) {
        let Some(shared) = &self.shared else { return };
        if shared.started.swap(true, Ordering::AcqRel) {
            return;
        }
        let inner = Arc::downgrade(self);
        let store = Arc::clone(&shared.store);
        let shutdown = self.shutdown.clone();
        if let Some(log) = lock(&shared.log).take() {
            tokio::spawn(write_events(
                Arc::clone(&store),
                log,
                self.config.replay.max_events,
                self.config.session_idle,
            ));
        }
        tokio::spawn(async move {
            let mut bus = loop {
                match within(&*store, store.subscribe()).await {
                    Ok(rx) => break rx,
                    Err(e) => {
                        tracing::warn!(error = %mcp_types::error::Chain(&e), "cannot subscribe to the shared store's bus; trying again");
                        tokio::select! {
                            () = shutdown.cancelled() => return,
                            () = tokio::time::sleep(BUS_RETRY) => {}
                        }
                    }
                }
            };
            let Some(me) = inner.upgrade() else { return };
            tokio::spawn(publish_changes(Arc::downgrade(&me)));
            if let Some(shared) = &me.shared {
                shared.ready.send_replace(true);
            }
            drop(me);
            loop {
                let event = tokio::select! {
                    () = shutdown.cancelled() => return,
                    event = bus.recv() => event,
                };
                let (Some(event), Some(me)) = (event, inner.upgrade()) else {
                    return;
                };
                me.on_bus(event);
            }
        });
    }

    /// Waits (within the store's deadline) for the bus to be up.
    async fn bus_ready(self: &Arc<Self>, shared: &Shared) -> Result<(), Response<McpBody>> {
        self.start_shared();
        let mut ready = shared.ready.subscribe();
        let up = tokio::time::timeout(crate::state::STORE_DEADLINE, ready.wait_for(|up| *up))
            .await
            .is_ok_and(|r| r.is_ok());
        if up {
            Ok(())
        } else {
            Err(unavailable(&StoreError::timed_out(shared.store.name())))
        }
    }

    /// What another instance published.
    fn on_bus(&self, event: BusEvent) {
        let Some(shared) = &self.shared else { return };
        let bytes = match event {
            BusEvent::Message(bytes) => bytes,
            BusEvent::Resubscribed => {
                // Ends and changes may have been missed: check what we hold.
                shared.generation.fetch_add(1, Ordering::AcqRel);
                return;
            }
        };
        let notice: Notice = match serde_json::from_slice(&bytes) {
            Ok(n) => n,
            Err(e) => {
                tracing::warn!(error = %e, "ignoring a malformed message on the shared store's bus");
                return;
            }
        };
        if notice.from == shared.instance {
            return;
        }
        let local = || {
            notice
                .session
                .as_deref()
                .and_then(|id| self.sessions.local(id))
        };
        match notice.kind {
            Kind::List => {
                if let Some(feed) = notice
                    .list
                    .and_then(|i| self.core.catalog.peer_lists.get(i))
                {
                    feed.send_modify(|n| *n += 1);
                }
            }
            Kind::Updated => {
                if let Some(uri) = notice.uri {
                    self.core.catalog.updated_elsewhere(uri.into());
                }
            }
            Kind::Deliver => {
                let (Some(held), Some(body)) = (local(), &notice.body) else {
                    return;
                };
                match RawMessage::parse(body.get()) {
                    Ok(msg) => {
                        let out: Arc<dyn Outbound> = super::sse::RequestSink::new();
                        let _ = self
                            .core
                            .handle(&held.session, msg, &out, &RequestInfo::default());
                    }
                    Err(e) => {
                        tracing::warn!(error = %e.to_response().error.message, "ignoring a malformed message forwarded by another instance");
                    }
                }
            }
            Kind::Changed => {
                let (Some(held), Some(body)) = (local(), &notice.body) else {
                    return;
                };
                if let Ok(record) = serde_json::from_str::<SessionRecord>(body.get()) {
                    held.session.apply(record);
                }
            }
            Kind::Task => {
                let (Some(task), Some(body)) = (&notice.session, &notice.body) else {
                    return;
                };
                if let Ok(op) = serde_json::from_str::<crate::dispatch::TaskOp>(body.get()) {
                    self.core.tasks.apply(task, op);
                }
            }
            Kind::Ended => {
                if let Some(id) = &notice.session {
                    if self.sessions.remove(id).is_some() {
                        tracing::debug!(session = %id, "session ended on another instance");
                    }
                }
            }
        }
    }

    async fn publish(&self, shared: &Shared, notice: &Notice) -> Result<(), StoreError> {
        let bytes =
            serde_json::to_vec(notice).map_err(|e| StoreError::new(shared.store.name(), e))?;
        within(&*shared.store, shared.store.publish(Bytes::from(bytes))).await
    }

    /// The legacy session `id`: the one this instance holds, else the
    /// store's (rebuilt here), else none. `Err` is the answer when the store
    /// was needed and failed.
    pub(super) async fn find_session(
        self: &Arc<Self>,
        id: &str,
    ) -> Result<Option<Arc<HttpSession>>, Response<McpBody>> {
        let Some(shared) = &self.shared else {
            return Ok(self.sessions.get(id));
        };
        let generation = shared.generation.load(Ordering::Acquire);
        if let Some(held) = self.sessions.get(id) {
            if held.generation.load(Ordering::Acquire) == generation {
                self.refresh(shared, &held);
                return Ok(Some(held));
            }
        }
        self.bus_ready(shared).await?;
        let ttl = self.config.session_idle;
        let record = within(&*shared.store, shared.store.get_session(id, ttl))
            .await
            .map_err(|e| unavailable(&e))?;
        let Some(record) = record else {
            // Ended or expired (maybe while this instance missed the news).
            self.sessions.remove(id);
            return Ok(None);
        };
        let record: SessionRecord = match serde_json::from_slice(&record) {
            Ok(r) => r,
            Err(e) => {
                tracing::warn!(session = id, error = %e, "unreadable session record in the store");
                return Ok(None);
            }
        };
        if let Some(held) = self.sessions.local(id) {
            held.session.apply(record);
            held.generation.store(generation, Ordering::Release);
            *lock(&held.stored_at) = Instant::now();
            return Ok(Some(held));
        }
        let owner = match &record.owner {
            Some(hex) => match Owner::from_hex(hex) {
                Some(o) => Some(o),
                None => return Ok(None),
            },
            None => None,
        };
        let id: Arc<str> = Arc::from(id);
        let session = Session::restore(TransportKind::StreamableHttp, Arc::clone(&id), record);
        let rebuilt = HttpSession::with(session, id, owner, self.sessions.mirror.clone());
        rebuilt.generation.store(generation, Ordering::Release);
        match self.sessions.adopt(rebuilt) {
            Ok(s) => {
                tracing::debug!(session = %s.id, "session taken up from the store");
                Ok(Some(s))
            }
            Err(_) => Err(transport_error(
                StatusCode::SERVICE_UNAVAILABLE,
                code::INTERNAL_ERROR,
                "too many sessions; try again later",
            )),
        }
    }

    /// Refreshes a session's expiry in the store when a quarter of the idle
    /// timeout has passed since this instance last did (in the background:
    /// the request does not wait). A session the store no longer has is
    /// dropped here.
    fn refresh(self: &Arc<Self>, shared: &Shared, held: &Arc<HttpSession>) {
        {
            let mut at = lock(&held.stored_at);
            if at.elapsed() < self.config.session_idle / 4 {
                return;
            }
            *at = Instant::now();
        }
        let store = Arc::clone(&shared.store);
        let id = Arc::clone(&held.id);
        let ttl = self.config.session_idle;
        let me = Arc::downgrade(self);
        tokio::spawn(async move {
            match within(&*store, store.touch_session(&id, ttl)).await {
                Ok(true) => {}
                Ok(false) => {
                    if let Some(me) = me.upgrade() {
                        me.sessions.remove(&id);
                    }
                }
                Err(e) => {
                    tracing::debug!(error = %mcp_types::error::Chain(&e), "could not refresh a session's expiry");
                }
            }
        });
    }

    /// Writes a session's record to the store (after `initialize`, or a
    /// change another instance must see), and tells the instances that
    /// hold it. `Err` is the 503 to answer with.
    pub(super) async fn store_session(
        self: &Arc<Self>,
        held: &HttpSession,
        changed: bool,
    ) -> Result<(), Response<McpBody>> {
        let Some(shared) = &self.shared else {
            return Ok(());
        };
        self.bus_ready(shared).await?;
        let Some(record) = held.session.record(held.owner.map(Owner::to_hex)) else {
            return Ok(());
        };
        let bytes = serde_json::to_vec(&record).unwrap_or_default();
        let ttl = self.config.session_idle;
        let put = shared
            .store
            .put_session(&held.id, Bytes::from(bytes.clone()), ttl);
        within(&*shared.store, put)
            .await
            .map_err(|e| unavailable(&e))?;
        *lock(&held.stored_at) = Instant::now();
        // What the store has is what this instance holds: no need to read it back.
        held.generation
            .store(shared.generation.load(Ordering::Acquire), Ordering::Release);
        if changed {
            let mut notice = shared.notice(Kind::Changed);
            notice.session = Some(held.id.to_string());
            notice.body = String::from_utf8(bytes)
                .ok()
                .and_then(|s| RawValue::from_string(s).ok());
            self.publish(shared, &notice)
                .await
                .map_err(|e| unavailable(&e))?;
        }
        Ok(())
    }

    /// Ends session `id` everywhere: gone from the store, and every instance
    /// that holds it drops it. `Ok(false)` when it was already gone.
    pub(super) async fn end_session(self: &Arc<Self>, id: &str) -> Result<bool, Response<McpBody>> {
        let held = self.sessions.remove(id).is_some();
        let Some(shared) = &self.shared else {
            return Ok(held);
        };
        self.bus_ready(shared).await?;
        let was = within(&*shared.store, shared.store.remove_session(id))
            .await
            .map_err(|e| unavailable(&e))?;
        let mut notice = shared.notice(Kind::Ended);
        notice.session = Some(id.to_owned());
        self.publish(shared, &notice)
            .await
            .map_err(|e| unavailable(&e))?;
        Ok(held || was)
    }

    /// Passes a client's message to the instance that waits for it, when
    /// this one does not: a response to a request another instance sent
    /// (sampling, elicitation, roots), or the cancellation of a call that
    /// may run elsewhere.
    pub(super) async fn forward(
        self: &Arc<Self>,
        held: &HttpSession,
        msg: &RawMessage<'_>,
    ) -> Result<(), Response<McpBody>> {
        let Some(shared) = &self.shared else {
            return Ok(());
        };
        let body = match msg {
            RawMessage::Response { id, result } => {
                if held.session.pending.waits_for(id) {
                    return Ok(());
                }
                format!(
                    r#"{{"jsonrpc":"2.0","id":{},"result":{}}}"#,
                    id_json(id),
                    result.get()
                )
            }
            RawMessage::Error {
                id: Some(id),
                error,
            } => {
                if held.session.pending.waits_for(id) {
                    return Ok(());
                }
                format!(
                    r#"{{"jsonrpc":"2.0","id":{},"error":{}}}"#,
                    id_json(id),
                    serde_json::to_string(error).unwrap_or_else(|_| "null".into())
                )
            }
            RawMessage::Notification {
                method,
                params: Some(params),
            } if method == mcp_types::method::CANCELLED => format!(
                r#"{{"jsonrpc":"2.0","method":"{method}","params":{}}}"#,
                params.get()
            ),
            _ => return Ok(()),
        };
        self.bus_ready(shared).await?;
        let mut notice = shared.notice(Kind::Deliver);
        notice.session = Some(held.id.to_string());
        notice.body = RawValue::from_string(body).ok();
        self.publish(shared, &notice)
            .await
            .map_err(|e| unavailable(&e))
    }

    /// A `Last-Event-ID` naming a stream this instance does not hold:
    /// replays it from the store, then goes on as the session's standalone
    /// stream (a GET stream resumed here), follows the stream while the
    /// instance that runs its call writes it (a POST's), or closes (it
    /// ended).
    pub(super) async fn resume_elsewhere(
        self: &Arc<Self>,
        held: &Arc<HttpSession>,
        stream: u64,
        after: u64,
    ) -> Response<McpBody> {
        let Some(shared) = &self.shared else {
            return unknown_stream();
        };
        let read = shared.store.read_events(&held.id, stream, after);
        let log = match within(&*shared.store, read).await {
            Ok(Some(log)) => log,
            Ok(None) => return unknown_stream(),
            Err(e) => return unavailable(&e),
        };
        let last = log.events.last().map_or(after, |(seq, _)| *seq);
        let replay: Vec<Bytes> = log.events.into_iter().map(|(_, ev)| ev).collect();
        if !log.ended && HttpSession::is_standalone(stream) {
            let next = held.open_stream(self.config.replay, self.config.retry_ms(), true);
            let rx = next.attach_after(replay, None);
            held.prime(&next);
            held.replace_standalone(&next);
            self.keep_alive(&next, held);
            return respond(sse_builder(), McpBody::stream(rx, None));
        }
        let (tx, rx) = mpsc::channel(super::sse::SINK_CAPACITY.max(replay.len() + 16));
        for ev in replay {
            let _ = tx.try_send(ev);
        }
        if !log.ended {
            tokio::spawn(follow(
                Arc::clone(&shared.store),
                Arc::clone(&held.id),
                stream,
                last,
                tx,
                held.ended.clone(),
            ));
        }
        respond(sse_builder(), McpBody::stream(rx, None))
    }
}

impl Inner {
    /// Records a 2026-07-28 retry's `requestState` as used in the store
    /// before it is served, so that it is accepted once across instances
    /// (each instance's own record only knows what it accepted). A state
    /// that is not authentic or has expired is left to dispatch, which says
    /// why it refuses it. `Err` is the answer: -32602 for a state already
    /// used, 503 when the store failed.
    pub(super) async fn claim_state(
        self: &Arc<Self>,
        id: &RequestId,
        params: mcp_types::jsonrpc::RawJson<'_>,
    ) -> Result<(), Response<McpBody>> {
        #[derive(Deserialize)]
        struct StateOnly<'a> {
            #[serde(rename = "requestState", borrow, default)]
            request_state: Option<std::borrow::Cow<'a, str>>,
        }
        let Some(shared) = &self.shared else {
            return Ok(());
        };
        if !params.get().contains("\"requestState\"") {
            return Ok(());
        }
        let Ok(StateOnly {
            request_state: Some(state),
        }) = serde_json::from_str(params.get())
        else {
            return Ok(());
        };
        let Some((nonce, left)) = self.core.signer.claim_of(&state) else {
            return Ok(());
        };
        let claim = shared.store.claim(&format!("request-state:{nonce}"), left);
        match within(&*shared.store, claim).await {
            Ok(true) => Ok(()),
            Ok(false) => Err(super::reply::json(
                super::reply::modern_status(code::INVALID_PARAMS),
                crate::dispatch::error_reply(
                    Some(id.clone()),
                    mcp_types::ErrorObject::invalid_params(
                        "requestState already used: each state is accepted once",
                    ),
                ),
            )),
            Err(e) => Err(unavailable(&e)),
        }
    }
}

fn unknown_stream() -> Response<McpBody> {
    transport_error(
        StatusCode::NOT_FOUND,
        code::INVALID_REQUEST,
        "unknown stream in Last-Event-ID",
    )
}

fn id_json(id: &RequestId) -> String {
    serde_json::to_string(id).unwrap_or_else(|_| "null".into())
}

/// Sends a stream another instance writes, as it grows, until it ends, the
/// client leaves, the session ends, or the store forgets the stream.
async fn follow(
    store: Arc<dyn Store>,
    session: Arc<str>,
    stream: u64,
    mut last: u64,
    tx: mpsc::Sender<Bytes>,
    ended: tokio_util::sync::CancellationToken,
) {
    loop {
        tokio::select! {
            () = ended.cancelled() => return,
            () = tx.closed() => return,
            () = tokio::time::sleep(FOLLOW_EVERY) => {}
        }
        let log = match within(&*store, store.read_events(&session, stream, last)).await {
            Ok(Some(log)) => log,
            Ok(None) => return,
            // The store is down for now: the client keeps waiting, as it would
            // for a slow call.
            Err(_) => continue,
        };
        for (seq, ev) in log.events {
            last = seq;
            if !super::sse::offer(&tx, ev) {
                return;
            }
        }
        if log.ended {
            return;
        }
    }
}

/// Copies stream events to the store, in order, in batches of whatever
/// has queued meanwhile.
async fn write_events(
    store: Arc<dyn Store>,
    mut log: mpsc::UnboundedReceiver<Logged>,
    max_events: usize,
    ttl: Duration,
) {
    let mut batch: Vec<Logged> = Vec::new();
    while log.recv_many(&mut batch, 256).await > 0 {
        let mut appends: Vec<Append> = Vec::new();
        for logged in batch.drain(..) {
            let same = appends
                .last()
                .is_some_and(|a| a.stream == logged.stream && *a.session == *logged.session);
            if !same {
                appends.push(Append {
                    session: logged.session.to_string(),
                    stream: logged.stream,
                    events: Vec::new(),
                    ended: false,
                });
            }
            if let Some(a) = appends.last_mut() {
                a.events.extend(logged.event);
                a.ended |= logged.ended;
            }
        }
        if let Err(e) = within(&*store, store.append_events(appends, max_events, ttl)).await {
            tracing::warn!(error = %mcp_types::error::Chain(&e), "stream events not copied to the shared store: another instance cannot replay them");
        }
    }
}

/// Tells the other instances of what changes here: lists, and resource
/// updates raised on this instance.
async fn publish_changes(inner: std::sync::Weak<Inner>) {
    let mut changes = {
        let Some(me) = inner.upgrade() else { return };
        Changes::new(
            me.core.local_feeds(),
            Some((me.core.catalog.local_updates(), Watched::Everything)),
        )
    };
    while let Some(changes) = changes.next().await {
        let Some(me) = inner.upgrade() else { return };
        let Some(shared) = &me.shared else { return };
        for change in changes {
            let notice = match change {
                Change::List(kind) => Notice {
                    list: Some(kind.index()),
                    ..shared.notice(Kind::List)
                },
                Change::Updated(uri) => Notice {
                    uri: Some(uri.to_string()),
                    ..shared.notice(Kind::Updated)
                },
                // Not followed here: tasks are shared through the store.
                Change::Task(_) => continue,
            };
            if let Err(e) = me.publish(shared, &notice).await {
                tracing::warn!(error = %mcp_types::error::Chain(&e), "a change was not told to the other instances");
            }
        }
    }
}
