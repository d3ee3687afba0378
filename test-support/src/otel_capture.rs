//! Spans caught by OpenTelemetry's in-memory exporter, for the `otel`
//! tests of oxmcp-server, oxmcp-client and oxmcp-agent: the capture, and finding
//! and reading the spans.

use opentelemetry::trace::{SpanKind, Status, TracerProvider as _};
use opentelemetry::Value;
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SpanData};
use tracing_subscriber::layer::SubscriberExt as _;

/// Spans of this thread's `tracing` go to an in-memory exporter while it
/// lives. The tests run on Tokio's current-thread runtime, with the servers
/// and clients they drive on it, so everything they do is on this thread.
pub struct Traced {
    exporter: InMemorySpanExporter,
    provider: SdkTracerProvider,
    _guard: tracing::subscriber::DefaultGuard,
}

impl std::fmt::Debug for Traced {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Traced").finish_non_exhaustive()
    }
}

impl Traced {
    /// Starts catching; W3C Trace Context is the propagator, as
    /// `oxmcp_otel::Telemetry::from_env` installs it.
    pub fn start() -> Traced {
        opentelemetry::global::set_text_map_propagator(TraceContextPropagator::new());
        let exporter = InMemorySpanExporter::default();
        let provider = SdkTracerProvider::builder()
            .with_simple_exporter(exporter.clone())
            .build();
        let layer = tracing_opentelemetry::layer().with_tracer(provider.tracer("test"));
        let guard = tracing::subscriber::set_default(tracing_subscriber::registry().with(layer));
        Traced {
            exporter,
            provider,
            _guard: guard,
        }
    }

    /// The spans ended so far.
    pub fn spans(&self) -> Spans {
        self.provider.force_flush().unwrap();
        Spans(self.exporter.get_finished_spans().unwrap())
    }
}

/// The spans caught.
#[derive(Debug)]
pub struct Spans(pub Vec<SpanData>);

impl Spans {
    /// The spans named `name`, in the order they started.
    pub fn named(&self, name: &str) -> Vec<&SpanData> {
        let mut found: Vec<&SpanData> = self.0.iter().filter(|s| s.name == name).collect();
        found.sort_by_key(|s| s.start_time);
        found
    }

    /// The one span named `name`.
    pub fn one(&self, name: &str) -> &SpanData {
        let found = self.named(name);
        let names: Vec<&str> = self.0.iter().map(|s| s.name.as_ref()).collect();
        assert_eq!(found.len(), 1, "one span named {name:?} among {names:?}");
        found[0]
    }

    /// The one span named `name` of `kind` (client and server name theirs alike).
    pub fn one_of_kind(&self, name: &str, kind: &SpanKind) -> &SpanData {
        let found: Vec<&SpanData> = self
            .0
            .iter()
            .filter(|s| s.name == name && &s.span_kind == kind)
            .collect();
        let all: Vec<(&str, &SpanKind)> = self
            .0
            .iter()
            .map(|s| (s.name.as_ref(), &s.span_kind))
            .collect();
        assert_eq!(found.len(), 1, "one {kind:?} span {name:?} among {all:?}");
        found[0]
    }
}

/// An attribute's value.
pub fn attribute<'a>(span: &'a SpanData, key: &str) -> Option<&'a Value> {
    span.attributes
        .iter()
        .find(|kv| kv.key.as_str() == key)
        .map(|kv| &kv.value)
}

/// An attribute as a string.
pub fn string(span: &SpanData, key: &str) -> Option<String> {
    attribute(span, key).map(|v| v.as_str().into_owned())
}

/// An integer attribute (panics on another type).
pub fn int(span: &SpanData, key: &str) -> Option<i64> {
    match attribute(span, key) {
        Some(Value::I64(n)) => Some(*n),
        Some(other) => panic!("{key} of {} is not an int: {other:?}", span.name),
        None => None,
    }
}

/// Asserts the string attributes `expected` (key, value) of `span`.
pub fn assert_strings(span: &SpanData, expected: &[(&str, &str)]) {
    for (key, value) in expected {
        assert_eq!(
            string(span, key).as_deref(),
            Some(*value),
            "{key} of {} {:?}",
            span.name,
            span.span_kind
        );
    }
}

/// Whether `child`'s parent is `parent`, in the same trace.
pub fn is_child(child: &SpanData, parent: &SpanData) -> bool {
    child.parent_span_id == parent.span_context.span_id()
        && child.span_context.trace_id() == parent.span_context.trace_id()
}

/// The description of an error status (panics on another status).
pub fn error_description(span: &SpanData) -> String {
    match &span.status {
        Status::Error { description } => description.to_string(),
        other => panic!("{} has status {other:?}, not an error", span.name),
    }
}

/// Asserts that no span name, no string attribute (nor string array) and
/// no error description of any span caught is longer than `limit` bytes.
pub fn assert_all_capped(spans: &Spans, limit: usize) {
    for span in &spans.0 {
        assert!(
            span.name.len() <= limit,
            "a span name of {} bytes",
            span.name.len()
        );
        for kv in &span.attributes {
            let len = match &kv.value {
                Value::Array(opentelemetry::Array::String(items)) => {
                    items.iter().map(|i| i.as_str().len()).max().unwrap_or(0)
                }
                other => other.as_str().len(),
            };
            assert!(len <= limit, "{} of {}: {len} bytes", kv.key, span.name);
        }
        if let Status::Error { description } = &span.status {
            assert!(
                description.len() <= limit,
                "{}'s error description",
                span.name
            );
        }
    }
}
