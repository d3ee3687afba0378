//! Transports: bytes ↔ JSON-RPC messages, nothing else. Incoming messages go
//! to [`Shared::dispatch`](crate::shared::Shared::dispatch); what to send
//! comes from the client core.
//!
//! - [`lines`]: newline-delimited JSON over any byte streams (stdio of a
//!   child process, in-process pipes).
//! - [`process`]: the child process behind stdio (spawn, stderr, shutdown).
//! - [`http`]: Streamable HTTP (both eras) and the legacy HTTP+SSE transport.

pub(crate) mod http;
pub(crate) mod lines;
pub(crate) mod process;

use mcp_types::call::{BoxFuture, CallError};
use mcp_types::RequestId;

/// A request ready to send.
#[derive(Debug, Clone)]
pub(crate) struct Outgoing {
    pub(crate) id: RequestId,
    pub(crate) method: String,
    /// The serialized JSON-RPC request.
    pub(crate) body: Vec<u8>,
    /// 2026-07-28 HTTP: the `Mcp-Name` value (`params.name` or `params.uri`).
    pub(crate) name: Option<String>,
    /// 2026-07-28 HTTP: `Mcp-Param-{Name}` headers mirrored from the arguments.
    pub(crate) param_headers: Vec<(String, String)>,
}

/// What the client core needs from a transport.
pub(crate) trait Transport: Send + Sync + 'static {
    /// Sends a request. Message transports resolve once it is queued (the
    /// response comes through dispatch); Streamable HTTP resolves once the
    /// response has been dispatched, and fails if the stream ends without it.
    fn request(&self, request: Outgoing) -> BoxFuture<'_, Result<(), CallError>>;

    /// Sends a notification or the response to a server request.
    fn send(&self, message: Vec<u8>) -> BoxFuture<'_, Result<(), CallError>>;

    /// Whether dropping a request's future is itself the cancellation
    /// (2026-07-28 Streamable HTTP closes the response stream); otherwise the
    /// client sends `notifications/cancelled`.
    fn cancels_by_closing(&self) -> bool {
        false
    }

    /// Shuts the connection down (closing stdin, stopping the child,
    /// deleting the HTTP session).
    fn close(&self) -> BoxFuture<'_, ()>;

    /// The last lines the server wrote to stderr (child processes only).
    fn stderr_tail(&self) -> Vec<String> {
        Vec::new()
    }
}
