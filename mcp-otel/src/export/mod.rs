//! Setting up export from the standard `OTEL_*` environment variables
//! (feature `export`, which each exporter's feature turns on): the SDK's
//! providers, the propagators and the `tracing` layer here, what the
//! variables ask for in [`plan`], the OTLP exporters in [`otlp`].

mod error;
#[cfg(any(feature = "otlp-http", feature = "otlp-grpc"))]
mod otlp;
mod plan;

use std::fmt;

use opentelemetry::propagation::TextMapCompositePropagator;
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_sdk::metrics::{MeterProviderBuilder, SdkMeterProvider};
use opentelemetry_sdk::propagation::{BaggagePropagator, TraceContextPropagator};
use opentelemetry_sdk::trace::{SdkTracerProvider, TracerProviderBuilder};
use opentelemetry_sdk::Resource;
use tracing_subscriber::filter::LevelFilter;
use tracing_subscriber::Layer;

pub use error::TelemetryError;
use plan::{Built, Plan};

use crate::Prometheus;

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

impl Telemetry {
    /// Sets up export as the `OTEL_*` variables say, `service_name` naming
    /// the service unless `OTEL_SERVICE_NAME` does. Call it inside the Tokio
    /// runtime (gRPC export needs one), before serving or connecting.
    pub fn from_env(service_name: &str) -> Result<Telemetry, TelemetryError> {
        let plan = Plan::read(|name| std::env::var(name).ok(), Built::THIS)?;
        if plan.uses_grpc() && !has_runtime() {
            return Err(TelemetryError::NoRuntime);
        }

        let mut resource = Resource::builder();
        if std::env::var_os("OTEL_SERVICE_NAME").is_none() {
            resource = resource.with_service_name(service_name.to_owned());
        }
        let resource = resource.build();

        let tracer_provider = SdkTracerProvider::builder().with_resource(resource.clone());
        let meter_provider = SdkMeterProvider::builder().with_resource(resource);
        let (tracer_provider, meter_provider) = with_otlp(tracer_provider, meter_provider, &plan)?;
        let (meter_provider, prometheus) = with_prometheus(meter_provider, &plan)?;
        let tracer_provider = tracer_provider.build();
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
            opentelemetry::InstrumentationScope::builder("oxmcp-otel")
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
    /// names `prometheus`: mount it on the HTTP server as a page, as
    /// `HttpConfig::page("/metrics", Prometheus::CONTENT_TYPE, move || metrics.encode())`.
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

/// The providers with the OTLP exporters the plan asks for.
#[cfg(any(feature = "otlp-http", feature = "otlp-grpc"))]
fn with_otlp(
    mut tracer_provider: TracerProviderBuilder,
    mut meter_provider: MeterProviderBuilder,
    plan: &Plan,
) -> Result<(TracerProviderBuilder, MeterProviderBuilder), TelemetryError> {
    use opentelemetry_otlp::{MetricExporter, SpanExporter};
    if let Some(protocol) = plan.traces {
        tracer_provider =
            tracer_provider.with_batch_exporter(otlp::exporter::<SpanExporter>(protocol)?);
    }
    if let Some(protocol) = plan.metrics {
        meter_provider =
            meter_provider.with_periodic_exporter(otlp::exporter::<MetricExporter>(protocol)?);
    }
    Ok((tracer_provider, meter_provider))
}

/// Without an OTLP feature the plan asks for no OTLP exporter.
#[cfg(not(any(feature = "otlp-http", feature = "otlp-grpc")))]
#[allow(clippy::unnecessary_wraps)] // the signature of the one with the features
fn with_otlp(
    tracer_provider: TracerProviderBuilder,
    meter_provider: MeterProviderBuilder,
    plan: &Plan,
) -> Result<(TracerProviderBuilder, MeterProviderBuilder), TelemetryError> {
    debug_assert!(plan.traces.is_none() && plan.metrics.is_none());
    Ok((tracer_provider, meter_provider))
}

/// The meter provider with the Prometheus exporter when the plan asks for
/// it, and the handle on its metrics.
#[cfg(feature = "prometheus")]
fn with_prometheus(
    meter_provider: MeterProviderBuilder,
    plan: &Plan,
) -> Result<(MeterProviderBuilder, Option<Prometheus>), TelemetryError> {
    if !plan.prometheus {
        return Ok((meter_provider, None));
    }
    let registry = prometheus::Registry::new();
    let reader = opentelemetry_prometheus::exporter()
        .with_registry(registry.clone())
        .build()
        .map_err(TelemetryError::Prometheus)?;
    Ok((
        meter_provider.with_reader(reader),
        Some(Prometheus::from_registry(registry)),
    ))
}

/// Without the feature the plan asks for no Prometheus exporter.
#[cfg(not(feature = "prometheus"))]
#[allow(clippy::unnecessary_wraps)] // the signature of the one with the feature
fn with_prometheus(
    meter_provider: MeterProviderBuilder,
    plan: &Plan,
) -> Result<(MeterProviderBuilder, Option<Prometheus>), TelemetryError> {
    debug_assert!(!plan.prometheus);
    Ok((meter_provider, None))
}

/// Whether this thread runs inside a Tokio runtime (gRPC export needs one).
#[cfg(feature = "otlp-grpc")]
fn has_runtime() -> bool {
    tokio::runtime::Handle::try_current().is_ok()
}

/// Without gRPC nothing needs a runtime (the plan asks only when it uses gRPC).
#[cfg(not(feature = "otlp-grpc"))]
fn has_runtime() -> bool {
    true
}
