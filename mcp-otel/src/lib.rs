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
//! The spans are [`tracing`] spans carried to OpenTelemetry by
//! `tracing-opentelemetry`. [`Telemetry::from_env`] sets up the export the
//! standard `OTEL_*` variables describe and gives the layer to add to your
//! subscriber:
//!
//! ```no_run
//! use tracing_subscriber::prelude::*;
//!
//! # async fn run() -> Result<(), mcp_otel::Error> {
//! let telemetry = mcp_otel::Telemetry::from_env("calculator")?;
//! tracing_subscriber::registry()
//!     .with(tracing_subscriber::fmt::layer().with_writer(std::io::stderr))
//!     .with(telemetry.layer())
//!     .init();
//! // ... serve ...
//! telemetry.shutdown(); // flushes what is still buffered
//! # Ok(()) }
//! ```
//!
//! Nothing is recorded, and nearly nothing is paid, while no subscriber
//! takes the spans (target `mcp_otel`, level INFO): the instrumentation
//! checks that first.
//!
//! [MCP semantic conventions]: https://opentelemetry.io/docs/specs/semconv/gen-ai/mcp/

#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod conventions;
mod operation;
pub mod propagation;
mod setup;
mod text;

pub use operation::{enabled, record_session, Ended, Operation, Request, Side, Transport};
pub use setup::{Error, Prometheus, Telemetry};
pub use text::{cap, session_digest, span_name, MAX_TEXT_LEN};

/// The OpenTelemetry crates this one is built on, for code that needs the
/// very versions the spans go through (a context to set as a parent, say).
pub mod reexport {
    pub use opentelemetry;
    pub use tracing_opentelemetry;
}
