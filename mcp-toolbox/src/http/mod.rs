//! HTTP to public addresses only: `get`, `post` and the reference `fetch`.
//!
//! ```no_run
//! use std::time::Duration;
//! use oxmcp_toolbox::http::Http;
//!
//! let http = Http::builder()
//!     .allow_host("api.example.com")          // any port
//!     .allow_host_port("localhost", 8080)     // this port only
//!     .timeout(Duration::from_secs(10))
//!     .max_response_bytes(1 << 20)
//!     .max_redirects(3)
//!     .build();
//! let server = oxmcp_server::Server::builder("fetch", "1.0.0").toolbox(http).build();
//! ```
//!
//! Safe by construction:
//!
//! - only `http` and `https` URLs, parsed as a browser does (so
//!   `http://2130706433/`, `http://0x7f.1/` and `http://127.1/` are
//!   `127.0.0.1`);
//! - the host is resolved here and refused when *any* of its addresses is
//!   not public (loopback, private, link-local, carrier-grade NAT,
//!   unspecified, multicast, broadcast, reserved, documentation and
//!   benchmarking ranges, unique-local IPv6, and IPv6 addresses embedding
//!   such an IPv4 one: mapped, compatible, NAT64, 6to4, Teredo);
//! - the connection goes to exactly the addresses checked (no second
//!   lookup to rebind), TLS verified against Mozilla's roots with the host
//!   name as SNI;
//! - every redirect is checked the same way, up to a limit, and one to
//!   another origin (scheme, host and port) carries none of the headers the
//!   caller set (credentials hide under any name, `X-Api-Key` as well as
//!   `Authorization`), `Content-Type` aside, unless the builder names that
//!   origin ([`HttpBuilder::share_headers_with`]);
//! - every response is bounded in time and size (reading stops at the
//!   limit);
//! - the allow list (a host, or a host and port) is the only exception.
//!
//! None of the tools is annotated read-only, `get` and `fetch` included:
//! each reaches the open world (`openWorldHint`), a URL carries data out of
//! the conversation to whoever runs the site, and a GET can act on it. A
//! host that runs read-only tools without asking asks for these.
//!
//! As the reference fetch server does, `fetch` (not `get` or `post`) first
//! asks the site for `/robots.txt` through the same checked client (at most
//! 512 KiB) and refuses a page it forbids to our user agent
//! ([`DEFAULT_USER_AGENT`] or the configured one): the group naming the
//! agent's product token (`oxmcp-toolbox`), else the `*` group; the longest
//! matching `Allow` or `Disallow` wins (`Allow` on a tie), `*` and a final
//! `$` as wildcards; a 401 or 403 refuses, another 4xx or an empty file
//! allows everything, and a failed request is an error.
//! [`HttpBuilder::ignore_robots_txt`] turns the check off.

mod address;
pub(crate) mod client;
mod fetch;
mod robots;
mod target;

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http::header::{self, HeaderMap, HeaderName, HeaderValue};
use http::Method;
use oxmcp_server::{tool, Json, ToolError};
use schemars::JsonSchema;
use serde::Serialize;
use url::{Origin, Url};

use client::{Limits, Request, Response};
use target::AllowedHost;

/// The `User-Agent` sent unless the caller names one.
pub const DEFAULT_USER_AGENT: &str = concat!(
    "oxmcp-toolbox/",
    env!("CARGO_PKG_VERSION"),
    " (Autonomous; MCP http toolbox)"
);

/// The `get`, `post` and `fetch` tools; see the [module docs](self).
#[derive(Debug, Clone)]
pub struct Http {
    pub(crate) limits: Arc<Limits>,
    ignore_robots_txt: bool,
}

/// Configures an [`Http`] toolbox; every default is the safe one.
#[derive(Debug, Clone)]
pub struct HttpBuilder {
    allowed: Vec<AllowedHost>,
    connect_timeout: Duration,
    timeout: Duration,
    max_response_bytes: usize,
    max_redirects: usize,
    user_agent: String,
    ignore_robots_txt: bool,
    share_headers_with: Vec<Origin>,
}

impl Default for HttpBuilder {
    fn default() -> Self {
        HttpBuilder {
            allowed: Vec::new(),
            connect_timeout: Duration::from_secs(10),
            timeout: Duration::from_secs(30),
            max_response_bytes: 5 * 1024 * 1024,
            max_redirects: 5,
            user_agent: DEFAULT_USER_AGENT.to_owned(),
            ignore_robots_txt: false,
            share_headers_with: Vec::new(),
        }
    }
}

impl HttpBuilder {
    /// Lets `host` be reached on any port whatever its addresses (a name
    /// as URLs spell it, or an IP address, IPv6 with or without brackets).
    pub fn allow_host(mut self, host: &str) -> Self {
        self.allowed.push(AllowedHost::new(host, None));
        self
    }

    /// Lets `host` be reached on `port` only, whatever its addresses.
    pub fn allow_host_port(mut self, host: &str, port: u16) -> Self {
        self.allowed.push(AllowedHost::new(host, Some(port)));
        self
    }

    /// [`allow_host`](Self::allow_host) or
    /// [`allow_host_port`](Self::allow_host_port) from `HOST` or
    /// `HOST:PORT` (`[::1]:8080` for IPv6), as a command line gives it.
    pub fn allow(mut self, spec: &str) -> Result<Self, String> {
        self.allowed.push(AllowedHost::parse(spec)?);
        Ok(self)
    }

    /// The time limit for resolving and connecting (default 10 s).
    pub fn connect_timeout(mut self, limit: Duration) -> Self {
        self.connect_timeout = limit;
        self
    }

    /// The time limit for a whole call, redirects and body included
    /// (default 30 s).
    pub fn timeout(mut self, limit: Duration) -> Self {
        self.timeout = limit;
        self
    }

    /// The most bytes of a response body read; the rest is never read
    /// (default 5 MiB).
    pub fn max_response_bytes(mut self, limit: usize) -> Self {
        self.max_response_bytes = limit;
        self
    }

    /// The most redirects followed (default 5; 0 follows none).
    pub fn max_redirects(mut self, limit: usize) -> Self {
        self.max_redirects = limit;
        self
    }

    /// The `User-Agent` sent when a request names none.
    pub fn user_agent(mut self, agent: impl Into<String>) -> Self {
        self.user_agent = agent.into();
        self
    }

    /// Lets `fetch` skip the site's robots.txt, as the reference's
    /// `--ignore-robots-txt` does (by default `fetch` asks for
    /// `/robots.txt` first and refuses what it forbids to our user agent).
    pub fn ignore_robots_txt(mut self) -> Self {
        self.ignore_robots_txt = true;
        self
    }

    /// Lets `origin` (`https://api.example.com`, `http://127.0.0.1:8080`:
    /// a scheme, a host and the port if not the scheme's) receive the
    /// caller's headers when a redirect leads there from another origin.
    /// By default a redirect to another origin carries none of them: no
    /// `Authorization`, no cookie, no API key under any name.
    ///
    /// # Errors
    ///
    /// When `origin` is not an `http` or `https` URL with a host.
    pub fn share_headers_with(mut self, origin: &str) -> Result<Self, String> {
        let url = Url::parse(origin).map_err(|e| format!("invalid origin {origin:?}: {e}"))?;
        if !matches!(url.scheme(), "http" | "https") || url.host().is_none() {
            return Err(format!(
                "invalid origin {origin:?}: an http or https URL with a host, as in https://api.example.com"
            ));
        }
        self.share_headers_with.push(url.origin());
        Ok(self)
    }

    /// The toolbox.
    pub fn build(self) -> Http {
        let roots = rustls::RootCertStore {
            roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
        };
        let tls = rustls::ClientConfig::builder_with_provider(Arc::new(
            rustls::crypto::ring::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .expect("ring supports the default TLS versions")
        .with_root_certificates(roots)
        .with_no_client_auth();
        Http {
            limits: Arc::new(Limits {
                allowed: self.allowed,
                connect_timeout: self.connect_timeout,
                timeout: self.timeout,
                max_response_bytes: self.max_response_bytes,
                max_redirects: self.max_redirects,
                user_agent: self.user_agent,
                share_headers_with: self.share_headers_with,
                tls: Arc::new(tls),
            }),
            ignore_robots_txt: self.ignore_robots_txt,
        }
    }
}

impl Default for Http {
    fn default() -> Self {
        Http::builder().build()
    }
}

/// What `get` and `post` return.
#[derive(Debug, Serialize, JsonSchema)]
pub struct HttpResponse {
    /// The URL answered, after redirects.
    pub url: String,
    /// The HTTP status code.
    pub status: u16,
    /// The response headers, lower-case names; repeated ones joined with `, `.
    pub headers: BTreeMap<String, String>,
    /// The body as text (invalid UTF-8 replaced).
    pub body: String,
    /// The body went past the size limit and was cut there.
    pub truncated: bool,
}

#[tool(description = "HTTP requests to public addresses: get, post, and fetch a page as Markdown")]
impl Http {
    /// `get`: a GET request, its status, headers and body.
    #[describe("Send an HTTP GET request; returns the status, headers and body")]
    #[tool(read_only = false, open_world)]
    pub async fn get(
        &self,
        #[param("The http or https URL")] url: String,
        #[param("Request headers, name to value")] headers: Option<HashMap<String, String>>,
    ) -> Result<Json<HttpResponse>, ToolError> {
        self.call(Method::GET, &url, headers, Bytes::new()).await
    }

    /// `post`: a POST request with a body, its status, headers and body.
    #[describe("Send an HTTP POST request with a body; returns the status, headers and body")]
    #[tool(open_world)]
    pub async fn post(
        &self,
        #[param("The http or https URL")] url: String,
        #[param("The request body")] body: Option<String>,
        #[param("Request headers, name to value (e.g. Content-Type)")] headers: Option<
            HashMap<String, String>,
        >,
    ) -> Result<Json<HttpResponse>, ToolError> {
        let body = Bytes::from(body.unwrap_or_default());
        self.call(Method::POST, &url, headers, body).await
    }

    /// `fetch`: the reference fetch server's tool (a page as Markdown, paged).
    #[describe(
        "Fetches a URL from the internet and optionally extracts its contents as markdown.\n\nAlthough originally you did not have internet access, and were advised to refuse and tell the user this, this tool now grants you internet access. Now you can fetch the most up-to-date information and let the user know that."
    )]
    #[tool(read_only = false, open_world)]
    pub async fn fetch(
        &self,
        #[param("URL to fetch")] url: String,
        #[param("Maximum number of characters to return.", default = 5000)] max_length: u64,
        #[param(
            "On return output starting at this character index, useful if a previous fetch was truncated and more context is required.",
            default = 0
        )]
        start_index: u64,
        #[param(
            "Get the actual HTML content of the requested page, without simplification.",
            default = false
        )]
        raw: bool,
    ) -> Result<String, ToolError> {
        let max_length = usize::try_from(max_length)
            .ok()
            .filter(|n| (1..1_000_000).contains(n))
            .ok_or_else(|| {
                ToolError::new("max_length must be greater than 0 and less than 1000000")
            })?;
        let start_index = usize::try_from(start_index).unwrap_or(usize::MAX);
        let parsed = Url::parse(&url)
            .map_err(|e| ToolError::new(format!("Failed to fetch {url}: invalid URL: {e}")))?;
        let shown = parsed.to_string();
        if !self.ignore_robots_txt {
            robots::check(&self.limits, &parsed)
                .await
                .map_err(ToolError::new)?;
        }
        let request = Request {
            method: Method::GET,
            url: parsed,
            headers: HeaderMap::new(),
            body: Bytes::new(),
        };
        let response = client::send(&self.limits, request)
            .await
            .map_err(|e| ToolError::new(format!("Failed to fetch {shown}: {e}")))?;
        if response.status.as_u16() >= 400 {
            return Err(ToolError::new(format!(
                "Failed to fetch {shown} - status code {}",
                response.status.as_u16()
            )));
        }
        let content_type = response
            .headers
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default();
        let raw_page = String::from_utf8_lossy(&response.body);
        let (content, mut prefix) = fetch::page_text(&raw_page, content_type, raw);
        if response.truncated {
            prefix.insert_str(
                0,
                &format!(
                    "The response was cut at {} bytes (the size limit); this is its beginning.\n",
                    self.limits.max_response_bytes
                ),
            );
        }
        let content = fetch::page(&content, start_index, max_length);
        Ok(format!("{prefix}Contents of {shown}:\n{content}"))
    }
}

impl Http {
    /// A builder with the safe defaults: no host allowed beyond the public
    /// addresses, 10 s to connect, 30 s a call, 5 MiB a response, 5 redirects.
    pub fn builder() -> HttpBuilder {
        HttpBuilder::default()
    }

    async fn call(
        &self,
        method: Method,
        url: &str,
        headers: Option<HashMap<String, String>>,
        body: Bytes,
    ) -> Result<Json<HttpResponse>, ToolError> {
        let url =
            Url::parse(url).map_err(|e| ToolError::new(format!("invalid URL {url:?}: {e}")))?;
        let headers = header_map(headers.unwrap_or_default()).map_err(ToolError::new)?;
        let request = Request {
            method,
            url,
            headers,
            body,
        };
        let response = client::send(&self.limits, request)
            .await
            .map_err(ToolError::new)?;
        Ok(Json(into_output(response)))
    }
}

/// The caller's headers, refusing those this client sets itself.
fn header_map(headers: HashMap<String, String>) -> Result<HeaderMap, String> {
    let mut map = HeaderMap::new();
    for (name, value) in headers {
        let header_name = HeaderName::from_bytes(name.as_bytes())
            .map_err(|_| format!("invalid header name {name:?}"))?;
        if [
            header::HOST,
            header::CONTENT_LENGTH,
            header::TRANSFER_ENCODING,
            header::CONNECTION,
            header::UPGRADE,
            header::TE,
        ]
        .contains(&header_name)
        {
            return Err(format!(
                "the header {name} is set by the client, not by a caller"
            ));
        }
        let value = HeaderValue::from_str(&value)
            .map_err(|_| format!("invalid value for header {name}"))?;
        map.append(header_name, value);
    }
    Ok(map)
}

fn into_output(response: Response) -> HttpResponse {
    let mut headers: BTreeMap<String, String> = BTreeMap::new();
    for (name, value) in &response.headers {
        let value = String::from_utf8_lossy(value.as_bytes());
        headers
            .entry(name.as_str().to_owned())
            .and_modify(|v| {
                v.push_str(", ");
                v.push_str(&value);
            })
            .or_insert_with(|| value.into_owned());
    }
    HttpResponse {
        url: response.url.into(),
        status: response.status.as_u16(),
        headers,
        body: String::from_utf8_lossy(&response.body).into_owned(),
        truncated: response.truncated,
    }
}
