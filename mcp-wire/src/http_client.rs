//! The hyper client both sides build (feature `http-client`; https with the
//! `tls` feature): the client's HTTP transports and OAuth flows, and the
//! server's token verification (JWKS, metadata, introspection). Also small
//! helpers to fetch a JSON document and to post a form, with size and time
//! limits.

#[cfg(feature = "tls")]
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http::{header, Method, Request, StatusCode, Uri};
use http_body_util::{BodyExt, Full, Limited};
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;

/// The hyper client (http and https).
#[cfg(feature = "tls")]
pub type HttpClient =
    hyper_util::client::legacy::Client<hyper_rustls::HttpsConnector<HttpConnector>, Full<Bytes>>;

/// The hyper client (http only: built without the `tls` feature).
#[cfg(not(feature = "tls"))]
pub type HttpClient = hyper_util::client::legacy::Client<HttpConnector, Full<Bytes>>;

/// A TCP connector with a connect timeout and `TCP_NODELAY`.
pub fn connector(connect_timeout: Duration) -> HttpConnector {
    let mut connector = HttpConnector::new();
    connector.set_connect_timeout(Some(connect_timeout));
    connector.set_nodelay(true);
    connector.enforce_http(false);
    connector
}

/// The client builder every client starts from (idle connections kept 30 s).
pub fn client_builder() -> hyper_util::client::legacy::Builder {
    let mut builder = hyper_util::client::legacy::Client::builder(TokioExecutor::new());
    builder.pool_idle_timeout(Duration::from_secs(30));
    builder
}

/// A client for `http://` and `https://` URLs; `tls` defaults to
/// [`default_tls_config`].
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

/// A client for `http://` URLs (built without the `tls` feature). It takes
/// the same arguments as with the feature, so that a crate calling it builds
/// whether or not another crate of the same build turned `tls` on.
#[cfg(not(feature = "tls"))]
pub fn http_client(connect_timeout: Duration, tls: Option<TlsConfig>) -> HttpClient {
    if let Some(never) = tls {
        match never {}
    }
    client_builder().build(connector(connect_timeout))
}

/// The TLS configuration [`http_client`] takes: rustls's.
#[cfg(feature = "tls")]
pub type TlsConfig = Arc<rustls::ClientConfig>;

/// The TLS configuration [`http_client`] takes: none can be given without
/// the `tls` feature.
#[cfg(not(feature = "tls"))]
#[derive(Debug, Clone, Copy)]
pub enum TlsConfig {}

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

/// Why a fetch failed.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    /// The URL is not an absolute `http(s)` URL.
    #[error("invalid URL `{0}`")]
    Url(String),
    /// The connection or the exchange failed.
    #[error("request to {url} failed")]
    Request {
        /// The URL.
        url: String,
        /// What went wrong.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// No answer within the time limit.
    #[error("request to {0} timed out")]
    Timeout(String),
    /// The answer's status was not a success.
    #[error("{url} answered {status}")]
    Status {
        /// The URL.
        url: String,
        /// The status.
        status: StatusCode,
        /// The start of the body, for the message.
        body: String,
    },
    /// The body was larger than the limit.
    #[error("the answer from {0} is too large")]
    TooLarge(String),
    /// The body is not the JSON expected.
    #[error("the answer from {url} is not the JSON expected")]
    Json {
        /// The URL.
        url: String,
        /// The parse error.
        #[source]
        source: serde_json::Error,
    },
}

/// The largest answer [`send`] reads.
pub const MAX_DOCUMENT: usize = 1024 * 1024;

/// A response's status, headers and body (at most [`MAX_DOCUMENT`]).
#[derive(Debug)]
pub struct Fetched {
    /// The status.
    pub status: StatusCode,
    /// The headers.
    pub headers: http::HeaderMap,
    /// The body.
    pub body: Bytes,
}

impl Fetched {
    /// The body as JSON of type `T`, when the status is a success.
    pub fn json<T: serde::de::DeserializeOwned>(&self, url: &str) -> Result<T, FetchError> {
        if !self.status.is_success() {
            return Err(FetchError::Status {
                url: url.to_owned(),
                status: self.status,
                body: String::from_utf8_lossy(&self.body[..self.body.len().min(512)]).into_owned(),
            });
        }
        serde_json::from_slice(&self.body).map_err(|source| FetchError::Json {
            url: url.to_owned(),
            source,
        })
    }
}

/// Sends one request and reads the whole answer within `timeout`.
pub async fn send(
    client: &HttpClient,
    request: Request<Full<Bytes>>,
    timeout: Duration,
) -> Result<Fetched, FetchError> {
    let url = request.uri().to_string();
    let exchange = async {
        let response = client
            .request(request)
            .await
            .map_err(|e| FetchError::Request {
                url: url.clone(),
                source: Box::new(e),
            })?;
        let (parts, body) = response.into_parts();
        let body = Limited::new(body, MAX_DOCUMENT)
            .collect()
            .await
            .map_err(|e| {
                if e.is::<http_body_util::LengthLimitError>() {
                    FetchError::TooLarge(url.clone())
                } else {
                    FetchError::Request {
                        url: url.clone(),
                        source: e,
                    }
                }
            })?
            .to_bytes();
        Ok(Fetched {
            status: parts.status,
            headers: parts.headers,
            body,
        })
    };
    tokio::time::timeout(timeout, exchange)
        .await
        .unwrap_or_else(|_| Err(FetchError::Timeout(url.clone())))
}

fn parse_uri(url: &str) -> Result<Uri, FetchError> {
    let uri: Uri = url.parse().map_err(|_| FetchError::Url(url.to_owned()))?;
    match uri.scheme_str() {
        Some("http" | "https") if uri.authority().is_some() => Ok(uri),
        _ => Err(FetchError::Url(url.to_owned())),
    }
}

/// `GET url` with `Accept: application/json`.
pub fn get_json_request(url: &str) -> Result<Request<Full<Bytes>>, FetchError> {
    Request::builder()
        .method(Method::GET)
        .uri(parse_uri(url)?)
        .header(header::ACCEPT, "application/json")
        .body(Full::default())
        .map_err(|_| FetchError::Url(url.to_owned()))
}

/// `POST url` with a form body (`application/x-www-form-urlencoded`) and
/// `Accept: application/json`.
pub fn form_request(url: &str, form: &[(&str, &str)]) -> Result<Request<Full<Bytes>>, FetchError> {
    Request::builder()
        .method(Method::POST)
        .uri(parse_uri(url)?)
        .header(header::ACCEPT, "application/json")
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(Full::new(Bytes::from(crate::oauth::form_encode(form))))
        .map_err(|_| FetchError::Url(url.to_owned()))
}

/// Fetches a JSON document.
pub async fn fetch_json<T: serde::de::DeserializeOwned>(
    client: &HttpClient,
    url: &str,
    timeout: Duration,
) -> Result<T, FetchError> {
    send(client, get_json_request(url)?, timeout)
        .await?
        .json(url)
}
