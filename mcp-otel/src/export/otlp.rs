//! The OTLP exporters, over HTTP/protobuf (feature `otlp-http`) or gRPC
//! (feature `otlp-grpc`), each reading its endpoint, headers and timeout
//! from the `OTEL_EXPORTER_OTLP_*` variables as opentelemetry-otlp does.

use opentelemetry_otlp::{ExporterBuildError, MetricExporter, SpanExporter};

use super::plan::Protocol;
use super::TelemetryError;

/// A signal's exporter, as opentelemetry-otlp builds it per transport.
pub(super) trait Signal: Sized {
    /// `span` or `metric`, for the error.
    const NAME: &'static str;
    /// Over HTTP/protobuf.
    #[cfg(feature = "otlp-http")]
    fn http() -> Result<Self, ExporterBuildError>;
    /// Over gRPC.
    #[cfg(feature = "otlp-grpc")]
    fn grpc() -> Result<Self, ExporterBuildError>;
}

impl Signal for SpanExporter {
    const NAME: &'static str = "span";
    #[cfg(feature = "otlp-http")]
    fn http() -> Result<Self, ExporterBuildError> {
        SpanExporter::builder().with_http().build()
    }
    #[cfg(feature = "otlp-grpc")]
    fn grpc() -> Result<Self, ExporterBuildError> {
        SpanExporter::builder().with_tonic().build()
    }
}

impl Signal for MetricExporter {
    const NAME: &'static str = "metric";
    #[cfg(feature = "otlp-http")]
    fn http() -> Result<Self, ExporterBuildError> {
        MetricExporter::builder().with_http().build()
    }
    #[cfg(feature = "otlp-grpc")]
    fn grpc() -> Result<Self, ExporterBuildError> {
        MetricExporter::builder().with_tonic().build()
    }
}

/// The exporter of signal `E` over `protocol`.
pub(super) fn exporter<E: Signal>(protocol: Protocol) -> Result<E, TelemetryError> {
    let built = match protocol {
        #[cfg(feature = "otlp-http")]
        Protocol::HttpProtobuf => E::http(),
        #[cfg(feature = "otlp-grpc")]
        Protocol::Grpc => E::grpc(),
        // The plan refuses a protocol this build lacks; this is its error.
        #[allow(unreachable_patterns)] // with both features, every protocol is built
        other => {
            let value = other.as_str().to_owned();
            return Err(other.not_built("OTEL_EXPORTER_OTLP_PROTOCOL", value));
        }
    };
    built.map_err(|source| TelemetryError::Otlp {
        signal: E::NAME,
        source,
    })
}
