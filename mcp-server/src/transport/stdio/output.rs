//! The output side of a stdio connection: the queue other tasks send
//! through ([`LineSink`]), and the buffer of pending output written in order
//! with backpressure ([`Output`]).

use std::io;

use tokio::io::{AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;

use crate::common::Outbound;

/// Hands messages from other tasks (spawned calls, notifications) to the
/// connection task, which writes them. The queue is bounded: a reply waits
/// for room; a notification that finds no room (a client that stopped
/// reading while a tool floods progress) is dropped, so memory stays bounded.
pub(super) struct LineSink {
    pub(super) tx: mpsc::Sender<Vec<u8>>,
}

/// How many messages from other tasks may wait for the connection task.
pub(super) const SINK_CAPACITY: usize = 1024;

impl LineSink {
    /// Queues a response, waiting for room.
    pub(super) async fn reply(&self, message: Vec<u8>) {
        // The receiver lives as long as the connection; after it, nothing can be sent.
        let _ = self.tx.send(message).await;
    }
}

impl Outbound for LineSink {
    fn send(&self, message: Vec<u8>) {
        if let Err(mpsc::error::TrySendError::Full(_)) = self.tx.try_send(message) {
            tracing::warn!("the client is not reading; a notification was dropped");
        }
    }
}

/// Stop reading input while this much output waits for a client that does
/// not read (backpressure instead of unbounded memory).
pub(super) const HIGH_WATER: usize = 1024 * 1024;

/// Write replies out once this much is pending, even while more input is
/// ready to be served. Chosen with `mcp-bench stdio` (64 requests in
/// flight); the figures are in `bench/README.md`, "Tuning choices".
const EARLY_WRITE: usize = 1536;

/// Output waiting to be written, in order: messages from other tasks arrive
/// through `rx`; replies computed on the connection task are appended after
/// draining `rx`, so a call's notifications always precede its response.
pub(super) struct Output {
    pub(super) rx: mpsc::Receiver<Vec<u8>>,
    pub(super) buf: Vec<u8>,
    pub(super) written: usize,
}

impl Output {
    pub(super) fn push(&mut self, message: &[u8]) {
        self.buf.extend_from_slice(message);
        self.buf.push(b'\n');
    }

    pub(super) fn drain(&mut self) {
        while let Ok(message) = self.rx.try_recv() {
            self.push(&message);
        }
    }

    /// A reply produced on the connection task.
    pub(super) fn reply(&mut self, message: &[u8]) {
        self.drain();
        self.push(message);
    }

    pub(super) fn is_empty(&self) -> bool {
        self.written == self.buf.len()
    }

    pub(super) fn pending(&self) -> usize {
        self.buf.len() - self.written
    }

    /// Once [`EARLY_WRITE`] is pending, writes what the writer takes at
    /// once: replies start out while the rest of a burst is served, so a
    /// client that pipelines reads them and sends more meanwhile, instead of
    /// the two taking turns. Returns whether anything was written.
    pub(super) fn write_early<W: AsyncWrite + Unpin>(&mut self, writer: &mut W) -> bool {
        self.pending() >= EARLY_WRITE && self.write_ready(writer)
    }

    /// Writes what the writer takes at once, and flushes when that was all
    /// (a pipe's flush does nothing). `None` when nothing was written, else
    /// whether a flush is still owed.
    pub(super) fn write_now<W: AsyncWrite + Unpin>(&mut self, writer: &mut W) -> Option<bool> {
        if !self.write_ready(writer) {
            return None;
        }
        let flushed = self.is_empty()
            && matches!(
                futures_util::FutureExt::now_or_never(writer.flush()),
                Some(Ok(()))
            );
        Some(!flushed)
    }

    /// Writes what the writer takes at once; whether anything was written.
    pub(super) fn write_ready<W: AsyncWrite + Unpin>(&mut self, writer: &mut W) -> bool {
        if self.is_empty() {
            return false;
        }
        let ready = futures_util::FutureExt::now_or_never(writer.write(&self.buf[self.written..]));
        match ready {
            Some(Ok(n)) if n > 0 => {
                self.advance(n);
                true
            }
            _ => false,
        }
    }

    pub(super) fn advance(&mut self, n: usize) {
        self.written += n;
        if self.written == self.buf.len() {
            self.buf.clear();
            self.written = 0;
            if self.buf.capacity() > 4 * HIGH_WATER {
                self.buf.shrink_to(64 * 1024);
            }
        }
    }
}

/// Writes some of `buf`, or flushes when it is empty (one borrow of the writer
/// for both, so the connection loop can select on it).
pub(super) async fn write_or_flush<W: AsyncWrite + Unpin>(
    writer: &mut W,
    buf: &[u8],
) -> io::Result<usize> {
    if buf.is_empty() {
        writer.flush().await.map(|()| 0)
    } else {
        writer.write(buf).await
    }
}
