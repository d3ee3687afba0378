//! What the `OTEL_*` variables ask for, read and checked against the
//! exporters this build has before anything is set up, so that a variable
//! naming an exporter the program was built without is an error that names
//! the feature, never a silent fallback to another transport.

use super::TelemetryError;

/// How OTLP is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Protocol {
    /// `http/protobuf` (the specification's default).
    HttpProtobuf,
    /// `grpc`.
    Grpc,
}

impl Protocol {
    /// The protocol a variable's value names.
    fn parse(value: &str) -> Option<Protocol> {
        [Protocol::HttpProtobuf, Protocol::Grpc]
            .into_iter()
            .find(|p| p.as_str() == value.trim())
    }

    /// Its name in the variables.
    pub(super) fn as_str(self) -> &'static str {
        match self {
            Protocol::HttpProtobuf => "http/protobuf",
            Protocol::Grpc => "grpc",
        }
    }

    /// Whether `built` has its exporter.
    fn is_built(self, built: Built) -> bool {
        match self {
            Protocol::HttpProtobuf => built.otlp_http,
            Protocol::Grpc => built.otlp_grpc,
        }
    }

    /// The error for `variable=value` asking for it in a build without it.
    pub(super) fn not_built(self, variable: &'static str, value: String) -> TelemetryError {
        let (exporter, feature) = match self {
            Protocol::HttpProtobuf => ("OTLP over HTTP", "otlp-http"),
            Protocol::Grpc => ("OTLP over gRPC", "otlp-grpc"),
        };
        TelemetryError::NotBuilt {
            variable,
            value,
            exporter,
            feature,
        }
    }
}

/// The exporters a build of this crate has: its features.
#[derive(Debug, Clone, Copy)]
pub(super) struct Built {
    pub(super) otlp_http: bool,
    pub(super) otlp_grpc: bool,
    pub(super) prometheus: bool,
}

impl Built {
    /// This build's.
    pub(super) const THIS: Built = Built {
        otlp_http: cfg!(feature = "otlp-http"),
        otlp_grpc: cfg!(feature = "otlp-grpc"),
        prometheus: cfg!(feature = "prometheus"),
    };
}

/// What to set up.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Plan {
    /// Spans over OTLP, and how.
    pub(super) traces: Option<Protocol>,
    /// Metrics over OTLP, and how.
    pub(super) metrics: Option<Protocol>,
    /// Metrics for Prometheus to scrape.
    pub(super) prometheus: bool,
}

impl Plan {
    /// Whether any OTLP export goes over gRPC (which needs a Tokio runtime).
    pub(super) fn uses_grpc(&self) -> bool {
        self.traces == Some(Protocol::Grpc) || self.metrics == Some(Protocol::Grpc)
    }

    /// The plan the variables `var` gives describe, for a build with `built`.
    pub(super) fn read(
        var: impl Fn(&str) -> Option<String>,
        built: Built,
    ) -> Result<Plan, TelemetryError> {
        let disabled = var("OTEL_SDK_DISABLED").is_some_and(|v| v.eq_ignore_ascii_case("true"));
        if disabled {
            return Ok(Plan::default());
        }
        let traces = exporters(&var, "OTEL_TRACES_EXPORTER", false)?;
        let metrics = exporters(&var, "OTEL_METRICS_EXPORTER", true)?;
        let mut plan = Plan::default();
        if traces.otlp {
            plan.traces = Some(protocol(&var, "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", built)?);
        }
        if metrics.otlp {
            plan.metrics = Some(protocol(
                &var,
                "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL",
                built,
            )?);
        }
        if metrics.prometheus {
            if !built.prometheus {
                return Err(TelemetryError::NotBuilt {
                    variable: "OTEL_METRICS_EXPORTER",
                    value: metrics.value,
                    exporter: "the Prometheus exporter",
                    feature: "prometheus",
                });
            }
            plan.prometheus = true;
        }
        Ok(plan)
    }
}

/// Which exporters a variable names, and its value as given.
#[derive(Default)]
struct Exporters {
    otlp: bool,
    prometheus: bool,
    value: String,
}

/// `variable`'s exporters: `otlp` when unset, as the specification says.
fn exporters(
    var: &impl Fn(&str) -> Option<String>,
    variable: &'static str,
    prometheus_allowed: bool,
) -> Result<Exporters, TelemetryError> {
    let value = var(variable).unwrap_or_else(|| "otlp".to_owned());
    let mut found = Exporters::default();
    for name in value.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        match name {
            "otlp" => found.otlp = true,
            "none" => {}
            "prometheus" if prometheus_allowed => found.prometheus = true,
            _ => return Err(TelemetryError::UnknownExporter { variable, value }),
        }
    }
    found.value = value;
    Ok(found)
}

/// A signal's OTLP protocol: its own variable, else the generic one, else
/// `http/protobuf`; refused when this build lacks it.
fn protocol(
    var: &impl Fn(&str) -> Option<String>,
    signal_variable: &'static str,
    built: Built,
) -> Result<Protocol, TelemetryError> {
    const GENERIC: &str = "OTEL_EXPORTER_OTLP_PROTOCOL";
    let given = |name: &'static str| {
        var(name)
            .filter(|v| !v.trim().is_empty())
            .map(|v| (name, v))
    };
    let (variable, value) = given(signal_variable)
        .or_else(|| given(GENERIC))
        .unwrap_or((GENERIC, "http/protobuf".to_owned()));
    let Some(protocol) = Protocol::parse(&value) else {
        return Err(TelemetryError::UnknownProtocol { variable, value });
    };
    if !protocol.is_built(built) {
        return Err(protocol.not_built(variable, value));
    }
    Ok(protocol)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: Built = Built {
        otlp_http: true,
        otlp_grpc: true,
        prometheus: true,
    };
    const NONE: Built = Built {
        otlp_http: false,
        otlp_grpc: false,
        prometheus: false,
    };

    fn read(vars: &[(&str, &str)], built: Built) -> Result<Plan, TelemetryError> {
        Plan::read(
            |name| {
                vars.iter()
                    .find(|(n, _)| *n == name)
                    .map(|(_, v)| (*v).to_owned())
            },
            built,
        )
    }

    #[test]
    fn nothing_set_is_otlp_over_http_for_both_signals() {
        let plan = read(&[], ALL).unwrap();
        assert_eq!(
            plan,
            Plan {
                traces: Some(Protocol::HttpProtobuf),
                metrics: Some(Protocol::HttpProtobuf),
                prometheus: false,
            }
        );
        assert!(!plan.uses_grpc());
    }

    #[test]
    fn a_signal_protocol_overrides_the_generic_one() {
        let plan = read(
            &[
                ("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"),
                ("OTEL_EXPORTER_OTLP_METRICS_PROTOCOL", "http/protobuf"),
                ("OTEL_METRICS_EXPORTER", "otlp, prometheus"),
            ],
            ALL,
        )
        .unwrap();
        assert_eq!(plan.traces, Some(Protocol::Grpc));
        assert_eq!(plan.metrics, Some(Protocol::HttpProtobuf));
        assert!(plan.prometheus && plan.uses_grpc());
    }

    #[test]
    fn disabled_or_none_sets_up_no_exporter_and_needs_no_feature() {
        let off = read(&[("OTEL_SDK_DISABLED", "TRUE")], NONE).unwrap();
        assert_eq!(off, Plan::default());
        let none = read(
            &[
                ("OTEL_TRACES_EXPORTER", "none"),
                ("OTEL_METRICS_EXPORTER", "none"),
            ],
            NONE,
        )
        .unwrap();
        assert_eq!(none, Plan::default());
    }

    #[test]
    fn an_exporter_left_out_of_the_build_names_its_feature() {
        let http_only = Built {
            otlp_http: true,
            ..NONE
        };
        let err = read(&[("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")], http_only).unwrap_err();
        assert_eq!(
            err.to_string(),
            "OTEL_EXPORTER_OTLP_PROTOCOL=grpc asks for OTLP over gRPC, which this program is \
             built without (oxmcp-otel's feature `otlp-grpc`)"
        );
        let grpc_only = Built {
            otlp_grpc: true,
            ..NONE
        };
        let err = read(&[], grpc_only).unwrap_err();
        assert!(
            matches!(
                &err,
                TelemetryError::NotBuilt {
                    feature: "otlp-http",
                    ..
                }
            ),
            "{err:?}"
        );
        let err = read(
            &[
                ("OTEL_TRACES_EXPORTER", "none"),
                ("OTEL_METRICS_EXPORTER", "prometheus"),
            ],
            http_only,
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "OTEL_METRICS_EXPORTER=prometheus asks for the Prometheus exporter, which this \
             program is built without (oxmcp-otel's feature `prometheus`)"
        );
    }

    #[test]
    fn unknown_exporters_and_protocols_are_refused() {
        let err = read(&[("OTEL_TRACES_EXPORTER", "zipkin")], ALL).unwrap_err();
        assert_eq!(
            err.to_string(),
            "OTEL_TRACES_EXPORTER=zipkin: this crate knows otlp, none"
        );
        let err = read(&[("OTEL_METRICS_EXPORTER", "otlp,statsd")], ALL).unwrap_err();
        assert_eq!(
            err.to_string(),
            "OTEL_METRICS_EXPORTER=otlp,statsd: this crate knows otlp, none and prometheus"
        );
        let err = read(&[("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "http/json")], ALL).unwrap_err();
        assert_eq!(
            err.to_string(),
            "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/json: this crate speaks http/protobuf and grpc"
        );
    }
}
