//! The response body of every MCP HTTP response: empty, one JSON document, or
//! an SSE stream fed by a channel.

use std::convert::Infallible;
use std::fmt;
use std::future::Future as _;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body::{Frame, SizeHint};
use tokio::sync::mpsc;

/// Runs a closure when dropped: how a body notices that the client went away.
pub(crate) struct OnDrop(Option<Box<dyn FnOnce() + Send + Sync>>);

impl OnDrop {
    pub(crate) fn new(f: impl FnOnce() + Send + Sync + 'static) -> Self {
        OnDrop(Some(Box::new(f)))
    }
}

impl Drop for OnDrop {
    fn drop(&mut self) {
        if let Some(f) = self.0.take() {
            f();
        }
    }
}

/// The body of a response from [`HttpService`](super::HttpService).
pub struct McpBody {
    kind: Kind,
}

enum Kind {
    Full(Option<Bytes>),
    Stream {
        rx: mpsc::Receiver<Bytes>,
        _guard: Option<OnDrop>,
        /// When the stream ends, whatever is still to come (the token that
        /// opened it expires).
        until: Option<Pin<Box<tokio::time::Sleep>>>,
    },
}

impl fmt::Debug for McpBody {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            Kind::Full(b) => f
                .debug_tuple("McpBody::Full")
                .field(&b.as_ref().map(Bytes::len))
                .finish(),
            Kind::Stream { .. } => f.write_str("McpBody::Stream"),
        }
    }
}

impl McpBody {
    /// An empty body.
    pub fn empty() -> Self {
        McpBody {
            kind: Kind::Full(None),
        }
    }

    /// A body of these bytes, for a layer in front of the server that
    /// answers a request itself (a 401, a 429...).
    pub fn full(bytes: impl Into<Bytes>) -> Self {
        let bytes = bytes.into();
        McpBody {
            kind: Kind::Full((!bytes.is_empty()).then_some(bytes)),
        }
    }

    /// A streaming body; `guard` runs when the body is dropped (the client
    /// disconnected, or the stream ended and hyper let go of it).
    pub(crate) fn stream(rx: mpsc::Receiver<Bytes>, guard: Option<OnDrop>) -> Self {
        McpBody {
            kind: Kind::Stream {
                rx,
                _guard: guard,
                until: None,
            },
        }
    }

    /// Ends a streaming body after `left` (a full body is left as it is).
    pub(crate) fn end_after(&mut self, left: std::time::Duration) {
        if let Kind::Stream { until, .. } = &mut self.kind {
            *until = Some(Box::pin(tokio::time::sleep(left)));
        }
    }
}

impl http_body::Body for McpBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        match &mut self.get_mut().kind {
            Kind::Full(bytes) => Poll::Ready(bytes.take().map(|b| Ok(Frame::data(b)))),
            Kind::Stream { rx, until, .. } => {
                if until
                    .as_mut()
                    .is_some_and(|t| t.as_mut().poll(cx).is_ready())
                {
                    rx.close();
                    return Poll::Ready(None);
                }
                rx.poll_recv(cx)
                    .map(|item| item.map(|b| Ok(Frame::data(b))))
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        matches!(self.kind, Kind::Full(None))
    }

    fn size_hint(&self) -> SizeHint {
        match &self.kind {
            Kind::Full(Some(b)) => SizeHint::with_exact(b.len() as u64),
            Kind::Full(None) => SizeHint::with_exact(0),
            Kind::Stream { .. } => SizeHint::default(),
        }
    }
}

/// Why a request body was not read.
pub(crate) enum ReadError<B> {
    /// Over the limit; the rest of the body, still arriving, to drain.
    TooLarge(B),
    /// The body did not arrive in time.
    Timeout,
    /// The connection failed.
    Failed(String),
}

/// Reads a request body of at most `max` bytes within `timeout`.
pub(crate) async fn read_limited<B>(
    mut body: B,
    max: usize,
    timeout: std::time::Duration,
) -> Result<Bytes, ReadError<B>>
where
    B: http_body::Body + Unpin,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    use http_body_util::BodyExt;
    let deadline = tokio::time::Instant::now() + timeout;
    let mut buf = bytes::BytesMut::new();
    loop {
        let frame = match tokio::time::timeout_at(deadline, body.frame()).await {
            Err(_) => return Err(ReadError::Timeout),
            Ok(None) => return Ok(buf.freeze()),
            Ok(Some(Err(e))) => return Err(ReadError::Failed(e.into().to_string())),
            Ok(Some(Ok(frame))) => frame,
        };
        if let Ok(mut data) = frame.into_data() {
            if buf.len() + bytes::Buf::remaining(&data) > max {
                return Err(ReadError::TooLarge(body));
            }
            while bytes::Buf::has_remaining(&data) {
                let chunk = bytes::Buf::chunk(&data);
                buf.extend_from_slice(chunk);
                let n = chunk.len();
                bytes::Buf::advance(&mut data, n);
            }
        }
    }
}

/// How much of a refused body is still read, and for how long, so that a
/// client still sending it reads the answer instead of a reset connection.
const DRAIN_BYTES: u64 = 64 * 1024 * 1024;
const DRAIN_TIME: std::time::Duration = std::time::Duration::from_secs(10);

/// Reads and discards the rest of a refused body in the background, up to
/// [`DRAIN_BYTES`] or [`DRAIN_TIME`]; then the body is dropped, which closes
/// the connection if the client is still sending.
pub(crate) fn drain<B>(body: B)
where
    B: http_body::Body + Unpin + Send + 'static,
    B::Data: Send,
{
    use http_body_util::BodyExt;
    tokio::spawn(async move {
        let mut body = body;
        let mut read = 0u64;
        let _ = tokio::time::timeout(DRAIN_TIME, async {
            while let Some(Ok(frame)) = body.frame().await {
                if let Some(data) = frame.data_ref() {
                    read += bytes::Buf::remaining(data) as u64;
                }
                if read > DRAIN_BYTES {
                    break;
                }
            }
        })
        .await;
    });
}
