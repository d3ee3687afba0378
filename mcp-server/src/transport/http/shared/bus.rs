//! The bus: what other instances publish, and what this one publishes for
//! them (list changes, resource updates, answers and cancellations for
//! calls running elsewhere, session changes and ends); and legacy sessions
//! in the store: found when unknown here, refreshed, written when they
//! change, ended on every instance.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;

use bytes::Bytes;
use http::StatusCode;
use oxmcp_types::jsonrpc::{code, RawMessage};
use oxmcp_wire::sync::lock;
use serde_json::value::RawValue;

use super::super::reply::Turned;
use super::super::session_table::{HttpSession, Owner};
use super::super::Inner;
use super::streams::{id_json, write_events};
use super::{unavailable, Kind, Notice, Shared, BUS_RETRY};
use crate::common::Outbound;
use crate::dispatch::{Change, Changes, RequestInfo, Session, SessionRecord, Watched};
use crate::policy::TransportKind;
use crate::state::{within, BusEvent, StoreError};

impl Inner {
    /// Starts this instance's side of the bus, once: subscribing (tried
    /// again until it works), the bus reader, the publisher of local
    /// changes and the writer of stream events.
    pub(in crate::transport::http) fn start_shared(self: &Arc<Self>) {
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
                        tracing::warn!(error = %oxmcp_types::error::Chain(&e), "cannot subscribe to the shared store's bus; trying again");
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
    pub(super) async fn bus_ready(self: &Arc<Self>, shared: &Shared) -> Result<(), Turned> {
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
    pub(super) fn on_bus(&self, event: BusEvent) {
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
                        let out: Arc<dyn Outbound> = super::super::sse::RequestSink::new();
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
                    self.core.tasks.table.apply(task, op);
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

    pub(super) async fn publish(&self, shared: &Shared, notice: &Notice) -> Result<(), StoreError> {
        let bytes =
            serde_json::to_vec(notice).map_err(|e| StoreError::new(shared.store.name(), e))?;
        within(&*shared.store, shared.store.publish(Bytes::from(bytes))).await
    }

    /// Passes a client's message to the instance that waits for it, when
    /// this one does not: a response to a request another instance sent
    /// (sampling, elicitation, roots), or the cancellation of a call that
    /// may run elsewhere.
    pub(in crate::transport::http) async fn forward(
        self: &Arc<Self>,
        held: &HttpSession,
        msg: &RawMessage<'_>,
    ) -> Result<(), Turned> {
        let Some(shared) = &self.shared else {
            return Ok(());
        };
        if !crate::dispatch::owed_elsewhere(&held.session, msg) {
            return Ok(());
        }
        let body = match msg {
            RawMessage::Response { id, result } => format!(
                r#"{{"jsonrpc":"2.0","id":{},"result":{}}}"#,
                id_json(id),
                result.get()
            ),
            RawMessage::Error { id, error } => format!(
                r#"{{"jsonrpc":"2.0","id":{},"error":{}}}"#,
                id.as_ref().map_or_else(|| "null".to_owned(), id_json),
                serde_json::to_string(error).unwrap_or_else(|_| "null".into())
            ),
            RawMessage::Notification { method, params } => format!(
                r#"{{"jsonrpc":"2.0","method":{},"params":{}}}"#,
                serde_json::to_string(method.as_ref()).unwrap_or_else(|_| "null".into()),
                params.map_or("{}", |p| p.get())
            ),
            RawMessage::Request { .. } => return Ok(()),
        };
        self.bus_ready(shared).await?;
        let mut notice = shared.notice(Kind::Deliver);
        notice.session = Some(held.id.to_string());
        notice.body = RawValue::from_string(body).ok();
        self.publish(shared, &notice)
            .await
            .map_err(|e| unavailable(&e))
    }
}

/// Tells the other instances of what changes here: lists, and resource
/// updates raised on this instance.
pub(super) async fn publish_changes(inner: std::sync::Weak<Inner>) {
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
                tracing::warn!(error = %oxmcp_types::error::Chain(&e), "a change was not told to the other instances");
            }
        }
    }
}

// ---------------------------------------------------------------- sessions

impl Inner {
    /// The legacy session `id`: the one this instance holds, else the
    /// store's (rebuilt here), else none. `Err` is the answer when the store
    /// was needed and failed.
    pub(in crate::transport::http) async fn find_session(
        self: &Arc<Self>,
        id: &str,
    ) -> Result<Option<Arc<HttpSession>>, Turned> {
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
            Err(_) => Err(Turned::new(
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
    pub(super) fn refresh(self: &Arc<Self>, shared: &Shared, held: &Arc<HttpSession>) {
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
                    tracing::debug!(error = %oxmcp_types::error::Chain(&e), "could not refresh a session's expiry");
                }
            }
        });
    }

    /// Writes a session's record to the store (after `initialize`, or a
    /// change another instance must see), and tells the instances that
    /// hold it. `Err` is the 503 to answer with.
    pub(in crate::transport::http) async fn store_session(
        self: &Arc<Self>,
        held: &HttpSession,
        changed: bool,
    ) -> Result<(), Turned> {
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
    pub(in crate::transport::http) async fn end_session(
        self: &Arc<Self>,
        id: &str,
    ) -> Result<bool, Turned> {
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
}
