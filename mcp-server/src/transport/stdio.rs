//! The stdio transport: newline-delimited JSON-RPC on stdin/stdout.
//!
//! stdout carries protocol messages only, one per line; logs go to stderr
//! through `tracing`. Bad input never ends the session: an unparsable line is
//! answered with -32700, an invalid message with -32600, a line over the size
//! limit with -32600, and the next line is served.

use std::io;
use std::sync::Arc;

use bytes::BytesMut;
use futures_util::StreamExt;
use mcp_types::jsonrpc::{split_batch, DecodeError, RawMessage};
use mcp_types::ErrorObject;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;
use tokio::task::JoinSet;
use tokio_util::codec::{Decoder, FramedRead, LinesCodec, LinesCodecError};

use crate::context::Outbound;
use crate::dispatch::{error_reply, Outcome, ServerCore, Session};
use crate::error::Error;
use crate::server::Server;

/// One line of input, or why it is not one.
enum Frame {
    Line(String),
    TooLong,
    NotUtf8,
}

/// `LinesCodec` with its recoverable failures reported as items.
///
/// `FramedRead` ends the stream after a decoder error, but an oversized or
/// non-UTF-8 line must not end an MCP session: the spec wants an error reply
/// and the next line served. `LinesCodec` has already skipped the bad line
/// (or will discard up to the next newline), so continuing is safe.
struct JsonLines {
    lines: LinesCodec,
}

impl JsonLines {
    fn map(r: Result<Option<String>, LinesCodecError>) -> io::Result<Option<Frame>> {
        match r {
            Ok(line) => Ok(line.map(Frame::Line)),
            Err(LinesCodecError::MaxLineLengthExceeded) => Ok(Some(Frame::TooLong)),
            Err(LinesCodecError::Io(e)) if e.kind() == io::ErrorKind::InvalidData => {
                Ok(Some(Frame::NotUtf8))
            }
            Err(LinesCodecError::Io(e)) => Err(e),
        }
    }
}

impl Decoder for JsonLines {
    type Item = Frame;
    type Error = io::Error;

    fn decode(&mut self, buf: &mut BytesMut) -> io::Result<Option<Frame>> {
        Self::map(self.lines.decode(buf))
    }

    fn decode_eof(&mut self, buf: &mut BytesMut) -> io::Result<Option<Frame>> {
        Self::map(self.lines.decode_eof(buf))
    }
}

/// Hands finished lines to the writer task.
struct LineSink {
    tx: mpsc::UnboundedSender<Vec<u8>>,
}

impl Outbound for LineSink {
    fn send(&self, message: Vec<u8>) {
        // The writer is gone only when stdout is closed; nothing can be sent then.
        let _ = self.tx.send(message);
    }
}

/// Writes lines, batching whatever is queued into one write.
async fn write_loop<W: AsyncWrite + Unpin>(
    mut rx: mpsc::UnboundedReceiver<Vec<u8>>,
    mut writer: W,
) -> io::Result<()> {
    const BATCH: usize = 256 * 1024;
    let mut buf = Vec::with_capacity(16 * 1024);
    while let Some(msg) = rx.recv().await {
        buf.extend_from_slice(&msg);
        buf.push(b'\n');
        while buf.len() < BATCH {
            match rx.try_recv() {
                Ok(msg) => {
                    buf.extend_from_slice(&msg);
                    buf.push(b'\n');
                }
                Err(_) => break,
            }
        }
        writer.write_all(&buf).await?;
        writer.flush().await?;
        buf.clear();
        if buf.capacity() > 4 * BATCH {
            buf.shrink_to(16 * 1024);
        }
    }
    writer.flush().await
}

type BoxRead = Box<dyn AsyncRead + Unpin + Send>;
type BoxWrite = Box<dyn AsyncWrite + Unpin + Send>;

/// stdin and stdout as async streams. When they are pipes (as when a host
/// spawns the server) they are driven by the reactor directly; otherwise
/// (a file, a terminal) through tokio's blocking-pool wrappers.
fn stdio_streams() -> (BoxRead, BoxWrite) {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        use tokio::net::unix::pipe;
        let reader: BoxRead = match std::io::stdin()
            .as_fd()
            .try_clone_to_owned()
            .and_then(pipe::Receiver::from_owned_fd)
        {
            Ok(rx) => Box::new(rx),
            Err(_) => Box::new(tokio::io::stdin()),
        };
        let writer: BoxWrite = match std::io::stdout()
            .as_fd()
            .try_clone_to_owned()
            .and_then(pipe::Sender::from_owned_fd)
        {
            Ok(tx) => Box::new(tx),
            Err(_) => Box::new(tokio::io::stdout()),
        };
        (reader, writer)
    }
    #[cfg(not(unix))]
    {
        (Box::new(tokio::io::stdin()), Box::new(tokio::io::stdout()))
    }
}

impl Server {
    /// Serves MCP over this process's stdin and stdout until stdin closes.
    ///
    /// Must run inside a tokio runtime. Logs belong on stderr (e.g. a
    /// `tracing_subscriber` writing to `std::io::stderr`): anything else
    /// written to stdout corrupts the protocol stream.
    ///
    /// ```no_run
    /// # use mcp_server::Server;
    /// # async fn run(server: Server) -> Result<(), mcp_server::Error> {
    /// server.serve_stdio().await
    /// # }
    /// ```
    pub async fn serve_stdio(self) -> Result<(), Error> {
        let (reader, writer) = stdio_streams();
        self.serve_io(reader, writer).await
    }

    /// Serves MCP as newline-delimited JSON over any byte streams (a pipe, a
    /// socket, `tokio::io::duplex` in tests) until `reader` ends.
    ///
    /// When the input ends, calls in flight may finish (up to the builder's
    /// `shutdown_grace`); their results are written, then the output is
    /// flushed and this returns.
    pub async fn serve_io<R, W>(self, reader: R, writer: W) -> Result<(), Error>
    where
        R: AsyncRead + Unpin + Send,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let (tx, rx) = mpsc::unbounded_channel();
        let writer_task = tokio::spawn(write_loop(rx, writer));
        let out: Arc<dyn Outbound> = Arc::new(LineSink { tx });
        let session = Session::new(Arc::clone(&out));
        let mut frames = FramedRead::new(
            reader,
            JsonLines {
                lines: LinesCodec::new_with_max_length(self.max_message),
            },
        );
        let mut tasks = JoinSet::new();
        let mut read_error = None;
        while let Some(frame) = frames.next().await {
            match frame {
                Ok(Frame::Line(line)) => self.on_line(&line, &session, &out, &mut tasks),
                Ok(Frame::TooLong) => out.send(error_reply(
                    None,
                    ErrorObject::invalid_request(format!(
                        "message exceeds the {} byte limit",
                        self.max_message
                    )),
                )),
                Ok(Frame::NotUtf8) => out.send(error_reply(
                    None,
                    ErrorObject::parse_error("parse error: the line is not valid UTF-8"),
                )),
                Err(e) => {
                    read_error = Some(e);
                    break;
                }
            }
            while tasks.try_join_next().is_some() {}
        }
        tracing::debug!("input closed; finishing calls in flight");
        let drained = tokio::time::timeout(self.shutdown_grace, async {
            while tasks.join_next().await.is_some() {}
        })
        .await;
        if drained.is_err() {
            tracing::warn!("calls still running after the shutdown grace period were cancelled");
            session.cancel_all();
            tasks.abort_all();
            while tasks.join_next().await.is_some() {}
        }
        drop(session);
        drop(out);
        let written = writer_task
            .await
            .unwrap_or_else(|e| Err(io::Error::other(e)));
        if let Some(e) = read_error {
            return Err(Error::Io(e));
        }
        written.map_err(Error::Io)
    }

    fn on_line(
        &self,
        line: &str,
        session: &Arc<Session>,
        out: &Arc<dyn Outbound>,
        tasks: &mut JoinSet<()>,
    ) {
        let text = line.trim();
        if text.is_empty() {
            return;
        }
        if let Some(batch) = split_batch(text) {
            self.on_batch(batch, session, out, tasks);
            return;
        }
        match RawMessage::parse(text) {
            Ok(msg) => run(&self.core, session, msg, out, tasks),
            Err(e) => out.send(crate::dispatch::encode(&e.to_response())),
        }
    }

    fn on_batch(
        &self,
        batch: Result<Vec<&serde_json::value::RawValue>, DecodeError>,
        session: &Arc<Session>,
        out: &Arc<dyn Outbound>,
        tasks: &mut JoinSet<()>,
    ) {
        let items = match batch {
            Ok(items) if items.is_empty() => {
                return out.send(error_reply(
                    None,
                    ErrorObject::invalid_request("empty batch"),
                ));
            }
            Ok(items) => items,
            Err(e) => return out.send(crate::dispatch::encode(&e.to_response())),
        };
        if !session.allows_batches() {
            return out.send(error_reply(
                None,
                ErrorObject::invalid_request(
                    "JSON-RPC batches are only allowed in protocol revision 2025-03-26",
                ),
            ));
        }
        let mut replies = Vec::new();
        let mut pending = Vec::new();
        for item in items {
            match RawMessage::parse(item.get()) {
                Ok(msg) => match self.core.handle(session, msg) {
                    Outcome::Reply(bytes) => replies.push(bytes),
                    Outcome::Spawn(fut) => pending.push(fut),
                    Outcome::Nothing => {}
                },
                Err(e) => replies.push(crate::dispatch::encode(&e.to_response())),
            }
        }
        let out = Arc::clone(out);
        tasks.spawn(async move {
            for reply in futures_util::future::join_all(pending)
                .await
                .into_iter()
                .flatten()
            {
                replies.push(reply);
            }
            if replies.is_empty() {
                return;
            }
            let mut joined =
                Vec::with_capacity(replies.iter().map(|r| r.len() + 1).sum::<usize>() + 1);
            joined.push(b'[');
            for (i, r) in replies.iter().enumerate() {
                if i > 0 {
                    joined.push(b',');
                }
                joined.extend_from_slice(r);
            }
            joined.push(b']');
            out.send(joined);
        });
    }
}

fn run(
    core: &Arc<ServerCore>,
    session: &Arc<Session>,
    msg: RawMessage<'_>,
    out: &Arc<dyn Outbound>,
    tasks: &mut JoinSet<()>,
) {
    match core.handle(session, msg) {
        Outcome::Reply(bytes) => out.send(bytes),
        Outcome::Spawn(fut) => {
            let out = Arc::clone(out);
            tasks.spawn(async move {
                if let Some(bytes) = fut.await {
                    out.send(bytes);
                }
            });
        }
        Outcome::Nothing => {}
    }
}
