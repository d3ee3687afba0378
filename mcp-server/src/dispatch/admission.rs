//! Admission: how many calls may run at once, and how many may wait for a
//! slot before the server answers "busy".

use std::sync::Arc;

use oxmcp_types::ErrorObject;

use crate::policy::{DEFAULT_MAX_RUNNING_CALLS, DEFAULT_MAX_WAITING_CALLS};

/// A bound on calls running at once, and on calls waiting for a slot.
pub(crate) struct CallLimits {
    pub(crate) running: Arc<tokio::sync::Semaphore>,
    pub(crate) max_running: usize,
    pub(crate) max_waiting: usize,
    pub(crate) waiting: Arc<std::sync::atomic::AtomicUsize>,
}

/// A slot to run a call in: held now, or to wait for.
pub(super) enum Admission {
    Now(Option<tokio::sync::OwnedSemaphorePermit>),
    Wait(Arc<tokio::sync::Semaphore>, WaitingGuard),
}

/// Counts a call waiting for a slot while it exists.
pub(super) struct WaitingGuard(Arc<std::sync::atomic::AtomicUsize>);

impl Drop for WaitingGuard {
    fn drop(&mut self) {
        self.0.fetch_sub(1, std::sync::atomic::Ordering::AcqRel);
    }
}

impl Default for CallLimits {
    fn default() -> Self {
        CallLimits::new(DEFAULT_MAX_RUNNING_CALLS, DEFAULT_MAX_WAITING_CALLS)
    }
}

impl CallLimits {
    pub(crate) fn new(running: usize, waiting: usize) -> Self {
        let running = running.clamp(1, tokio::sync::Semaphore::MAX_PERMITS);
        CallLimits {
            running: Arc::new(tokio::sync::Semaphore::new(running)),
            max_running: running,
            max_waiting: waiting,
            waiting: Arc::default(),
        }
    }

    /// Whether a slot is free now.
    pub(super) fn has_room(&self) -> bool {
        self.running.available_permits() > 0
    }

    pub(super) fn admit(&self) -> Result<Admission, ErrorObject> {
        if let Ok(permit) = Arc::clone(&self.running).try_acquire_owned() {
            return Ok(Admission::Now(Some(permit)));
        }
        let waiting = self
            .waiting
            .fetch_add(1, std::sync::atomic::Ordering::AcqRel);
        let guard = WaitingGuard(Arc::clone(&self.waiting));
        if waiting >= self.max_waiting {
            drop(guard);
            return Err(ErrorObject::new(
                SERVER_BUSY,
                format!(
                    "server busy: {} calls running and {} waiting; retry later",
                    self.max_running, self.max_waiting
                ),
            ));
        }
        Ok(Admission::Wait(Arc::clone(&self.running), guard))
    }
}

/// The JSON-RPC error a full server answers with (implementation-defined range).
pub(crate) const SERVER_BUSY: i32 = -32000;
