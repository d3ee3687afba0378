//! The metrics as Prometheus scrapes them, handed from the program that set
//! up export to the HTTP server that serves `/metrics`.
//!
//! The handle is part of the instrumentation, not of the `prometheus`
//! feature, so that a library (oxmcp-server's `HttpConfig::prometheus`) can
//! take one without pulling the exporter: only the program that turns the
//! feature on can make one ([`Telemetry::prometheus`](crate::Telemetry::prometheus)).

use std::fmt;
use std::sync::Arc;

/// Metrics in the Prometheus text format, for a `/metrics` endpoint: what
/// [`Telemetry::prometheus`](crate::Telemetry::prometheus) gives when
/// `OTEL_METRICS_EXPORTER` names `prometheus` (feature `prometheus`).
#[derive(Clone)]
pub struct Prometheus {
    encode: Arc<dyn Fn() -> String + Send + Sync>,
}

impl fmt::Debug for Prometheus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Prometheus").finish_non_exhaustive()
    }
}

impl Prometheus {
    /// The content type of [`Prometheus::encode`]'s text.
    pub const CONTENT_TYPE: &'static str = "text/plain; version=0.0.4; charset=utf-8";

    /// The metrics now, in the text exposition format.
    pub fn encode(&self) -> String {
        (self.encode)()
    }

    /// The metrics `registry` gathers (the one the Prometheus exporter
    /// writes to).
    #[cfg(feature = "prometheus")]
    pub(crate) fn from_registry(registry: prometheus::Registry) -> Prometheus {
        Prometheus {
            encode: Arc::new(move || {
                use prometheus::Encoder as _;
                let mut out = Vec::new();
                // Encoding to a Vec fails only on families the registry would not have.
                let _ = prometheus::TextEncoder::new().encode(&registry.gather(), &mut out);
                String::from_utf8(out).unwrap_or_default()
            }),
        }
    }
}
