//! A source's lifecycle: work done once before the first call of one of its
//! tools (build an index, open a pool) and when the set closes.

use std::fmt;
use std::future::Future;
use std::sync::Mutex;

use futures_util::future::BoxFuture;
use oxmcp_wire::sync::lock;

type StartFn = Box<dyn Fn() -> BoxFuture<'static, Result<(), String>> + Send + Sync>;
type ShutdownFn = Box<dyn FnOnce() -> BoxFuture<'static, ()> + Send>;

/// The hooks of one source, and whether it started.
#[derive(Default)]
pub(crate) struct Lifecycle {
    start: Option<StartFn>,
    shutdown: Mutex<Option<ShutdownFn>>,
    /// Held while starting, so concurrent first calls start it once; `true`
    /// once started.
    started: tokio::sync::Mutex<bool>,
    /// The source's label, for errors.
    pub(crate) label: String,
}

impl fmt::Debug for Lifecycle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Lifecycle")
            .field("label", &self.label)
            .finish_non_exhaustive()
    }
}

/// Why a source could not start: its label and the hook's error.
#[derive(Debug, Clone)]
pub(crate) struct StartError {
    pub(crate) label: String,
    pub(crate) message: String,
}

impl fmt::Display for StartError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} could not start: {}", self.label, self.message)
    }
}

impl Lifecycle {
    pub(crate) fn is_empty(&self) -> bool {
        self.start.is_none() && lock(&self.shutdown).is_none()
    }

    pub(crate) fn set_start<F, Fut, E>(&mut self, f: F)
    where
        F: Fn() -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<(), E>> + Send + 'static,
        E: fmt::Display,
    {
        self.start = Some(Box::new(move || {
            let started = f();
            Box::pin(async move { started.await.map_err(|e| e.to_string()) })
        }));
    }

    pub(crate) fn set_shutdown<F, Fut>(&mut self, f: F)
    where
        F: FnOnce() -> Fut + Send + 'static,
        Fut: Future<Output = ()> + Send + 'static,
    {
        *lock(&self.shutdown) = Some(Box::new(move || Box::pin(f())));
    }

    /// Starts the source unless it has: a failure is not kept, the next
    /// call tries again.
    pub(crate) async fn ensure_started(&self) -> Result<(), StartError> {
        let mut started = self.started.lock().await;
        if *started {
            return Ok(());
        }
        if let Some(start) = &self.start {
            start().await.map_err(|message| StartError {
                label: self.label.clone(),
                message,
            })?;
        }
        *started = true;
        Ok(())
    }

    /// The shutdown hook, once, if the source started.
    pub(crate) fn take_shutdown(&self) -> Option<BoxFuture<'static, ()>> {
        let started = self.started.try_lock().map_or(true, |s| *s);
        if !started {
            return None;
        }
        lock(&self.shutdown).take().map(|f| f())
    }
}
