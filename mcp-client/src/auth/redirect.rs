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
    /// Lets go of what [`redirect_uri`](Self::redirect_uri) set up (a
    /// listener, say) when the sign-in fails before
    /// [`authorize`](Self::authorize) is called (a refused registration, an
    /// issuer that does not do PKCE...). Does nothing unless overridden.
    fn release(&self) -> BoxFuture<'_, ()> {
        Box::pin(async {})
    }
}

/// What is called with the authorization URL.
type OpenUrl = Box<dyn Fn(&str) + Send + Sync>;

/// How long a connection to the redirect listener gets to send its request head.
const HEAD_TIMEOUT: Duration = Duration::from_secs(5);
/// The longest request head the redirect listener reads.
const MAX_HEAD: usize = 8192;
/// How many connections the redirect listener serves at once (more wait
/// to be accepted).
const MAX_CONNECTIONS: usize = 32;

/// For desktop and command-line programs: listens on `127.0.0.1` for the
/// redirect, and shows the user the URL to open (on stderr, and through
/// the callback if one is set, to open a browser say).
///
/// Only the redirect carrying the authorization request's `state` ends the
/// wait (others get 400); each connection has a few seconds to send its
/// request and none holds up the others. The port is bound from
/// [`Authorizer::redirect_uri`] until the wait ends, however it ends (or
/// until the sign-in fails before the wait begins); a later sign-in binds
/// the same port again when it can.
pub struct LoopbackAuthorizer {
    port: u16,
    path: String,
    timeout: Duration,
    listener: tokio::sync::Mutex<Option<tokio::net::TcpListener>>,
    /// The port bound last (0: none yet), bound again first.
    last_port: std::sync::atomic::AtomicU16,
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
            last_port: std::sync::atomic::AtomicU16::new(0),
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

    /// The listener, bound if it is not: on the configured port, else the
    /// one bound last (so the redirect URI registered still matches), else
    /// any free one.
    async fn bind(&self, listener: &mut Option<tokio::net::TcpListener>) -> Result<u16, AuthError> {
        use std::sync::atomic::Ordering;
        if listener.is_none() {
            let last = self.last_port.load(Ordering::Relaxed);
            let bound = match (self.port, last) {
                (0, 0) => tokio::net::TcpListener::bind(("127.0.0.1", 0)).await,
                (0, last) => match tokio::net::TcpListener::bind(("127.0.0.1", last)).await {
                    Ok(bound) => Ok(bound),
                    Err(_) => tokio::net::TcpListener::bind(("127.0.0.1", 0)).await,
                },
                (port, _) => tokio::net::TcpListener::bind(("127.0.0.1", port)).await,
            }
            .map_err(|e| AuthError::Redirect(format!("cannot listen on 127.0.0.1: {e}")))?;
            *listener = Some(bound);
        }
        let port = listener
            .as_ref()
            .and_then(|l| l.local_addr().ok())
            .map(|a| a.port())
            .ok_or_else(|| AuthError::Redirect("no loopback listener".into()))?;
        self.last_port.store(port, Ordering::Relaxed);
        Ok(port)
    }

    /// Serves connections until one brings the redirect with `state`
    /// (any redirect when `state` is `None`): each is read concurrently,
    /// within [`HEAD_TIMEOUT`].
    async fn wait(
        &self,
        listener: &tokio::net::TcpListener,
        state: Option<&str>,
    ) -> Result<RedirectParams, AuthError> {
        use futures_util::stream::{FuturesUnordered, StreamExt as _};
        let mut connections = FuturesUnordered::new();
        loop {
            let accepted = if connections.len() < MAX_CONNECTIONS {
                tokio::select! {
                    accepted = listener.accept() => Some(accepted),
                    Some(done) = connections.next() => {
                        if let Some(params) = done {
                            return Ok(params);
                        }
                        None
                    }
                }
            } else {
                if let Some(Some(params)) = connections.next().await {
                    return Ok(params);
                }
                None
            };
            if let Some(accepted) = accepted {
                let (stream, _) = accepted.map_err(|e| {
                    AuthError::Redirect(format!("the redirect listener failed: {e}"))
                })?;
                connections.push(self.callback(stream, state));
            }
        }
    }

    /// Reads one request and answers it: the redirect's parameters if it
    /// is the one awaited, else `None` (404 elsewhere, 400 with another
    /// `state`, nothing if the head does not come in time).
    async fn callback(
        &self,
        mut stream: tokio::net::TcpStream,
        state: Option<&str>,
    ) -> Option<RedirectParams> {
        let head = tokio::time::timeout(HEAD_TIMEOUT, read_head(&mut stream))
            .await
            .ok()?;
        let target = head
            .lines()
            .next()
            .and_then(|l| l.strip_prefix("GET "))
            .and_then(|l| l.split(' ').next())
            .unwrap_or_default();
        let (path, query) = target.split_once('?').unwrap_or((target, ""));
        if path != self.path {
            reply(&mut stream, "404 Not Found", "").await;
            return None;
        }
        let params = oxmcp_wire::oauth::form_decode(query);
        let found = params
            .iter()
            .find(|(k, _)| k == "state")
            .map(|(_, v)| v.as_str());
        if state.is_some() && found != state {
            reply(
                &mut stream,
                "400 Bad Request",
                "This is not the authorization this application is waiting for.",
            )
            .await;
            return None;
        }
        reply(
            &mut stream,
            "200 OK",
            "You can close this window and return to the application.",
        )
        .await;
        Some(params)
    }
}

/// A request head, up to the blank line (at most [`MAX_HEAD`] bytes).
async fn read_head(stream: &mut tokio::net::TcpStream) -> String {
    let mut buf = vec![0u8; MAX_HEAD];
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
    String::from_utf8_lossy(&buf[..len]).into_owned()
}

async fn reply(stream: &mut tokio::net::TcpStream, status: &str, page: &str) {
    let response = format!(
        "HTTP/1.1 {status}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{page}",
        page.len()
    );
    let _ = stream.write_all(response.as_bytes()).await;
    let _ = stream.shutdown().await;
}

/// The `state` of an authorization URL's query.
fn state_of(url: &str) -> Option<String> {
    let query = url.split_once('?')?.1;
    let query = query.split('#').next().unwrap_or_default();
    oxmcp_wire::oauth::form_decode(query)
        .into_iter()
        .find(|(k, _)| k == "state")
        .map(|(_, v)| v)
}

impl Authorizer for LoopbackAuthorizer {
    fn redirect_uri(&self) -> BoxFuture<'_, Result<String, AuthError>> {
        Box::pin(async move {
            let port = self.bind(&mut *self.listener.lock().await).await?;
            Ok(format!("http://127.0.0.1:{port}{}", self.path))
        })
    }

    fn authorize<'a>(&'a self, url: &'a str) -> BoxFuture<'a, Result<RedirectParams, AuthError>> {
        Box::pin(async move {
            // Held while waiting: one authorization at a time on this port.
            let mut slot = self.listener.lock().await;
            self.bind(&mut slot).await?;
            // Taken out: it is dropped, and the port closed, when the wait
            // ends (answered, failed, timed out, or this future dropped).
            let listener = slot.take();
            let listener = listener
                .as_ref()
                .ok_or_else(|| AuthError::Redirect("no loopback listener".into()))?;
            let state = state_of(url);
            eprintln!("To authorize this client, open:\n  {url}");
            if let Some(open) = &self.open {
                open(url);
            }
            tokio::time::timeout(self.timeout, self.wait(listener, state.as_deref()))
                .await
                .map_err(|_| AuthError::Redirect("no redirect came back in time".into()))?
        })
    }

    fn release(&self) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            self.listener.lock().await.take();
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
                oxmcp_wire::http_client::send(&self.client, request, Duration::from_secs(30))
                    .await
                    .map_err(|e| AuthError::Redirect(oxmcp_types::error::Chain(&e).to_string()))?;
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
                // Without its query: it may carry a code.
                let shown = location.split(['?', '#']).next().unwrap_or_default();
                return Err(AuthError::Redirect(format!(
                    "the authorization server redirected to {shown}, not to the redirect URI"
                )));
            }
            let query = location.split_once('?').map_or("", |(_, q)| q);
            let query = query.split('#').next().unwrap_or_default();
            Ok(oxmcp_wire::oauth::form_decode(query))
        })
    }
}
