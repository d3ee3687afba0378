//! Transports: bytes in and out, messages handed to dispatch.

#[cfg(feature = "http")]
pub(crate) mod http;
#[cfg(feature = "stdio")]
pub(crate) mod stdio;

/// A future that completes at the first Ctrl-C (SIGINT) or, on unix,
/// SIGTERM (see [`StopSignals`]).
///
/// Must be called inside a tokio runtime (tokio's signal handlers need it).
#[cfg(feature = "http")]
pub(crate) fn stop_signal() -> impl std::future::Future<Output = ()> + Send + 'static {
    let mut signals = StopSignals::new();
    async move { signals.recv().await }
}

/// The signals that ask a server to finish what is running and exit:
/// Ctrl-C (SIGINT) and, on unix, SIGTERM. SIGTERM is how orchestrators
/// (systemd, Docker, Kubernetes) and hosts stop a process; left to its
/// default, it ends the process at once, cutting every answer in flight.
///
/// On unix the handlers are installed by [`new`](Self::new), not when
/// first waited on, so that a signal that comes in between is not lost,
/// and stay installed for the rest of the process (tokio never removes
/// them).
#[cfg(any(feature = "stdio", feature = "http"))]
pub(crate) struct StopSignals {
    /// `None` when the handler could not be installed: the signal then ends
    /// the process at once, as it would any process.
    #[cfg(unix)]
    interrupt: Option<tokio::signal::unix::Signal>,
    #[cfg(unix)]
    terminate: Option<tokio::signal::unix::Signal>,
}

/// Unix: SIGINT and SIGTERM, each through its own handler.
#[cfg(all(unix, any(feature = "stdio", feature = "http")))]
impl StopSignals {
    /// Installs the handlers. Must be called inside a tokio runtime.
    pub(crate) fn new() -> Self {
        use tokio::signal::unix::{signal, SignalKind};
        let install = |kind: SignalKind, name: &str| {
            signal(kind)
                .map_err(|e| {
                    tracing::warn!(error = %e, "cannot handle {name}: it stops the server at once");
                })
                .ok()
        };
        StopSignals {
            interrupt: install(SignalKind::interrupt(), "SIGINT"),
            terminate: install(SignalKind::terminate(), "SIGTERM"),
        }
    }

    /// Waits for the next signal. Cancel-safe.
    pub(crate) async fn recv(&mut self) {
        tokio::select! {
            () = on(self.interrupt.as_mut(), "SIGINT") => {}
            () = on(self.terminate.as_mut(), "SIGTERM") => {}
        }
    }
}

/// Elsewhere (Windows): Ctrl-C, the one stop signal there.
#[cfg(all(not(unix), any(feature = "stdio", feature = "http")))]
impl StopSignals {
    /// Nothing to install before the first wait.
    pub(crate) fn new() -> Self {
        StopSignals {}
    }

    /// Waits for the next Ctrl-C. Cancel-safe.
    pub(crate) async fn recv(&mut self) {
        if let Err(e) = tokio::signal::ctrl_c().await {
            tracing::warn!(error = %e, "cannot handle Ctrl-C: it stops the server at once");
            std::future::pending::<()>().await;
        }
    }
}

/// Waits for `signal`; forever when it has no handler.
#[cfg(all(unix, any(feature = "stdio", feature = "http")))]
async fn on(signal: Option<&mut tokio::signal::unix::Signal>, name: &str) {
    match signal {
        Some(signal) => {
            signal.recv().await;
            tracing::info!("{name}: finishing what is running, then stopping");
        }
        None => std::future::pending().await,
    }
}

/// Runs the future `task` makes on a thread of its own, named `name`, with a
/// current-thread runtime (a connection loop that should not wake the
/// caller's workers); the returned future gives its result.
#[cfg(any(feature = "stdio", feature = "http"))]
pub(crate) fn on_own_thread<F, Fut>(
    name: String,
    task: F,
) -> std::io::Result<impl std::future::Future<Output = Result<(), crate::error::Error>>>
where
    F: FnOnce() -> Fut + Send + 'static,
    Fut: std::future::Future<Output = Result<(), crate::error::Error>>,
{
    use crate::error::Error;
    let (done, result) = tokio::sync::oneshot::channel();
    let thread = name.clone();
    std::thread::Builder::new().name(name).spawn(move || {
        let result = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(Error::Io)
            .and_then(|runtime| runtime.block_on(task()));
        let _ = done.send(result);
    })?;
    Ok(async move {
        result.await.unwrap_or_else(|_| {
            Err(Error::Io(std::io::Error::other(format!(
                "thread {thread} ended without a result"
            ))))
        })
    })
}
