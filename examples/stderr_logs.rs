//! Logging for the example programs: to stderr (a stdio server's stdout
//! carries the protocol), filtered by `RUST_LOG`, else by the program's default.

/// Installs the subscriber; `default` is the filter without `RUST_LOG`.
pub(crate) fn init(default: &str) {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default)),
        )
        .init();
}
