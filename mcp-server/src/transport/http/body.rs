//! The response body of every MCP HTTP response: empty, one JSON document, or
//! an SSE stream fed by a channel.

use std::convert::Infallible;
use std::fmt;
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
            kind: Kind::Stream { rx, _guard: guard },
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
            Kind::Stream { rx, .. } => rx
                .poll_recv(cx)
                .map(|item| item.map(|b| Ok(Frame::data(b)))),
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
