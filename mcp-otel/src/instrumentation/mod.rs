//! What the framework's own crates (oxmcp-server, oxmcp-client, oxmcp-agent) call
//! to record MCP operations: one request or notification as a span and a
//! duration ([`Operation`]), a session's duration ([`record_session`]), and
//! the bounds on the text a span or a metric point carries ([`cap`],
//! [`session_digest`]).
//!
//! An application does not need this module: it turns on the crates'
//! `otel` features and sets up export with
//! [`Telemetry`](crate::Telemetry). It is public for the framework's
//! crates, which are compiled apart from this one, and for a crate that
//! records MCP operations of its own the same way (a transport written
//! outside the framework, say).

mod operation;
mod text;

pub use operation::{enabled, record_session, Ended, Operation, Side, Started, Transport};
pub use text::{cap, session_digest, span_name, MAX_TEXT_LEN};
