//! Why telemetry could not be set up.

/// Why [`Telemetry::from_env`](crate::Telemetry::from_env) could not set up
/// export. Each message says what failed at this level; an exporter's own
/// error is its [`source`](std::error::Error::source).
///
/// Named for what it is about, not `Error`: a program that sets up
/// telemetry also names `oxmcp_server::Error` or `oxmcp_client::Error`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TelemetryError {
    /// An OTLP exporter could not be built (a bad endpoint, say).
    #[cfg(any(feature = "otlp-http", feature = "otlp-grpc"))]
    #[error("could not build the OTLP {signal} exporter")]
    Otlp {
        /// `span` or `metric`.
        signal: &'static str,
        /// Why.
        #[source]
        source: opentelemetry_otlp::ExporterBuildError,
    },
    /// The Prometheus exporter could not be built.
    #[cfg(feature = "prometheus")]
    #[error("could not build the Prometheus exporter")]
    Prometheus(#[source] opentelemetry_sdk::error::OTelSdkError),
    /// The variables ask for an exporter this build of oxmcp-otel leaves out:
    /// the program turns on the feature that names it.
    #[error("{variable}={value} asks for {exporter}, which this program is built without (oxmcp-otel's feature `{feature}`)")]
    NotBuilt {
        /// The variable that asks for it.
        variable: &'static str,
        /// Its value.
        value: String,
        /// The exporter (`OTLP over gRPC`).
        exporter: &'static str,
        /// The oxmcp-otel feature that builds it in.
        feature: &'static str,
    },
    /// `OTEL_EXPORTER_OTLP_PROTOCOL=grpc` needs a Tokio runtime: call
    /// [`Telemetry::from_env`](crate::Telemetry::from_env) inside one
    /// (`#[tokio::main]`).
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
    /// An `OTEL_EXPORTER_OTLP_PROTOCOL` value (or a per-signal one) this
    /// crate does not speak.
    #[error("{variable}={value}: this crate speaks http/protobuf and grpc")]
    UnknownProtocol {
        /// The variable.
        variable: &'static str,
        /// Its value.
        value: String,
    },
}

#[cfg(test)]
mod tests {
    use std::error::Error as _;

    use super::*;

    #[cfg(any(feature = "otlp-http", feature = "otlp-grpc"))]
    #[test]
    fn an_otlp_error_prints_its_level_and_gives_its_cause_as_source() {
        let err = TelemetryError::Otlp {
            signal: "span",
            source: opentelemetry_otlp::ExporterBuildError::InvalidConfiguration(
                "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: not a URI".to_owned(),
            ),
        };
        assert_eq!(err.to_string(), "could not build the OTLP span exporter");
        let source = err.source().expect("the exporter's error");
        assert_eq!(
            source.to_string(),
            "invalid exporter configuration: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: not a URI"
        );
    }

    #[cfg(feature = "prometheus")]
    #[test]
    fn a_prometheus_error_prints_its_level_and_gives_its_cause_as_source() {
        let err =
            TelemetryError::Prometheus(opentelemetry_sdk::error::OTelSdkError::InternalFailure(
                "registry refused the collector".to_owned(),
            ));
        assert_eq!(err.to_string(), "could not build the Prometheus exporter");
        let source = err.source().expect("the exporter's error");
        assert!(
            source
                .to_string()
                .contains("registry refused the collector"),
            "{source}"
        );
    }

    #[test]
    fn the_other_errors_have_no_source() {
        let errors = [
            TelemetryError::NoRuntime,
            TelemetryError::UnknownExporter {
                variable: "OTEL_TRACES_EXPORTER",
                value: "zipkin".to_owned(),
            },
            TelemetryError::UnknownProtocol {
                variable: "OTEL_EXPORTER_OTLP_PROTOCOL",
                value: "http/json".to_owned(),
            },
            TelemetryError::NotBuilt {
                variable: "OTEL_EXPORTER_OTLP_PROTOCOL",
                value: "grpc".to_owned(),
                exporter: "OTLP over gRPC",
                feature: "otlp-grpc",
            },
        ];
        for err in errors {
            assert!(err.source().is_none(), "{err}");
        }
    }
}
