//! JSON-RPC batches (revision 2025-03-26): the same rules on every
//! transport. `initialize` must not be in a batch, an element that is not a
//! message gets its own error, and the replies go back as one array.

use std::sync::Arc;

use oxmcp_types::jsonrpc::{DecodeError, RawMessage};
use oxmcp_types::ErrorObject;
use serde_json::value::RawValue;

use super::{encode, error_reply, Outcome, RequestInfo, ServerCore, Session};
use crate::common::BoxFuture;
use crate::common::Outbound;

/// A JSON-RPC batch (revision 2025-03-26) being answered: the replies that
/// are ready, and the calls still running. The same rules hold on every
/// transport: `initialize` must not be in a batch, an element that is not a
/// message gets its own error, and the replies go back as one array.
pub(crate) struct Batch {
    replies: Vec<Vec<u8>>,
    pending: Vec<BoxFuture<'static, Option<Vec<u8>>>>,
    /// Whether any element was a request (HTTP answers 202 otherwise).
    pub(crate) any_request: bool,
}

impl Batch {
    /// Whether nothing will be sent back (only notifications and responses).
    pub(crate) fn is_silent(&self) -> bool {
        self.replies.is_empty() && self.pending.is_empty()
    }

    /// Waits for the running calls; the array of every reply, or `None`
    /// when there is none to send.
    pub(crate) async fn finish(self) -> Option<Vec<u8>> {
        let mut replies = self.replies;
        replies.extend(
            futures_util::future::join_all(self.pending)
                .await
                .into_iter()
                .flatten(),
        );
        if replies.is_empty() {
            return None;
        }
        let mut joined = Vec::with_capacity(replies.iter().map(|r| r.len() + 1).sum::<usize>() + 1);
        joined.push(b'[');
        for (i, r) in replies.iter().enumerate() {
            if i > 0 {
                joined.push(b',');
            }
            joined.extend_from_slice(r);
        }
        joined.push(b']');
        Some(joined)
    }
}

/// The elements of a batch as `split_batch` read it, or the error reply for
/// a batch refused whole (malformed JSON, or empty).
pub(crate) fn items(batch: Result<Vec<&RawValue>, DecodeError>) -> Result<Vec<&RawValue>, Vec<u8>> {
    match batch {
        Ok(items) if items.is_empty() => Err(error_reply(
            None,
            ErrorObject::invalid_request("empty batch"),
        )),
        Ok(items) => Ok(items),
        Err(e) => Err(encode(&e.to_response())),
    }
}

/// Starts answering the elements of a batch (from [`items`]), or the
/// error reply when the session's revision has no batches (only
/// 2025-03-26 has them).
pub(crate) fn start_batch(
    core: &Arc<ServerCore>,
    session: &Arc<Session>,
    items: &[&RawValue],
    out: &Arc<dyn Outbound>,
    info: &RequestInfo,
) -> Result<Batch, Vec<u8>> {
    if !session.allows_batches() {
        return Err(error_reply(
            None,
            ErrorObject::invalid_request(
                "JSON-RPC batches are only allowed in protocol revision 2025-03-26",
            ),
        ));
    }
    let mut batch = Batch {
        replies: Vec::new(),
        pending: Vec::new(),
        any_request: false,
    };
    for item in items {
        let msg = match RawMessage::parse(item.get()) {
            Ok(msg) => msg,
            Err(e) => {
                batch.replies.push(encode(&e.to_response()));
                continue;
            }
        };
        if let RawMessage::Request { id, method, .. } = &msg {
            if method == oxmcp_types::method::INITIALIZE {
                batch.replies.push(error_reply(
                    Some(id.clone()),
                    ErrorObject::invalid_request("initialize must not be part of a batch"),
                ));
                continue;
            }
            batch.any_request = true;
        }
        match core.handle(session, msg, out, info) {
            Outcome::Reply(bytes) | Outcome::Failed { bytes, .. } => batch.replies.push(bytes),
            Outcome::Spawn(fut) => batch.pending.push(fut),
            Outcome::Nothing => {}
        }
    }
    Ok(batch)
}
