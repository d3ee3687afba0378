//! Per-connection state: the legacy session `initialize` opens, and the
//! requests in flight (for cancellation).

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use oxmcp_types::{ClientCapabilities, Implementation, LoggingLevel, ProtocolVersion, RequestId};
use oxmcp_wire::sync::lock;

use crate::context::Context;
use crate::policy::TransportKind;

/// Per-connection state: the legacy session (if `initialize` opened one) and
/// the calls in flight, for cancellation.
pub(crate) struct Session {
    pub(super) legacy: Mutex<Option<LegacyState>>,
    pub(super) inflight: Mutex<HashMap<RequestId, Context>>,
    /// Open `subscriptions/listen` streams: they never finish on their own.
    pub(super) listens: Mutex<HashMap<RequestId, Context>>,
    /// Resources the legacy session subscribed to (`resources/subscribe`).
    pub(super) subscriptions: Mutex<HashSet<String>>,
    /// Whether the client changed what its record keeps (the log level,
    /// the subscriptions) since the transport last took note: what a
    /// transport with a shared store writes back, without knowing which
    /// requests change a session.
    changed: AtomicBool,
    /// Requests we sent the client, awaiting its responses (legacy era).
    pub(crate) pending: Arc<crate::ask::Pending>,
    pub(super) kind: TransportKind,
    pub(super) id: Option<Arc<str>>,
    /// This connection's serial number in the process: what tells stdio
    /// clients apart for per-caller limits.
    pub(super) serial: u64,
    /// What a dispatch layer asked to run when the session ends (tracing
    /// records the duration of a session `initialize` opened here).
    ending: OnceLock<Box<dyn FnOnce() + Send + Sync>>,
}

impl Drop for Session {
    fn drop(&mut self) {
        if let Some(ended) = self.ending.take() {
            ended();
        }
    }
}

/// What `initialize` agreed on.
#[derive(Clone)]
pub(super) struct LegacyState {
    pub(super) version: ProtocolVersion,
    pub(super) log_level: Option<LoggingLevel>,
    pub(super) client_capabilities: Arc<ClientCapabilities>,
    pub(super) client: Arc<Implementation>,
}

impl Session {
    pub(crate) fn new(kind: TransportKind, id: Option<Arc<str>>) -> Arc<Session> {
        Arc::new(Session {
            legacy: Mutex::new(None),
            inflight: Mutex::new(HashMap::new()),
            listens: Mutex::new(HashMap::new()),
            subscriptions: Mutex::new(HashSet::new()),
            changed: AtomicBool::new(false),
            pending: Arc::default(),
            kind,
            id,
            serial: {
                static SERIAL: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
                SERIAL.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
            },
            ending: OnceLock::new(),
        })
    }

    /// Cancels every call in flight (the connection is going away).
    pub(crate) fn cancel_all(&self) {
        for (_, ctx) in lock(&self.inflight).drain() {
            ctx.cancel();
        }
        self.end_listens();
    }

    /// Ends every open `subscriptions/listen` stream (the connection is closing).
    pub(crate) fn end_listens(&self) {
        for (_, ctx) in lock(&self.listens).drain() {
            ctx.cancel();
        }
    }

    /// Notes that the client changed what the session's record keeps.
    pub(super) fn mark_changed(&self) {
        self.changed.store(true, Ordering::Release);
    }

    /// Runs `ended` when the session ends; once (a second call is ignored).
    #[allow(
        dead_code,
        reason = "for dispatch layers; no layer is on in every build"
    )]
    pub(super) fn on_end(&self, ended: impl FnOnce() + Send + Sync + 'static) {
        let _ = self.ending.set(Box::new(ended));
    }

    /// Whether the client changed what the session's record keeps since
    /// the last call (and clears it).
    #[cfg(feature = "http")]
    pub(crate) fn take_changed(&self) -> bool {
        self.changed.swap(false, Ordering::AcqRel)
    }

    /// The protocol version `initialize` negotiated, if it ran.
    pub(crate) fn legacy_version(&self) -> Option<ProtocolVersion> {
        lock(&self.legacy).as_ref().map(|s| s.version)
    }

    /// Whether the session negotiated 2025-03-26, the one revision with JSON-RPC batches.
    pub(crate) fn allows_batches(&self) -> bool {
        lock(&self.legacy)
            .as_ref()
            .is_some_and(|s| s.version == ProtocolVersion::V2025_03_26)
    }
}

#[cfg(feature = "http")]
/// What a legacy session is, as the shared store keeps it: what
/// `initialize` agreed on, what the client changed since (log level,
/// subscriptions), and who owns it (a digest naming the identity). An
/// instance rebuilds a session it has not served from this.
#[derive(serde::Serialize, serde::Deserialize)]
pub(crate) struct SessionRecord {
    #[serde(rename = "v")]
    version: ProtocolVersion,
    #[serde(rename = "c")]
    client: Implementation,
    #[serde(rename = "k")]
    capabilities: ClientCapabilities,
    #[serde(rename = "l", default, skip_serializing_if = "Option::is_none")]
    log_level: Option<LoggingLevel>,
    #[serde(rename = "s", default, skip_serializing_if = "Vec::is_empty")]
    subscriptions: Vec<String>,
    /// The owner's digest, hex (with authorization).
    #[serde(rename = "o", default, skip_serializing_if = "Option::is_none")]
    pub(crate) owner: Option<String>,
}

#[cfg(feature = "http")]
impl Session {
    /// The session's record, once `initialize` ran.
    pub(crate) fn record(&self, owner: Option<String>) -> Option<SessionRecord> {
        let legacy = lock(&self.legacy).clone()?;
        let mut subscriptions: Vec<String> = lock(&self.subscriptions).iter().cloned().collect();
        subscriptions.sort();
        Some(SessionRecord {
            version: legacy.version,
            client: (*legacy.client).clone(),
            capabilities: (*legacy.client_capabilities).clone(),
            log_level: legacy.log_level,
            subscriptions,
            owner,
        })
    }

    /// Takes what `record` says the client changed (another instance
    /// served it): the log level and the subscriptions.
    pub(crate) fn apply(&self, record: SessionRecord) {
        if let Some(state) = lock(&self.legacy).as_mut() {
            state.log_level = record.log_level;
        }
        *lock(&self.subscriptions) = record.subscriptions.into_iter().collect();
    }

    /// A session rebuilt from its record.
    pub(crate) fn restore(
        kind: TransportKind,
        id: Arc<str>,
        mut record: SessionRecord,
    ) -> Arc<Session> {
        let session = Session::new(kind, Some(id));
        *lock(&session.legacy) = Some(LegacyState {
            version: record.version,
            log_level: None,
            client_capabilities: Arc::new(std::mem::take(&mut record.capabilities)),
            client: Arc::new(record.client.clone()),
        });
        session.apply(record);
        session
    }
}
