//! OpenTelemetry for MCP: traces and metrics by the [MCP semantic
//! conventions], for servers, clients and agents built on this framework.
//!
//! The MCP crates turn this on with their `otel` feature. Then:
//!
//! - every request and notification a server handles is a SERVER span
//!   named `{mcp.method.name} {target}` (`tools/call add`), the parent of
//!   whatever the tool does, continuing the caller's trace from
//!   `params._meta` (SEP-414) or the HTTP `traceparent` header;
//! - every request a client sends is a CLIENT span whose context travels in
//!   `params._meta` and in the HTTP `traceparent` header, so a server built
//!   with any SDK continues the trace;
//! - the agent's runs, turns and model requests are spans of the same trace;
//! - the four duration histograms (`mcp.{server,client}.operation.duration`,
//!   `mcp.{server,client}.session.duration`) are recorded.
//!
//! # Instrumentation and export
//!
//! The crate has two halves. The instrumentation (always built: the
//! [`conventions`], [`propagation`], the spans and histograms of
//! [`instrumentation`]) needs only the OpenTelemetry API and [`tracing`];
//! the export ([`Telemetry`]) is the SDK and the exporters, each behind a
//! feature:
//!
//! | feature | turns on |
//! |---|---|
//! | (none) | the instrumentation: what a library needs |
//! | `otlp-http` | [`Telemetry`], OTLP over HTTP/protobuf (`OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf`, the default) |
//! | `otlp-grpc` | [`Telemetry`], OTLP over gRPC (`OTEL_EXPORTER_OTLP_PROTOCOL=grpc`) |
//! | `prometheus` | [`Telemetry`], metrics for `/metrics` (`OTEL_METRICS_EXPORTER=prometheus`) |
//! | `export` | [`Telemetry`] with no exporter (each feature above turns it on) |
//!
//! A library enables only its `otel` feature (oxmcp-server's, oxmcp-client's,
//! oxmcp-agent's), which depends on this crate with no feature: it emits spans
//! and metrics, and the program that runs it picks where they go, as a
//! library instrumented with tower-http's `TraceLayer` leaves the
//! subscriber to the binary. The program depends on this crate with the
//! exporters it wants:
//!
//! ```toml
//! [dependencies]
//! oxmcp-server = { version = "0.1", features = ["otel"] }
//! oxmcp-otel = { version = "0.1", features = ["otlp-http", "prometheus"] }
//! ```
//!
//! [`Telemetry::from_env`] sets up the export the standard `OTEL_*`
//! variables describe (a variable naming an exporter the program is built
//! without is an error naming its feature) and gives the layer to add to
//! your subscriber:
//!
//! ```no_run
//! # #[cfg(feature = "export")]
//! # async fn run() -> Result<(), oxmcp_otel::TelemetryError> {
//! use tracing_subscriber::prelude::*;
//!
//! let telemetry = oxmcp_otel::Telemetry::from_env("calculator")?;
//! tracing_subscriber::registry()
//!     .with(tracing_subscriber::fmt::layer().with_writer(std::io::stderr))
//!     .with(telemetry.layer())
//!     .init();
//! // ... serve ...
//! telemetry.shutdown(); // flushes what is still buffered
//! # Ok(()) }
//! ```
//!
//! The spans are [`tracing`] spans carried to OpenTelemetry by
//! `tracing-opentelemetry`. Nothing is recorded, and nearly nothing is
//! paid, while no subscriber takes them (target `oxmcp_otel`, level INFO):
//! the instrumentation checks that first. A program with its own
//! OpenTelemetry setup skips [`Telemetry`] (and every feature): its
//! `tracing_opentelemetry` layer, global meter provider and propagator
//! carry the MCP crates' spans and histograms.
//!
//! [MCP semantic conventions]: https://opentelemetry.io/docs/specs/semconv/gen-ai/mcp/

#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod conventions;
#[cfg(feature = "export")]
mod export;
pub mod instrumentation;
pub mod propagation;
mod scrape;

#[cfg(feature = "export")]
pub use export::{Telemetry, TelemetryError};
pub use scrape::Prometheus;

/// The OpenTelemetry crates this one is built on, for code that needs the
/// very versions the spans go through (a context to set as a parent, say).
pub mod reexport {
    pub use opentelemetry;
    pub use tracing_opentelemetry;
}
