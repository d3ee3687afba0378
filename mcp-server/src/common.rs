//! Small pieces every layer of the server shares: the boxed future handlers
//! return, where a request's messages go ([`Outbound`]), serializing a
//! message, random ids, and the default result cap (which a detached
//! context reports). A leaf: it imports nothing else of the crate.

use oxmcp_types::jsonrpc::ErrorResponse;
use oxmcp_types::{ErrorObject, RequestId};
use serde::Serialize;

/// A boxed, `Send` future living for `'a` (`'static` for what the server
/// keeps): the one shape every crate of this workspace uses.
pub use oxmcp_types::call::BoxFuture;

/// The cap on one tool result when neither the tool nor the server sets
/// one: about what Claude Code shows before it replaces a result with a
/// file (25,000 tokens of roughly four characters).
pub const DEFAULT_MAX_RESULT_CHARS: usize = 100_000;

/// Spawns `task` on the current runtime, boxed: every task the server spawns
/// is then one type, and the runtime's code for a task is compiled once.
pub(crate) fn spawn(
    task: impl std::future::Future<Output = ()> + Send + 'static,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(Box::pin(task) as BoxFuture<'static, ()>)
}

/// Where a request's notifications go: the stdio writer, or an HTTP request's
/// SSE stream. Each item is one serialized JSON-RPC message.
pub(crate) trait Outbound: Send + Sync {
    fn send(&self, message: Vec<u8>);

    /// Ends the current connection of a resumable stream (legacy Streamable
    /// HTTP); later messages wait for the client to reconnect. Elsewhere a no-op.
    fn close_stream(&self) {}
}

/// An [`Outbound`] that drops everything (detached contexts, modern requests
/// whose transport cannot stream).
pub(crate) struct Discard;

impl Outbound for Discard {
    fn send(&self, _message: Vec<u8>) {}
}

/// Serializes one message. Our types always serialize; a failure is still
/// answered rather than unwrapped.
pub(crate) fn encode<T: Serialize>(value: &T) -> Vec<u8> {
    // Most messages are small: one allocation instead of a doubling series.
    let mut out = Vec::with_capacity(256);
    match serde_json::to_writer(&mut out, value) {
        Ok(()) => out,
        Err(e) => unserializable(&e),
    }
}

/// What [`encode`] answers for a message that does not serialize (once,
/// not in every type's copy of `encode`).
#[cold]
fn unserializable(e: &serde_json::Error) -> Vec<u8> {
    tracing::error!(error = %e, "failed to serialize a message");
    br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"internal error: unserializable message"}}"#.to_vec()
}

/// The JSON text of `value`, as its `Display` writes it, but with the
/// serializer [`encode`] uses (`Display` would bring its own, and a pretty
/// one besides).
pub(crate) fn json_text(value: &serde_json::Value) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

/// A cryptographically random id: 32 hex digits (128 bits), visible ASCII
/// (legacy session ids, task ids).
pub(crate) fn random_hex_id() -> Result<String, getrandom::Error> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes)?;
    Ok(hex(&bytes))
}

/// `bytes` as lowercase hex.
pub(crate) fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(out, "{b:02x}");
    }
    out
}

/// The bytes `text` spells in hex (either case); `None` when it is not hex.
pub(crate) fn unhex(text: &str) -> Option<Vec<u8>> {
    // Digits only: `from_str_radix` alone would take a sign ("+f").
    if text.len() % 2 != 0 || !text.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).ok())
        .collect()
}

pub(crate) fn error_reply(id: Option<RequestId>, error: ErrorObject) -> Vec<u8> {
    encode(&ErrorResponse::new(id, error))
}
