//! The client over `https://`: our server behind a real TLS listener on
//! 127.0.0.1 with a certificate for `localhost` from a private authority.
//! Trusting that authority through `ClientBuilder::tls_config`, both eras and
//! the HTTP+SSE transport work; with the default roots the connection is
//! refused with an error that names the certificate problem, and never
//! falls back to plain HTTP.

use crate::support;

use std::sync::Arc;

use oxmcp_client::rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use oxmcp_client::rustls::{self, RootCertStore};
use oxmcp_client::types::ProtocolVersion;
use oxmcp_client::{types::error::Chain, Client, Era, Error};
use oxmcp_server::http::HttpConfig;
use serde_json::json;
use tokio_rustls::TlsAcceptor;

/// A TLS server for `localhost` on 127.0.0.1 serving our MCP server; returns
/// its port and the certificate to trust.
async fn tls_server() -> (u16, CertificateDer<'static>) {
    let rcgen::CertifiedKey { cert, signing_key } =
        rcgen::generate_simple_self_signed(vec!["localhost".to_owned()]).unwrap();
    let der = cert.der().clone();
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(signing_key.serialize_der()));
    let config = rustls::ServerConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_no_client_auth()
    .with_single_cert(vec![der.clone()], key)
    .unwrap();
    let acceptor = TlsAcceptor::from(Arc::new(config));
    let (server, _) = support::server();
    #[allow(deprecated)] // HTTP+SSE, tested on purpose
    let service = server.http_service(HttpConfig::default().legacy_sse("/sse", "/messages"));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        loop {
            let (tcp, _) = listener.accept().await.unwrap();
            let acceptor = acceptor.clone();
            let svc = hyper_util::service::TowerToHyperService::new(service.clone());
            tokio::spawn(async move {
                // A client that rejects our certificate ends the handshake.
                let Ok(tls) = acceptor.accept(tcp).await else {
                    return;
                };
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(hyper_util::rt::TokioIo::new(tls), svc)
                    .await;
            });
        }
    });
    (port, der)
}

fn trusting(cert: CertificateDer<'static>) -> Arc<rustls::ClientConfig> {
    let mut roots = RootCertStore::empty();
    roots.add(cert).unwrap();
    Arc::new(
        rustls::ClientConfig::builder_with_provider(Arc::new(
            rustls::crypto::ring::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth(),
    )
}

#[tokio::test]
async fn both_eras_and_http_sse_over_tls() {
    let (port, cert) = tls_server().await;
    let tls = trusting(cert);
    let url = format!("https://localhost:{port}/mcp");
    for (era, version) in [
        (Era::Auto, ProtocolVersion::V2026_07_28),
        (Era::Legacy, ProtocolVersion::V2025_11_25),
    ] {
        let client = Client::builder()
            .protocol(era)
            .tls_config(Arc::clone(&tls))
            .connect_http(&url)
            .await
            .unwrap_or_else(|e| panic!("{era:?}: {e}"));
        assert_eq!(client.protocol_version(), version);
        let r = client
            .call_tool("add", json!({"a": 2, "b": 3}))
            .await
            .unwrap();
        assert_eq!(r.content[0].as_text(), Some("5"), "{era:?}");
        client.close().await;
    }
    #[allow(deprecated)] // HTTP+SSE, tested on purpose
    let client = Client::builder()
        .tls_config(tls)
        .connect_sse(&format!("https://localhost:{port}/sse"))
        .await
        .unwrap();
    let r = client
        .call_tool("add", json!({"a": 4, "b": 5}))
        .await
        .unwrap();
    assert_eq!(r.content[0].as_text(), Some("9"));
    client.close().await;
}

#[tokio::test]
async fn an_untrusted_certificate_is_refused_with_a_clear_error() {
    let (port, _) = tls_server().await;
    for era in [Era::Auto, Era::Legacy] {
        let err = Client::builder()
            .protocol(era)
            .connect_http(&format!("https://localhost:{port}/mcp"))
            .await
            .unwrap_err();
        let message = Chain(&err).to_string();
        assert!(matches!(err, Error::Transport(_)), "{era:?}: {err:?}");
        assert!(
            message.to_lowercase().contains("certificate"),
            "{era:?}: the error names the certificate problem: {message}"
        );
    }
}

#[tokio::test]
async fn only_http_and_https_urls_are_accepted() {
    for url in ["ftp://localhost/mcp", "localhost:3000/mcp", "https:///mcp"] {
        let err = Client::builder().connect_http(url).await.unwrap_err();
        let message = Chain(&err).to_string();
        assert!(
            message.contains("not an http:// or https:// URL") || message.contains("invalid URL"),
            "{url}: {message}"
        );
    }
}
