//! Logging for the example programs: to stderr (a stdio server's stdout
//! carries the protocol), filtered by `RUST_LOG`, else by the program's default.

/// Installs the subscriber; `default` is the filter without `RUST_LOG`.
pub fn init(default: &str) {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default)),
        )
        .init();
}

/// Installs the subscriber as [`init`] does and, when
/// `OTEL_EXPORTER_OTLP_ENDPOINT` (or a per-signal endpoint) is set or
/// `OTEL_METRICS_EXPORTER` names `prometheus`, OpenTelemetry export as the
/// `OTEL_*` variables describe, `program` naming the service unless
/// `OTEL_SERVICE_NAME` does. Keep what it returns until the program ends:
/// dropping it flushes the last spans and metrics.
pub fn init_traced(program: &str, default: &str) -> Option<oxmcp_otel::Telemetry> {
    use tracing_subscriber::prelude::*;
    let wanted = [
        "OTEL_EXPORTER_OTLP_ENDPOINT",
        "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
        "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
    ]
    .iter()
    .any(|v| std::env::var_os(v).is_some())
        || std::env::var("OTEL_METRICS_EXPORTER").is_ok_and(|v| v.contains("prometheus"));
    if !wanted {
        init(default);
        return None;
    }
    let telemetry = match oxmcp_otel::Telemetry::from_env(program) {
        Ok(telemetry) => telemetry,
        Err(e) => {
            // Each level of the error prints itself only: the chain says why.
            let why = oxmcp_server::types::error::Chain(&e);
            eprintln!("{program}: OpenTelemetry: {why}");
            std::process::exit(2);
        }
    };
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    tracing_subscriber::registry()
        .with(
            tracing_subscriber::fmt::layer()
                .with_writer(std::io::stderr)
                .with_filter(filter),
        )
        .with(telemetry.layer())
        .init();
    Some(telemetry)
}

/// What `main` returns: the program's error, if any, printed with its
/// causes (`program: what failed: why`), and exit code 1.
pub fn report(program: &str, result: Result<(), oxmcp_server::Error>) -> std::process::ExitCode {
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{program}: {}", oxmcp_server::types::error::Chain(&e));
            std::process::ExitCode::FAILURE
        }
    }
}

/// The address given to `--http`, or the program exits (2) naming it.
pub fn http_addr(program: &str, given: &str) -> std::net::SocketAddr {
    let resolved = std::net::ToSocketAddrs::to_socket_addrs(given).map(|mut a| a.next());
    if let Ok(Some(addr)) = resolved {
        return addr;
    }
    eprintln!(
        "{program}: --http {given:?}: not an address to listen on (expected HOST:PORT, e.g. 127.0.0.1:3000)"
    );
    std::process::exit(2);
}
