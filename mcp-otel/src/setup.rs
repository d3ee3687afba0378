//! Setting up export from the standard `OTEL_*` environment variables.

use std::fmt;

use opentelemetry::propagation::TextMapCompositePropagator;
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_sdk::metrics::SdkMeterProvider;
use opentelemetry_sdk::propagation::{BaggagePropagator, TraceContextPropagator};
use opentelemetry_sdk::trace::SdkTracerProvider;
use opentelemetry_sdk::Resource;
use tracing_subscriber::filter::LevelFilter;
use tracing_subscriber::Layer;

/// Why telemetry could not be set up.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// An OTLP exporter could not be built (a bad endpoint, say).
    #[error("OTLP exporter: {0}")]
    Exporter(#[from] opentelemetry_otlp::ExporterBuildError),
    /// The Prometheus exporter could not be built.
    #[error("Prometheus exporter: {0}")]
    Prometheus(String),
    /// `OTEL_EXPORTER_OTLP_PROTOCOL=grpc` needs a Tokio runtime: call
    /// [`Telemetry::from_env`] inside one (`#[tokio::main]`).
    #[error("OTLP over gRPC needs a Tokio runtime: call Telemetry::from_env inside one (#[tokio::main])")]
    NoRuntime,
    /// An `OTEL_TRACES_EXPORTER` or `OTEL_METRICS_EXPORTER` value this crate
    /// does not know.
    #[error("{variable}={value}: this crate knows otlp, none{}", if *.variable == "OTEL_METRICS_EXPORTER" { " and prometheus" } else { "" })]
    UnknownExporter {
        /// The variable.
        variable: &'static str,
        /// Its value.
        value: String,
    },
}

/// Telemetry set up from the environment: the tracer and meter providers,
/// installed as OpenTelemetry's global ones, and W3C Trace Context and
/// Baggage as the propagator.
///
/// The variables read (each as the OpenTelemetry specification defines it):
///
/// | variable | |
/// |---|---|
/// | `OTEL_SDK_DISABLED` | `true`: nothing is exported |
/// | `OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES` | the resource; the name passed to [`Telemetry::from_env`] when unset |
/// | `OTEL_TRACES_EXPORTER` | `otlp` (default) or `none` |
/// | `OTEL_METRICS_EXPORTER` | `otlp` (default), `prometheus` (served by the HTTP server at `/metrics`, see [`Telemetry::prometheus`]), `none`, or a comma-separated list |
/// | `OTEL_EXPORTER_OTLP_ENDPOINT` and the per-signal `…_TRACES_ENDPOINT`, `…_METRICS_ENDPOINT` | where to (default `http://localhost:4318` for HTTP, `http://localhost:4317` for gRPC) |
/// | `OTEL_EXPORTER_OTLP_PROTOCOL` and the per-signal ones | `http/protobuf` (default) or `grpc` |
/// | `OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_EXPORTER_OTLP_TIMEOUT` | per export request |
/// | `OTEL_BSP_SCHEDULE_DELAY`, `OTEL_BSP_MAX_QUEUE_SIZE`, `OTEL_BSP_MAX_EXPORT_BATCH_SIZE` | the span batches |
/// | `OTEL_METRIC_EXPORT_INTERVAL`, `OTEL_METRIC_EXPORT_TIMEOUT` | the metric exports |
/// | `OTEL_TRACES_SAMPLER`, `OTEL_TRACES_SAMPLER_ARG` | the sampler (default parent-based, always on) |
///
/// Dropping it (or [`Telemetry::shutdown`]) flushes what is buffered.
pub struct Telemetry {
    tracer_provider: SdkTracerProvider,
    meter_provider: SdkMeterProvider,
    prometheus: Option<Prometheus>,
}

impl fmt::Debug for Telemetry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Telemetry")
            .field("prometheus", &self.prometheus.is_some())
            .finish_non_exhaustive()
    }
}

/// Which exporters a variable names.
#[derive(Default)]
struct Exporters {
    otlp: bool,
    prometheus: bool,
}

fn exporters(variable: &'static str, prometheus_allowed: bool) -> Result<Exporters, Error> {
    let value = std::env::var(variable).unwrap_or_else(|_| "otlp".to_owned());
    let mut found = Exporters::default();
    for name in value.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        match name {
            "otlp" => found.otlp = true,
            "none" => {}
            "prometheus" if prometheus_allowed => found.prometheus = true,
            _ => {
                return Err(Error::UnknownExporter {
                    variable,
                    value: value.clone(),
                })
            }
        }
    }
    Ok(found)
}

/// Whether a signal's OTLP protocol is gRPC (the per-signal variable first).
fn is_grpc(signal_variable: &str) -> bool {
    std::env::var(signal_variable)
        .or_else(|_| std::env::var("OTEL_EXPORTER_OTLP_PROTOCOL"))
        .is_ok_and(|p| p.trim() == "grpc")
}

impl Telemetry {
    /// Sets up export as the `OTEL_*` variables say, `service_name` naming
    /// the service unless `OTEL_SERVICE_NAME` does. Call it inside the Tokio
    /// runtime (gRPC export needs one), before serving or connecting.
    pub fn from_env(service_name: &str) -> Result<Telemetry, Error> {
        let disabled =
            std::env::var("OTEL_SDK_DISABLED").is_ok_and(|v| v.eq_ignore_ascii_case("true"));
        let (traces, metrics) = if disabled {
            (Exporters::default(), Exporters::default())
        } else {
            (
                exporters("OTEL_TRACES_EXPORTER", false)?,
                exporters("OTEL_METRICS_EXPORTER", true)?,
            )
        };
        let no_runtime = tokio::runtime::Handle::try_current().is_err();
        if no_runtime
            && ((traces.otlp && is_grpc("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"))
                || (metrics.otlp && is_grpc("OTEL_EXPORTER_OTLP_METRICS_PROTOCOL")))
        {
            return Err(Error::NoRuntime);
        }

        let mut resource = Resource::builder();
        if std::env::var_os("OTEL_SERVICE_NAME").is_none() {
            resource = resource.with_service_name(service_name.to_owned());
        }
        let resource = resource.build();

        let mut tracer_provider = SdkTracerProvider::builder().with_resource(resource.clone());
        if traces.otlp {
            let exporter = opentelemetry_otlp::SpanExporter::builder().build()?;
            tracer_provider = tracer_provider.with_batch_exporter(exporter);
        }
        let tracer_provider = tracer_provider.build();

        let mut meter_provider = SdkMeterProvider::builder().with_resource(resource);
        if metrics.otlp {
            let exporter = opentelemetry_otlp::MetricExporter::builder().build()?;
            meter_provider = meter_provider.with_periodic_exporter(exporter);
        }
        let mut prometheus = None;
        if metrics.prometheus {
            let registry = prometheus::Registry::new();
            let reader = opentelemetry_prometheus::exporter()
                .with_registry(registry.clone())
                .build()
                .map_err(|e| Error::Prometheus(e.to_string()))?;
            meter_provider = meter_provider.with_reader(reader);
            prometheus = Some(Prometheus { registry });
        }
        let meter_provider = meter_provider.build();

        opentelemetry::global::set_text_map_propagator(TextMapCompositePropagator::new(vec![
            Box::new(TraceContextPropagator::new()),
            Box::new(BaggagePropagator::new()),
        ]));
        opentelemetry::global::set_tracer_provider(tracer_provider.clone());
        opentelemetry::global::set_meter_provider(meter_provider.clone());
        Ok(Telemetry {
            tracer_provider,
            meter_provider,
            prometheus,
        })
    }

    /// The layer that carries `tracing` spans (the MCP crates' and your
    /// own, at INFO and above) to OpenTelemetry. Add it to your subscriber
    /// beside your other layers.
    pub fn layer<S>(&self) -> impl Layer<S> + Send + Sync + 'static
    where
        S: tracing::Subscriber
            + for<'span> tracing_subscriber::registry::LookupSpan<'span>
            + Send
            + Sync
            + 'static,
    {
        let tracer = self.tracer_provider.tracer_with_scope(
            opentelemetry::InstrumentationScope::builder("mcp-otel")
                .with_version(env!("CARGO_PKG_VERSION"))
                .build(),
        );
        tracing_opentelemetry::layer()
            .with_tracer(tracer)
            .with_tracked_inactivity(false)
            .with_threads(false)
            .with_location(false)
            .with_target(false)
            .with_filter(LevelFilter::INFO)
    }

    /// The metrics for Prometheus to scrape, when `OTEL_METRICS_EXPORTER`
    /// names `prometheus`: give it to the HTTP server to serve `/metrics`.
    pub fn prometheus(&self) -> Option<Prometheus> {
        self.prometheus.clone()
    }

    /// Flushes and stops export. Also done on drop.
    pub fn shutdown(self) {}
}

impl Drop for Telemetry {
    fn drop(&mut self) {
        if let Err(e) = self.tracer_provider.shutdown() {
            tracing::debug!(error = %e, "tracer provider shutdown");
        }
        if let Err(e) = self.meter_provider.shutdown() {
            tracing::debug!(error = %e, "meter provider shutdown");
        }
    }
}

/// Metrics in the Prometheus text format, for a `/metrics` endpoint.
#[derive(Clone)]
pub struct Prometheus {
    registry: prometheus::Registry,
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
        use prometheus::Encoder as _;
        let mut out = Vec::new();
        // Encoding to a Vec fails only on families the registry would not have.
        let _ = prometheus::TextEncoder::new().encode(&self.registry.gather(), &mut out);
        String::from_utf8(out).unwrap_or_default()
    }
}
