//! Newline-delimited JSON-RPC over any pair of byte streams: a child
//! process's stdout/stdin, or in-process pipes to a server in the same program.
//!
//! One task writes (so a dropped call never leaves half a line behind), one
//! task reads and dispatches. A line that is not a JSON-RPC message is
//! logged and skipped: one bad line from the server does not end the session.

use std::sync::{Arc, Mutex};

use futures_util::StreamExt;
use oxmcp_types::call::{BoxFuture, CallError};
use oxmcp_types::jsonrpc::Message;
use oxmcp_wire::lines::{Frame, JsonLines};
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;
use tokio::task::AbortHandle;
use tokio_util::codec::FramedRead;

use super::process::Process;
use super::{Outgoing, Transport};
use crate::connection::{lock, Closed, Shared};
use crate::error::transport;

/// Messages over a pair of byte streams.
pub(crate) struct LinesTransport {
    /// Lines to write; taking it closes the server's input.
    tx: Mutex<Option<mpsc::UnboundedSender<Vec<u8>>>>,
    reader: AbortHandle,
    process: Option<Arc<Process>>,
    shared: Arc<Shared>,
}

impl std::fmt::Debug for LinesTransport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LinesTransport")
            .field("process", &self.process.as_ref().and_then(|p| p.pid()))
            .finish_non_exhaustive()
    }
}

impl LinesTransport {
    /// Starts the reader and writer tasks.
    pub(crate) fn start<R, W>(
        reader: R,
        writer: W,
        shared: &Arc<Shared>,
        max_message: usize,
        process: Option<Arc<Process>>,
    ) -> LinesTransport
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let (tx, rx) = mpsc::unbounded_channel();
        tokio::spawn(write_loop(writer, rx, Arc::clone(shared), process.clone()));
        let reader = tokio::spawn(read_loop(
            reader,
            Arc::clone(shared),
            max_message,
            process.clone(),
        ))
        .abort_handle();
        LinesTransport {
            tx: Mutex::new(Some(tx)),
            reader,
            process,
            shared: Arc::clone(shared),
        }
    }

    fn queue(&self, message: Vec<u8>) -> Result<(), CallError> {
        let tx = lock(&self.tx);
        let sent = tx.as_ref().map(|tx| tx.send(message));
        match sent {
            Some(Ok(())) => Ok(()),
            _ => Err(match self.shared.closed() {
                Some(Closed::ByClient) => CallError::Cancelled,
                Some(Closed::Failed(reason)) => transport(reason),
                None => transport("the connection to the server is closed"),
            }),
        }
    }

    /// Closes the server's input (it should exit on end of file).
    fn close_input(&self) {
        lock(&self.tx).take();
    }
}

impl Transport for LinesTransport {
    fn request(&self, request: Outgoing) -> BoxFuture<'_, Result<(), CallError>> {
        let r = self.queue(request.body);
        Box::pin(async move { r })
    }

    fn send(&self, message: Vec<u8>) -> BoxFuture<'_, Result<(), CallError>> {
        let r = self.queue(message);
        Box::pin(async move { r })
    }

    fn close(&self) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            self.close_input();
            if let Some(process) = &self.process {
                process.shutdown().await;
            }
            self.reader.abort();
        })
    }

    fn stderr_tail(&self) -> Vec<String> {
        self.process
            .as_ref()
            .map(|p| p.stderr_tail())
            .unwrap_or_default()
    }
}

impl Drop for LinesTransport {
    fn drop(&mut self) {
        self.close_input();
        self.shared.close(Closed::ByClient);
        if let Some(process) = self.process.take() {
            // Shut the child down politely in the background; if there is no
            // runtime any more, `kill_on_drop` ends it.
            if let Ok(rt) = tokio::runtime::Handle::try_current() {
                rt.spawn(async move { process.shutdown().await });
            }
        }
        self.reader.abort();
    }
}

async fn write_loop<W: AsyncWrite + Unpin>(
    mut writer: W,
    mut rx: mpsc::UnboundedReceiver<Vec<u8>>,
    shared: Arc<Shared>,
    process: Option<Arc<Process>>,
) {
    let mut buf = Vec::with_capacity(8 * 1024);
    while let Some(first) = rx.recv().await {
        buf.clear();
        buf.extend_from_slice(&first);
        buf.push(b'\n');
        // Batch whatever else is queued into one write.
        while let Ok(more) = rx.try_recv() {
            buf.extend_from_slice(&more);
            buf.push(b'\n');
        }
        let written = async {
            writer.write_all(&buf).await?;
            writer.flush().await
        };
        if let Err(e) = written.await {
            // A server process that died before reading says why on its
            // stderr: the reason waits for its exit and its last lines, as
            // the reader's does (whichever closes first is kept).
            let reason = match &process {
                Some(p) => format!(
                    "writing to the server failed ({e}): {}",
                    p.ended_reason(None).await
                ),
                None => format!("writing to the server failed: {e}"),
            };
            shared.close(Closed::Failed(reason));
            return;
        }
    }
    // Every sender is gone: close the server's input.
    let _ = writer.shutdown().await;
}

async fn read_loop<R: AsyncRead + Unpin>(
    reader: R,
    shared: Arc<Shared>,
    max_message: usize,
    process: Option<Arc<Process>>,
) {
    let mut frames = FramedRead::new(reader, JsonLines::new(max_message));
    let error = loop {
        match frames.next().await {
            Some(Ok(Frame::Line(line))) => {
                let line = line.trim();
                if line.is_empty() {
                    continue;
                }
                match Message::parse(line) {
                    Ok(msg) => shared.dispatch(msg),
                    Err(e) => {
                        tracing::warn!(error = %e, "skipping a line from the server that is not a JSON-RPC message");
                    }
                }
            }
            Some(Ok(Frame::TooLong)) => {
                tracing::warn!(
                    limit = max_message,
                    "skipping a message from the server over the size limit"
                );
            }
            Some(Ok(Frame::NotUtf8)) => {
                tracing::warn!("skipping a line from the server that is not UTF-8");
            }
            Some(Err(e)) => break Some(e),
            None => break None,
        }
    };
    let reason = match &process {
        Some(p) => p.ended_reason(error.as_ref()).await,
        None => match error {
            Some(e) => format!("reading from the server failed: {e}"),
            None => "the server closed the connection".to_owned(),
        },
    };
    shared.close(Closed::Failed(reason));
}
