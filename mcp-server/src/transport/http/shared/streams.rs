//! Stream events copied to the store in order, and followed from it as
//! another instance writes them (a stream resumed here with `Last-Event-ID`).

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http::{Response, StatusCode};
use oxmcp_types::jsonrpc::code;
use oxmcp_types::RequestId;
use tokio::sync::mpsc;

use super::super::reply::transport_error;
use super::super::McpBody;
use super::{Logged, FOLLOW_EVERY};
use crate::state::{within, Append, Store};

pub(in crate::transport::http) fn unknown_stream() -> Response<McpBody> {
    transport_error(
        StatusCode::NOT_FOUND,
        code::INVALID_REQUEST,
        "unknown stream in Last-Event-ID",
    )
}

pub(super) fn id_json(id: &RequestId) -> String {
    serde_json::to_string(id).unwrap_or_else(|_| "null".into())
}

/// Sends a stream another instance writes, as it grows, until it ends, the
/// client leaves, the session ends, or the store forgets the stream.
pub(in crate::transport::http) async fn follow(
    store: Arc<dyn Store>,
    session: Arc<str>,
    stream: u64,
    mut last: u64,
    tx: mpsc::Sender<Bytes>,
    ended: tokio_util::sync::CancellationToken,
) {
    loop {
        tokio::select! {
            () = ended.cancelled() => return,
            () = tx.closed() => return,
            () = tokio::time::sleep(FOLLOW_EVERY) => {}
        }
        let log = match within(&*store, store.read_events(&session, stream, last)).await {
            Ok(Some(log)) => log,
            Ok(None) => return,
            // The store is down for now: the client keeps waiting, as it would
            // for a slow call.
            Err(_) => continue,
        };
        for (seq, ev) in log.events {
            last = seq;
            if !super::super::sse::offer(&tx, ev) {
                return;
            }
        }
        if log.ended {
            return;
        }
    }
}

/// Copies stream events to the store, in order, in batches of whatever
/// has queued meanwhile.
pub(super) async fn write_events(
    store: Arc<dyn Store>,
    mut log: mpsc::UnboundedReceiver<Logged>,
    max_events: usize,
    ttl: Duration,
) {
    let mut batch: Vec<Logged> = Vec::new();
    while log.recv_many(&mut batch, 256).await > 0 {
        let mut appends: Vec<Append> = Vec::new();
        for logged in batch.drain(..) {
            let same = appends
                .last()
                .is_some_and(|a| a.stream == logged.stream && *a.session == *logged.session);
            if !same {
                appends.push(Append {
                    session: logged.session.to_string(),
                    stream: logged.stream,
                    events: Vec::new(),
                    ended: false,
                });
            }
            if let Some(a) = appends.last_mut() {
                a.events.extend(logged.event);
                a.ended |= logged.ended;
            }
        }
        if let Err(e) = within(&*store, store.append_events(appends, max_events, ttl)).await {
            tracing::warn!(error = %oxmcp_types::error::Chain(&e), "stream events not copied to the shared store: another instance cannot replay them");
        }
    }
}
