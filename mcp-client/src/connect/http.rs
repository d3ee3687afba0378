//! Connecting over HTTP: Streamable HTTP (either era, with the fallback to
//! HTTP+SSE the spec describes) and the legacy HTTP+SSE transport.

use std::sync::Arc;

use http::header::{HeaderMap, HeaderName, HeaderValue};
use oxmcp_types::call::CallError;
use oxmcp_types::method;

use super::{handshake::not_modern, ClientBuilder};
use crate::client::Client;
use crate::connection::Conn;
use crate::error::{http_status, transport};
use crate::options::Era;
use crate::transport::http::legacy_sse::SseTransport;
use crate::transport::http::{http_client, parse_url, HttpClient, HttpTransport};
use crate::transport::Transport;

impl ClientBuilder {
    /// The TLS configuration for `https://` endpoints, for instance to trust
    /// a private certificate authority or to present a client certificate.
    /// By default: TLS 1.2 and 1.3 (rustls on ring) trusting Mozilla's root
    /// certificates. Build it with the re-exported [`rustls`](crate::rustls).
    #[cfg(feature = "tls")]
    pub fn tls_config(mut self, config: Arc<rustls::ClientConfig>) -> Self {
        self.tls = Some(config);
        self
    }

    /// Signs in to a protected server (Streamable HTTP) when it asks: see
    /// [`auth`](crate::auth).
    #[cfg(feature = "auth")]
    pub fn oauth(mut self, oauth: crate::auth::OAuth) -> Self {
        self.oauth = Some(oauth);
        self
    }

    #[cfg(feature = "tls")]
    fn tls(&self) -> Option<Arc<rustls::ClientConfig>> {
        self.tls.clone()
    }

    #[cfg(not(feature = "tls"))]
    #[allow(clippy::unused_self)]
    fn tls(&self) -> Option<oxmcp_wire::http_client::TlsConfig> {
        None
    }

    /// Connects to a Streamable HTTP endpoint (`http://` or `https://`).
    ///
    /// With [`Era::Auto`], a `server/discover` probe picks the modern era;
    /// a legacy server (a 4xx without a modern JSON-RPC error, -32601, or no
    /// answer within the probe timeout) gets `initialize`, and a server
    /// that refuses that POST with 400, 404 or 405 is tried as a legacy
    /// HTTP+SSE server at the same URL, as the spec's backward-compatibility
    /// section describes.
    pub async fn connect_http(self, url: &str) -> Result<Client, CallError> {
        let uri = parse_url(url)?;
        let headers = self.header_map()?;
        let client = http_client(self.connect_timeout, self.tls());
        let (shared, config) = self.parts()?;
        let http = HttpTransport::new(
            client.clone(),
            uri.clone(),
            headers.clone(),
            &shared,
            self.max_message,
        );
        #[cfg(feature = "auth")]
        let http = http.with_auth(self.oauth.clone().map(|mut oauth| {
            oauth.http.get_or_insert_with(|| client.clone());
            crate::auth::Authenticator::new(oauth, url)
        }));
        match self.connect_messages(shared, config, Arc::new(http)).await {
            Err(e)
                if http_status(&e).is_some_and(|s| {
                    !s.modern_error && matches!(s.status.as_u16(), 400 | 404 | 405)
                }) =>
            {
                tracing::info!(error = %oxmcp_types::error::Chain(&e), "Streamable HTTP refused; trying the HTTP+SSE transport");
                self.sse(client, uri, headers).await
            }
            other => other,
        }
    }

    /// Connects to a server using the legacy HTTP+SSE transport (2024-11-05):
    /// `url` is the SSE endpoint (often `…/sse`). Legacy era only.
    #[deprecated(
        since = "0.1.0",
        note = "the HTTP+SSE transport is deprecated since MCP 2025-03-26: use `connect_http` (Streamable HTTP), which still falls back to HTTP+SSE for servers that speak only that"
    )]
    pub async fn connect_sse(self, url: &str) -> Result<Client, CallError> {
        let uri = parse_url(url)?;
        let headers = self.header_map()?;
        let client = http_client(self.connect_timeout, self.tls());
        self.sse(client, uri, headers).await
    }

    async fn sse(
        &self,
        client: HttpClient,
        uri: http::Uri,
        headers: HeaderMap,
    ) -> Result<Client, CallError> {
        if self.era == Era::Modern {
            return Err(not_modern(
                "the HTTP+SSE transport exists only in the legacy era",
            ));
        }
        let (shared, config) = self.parts()?;
        oxmcp_wire::deprecated::used(oxmcp_wire::deprecated::Feature::HttpSse);
        let sse = SseTransport::connect(
            client,
            uri,
            headers,
            &shared,
            self.max_message,
            self.connect_timeout,
        )
        .await?;
        let transport: Arc<dyn Transport> = Arc::new(sse);
        shared.set_transport(&transport);
        let conn = Conn::new(shared, transport, config);
        let session = conn.initialize(self.connect_timeout).await?;
        conn.notify(method::INITIALIZED, None).await?;
        self.finish(conn, session).await
    }

    fn header_map(&self) -> Result<HeaderMap, CallError> {
        let mut map = HeaderMap::new();
        for (name, value) in &self.headers {
            let n = HeaderName::from_bytes(name.as_bytes())
                .map_err(|_| transport(format!("`{name}` is not a valid HTTP header name")))?;
            let v = HeaderValue::from_str(value)
                .map_err(|_| transport(format!("the value of header `{name}` is not valid")))?;
            map.append(n, v);
        }
        Ok(map)
    }
}
