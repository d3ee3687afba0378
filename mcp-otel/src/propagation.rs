//! Trace context across the wire: W3C `traceparent`, `tracestate` and
//! `baggage` in a request's `params._meta` (SEP-414 reserves these three
//! keys, unprefixed) and in HTTP headers, through the globally configured
//! propagator ([`Telemetry::from_env`](crate::Telemetry::from_env) sets
//! W3C Trace Context and Baggage).

use opentelemetry::propagation::{Extractor, Injector};
use opentelemetry::trace::TraceContextExt;
use opentelemetry::Context;
use tracing_opentelemetry::OpenTelemetrySpanExt;

/// The `_meta` keys trace context travels in.
pub const META_KEYS: [&str; 3] = ["traceparent", "tracestate", "baggage"];

/// Writes `span`'s context into a request's `_meta` object.
pub fn inject_meta(span: &tracing::Span, meta: &mut serde_json::Map<String, serde_json::Value>) {
    inject(&span.context(), &mut MetaInjector(meta));
}

/// Writes `span`'s context into HTTP request headers.
pub fn inject_headers(span: &tracing::Span, headers: &mut http::HeaderMap) {
    inject(&span.context(), &mut HeaderInjector(headers));
}

fn inject(cx: &Context, carrier: &mut dyn Injector) {
    if !cx.span().span_context().is_valid() {
        return;
    }
    opentelemetry::global::get_text_map_propagator(|propagator| {
        propagator.inject_context(cx, carrier);
    });
}

/// The trace context in a request's `_meta`, as its three keys' values.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Deserialize)]
pub struct MetaContext {
    /// W3C `traceparent`.
    #[serde(default)]
    pub traceparent: Option<String>,
    /// W3C `tracestate`.
    #[serde(default)]
    pub tracestate: Option<String>,
    /// W3C `baggage`.
    #[serde(default)]
    pub baggage: Option<String>,
}

impl MetaContext {
    /// Reads the three keys from a `_meta` object.
    pub fn from_meta(meta: &serde_json::Map<String, serde_json::Value>) -> MetaContext {
        let get = |key: &str| meta.get(key).and_then(|v| v.as_str()).map(str::to_owned);
        MetaContext {
            traceparent: get("traceparent"),
            tracestate: get("tracestate"),
            baggage: get("baggage"),
        }
    }

    /// The remote context these values carry, if they carry a valid one.
    pub fn extract(&self) -> Option<Context> {
        self.traceparent.as_ref()?;
        valid(opentelemetry::global::get_text_map_propagator(|p| {
            p.extract(self)
        }))
    }
}

impl Extractor for MetaContext {
    fn get(&self, key: &str) -> Option<&str> {
        match key {
            "traceparent" => self.traceparent.as_deref(),
            "tracestate" => self.tracestate.as_deref(),
            "baggage" => self.baggage.as_deref(),
            _ => None,
        }
    }

    fn keys(&self) -> Vec<&str> {
        META_KEYS
            .into_iter()
            .filter(|key| self.get(key).is_some())
            .collect()
    }
}

/// The remote context of HTTP request headers, if they carry a valid one.
pub fn extract_headers(headers: &http::HeaderMap) -> Option<Context> {
    if !headers.contains_key("traceparent") {
        return None;
    }
    valid(opentelemetry::global::get_text_map_propagator(|p| {
        p.extract(&HeaderExtractor(headers))
    }))
}

fn valid(cx: Context) -> Option<Context> {
    cx.span().span_context().is_valid().then_some(cx)
}

struct MetaInjector<'a>(&'a mut serde_json::Map<String, serde_json::Value>);

impl Injector for MetaInjector<'_> {
    fn set(&mut self, key: &str, value: String) {
        self.0
            .insert(key.to_owned(), serde_json::Value::String(value));
    }
}

struct HeaderInjector<'a>(&'a mut http::HeaderMap);

impl Injector for HeaderInjector<'_> {
    fn set(&mut self, key: &str, value: String) {
        if let (Ok(name), Ok(value)) = (
            http::HeaderName::from_bytes(key.as_bytes()),
            http::HeaderValue::from_str(&value),
        ) {
            self.0.insert(name, value);
        }
    }
}

struct HeaderExtractor<'a>(&'a http::HeaderMap);

impl Extractor for HeaderExtractor<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).and_then(|v| v.to_str().ok())
    }

    fn keys(&self) -> Vec<&str> {
        self.0.keys().map(http::HeaderName::as_str).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use opentelemetry_sdk::propagation::TraceContextPropagator;

    #[test]
    fn meta_context_round_trips_through_the_w3c_propagator() {
        opentelemetry::global::set_text_map_propagator(TraceContextPropagator::new());
        let parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        let meta =
            serde_json::json!({ "traceparent": parent, "tracestate": "rojo=00f067aa0ba902b7" });
        let found = MetaContext::from_meta(meta.as_object().unwrap());
        let cx = found.extract().expect("a valid context");
        let span = cx.span();
        let sc = span.span_context();
        assert_eq!(
            sc.trace_id().to_string(),
            "4bf92f3577b34da6a3ce929d0e0e4736"
        );
        assert_eq!(sc.span_id().to_string(), "00f067aa0ba902b7");
        assert!(sc.is_remote() && sc.is_sampled());

        let mut out = serde_json::Map::new();
        inject(&cx, &mut MetaInjector(&mut out));
        assert_eq!(out["traceparent"], parent);
        assert_eq!(out["tracestate"], "rojo=00f067aa0ba902b7");
    }

    #[test]
    fn malformed_or_missing_context_is_none() {
        opentelemetry::global::set_text_map_propagator(TraceContextPropagator::new());
        assert!(MetaContext::default().extract().is_none());
        let bad = MetaContext {
            traceparent: Some("00-zz-00f067aa0ba902b7-01".into()),
            ..MetaContext::default()
        };
        assert!(bad.extract().is_none());
        let mut headers = http::HeaderMap::new();
        assert!(extract_headers(&headers).is_none());
        headers.insert(
            "traceparent",
            http::HeaderValue::from_static(
                "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            ),
        );
        assert!(extract_headers(&headers).is_some());
    }
}
