//! Per-call options and the argument forms `call_tool` accepts.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use oxmcp_types::JsonObject;
use serde_json::Value;

/// Which protocol era to speak.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Era {
    /// Probe with `server/discover`; use the modern era (2026-07-28) when the
    /// server answers it, otherwise the legacy `initialize` handshake.
    #[default]
    Auto,
    /// The legacy handshake era (`initialize`, newest revision 2025-11-25).
    Legacy,
    /// The stateless modern era (2026-07-28) only; fails against legacy servers.
    Modern,
}

/// One `notifications/progress` for a call.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    /// Progress so far (increases with every notification).
    pub progress: f64,
    /// The total, when the server knows it.
    pub total: Option<f64>,
    /// A human-readable message.
    pub message: Option<String>,
}

pub(crate) type ProgressFn = Arc<dyn Fn(Progress) + Send + Sync>;

/// Options of one call: its timeouts and a progress callback.
///
/// ```
/// use std::time::Duration;
/// use oxmcp_client::CallOptions;
///
/// let options = CallOptions::new()
///     .timeout(Duration::from_secs(5))
///     .on_progress(|p| eprintln!("{}/{:?}", p.progress, p.total));
/// # let _ = options;
/// ```
#[derive(Clone, Default)]
pub struct CallOptions {
    pub(crate) timeout: Option<Duration>,
    pub(crate) max_time: Option<Duration>,
    pub(crate) progress: Option<ProgressFn>,
}

impl fmt::Debug for CallOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CallOptions")
            .field("timeout", &self.timeout)
            .field("max_time", &self.max_time)
            .field("progress", &self.progress.is_some())
            .finish()
    }
}

impl CallOptions {
    /// The client's defaults: its timeout, no progress.
    pub fn new() -> Self {
        CallOptions::default()
    }

    /// Overrides the client's timeout for this call: how long the call may
    /// go without an answer or a progress notification (each one starts it
    /// again). When it passes, the call is cancelled and fails with
    /// [`CallError::Timeout`](crate::Error::Timeout).
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Overrides the client's cap on this call's whole time, progress or
    /// not ([`ClientBuilder::max_call_time`](crate::ClientBuilder::max_call_time)).
    #[must_use]
    pub fn max_time(mut self, limit: Duration) -> Self {
        self.max_time = Some(limit);
        self
    }

    /// Calls `f` with every `notifications/progress` for this call. (Every
    /// request carries a `progressToken` unless the client was built with
    /// [`progress_tokens(false)`](crate::ClientBuilder::progress_tokens).)
    #[must_use]
    pub fn on_progress(mut self, f: impl Fn(Progress) + Send + Sync + 'static) -> Self {
        self.progress = Some(Arc::new(f));
        self
    }
}

/// What `call_tool` accepts as arguments: a JSON object, a [`Value`] holding
/// one (or `null`), `Option<JsonObject>`, or `()` for none.
pub trait IntoArguments {
    /// The `arguments` object, or why this is not one.
    fn into_arguments(self) -> Result<Option<JsonObject>, String>;
}

impl IntoArguments for JsonObject {
    fn into_arguments(self) -> Result<Option<JsonObject>, String> {
        Ok(Some(self))
    }
}

impl IntoArguments for Option<JsonObject> {
    fn into_arguments(self) -> Result<Option<JsonObject>, String> {
        Ok(self)
    }
}

impl IntoArguments for () {
    fn into_arguments(self) -> Result<Option<JsonObject>, String> {
        Ok(None)
    }
}

impl IntoArguments for Value {
    fn into_arguments(self) -> Result<Option<JsonObject>, String> {
        match self {
            Value::Object(map) => Ok(Some(map)),
            Value::Null => Ok(None),
            other => Err(format!(
                "tool arguments must be a JSON object, not {}",
                oxmcp_wire::json::kind(&other)
            )),
        }
    }
}
