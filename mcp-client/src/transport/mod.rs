//! Transports: bytes ↔ JSON-RPC messages, nothing else. Incoming messages go
//! to [`Shared::dispatch`](crate::connection::Shared::dispatch); what to send
//! comes from the client core.
//!
//! - [`lines`]: newline-delimited JSON over any byte streams (stdio of a
//!   child process, in-process pipes).
//! - [`process`]: the child process behind stdio (spawn, stderr, shutdown).
//! - [`http`]: Streamable HTTP (both eras) and the legacy HTTP+SSE transport.

#[cfg(feature = "http")]
pub(crate) mod http;
pub(crate) mod lines;
#[cfg(feature = "stdio")]
pub(crate) mod process;
// Without `stdio`, `process` is the uninhabited stand-in of `no_process`.
#[cfg(not(feature = "stdio"))]
pub(crate) mod no_process;
#[cfg(not(feature = "stdio"))]
pub(crate) use no_process as process;

pub(crate) use crate::connection::{Outgoing, Transport};
