//! Legacy sessions in the store: found when unknown here, refreshed,
//! written when they change, ended on every instance.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;

use bytes::Bytes;
use http::{Response, StatusCode};
use mcp_types::jsonrpc::code;
use mcp_wire::sync::lock;
use serde_json::value::RawValue;

use super::super::reply::transport_error;
use super::super::session_table::{HttpSession, Owner};
use super::super::{Inner, McpBody};
use super::{unavailable, Kind, Shared};
use crate::dispatch::{Session, SessionRecord};
use crate::policy::TransportKind;
use crate::state::within;

impl Inner {
    /// The legacy session `id`: the one this instance holds, else the
    /// store's (rebuilt here), else none. `Err` is the answer when the store
    /// was needed and failed.
    pub(in crate::transport::http) async fn find_session(
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
                    tracing::debug!(error = %mcp_types::error::Chain(&e), "could not refresh a session's expiry");
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
    pub(in crate::transport::http) async fn end_session(
        self: &Arc<Self>,
        id: &str,
    ) -> Result<bool, Response<McpBody>> {
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
