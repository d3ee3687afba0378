//! Transports: bytes in and out, messages handed to dispatch.

#[cfg(feature = "http")]
pub(crate) mod http;
#[cfg(feature = "stdio")]
pub(crate) mod stdio;

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
