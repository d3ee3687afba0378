//! [`Authorizer`]: how the user reaches the authorization server and how
//! its redirect comes back.

use std::time::Duration;

use bytes::Bytes;
use http::{Method, Request};
use http_body_util::Full;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::{AuthError, BoxFuture};
use crate::transport::http::HttpClient;

/// The query of the redirect back to the client (`code`, `state`, `iss`, or
/// `error`...), as name-value pairs.
pub type RedirectParams = Vec<(String, String)>;

/// Sends the user to the authorization URL and returns the parameters of
/// the redirect to `redirect_uri`.
pub trait Authorizer: Send + Sync + 'static {
    /// The redirect URI the authorization server sends the user back to.
    fn redirect_uri(&self) -> BoxFuture<'_, Result<String, AuthError>>;
    /// Shows `url` to the user and waits for the redirect.
    fn authorize<'a>(&'a self, url: &'a str) -> BoxFuture<'a, Result<RedirectParams, AuthError>>;
}

/// What is called with the authorization URL.
type OpenUrl = Box<dyn Fn(&str) + Send + Sync>;

/// For desktop and command-line programs: listens on `127.0.0.1` for the
/// redirect, and shows the user the URL to open (on stderr, and through
/// the callback if one is set, to open a browser say).
pub struct LoopbackAuthorizer {
    port: u16,
    path: String,
    timeout: Duration,
    listener: tokio::sync::Mutex<Option<tokio::net::TcpListener>>,
    open: Option<OpenUrl>,
}

impl std::fmt::Debug for LoopbackAuthorizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoopbackAuthorizer")
            .field("port", &self.port)
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

impl Default for LoopbackAuthorizer {
    fn default() -> Self {
        LoopbackAuthorizer::new()
    }
}

impl LoopbackAuthorizer {
    /// Listens on a free port of 127.0.0.1, at `/callback`; waits 5 minutes.
    pub fn new() -> Self {
        LoopbackAuthorizer {
            port: 0,
            path: "/callback".into(),
            timeout: Duration::from_secs(300),
            listener: tokio::sync::Mutex::new(None),
            open: None,
        }
    }

    /// Listens on this port (one registered with the issuer, say).
    #[must_use]
    pub fn port(mut self, port: u16) -> Self {
        self.port = port;
        self
    }

    /// How long to wait for the user.
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Called with the authorization URL (to open a browser, say).
    #[must_use]
    pub fn on_url(mut self, open: impl Fn(&str) + Send + Sync + 'static) -> Self {
        self.open = Some(Box::new(open));
        self
    }

    async fn bound_port(&self) -> Result<u16, AuthError> {
        let mut listener = self.listener.lock().await;
        if listener.is_none() {
            let bound = tokio::net::TcpListener::bind(("127.0.0.1", self.port))
                .await
                .map_err(|e| AuthError::Redirect(format!("cannot listen on 127.0.0.1: {e}")))?;
            *listener = Some(bound);
        }
        listener
            .as_ref()
            .and_then(|l| l.local_addr().ok())
            .map(|a| a.port())
            .ok_or_else(|| AuthError::Redirect("no loopback listener".into()))
    }

    async fn wait(&self) -> Result<RedirectParams, AuthError> {
        let listener = self.listener.lock().await;
        let listener = listener
            .as_ref()
            .ok_or_else(|| AuthError::Redirect("no loopback listener".into()))?;
        loop {
            let (mut stream, _) = listener
                .accept()
                .await
                .map_err(|e| AuthError::Redirect(format!("the redirect listener failed: {e}")))?;
            let mut buf = vec![0u8; 8192];
            let mut len = 0;
            while len < buf.len() {
                match stream.read(&mut buf[len..]).await {
                    Ok(0) | Err(_) => break,
                    Ok(n) => len += n,
                }
                if buf[..len].windows(4).any(|w| w == b"\r\n\r\n") {
                    break;
                }
            }
            let head = String::from_utf8_lossy(&buf[..len]);
            let target = head
                .lines()
                .next()
                .and_then(|l| l.strip_prefix("GET "))
                .and_then(|l| l.split(' ').next())
                .unwrap_or_default()
                .to_owned();
            let (path, query) = target.split_once('?').unwrap_or((&target, ""));
            if path != self.path {
                let _ = stream
                    .write_all(
                        b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                    )
                    .await;
                continue;
            }
            let page = "You can close this window and return to the application.";
            let response = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{page}",
                page.len()
            );
            let _ = stream.write_all(response.as_bytes()).await;
            return Ok(mcp_wire::oauth::form_decode(query));
        }
    }
}

impl Authorizer for LoopbackAuthorizer {
    fn redirect_uri(&self) -> BoxFuture<'_, Result<String, AuthError>> {
        Box::pin(async move {
            let port = self.bound_port().await?;
            Ok(format!("http://127.0.0.1:{port}{}", self.path))
        })
    }

    fn authorize<'a>(&'a self, url: &'a str) -> BoxFuture<'a, Result<RedirectParams, AuthError>> {
        Box::pin(async move {
            self.bound_port().await?;
            eprintln!("To authorize this client, open:\n  {url}");
            if let Some(open) = &self.open {
                open(url);
            }
            tokio::time::timeout(self.timeout, self.wait())
                .await
                .map_err(|_| AuthError::Redirect("no redirect came back in time".into()))?
        })
    }
}

/// Performs the authorization request itself and reads the redirect from
/// the answer's `Location`: for authorization servers that approve without
/// a person (test servers, trusted automation). It never follows the
/// redirect, and the redirect URI need not exist.
#[derive(Debug, Clone)]
pub struct HeadlessAuthorizer {
    redirect_uri: String,
    client: HttpClient,
}

impl HeadlessAuthorizer {
    /// Registers `redirect_uri` (never contacted).
    pub fn new(redirect_uri: impl Into<String>) -> Self {
        HeadlessAuthorizer {
            redirect_uri: redirect_uri.into(),
            client: super::default_http_client(),
        }
    }
}

impl Authorizer for HeadlessAuthorizer {
    fn redirect_uri(&self) -> BoxFuture<'_, Result<String, AuthError>> {
        let uri = self.redirect_uri.clone();
        Box::pin(async move { Ok(uri) })
    }

    fn authorize<'a>(&'a self, url: &'a str) -> BoxFuture<'a, Result<RedirectParams, AuthError>> {
        Box::pin(async move {
            let request = Request::builder()
                .method(Method::GET)
                .uri(url)
                .body(Full::<Bytes>::default())
                .map_err(|_| AuthError::Redirect(format!("invalid authorization URL {url}")))?;
            let answer =
                mcp_wire::http_client::send(&self.client, request, Duration::from_secs(30))
                    .await
                    .map_err(|e| AuthError::Redirect(mcp_types::error::Chain(&e).to_string()))?;
            let location = answer
                .headers
                .get(http::header::LOCATION)
                .and_then(|v| v.to_str().ok())
                .ok_or_else(|| {
                    AuthError::Redirect(format!(
                        "the authorization server answered {} without a redirect",
                        answer.status
                    ))
                })?;
            if !location.starts_with(&self.redirect_uri) {
                return Err(AuthError::Redirect(format!(
                    "the authorization server redirected to {location}, not to the redirect URI"
                )));
            }
            let query = location.split_once('?').map_or("", |(_, q)| q);
            let query = query.split('#').next().unwrap_or_default();
            Ok(mcp_wire::oauth::form_decode(query))
        })
    }
}
