//! What the connection core needs from a transport ([`Transport`]), and a
//! request ready to send ([`Outgoing`]). The transports themselves are in
//! `transport`; this module names neither them nor the core, so both can
//! depend on it.

use oxmcp_types::call::{BoxFuture, CallError};
use oxmcp_types::ProtocolVersion;
#[cfg(feature = "http")]
use oxmcp_types::RequestId;

/// A request ready to send. Message transports send only its `body`;
/// Streamable HTTP also reads the rest for its headers.
#[derive(Debug, Clone)]
pub(crate) struct Outgoing {
    /// The serialized JSON-RPC request.
    pub(crate) body: Vec<u8>,
    /// What Streamable HTTP's headers carry.
    #[cfg(feature = "http")]
    pub(crate) head: Head,
}

/// What Streamable HTTP sends of a request besides its body.
#[cfg(feature = "http")]
#[derive(Debug, Clone)]
pub(crate) struct Head {
    pub(crate) id: RequestId,
    pub(crate) method: String,
    /// 2026-07-28: the `Mcp-Name` value (`params.name` or `params.uri`).
    pub(crate) name: Option<String>,
    /// 2026-07-28: `Mcp-Param-{Name}` headers mirrored from the arguments.
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

    /// While the user signs in (authorization), a future that ends when
    /// they are done: request time limits wait for it.
    fn signing_in(&self) -> Option<BoxFuture<'_, ()>> {
        None
    }

    /// The connection core chose an era (`modern`: 2026-07-28) for what
    /// follows; Streamable HTTP writes its headers accordingly.
    fn set_era(&self, modern: bool) {
        let _ = modern;
    }

    /// Whether requests mirror their parameters into `Mcp-Param-*` headers
    /// (2026-07-28 Streamable HTTP), so tools whose `x-mcp-header`
    /// annotations are invalid must be left out.
    fn mirrors_params(&self) -> bool {
        false
    }

    /// The legacy handshake agreed on `version` (Streamable HTTP sends it
    /// as `MCP-Protocol-Version` from now on).
    fn initialized(&self, version: ProtocolVersion) {
        let _ = version;
    }

    /// Whether the server may end the connection's legacy session and
    /// expect a new `initialize` (Streamable HTTP).
    fn has_sessions(&self) -> bool {
        false
    }

    /// The handshake is over (`notifications/initialized` sent): Streamable
    /// HTTP opens its stream for server-initiated messages.
    fn opened(&self) -> BoxFuture<'_, ()> {
        Box::pin(async {})
    }

    /// Shuts the connection down (closing stdin, stopping the child,
    /// deleting the HTTP session).
    fn close(&self) -> BoxFuture<'_, ()>;

    /// The transport, as `network.transport` names it (`pipe` unless HTTP).
    #[cfg(feature = "otel")]
    fn network(&self) -> oxmcp_otel::instrumentation::Transport {
        oxmcp_otel::instrumentation::Transport::Pipe
    }

    /// The last lines the server wrote to stderr (child processes only).
    fn stderr_tail(&self) -> Vec<String> {
        Vec::new()
    }
}
