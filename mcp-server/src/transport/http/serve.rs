//! The HTTP service built from a server (`Server::http_service`), and
//! serving it on a listener: the accept loop, hyper's
//! connections, and graceful shutdown.
//!
//! On a multi-threaded runtime, connections are served by threads of their
//! own (half the cores by default), each running a current-thread runtime,
//! and handed to them in turn: a connection then stays on one thread, and
//! its requests are answered without waking other threads. Chosen with
//! `mcp-bench http`; the figures are in `bench/README.md`, "Tuning choices".

use std::future::Future;
use std::net::SocketAddr;
use std::time::Duration;

use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use hyper_util::server::graceful::GracefulShutdown;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;

use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use super::session_table::Sessions;
use super::{HttpConfig, HttpService, Inner};
use crate::error::Error;
use crate::server::Server;

impl Server {
    /// The HTTP endpoints of this server as a service, to mount in a router
    /// (axum, hyper) of your own.
    pub fn http_service(&self, config: HttpConfig) -> HttpService {
        let mut sessions = Sessions::new(
            config.max_sessions,
            config.max_sessions_per_owner,
            config.session_idle,
        );
        let shared = config.store.clone().map(|store| {
            let (shared, log) = super::shared::Shared::new(store);
            sessions.mirror = Some(log);
            // Tasks, too, are shared (the first service built with a store wins).
            let _ = self.core.tasks.share.set(shared.task_share());
            // And `requestState` claims (so is the first store).
            let _ = self.core.claims.set(Arc::clone(&shared.store));
            shared
        });
        let inner = Arc::new(Inner {
            core: Arc::clone(&self.core),
            sessions,
            shared,
            config,
            shutdown: CancellationToken::new(),
        });
        // Subscribing to the store's bus needs a runtime: now if there is
        // one, else with the first request.
        if tokio::runtime::Handle::try_current().is_ok() {
            inner.start_shared();
        }
        HttpService { inner }
    }

    /// Serves MCP over HTTP on `addr` (use `127.0.0.1:PORT` to stay local)
    /// until Ctrl-C or SIGTERM, then lets the requests in flight finish (up
    /// to the config's grace period): Streamable HTTP at `/mcp` in both eras
    /// and, unless turned off in `config`, the legacy HTTP+SSE transport at
    /// `/sse`.
    pub async fn serve_http(
        self,
        addr: impl tokio::net::ToSocketAddrs,
        config: HttpConfig,
    ) -> Result<(), Error> {
        // Resolved first, so that a refusal names the address.
        let addrs: Vec<std::net::SocketAddr> = tokio::net::lookup_host(addr).await?.collect();
        let listener = TcpListener::bind(addrs.as_slice()).await.map_err(|e| {
            let at: Vec<String> = addrs.iter().map(ToString::to_string).collect();
            std::io::Error::new(e.kind(), format!("cannot listen on {}: {e}", at.join(", ")))
        })?;
        let stop = crate::transport::stop_signal();
        self.serve_http_on(listener, config, stop).await
    }

    /// Serves MCP over HTTP on a bound listener until `shutdown` completes,
    /// then lets in-flight requests finish (up to the config's grace period).
    /// [`http::shutdown_signal()`](crate::http::shutdown_signal) is the
    /// `shutdown` of [`serve_http`](Self::serve_http): Ctrl-C or SIGTERM.
    ///
    /// On a multi-threaded runtime, connections are served on threads of
    /// their own (see [`HttpConfig::connection_threads`]), each with a
    /// current-thread runtime; a tool runs on the thread of its connection
    /// (`tokio::spawn` and `spawn_blocking` work in it as usual;
    /// `block_in_place` needs a multi-threaded runtime's own threads).
    pub async fn serve_http_on(
        self,
        listener: TcpListener,
        config: HttpConfig,
        shutdown: impl Future<Output = ()>,
    ) -> Result<(), Error> {
        let grace = config.shutdown_grace;
        let threads = config.threads();
        let service = self.http_service(config);
        tracing::info!(addr = ?listener.local_addr().ok(), "serving MCP over HTTP");
        let flavor = tokio::runtime::Handle::current().runtime_flavor();
        if flavor == tokio::runtime::RuntimeFlavor::MultiThread && threads > 0 {
            return serve_on_threads(listener, &service, shutdown, threads, grace).await;
        }
        let graceful = accept_loop(Incoming::Listener(&listener), &service, shutdown).await;
        drop(listener);
        tracing::info!("shutting down: finishing requests in flight");
        finish(&service, graceful, grace).await;
        Ok(())
    }
}

/// Serves connections on one current-thread runtime per core until
/// `shutdown`: this task accepts, and hands the connections to the threads
/// in turn (so each thread serves its share, which accepting on every
/// thread would leave to chance); then it waits for the threads to finish.
async fn serve_on_threads(
    listener: TcpListener,
    service: &HttpService,
    shutdown: impl Future<Output = ()>,
    threads: usize,
    grace: Duration,
) -> Result<(), Error> {
    let mut handoffs = Vec::with_capacity(threads);
    let mut done = Vec::with_capacity(threads);
    for i in 0..threads {
        let (handoff, incoming) = mpsc::unbounded_channel();
        let service = service.clone();
        let served =
            crate::transport::on_own_thread(format!("mcp-http-{i}"), move || async move {
                let incoming = Incoming::Handed(incoming);
                let graceful = accept_loop(incoming, &service, std::future::pending()).await;
                // Requests in flight on this thread finish here.
                finish(&service, graceful, grace).await;
                Ok(())
            })?;
        handoffs.push(handoff);
        done.push(served);
    }
    tokio::pin!(shutdown);
    let mut turn = 0;
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted.and_then(|(s, peer)| Ok((s.into_std()?, peer))) {
                Ok(connection) => {
                    // A thread that is gone has ended with an error, reported below.
                    let _ = handoffs[turn].send(connection);
                    turn = (turn + 1) % handoffs.len();
                }
                Err(e) => backoff(&e).await,
            },
            () = &mut shutdown => break,
        }
    }
    tracing::info!("shutting down: finishing requests in flight");
    // The threads' loops end when their hand-off channels close.
    drop(handoffs);
    drop(listener);
    for served in done {
        served.await?;
    }
    Ok(())
}

/// Where a loop's connections come from: its own listener, or the task
/// that accepts for every thread.
enum Incoming<'a> {
    Listener(&'a TcpListener),
    Handed(mpsc::UnboundedReceiver<(std::net::TcpStream, SocketAddr)>),
}

impl Incoming<'_> {
    /// The next connection; `None` once no more will come.
    async fn next(&mut self) -> Option<std::io::Result<(TcpStream, SocketAddr)>> {
        match self {
            Incoming::Listener(listener) => Some(listener.accept().await),
            Incoming::Handed(rx) => {
                let (stream, peer) = rx.recv().await?;
                Some(TcpStream::from_std(stream).map(|s| (s, peer)))
            }
        }
    }
}

/// After a failed accept (out of file descriptors and the like): back off,
/// keep serving.
async fn backoff(e: &std::io::Error) {
    tracing::warn!(error = %e, "accept failed");
    tokio::time::sleep(Duration::from_millis(50)).await;
}

/// Serves the connections of `incoming` on the current runtime until
/// `shutdown` or the end of `incoming`; returns what watches those
/// connections, to let them finish.
async fn accept_loop(
    mut incoming: Incoming<'_>,
    service: &HttpService,
    shutdown: impl Future<Output = ()>,
) -> GracefulShutdown {
    let mut builder = auto::Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(Duration::from_secs(30));
    let graceful = GracefulShutdown::new();
    tokio::pin!(shutdown);
    loop {
        tokio::select! {
            accepted = incoming.next() => {
                let (stream, peer) = match accepted {
                    Some(Ok(v)) => v,
                    Some(Err(e)) => {
                        backoff(&e).await;
                        continue;
                    }
                    None => return graceful,
                };
                // Small SSE events must not wait for Nagle's algorithm.
                let _ = stream.set_nodelay(true);
                let hyper_service = hyper_util::service::TowerToHyperService::new(service.clone());
                let conn = builder.serve_connection(TokioIo::new(stream), hyper_service).into_owned();
                let conn = graceful.watch(conn);
                tokio::spawn(async move {
                    if let Err(e) = conn.await {
                        tracing::debug!(%peer, error = %e, "connection ended with an error");
                    }
                });
            }
            () = &mut shutdown => return graceful,
        }
    }
}

/// Ends the service's long-lived streams and lets the connections that
/// `graceful` watches finish, up to `grace`.
async fn finish(service: &HttpService, graceful: GracefulShutdown, grace: Duration) {
    service.shutdown();
    if tokio::time::timeout(grace, graceful.shutdown())
        .await
        .is_err()
    {
        tracing::warn!("requests still running after the grace period were dropped");
    }
}
