//! The hyper client behind both HTTP transports: plain connections, and
//! TLS with rustls when the `tls` feature is on; endpoint URLs.

#[cfg(feature = "tls")]
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http::Uri;
use http_body_util::Full;
#[cfg(feature = "tls")]
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use mcp_types::call::CallError;

use crate::error::transport;

/// The hyper client every HTTP transport uses (http and https).
#[cfg(feature = "tls")]
pub type HttpClient =
    hyper_util::client::legacy::Client<HttpsConnector<HttpConnector>, Full<Bytes>>;

/// The hyper client every HTTP transport uses (http only: built without
/// the `tls` feature).
#[cfg(not(feature = "tls"))]
pub(crate) type HttpClient = hyper_util::client::legacy::Client<HttpConnector, Full<Bytes>>;

/// Stands in for a TLS configuration in builds without the `tls` feature:
/// there is none to give.
#[cfg(not(feature = "tls"))]
#[derive(Debug, Clone, Copy)]
pub(crate) enum NoTls {}

pub(super) fn connector(connect_timeout: Duration) -> HttpConnector {
    let mut connector = HttpConnector::new();
    connector.set_connect_timeout(Some(connect_timeout));
    connector.set_nodelay(true);
    connector.enforce_http(false);
    connector
}

pub(super) fn client_builder() -> hyper_util::client::legacy::Builder {
    let mut builder = hyper_util::client::legacy::Client::builder(TokioExecutor::new());
    builder.pool_idle_timeout(Duration::from_secs(30));
    builder
}

/// A hyper client for `http://` and `https://` URLs. `tls` is the rustls
/// configuration for https (default: [`default_tls_config`]).
#[cfg(feature = "tls")]
pub fn http_client(
    connect_timeout: Duration,
    tls: Option<Arc<rustls::ClientConfig>>,
) -> HttpClient {
    let tls = tls.unwrap_or_else(default_tls_config);
    let connector = hyper_rustls::HttpsConnectorBuilder::new()
        .with_tls_config(Arc::unwrap_or_clone(tls))
        .https_or_http()
        .enable_http1()
        .wrap_connector(connector(connect_timeout));
    client_builder().build(connector)
}

/// A hyper client for `http://` URLs (built without the `tls` feature).
#[cfg(not(feature = "tls"))]
pub(crate) fn http_client(connect_timeout: Duration, tls: Option<NoTls>) -> HttpClient {
    let _ = tls;
    client_builder().build(connector(connect_timeout))
}

/// TLS 1.2 and 1.3 with rustls (ring), trusting Mozilla's root
/// certificates (the `webpki-roots` bundle).
#[cfg(feature = "tls")]
pub fn default_tls_config() -> Arc<rustls::ClientConfig> {
    static CONFIG: std::sync::OnceLock<Arc<rustls::ClientConfig>> = std::sync::OnceLock::new();
    Arc::clone(CONFIG.get_or_init(|| {
        let roots = rustls::RootCertStore {
            roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
        };
        Arc::new(
            rustls::ClientConfig::builder_with_provider(Arc::new(
                rustls::crypto::ring::default_provider(),
            ))
            .with_safe_default_protocol_versions()
            .expect("ring supports the default protocol versions")
            .with_root_certificates(roots)
            .with_no_client_auth(),
        )
    }))
}

/// Parses an MCP endpoint URL.
pub(crate) fn parse_url(url: &str) -> Result<Uri, CallError> {
    let uri: Uri = url
        .parse()
        .map_err(|e| transport(format!("invalid URL `{url}`: {e}")))?;
    match uri.scheme_str() {
        Some("https") if uri.authority().is_some() && !cfg!(feature = "tls") => Err(transport(
            format!("`{url}` needs TLS, and mcp-client was built without its `tls` feature"),
        )),
        Some("http" | "https") if uri.authority().is_some() => Ok(uri),
        _ => Err(transport(format!(
            "`{url}` is not an http:// or https:// URL with a host"
        ))),
    }
}

/// Describes a hyper-util client error with its causes.
pub(super) fn request_failed(url: &Uri, e: &(dyn std::error::Error + 'static)) -> CallError {
    transport(format!(
        "HTTP request to {url} failed: {}",
        mcp_types::error::Chain(e)
    ))
}
