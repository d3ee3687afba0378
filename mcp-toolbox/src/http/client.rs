//! One request, its redirects each checked again, over connections pinned to checked addresses.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http::header::{self, HeaderMap, HeaderValue};
use http::{Method, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use rustls::pki_types::ServerName;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;
use tokio::task::JoinHandle;
use url::{Host, Origin, Url};

use super::target::{resolve, AllowedHost};

/// What every request obeys.
#[derive(Debug)]
pub(crate) struct Limits {
    pub(crate) allowed: Vec<AllowedHost>,
    pub(crate) connect_timeout: Duration,
    pub(crate) timeout: Duration,
    pub(crate) max_response_bytes: usize,
    pub(crate) max_redirects: usize,
    pub(crate) user_agent: String,
    /// The origins a redirect from another origin may carry the caller's headers to.
    pub(crate) share_headers_with: Vec<Origin>,
    pub(crate) tls: Arc<rustls::ClientConfig>,
}

/// A request as the tools make it.
#[derive(Debug)]
pub(crate) struct Request {
    pub(crate) method: Method,
    pub(crate) url: Url,
    pub(crate) headers: HeaderMap,
    pub(crate) body: Bytes,
}

/// The final response, after redirects.
#[derive(Debug)]
pub(crate) struct Response {
    pub(crate) url: Url,
    pub(crate) status: StatusCode,
    pub(crate) headers: HeaderMap,
    pub(crate) body: Bytes,
    /// The body went past the size limit: `body` is its beginning.
    pub(crate) truncated: bool,
}

/// Sends `request`, following redirects, all within the time limit.
pub(crate) async fn send(limits: &Limits, request: Request) -> Result<Response, String> {
    send_capped(limits, request, limits.max_response_bytes).await
}

/// [`send`], reading at most `cap` bytes of the final body.
pub(crate) async fn send_capped(
    limits: &Limits,
    request: Request,
    cap: usize,
) -> Result<Response, String> {
    let millis = limits.timeout.as_millis();
    tokio::time::timeout(limits.timeout, follow(limits, request, cap))
        .await
        .unwrap_or_else(|_| Err(format!("timed out after {millis} ms")))
}

async fn follow(limits: &Limits, mut request: Request, cap: usize) -> Result<Response, String> {
    let mut hops = 0;
    loop {
        let addrs = resolve(&request.url, &limits.allowed, limits.connect_timeout)
            .await
            .map_err(|e| redirected(hops, &request.url, &e))?;
        let (head, body, connection) = exchange(limits, &request, &addrs)
            .await
            .map_err(|e| redirected(hops, &request.url, &e))?;
        let location = head
            .headers
            .get(header::LOCATION)
            .and_then(|l| l.to_str().ok());
        let Some(location) = location.filter(|_| is_redirect(head.status)) else {
            let (body, truncated) = read_capped(body, cap).await?;
            drop(connection);
            return Ok(Response {
                url: request.url,
                status: head.status,
                headers: head.headers,
                body,
                truncated,
            });
        };
        if hops == limits.max_redirects {
            return Err(format!(
                "too many redirects (the limit is {}), the last to {location}",
                limits.max_redirects
            ));
        }
        let next = request
            .url
            .join(location)
            .map_err(|e| format!("redirect to an invalid URL {location:?}: {e}"))?;
        drop(connection);
        request = redirect(request, head.status, next, &limits.share_headers_with);
        hops += 1;
    }
}

fn redirected(hops: usize, url: &Url, error: &str) -> String {
    if hops == 0 {
        error.to_owned()
    } else {
        format!("redirect to {url}: {error}")
    }
}

fn is_redirect(status: StatusCode) -> bool {
    matches!(status.as_u16(), 301 | 302 | 303 | 307 | 308)
}

/// The request a redirect asks for: `GET` without a body after a 303 (and
/// after a 301 or 302 to a `POST`, as browsers do), the caller's headers
/// kept only on the same origin or one named in `share_with`.
fn redirect(mut request: Request, status: StatusCode, next: Url, share_with: &[Origin]) -> Request {
    let to_get = status == StatusCode::SEE_OTHER && request.method != Method::HEAD
        || matches!(status.as_u16(), 301 | 302) && request.method == Method::POST;
    if to_get {
        request.method = Method::GET;
        request.body = Bytes::new();
        request.headers.remove(header::CONTENT_TYPE);
    }
    let next_origin = next.origin();
    if next_origin != request.url.origin() && !share_with.contains(&next_origin) {
        keep_only_body_description(&mut request.headers);
    }
    request.url = next;
    request
}

/// Drops every header the caller set but `Content-Type` (which describes
/// the body a 307 or 308 sends on). A secret travels under any name (`X-Api-Key`,
/// `Private-Token`, a signature), so no list of credential names is enough:
/// a header goes to another origin only when the builder says it may
/// ([`HttpBuilder::share_headers_with`](super::HttpBuilder::share_headers_with)),
/// and once dropped it stays dropped for the hops after.
fn keep_only_body_description(headers: &mut HeaderMap) {
    let content_type = headers.remove(header::CONTENT_TYPE);
    headers.clear();
    if let Some(value) = content_type {
        headers.insert(header::CONTENT_TYPE, value);
    }
}

/// Ends the connection's task when dropped.
struct Connection(JoinHandle<()>);

impl Drop for Connection {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Connects to one of `addrs` (nothing else), sends `request`, returns the
/// response head and its unread body.
async fn exchange(
    limits: &Limits,
    request: &Request,
    addrs: &[SocketAddr],
) -> Result<(http::response::Parts, Incoming, Connection), String> {
    let tcp = connect(addrs, limits.connect_timeout).await?;
    if request.url.scheme() == "https" {
        let name = match request.url.host() {
            Some(Host::Domain(d)) => ServerName::try_from(d.to_owned())
                .map_err(|e| format!("invalid TLS server name {d}: {e}"))?,
            Some(Host::Ipv4(ip)) => ServerName::IpAddress(std::net::IpAddr::V4(ip).into()),
            Some(Host::Ipv6(ip)) => ServerName::IpAddress(std::net::IpAddr::V6(ip).into()),
            None => return Err(format!("refused: {} has no host", request.url)),
        };
        let connector = tokio_rustls::TlsConnector::from(Arc::clone(&limits.tls));
        let tls = connector
            .connect(name, tcp)
            .await
            .map_err(|e| format!("TLS with {} failed: {e}", request.url))?;
        over(tls, limits, request).await
    } else {
        over(tcp, limits, request).await
    }
}

async fn connect(addrs: &[SocketAddr], timeout: Duration) -> Result<TcpStream, String> {
    let mut last = String::from("no address to connect to");
    for addr in addrs {
        match tokio::time::timeout(timeout, TcpStream::connect(addr)).await {
            Ok(Ok(tcp)) => return Ok(tcp),
            Ok(Err(e)) => last = format!("cannot connect to {addr}: {e}"),
            Err(_) => {
                last = format!(
                    "connecting to {addr} timed out after {} ms",
                    timeout.as_millis()
                );
            }
        }
    }
    Err(last)
}

/// HTTP/1.1 over an open stream.
async fn over<S>(
    io: S,
    limits: &Limits,
    request: &Request,
) -> Result<(http::response::Parts, Incoming, Connection), String>
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(io))
        .await
        .map_err(|e| format!("HTTP handshake with {} failed: {e}", request.url))?;
    let connection = Connection(tokio::spawn(async move {
        let _ = conn.await;
    }));
    let url = &request.url;
    let mut builder = http::Request::builder()
        .method(request.method.clone())
        .uri(&url[url::Position::BeforePath..url::Position::AfterQuery]);
    let headers = builder.headers_mut().ok_or("invalid request")?;
    headers.clone_from(&request.headers);
    let host = match url.port() {
        Some(port) => format!("{}:{port}", url.host_str().unwrap_or_default()),
        None => url.host_str().unwrap_or_default().to_owned(),
    };
    headers.insert(
        header::HOST,
        HeaderValue::from_str(&host).map_err(|e| format!("invalid host {host}: {e}"))?,
    );
    if !headers.contains_key(header::USER_AGENT) {
        if let Ok(agent) = HeaderValue::from_str(&limits.user_agent) {
            headers.insert(header::USER_AGENT, agent);
        }
    }
    let http_request = builder
        .body(Full::new(request.body.clone()))
        .map_err(|e| format!("invalid request: {e}"))?;
    let response = sender
        .send_request(http_request)
        .await
        .map_err(|e| format!("request to {url} failed: {e}"))?;
    let (head, body) = response.into_parts();
    Ok((head, body, connection))
}

/// Reads at most `cap` bytes of `body`, and stops there.
async fn read_capped(mut body: Incoming, cap: usize) -> Result<(Bytes, bool), String> {
    let mut out = Vec::new();
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|e| format!("reading the response failed: {e}"))?;
        if let Ok(data) = frame.into_data() {
            let room = cap - out.len();
            if data.len() > room {
                out.extend_from_slice(&data[..room]);
                return Ok((out.into(), true));
            }
            out.extend_from_slice(&data);
        }
    }
    Ok((out.into(), false))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn post(url: &str) -> Request {
        let mut headers = HeaderMap::new();
        headers.insert(header::AUTHORIZATION, HeaderValue::from_static("Bearer t"));
        headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/plain"));
        headers.insert("x-api-key", HeaderValue::from_static("k"));
        Request {
            method: Method::POST,
            url: Url::parse(url).unwrap(),
            headers,
            body: Bytes::from_static(b"hello"),
        }
    }

    #[test]
    fn a_303_turns_a_post_into_a_get_without_a_body() {
        let next = Url::parse("http://a.example/next").unwrap();
        let r = redirect(post("http://a.example/"), StatusCode::SEE_OTHER, next, &[]);
        assert_eq!(r.method, Method::GET);
        assert!(r.body.is_empty());
        assert!(!r.headers.contains_key(header::CONTENT_TYPE));
        assert!(r.headers.contains_key(header::AUTHORIZATION));
    }

    #[test]
    fn a_307_keeps_the_method_and_body_and_credentials_stay_on_their_origin() {
        let next = Url::parse("http://b.example/next").unwrap();
        let r = redirect(
            post("http://a.example/"),
            StatusCode::TEMPORARY_REDIRECT,
            next,
            &[],
        );
        assert_eq!(r.method, Method::POST);
        assert_eq!(&r.body[..], b"hello");
        assert!(!r.headers.contains_key(header::AUTHORIZATION));
        assert!(!r.headers.contains_key("x-api-key"));
        // The body goes on, and so does what says what it is.
        assert_eq!(r.headers[header::CONTENT_TYPE], "text/plain");
    }

    #[test]
    fn another_port_or_scheme_is_another_origin_and_a_shared_origin_keeps_the_headers() {
        for next in ["http://a.example:8080/", "https://a.example/"] {
            let next = Url::parse(next).unwrap();
            let r = redirect(post("http://a.example/"), StatusCode::FOUND, next, &[]);
            assert!(r.headers.is_empty(), "{:?}", r.headers);
        }
        let shared = Url::parse("https://b.example").unwrap().origin();
        let next = Url::parse("https://b.example/next").unwrap();
        let r = redirect(
            post("http://a.example/"),
            StatusCode::TEMPORARY_REDIRECT,
            next,
            &[shared],
        );
        assert_eq!(r.headers["x-api-key"], "k");
        assert!(r.headers.contains_key(header::AUTHORIZATION));
    }
}
