//! What runs around dispatch: a [`DispatchLayer`] sees every message on
//! its way to the capabilities and what comes back, as a tower layer sees
//! a service's requests, without the cost of a future per message (most
//! replies are ready at once). Tracing is one ([`super::telemetry`], with
//! the `otel` feature): the only place on the server's path that feature
//! turns on.

use std::sync::Arc;

use oxmcp_types::jsonrpc::RawJson;

use super::{Outcome, Request, RequestInfo, ServerCore, Session};

/// The rest of the stack below a layer: the layers after it, then the
/// capabilities.
pub(super) type Next<'n> = &'n dyn Fn(Request<'_>) -> Outcome;

/// A notification, as the layers see it.
#[derive(Clone, Copy)]
#[allow(
    dead_code,
    reason = "what a layer reads of it; no layer is on in every build"
)]
pub(super) struct Notice<'a> {
    pub(super) session: &'a Session,
    pub(super) method: &'a str,
    pub(super) params: Option<RawJson<'a>>,
    pub(super) info: &'a RequestInfo,
}

/// A step every message passes through, in the order the server stacks them.
pub(super) trait DispatchLayer: Send + Sync {
    /// Serves `req`: passes it to `next` (or answers it itself), and may
    /// look at or wrap what comes back.
    fn request(&self, core: &Arc<ServerCore>, req: Request<'_>, next: Next<'_>) -> Outcome;

    /// Handles a notification: passes it to `next`.
    fn notification(&self, core: &ServerCore, notice: Notice<'_>, next: &dyn Fn(Notice<'_>)) {
        let _ = core;
        next(notice);
    }

    /// Whether this layer reads the HTTP request's headers now (then the
    /// transport hands them in, [`RequestInfo::headers`]).
    fn wants_headers(&self) -> bool {
        false
    }
}
