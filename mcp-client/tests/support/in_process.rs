//! A client connected to a server in the same process, and a [`Tap`] on
//! what the client writes.

use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context as TaskContext, Poll};

use oxmcp_client::{Client, ClientBuilder};
use oxmcp_server::Server;
use tokio::io::AsyncWrite;

/// Counts the requests of one method the client writes.
#[derive(Clone, Default)]
pub struct Tap {
    pub tools_list: Arc<AtomicUsize>,
    pub cancelled: Arc<AtomicUsize>,
}

impl Tap {
    pub fn tools_list(&self) -> usize {
        self.tools_list.load(Ordering::SeqCst)
    }

    pub fn cancelled(&self) -> usize {
        self.cancelled.load(Ordering::SeqCst)
    }
}

/// A writer that counts the client's `tools/list` requests and cancellations.
pub struct TapWriter<W> {
    inner: W,
    tap: Tap,
}

impl<W: AsyncWrite + Unpin> AsyncWrite for TapWriter<W> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut TaskContext<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let this = &mut *self;
        let poll = Pin::new(&mut this.inner).poll_write(cx, buf);
        if let Poll::Ready(Ok(n)) = &poll {
            let text = String::from_utf8_lossy(&buf[..*n]);
            this.tap
                .tools_list
                .fetch_add(text.matches("\"tools/list\"").count(), Ordering::SeqCst);
            this.tap.cancelled.fetch_add(
                text.matches("\"notifications/cancelled\"").count(),
                Ordering::SeqCst,
            );
        }
        poll
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(
        mut self: Pin<&mut Self>,
        cx: &mut TaskContext<'_>,
    ) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// Connects `builder` to `server` in the same process (the documented
/// `tokio::io::duplex` pattern); the tap counts what the client writes.
pub async fn in_process(
    server: Server,
    builder: ClientBuilder,
) -> (
    Client,
    Tap,
    tokio::task::JoinHandle<Result<(), oxmcp_server::Error>>,
) {
    let (client_end, server_end) = tokio::io::duplex(1 << 20);
    let (server_read, server_write) = tokio::io::split(server_end);
    let served = tokio::spawn(server.serve_io(server_read, server_write));
    let (client_read, client_write) = tokio::io::split(client_end);
    let tap = Tap::default();
    let writer = TapWriter {
        inner: client_write,
        tap: tap.clone(),
    };
    let client = builder
        .connect_io(client_read, writer)
        .await
        .expect("connect in-process");
    (client, tap, served)
}
