//! The connection core: everything between the client's API and a
//! transport. `requests` sends a request and waits for its response (ids,
//! the era's `_meta`, timeouts, cancellation, progress, input rounds);
//! `shared` holds what the API and the transports' tasks share (calls
//! waiting, subscriptions, the notification stream) and routes every
//! incoming message; `session` is the legacy session and its renewal;
//! `link` is what the core needs of a transport, named so that transports
//! depend on it and not on the rest of the core; `telemetry` (the `otel`
//! feature) the spans and durations of what the core sends.

mod link;
mod requests;
mod session;
mod shared;
#[cfg(feature = "otel")]
mod telemetry;

#[cfg(feature = "http")]
pub(crate) use link::Head;
pub(crate) use link::{Outgoing, Transport};
pub(crate) use requests::{Config, Conn, Req};
pub(crate) use session::{legacy_list, SessionInfo};
pub(crate) use shared::{cancelled_notification, lock, Closed, Shared};
