//! The HTTP plumbing both providers share: the connection settings, one POST
//! with its retries, bounded and timed body reading, and the providers'
//! error bodies.

use std::fmt;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, SystemTime};

use bytes::Bytes;
use http::header::{self, HeaderMap, HeaderName, HeaderValue};
use http::{Method, Request, Uri};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use oxmcp_client::rustls::ClientConfig;
use oxmcp_wire::http_client::{http_client, HttpClient};
use serde_json::Value;
use tokio::time::Instant;

use super::retry::{self, RetryPolicy};
use crate::chat::ModelError;

/// The largest answer read: a JSON body, or all of an event stream.
pub(crate) const MAX_BODY: usize = 32 << 20;
/// How much of an error body is kept.
const MAX_ERROR_BODY: usize = 64 << 10;
/// How much of a non-JSON error body goes into the message, in characters.
const ERROR_TEXT_CHARS: usize = 500;
const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

/// The connection settings of one model, with the client built from them on
/// first use.
#[derive(Clone)]
pub(crate) struct HttpOptions {
    pub(crate) base_url: String,
    pub(crate) retry: RetryPolicy,
    pub(crate) timeout: Duration,
    pub(crate) idle_timeout: Duration,
    pub(crate) headers: Vec<(String, String)>,
    tls: Option<Arc<ClientConfig>>,
    client: OnceLock<HttpClient>,
}

impl fmt::Debug for HttpOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Header values may be credentials: only their names are shown.
        let names: Vec<&str> = self.headers.iter().map(|(n, _)| n.as_str()).collect();
        f.debug_struct("HttpOptions")
            .field("base_url", &self.base_url)
            .field("max_retries", &self.retry.max_retries)
            .field("max_retry_wait", &self.retry.max_wait)
            .field("timeout", &self.timeout)
            .field("idle_timeout", &self.idle_timeout)
            .field("headers", &names)
            .field("custom_tls", &self.tls.is_some())
            .finish_non_exhaustive()
    }
}

impl HttpOptions {
    /// The defaults: 3 retries waiting at most 60 s each, 10 minutes for a
    /// whole answer, 5 minutes without data.
    pub(crate) fn new(base_url: String) -> Self {
        HttpOptions {
            base_url,
            retry: RetryPolicy {
                max_retries: 3,
                max_wait: Duration::from_secs(60),
            },
            timeout: Duration::from_secs(600),
            idle_timeout: Duration::from_secs(300),
            headers: Vec::new(),
            tls: None,
            client: OnceLock::new(),
        }
    }

    /// Uses this TLS configuration for https (the client is rebuilt).
    pub(crate) fn set_tls(&mut self, tls: Arc<ClientConfig>) {
        self.tls = Some(tls);
        self.client = OnceLock::new();
    }

    /// `{base_url}/{path}`, whether or not the base ends in a slash.
    pub(crate) fn url(&self, path: &str) -> String {
        format!("{}/{path}", self.base_url.trim_end_matches('/'))
    }

    fn client(&self) -> &HttpClient {
        self.client
            .get_or_init(|| http_client(CONNECT_TIMEOUT, self.tls.clone()))
    }

    /// POSTs `body` (JSON) to `url` with the provider's `headers` and the
    /// extra ones, retrying rate limits and overloads; returns the body of a
    /// 2xx answer with whether it is an event stream. `stream` says which
    /// answer was asked for (it decides when the content type says neither).
    /// With the `otel` feature the request carries the current span's trace
    /// context (`traceparent`), unless an extra header sets it.
    pub(crate) async fn post(
        &self,
        provider: &'static str,
        url: &str,
        mut headers: HeaderMap,
        body: Bytes,
        stream: bool,
    ) -> Result<(Body, bool), ModelError> {
        let uri = parse_url(provider, url)?;
        #[cfg(feature = "otel")]
        oxmcp_otel::propagation::inject_headers(&tracing::Span::current(), &mut headers);
        self.add_headers(provider, &mut headers, stream)?;
        let deadline = later(self.timeout);
        let mut attempt = 0;
        loop {
            attempt += 1;
            let mut request = Request::new(Full::new(body.clone()));
            *request.method_mut() = Method::POST;
            *request.uri_mut() = uri.clone();
            *request.headers_mut() = headers.clone();
            let response =
                match tokio::time::timeout_at(deadline, self.client().request(request)).await {
                    Ok(Ok(response)) => response,
                    Ok(Err(e)) => return Err(request_failed(provider, url, &e)),
                    Err(_) => {
                        return Err(transport(
                            provider,
                            format!("no answer from {url} within {:?}", self.timeout),
                        ))
                    }
                };
            let (parts, incoming) = response.into_parts();
            let body = Body {
                inner: incoming,
                provider,
                url: url.to_owned(),
                deadline,
                timeout: self.timeout,
                idle: self.idle_timeout,
                read: 0,
            };
            if parts.status.is_success() {
                return Ok((body, is_event_stream(&parts.headers, stream)));
            }
            let status = parts.status.as_u16();
            let retry_after = retry::retry_after(&parts.headers, SystemTime::now());
            let message = error_message(&body.prefix(MAX_ERROR_BODY).await, parts.status);
            let wait = self.retry.delay(status, attempt, retry_after);
            match wait.filter(|wait| later(*wait) < deadline) {
                Some(wait) => {
                    tracing::debug!(provider, status, ?wait, attempt, "retrying: {message}");
                    tokio::time::sleep(wait).await;
                }
                None => {
                    return Err(ModelError::Status {
                        provider: provider.to_owned(),
                        status,
                        message,
                        retry_after,
                    })
                }
            }
        }
    }

    /// Content type, accept, user agent, then the extra headers (which
    /// replace any of the same name).
    fn add_headers(
        &self,
        provider: &'static str,
        headers: &mut HeaderMap,
        stream: bool,
    ) -> Result<(), ModelError> {
        let accept = if stream {
            "text/event-stream"
        } else {
            "application/json"
        };
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        headers.insert(header::ACCEPT, HeaderValue::from_static(accept));
        headers.insert(
            header::USER_AGENT,
            HeaderValue::from_static(concat!("mcp-agent/", env!("CARGO_PKG_VERSION"))),
        );
        for (name, value) in &self.headers {
            let name = HeaderName::try_from(name.as_str())
                .map_err(|_| config(provider, format!("`{name}` is not a valid header name")))?;
            headers.insert(name.clone(), header_value(provider, &name, value)?);
        }
        Ok(())
    }
}

/// `now + wait`, or a century from now when that cannot be told.
fn later(wait: Duration) -> Instant {
    let now = Instant::now();
    now.checked_add(wait)
        .or_else(|| now.checked_add(Duration::from_secs(100 * 365 * 86_400)))
        .unwrap_or(now)
}

/// A header value, marked sensitive (kept out of hyper's debug output).
pub(crate) fn header_value(
    provider: &'static str,
    name: &HeaderName,
    value: &str,
) -> Result<HeaderValue, ModelError> {
    let mut value = HeaderValue::from_str(value).map_err(|_| {
        config(
            provider,
            format!("the value of header `{name}` has characters a header cannot carry"),
        )
    })?;
    value.set_sensitive(true);
    Ok(value)
}

/// Who a model talks to: the provider (its name in errors), the prefix of
/// its environment variables, its default base URL, and its own host, the
/// only one that needs a key (local servers need none).
#[derive(Debug)]
pub(crate) struct Endpoint {
    pub(crate) provider: &'static str,
    pub(crate) env: &'static str,
    pub(crate) default_base_url: &'static str,
    pub(crate) official_host: &'static str,
}

impl Endpoint {
    /// The API key, base URL and model from `{env}_API_KEY` (optional when
    /// the base URL is not the provider's host), `{env}_BASE_URL` (optional)
    /// and `{env}_MODEL`, read through `var` (an empty value counts as
    /// unset).
    pub(crate) fn settings(
        &self,
        var: impl Fn(&str) -> Option<String>,
    ) -> Result<(Option<String>, String, String), ModelError> {
        let env = self.env;
        let var = |name: &str| var(&format!("{env}_{name}")).filter(|v| !v.is_empty());
        let base_url = var("BASE_URL").unwrap_or_else(|| self.default_base_url.to_owned());
        let api_key = var("API_KEY");
        if api_key.is_none() && needs_key(&base_url, self.official_host) {
            return Err(config(self.provider, format!("{env}_API_KEY is not set")));
        }
        let model =
            var("MODEL").ok_or_else(|| config(self.provider, format!("{env}_MODEL is not set")))?;
        Ok((api_key, base_url, model))
    }

    /// The headers carrying the key (`credential`: the header and its
    /// value); none without a key, which only the provider's host requires.
    pub(crate) fn key_headers(
        &self,
        base_url: &str,
        credential: Option<(HeaderName, String)>,
    ) -> Result<HeaderMap, ModelError> {
        let mut headers = HeaderMap::new();
        match credential {
            Some((name, value)) => {
                let value = header_value(self.provider, &name, &value)?;
                headers.insert(name, value);
            }
            None if needs_key(base_url, self.official_host) => {
                let message = format!("no API key (set {}_API_KEY)", self.env);
                return Err(config(self.provider, message));
            }
            None => {}
        }
        Ok(headers)
    }
}

/// Whether a model at `base_url` needs an API key: it does at the provider's
/// own host (`api.openai.com`, `api.anthropic.com`); local servers need none.
pub(crate) fn needs_key(base_url: &str, official_host: &str) -> bool {
    base_url
        .parse::<Uri>()
        .ok()
        .and_then(|uri| uri.host().map(|h| h.eq_ignore_ascii_case(official_host)))
        .unwrap_or(false)
}

fn parse_url(provider: &'static str, url: &str) -> Result<Uri, ModelError> {
    let uri: Uri = url
        .parse()
        .map_err(|e| config(provider, format!("invalid URL `{url}`: {e}")))?;
    match uri.scheme_str() {
        Some("http" | "https") if uri.authority().is_some() => Ok(uri),
        _ => Err(config(
            provider,
            format!("`{url}` is not an http:// or https:// URL with a host"),
        )),
    }
}

/// Whether an answer is an event stream: by its content type, else as asked.
fn is_event_stream(headers: &HeaderMap, asked: bool) -> bool {
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let mime = content_type.split(';').next().unwrap_or("").trim();
    if mime.eq_ignore_ascii_case("text/event-stream") {
        true
    } else if mime.eq_ignore_ascii_case("application/json") {
        false
    } else {
        asked
    }
}

/// The body of an answer, read with the request's deadline, the idle
/// timeout between chunks, and [`MAX_BODY`].
#[derive(Debug)]
pub(crate) struct Body {
    inner: Incoming,
    provider: &'static str,
    url: String,
    deadline: Instant,
    timeout: Duration,
    idle: Duration,
    read: usize,
}

impl Body {
    /// The provider this answer is from.
    pub(crate) fn provider(&self) -> &'static str {
        self.provider
    }

    /// The next chunk of data; `None` at the end.
    pub(crate) async fn chunk(&mut self) -> Result<Option<Bytes>, ModelError> {
        loop {
            let left = self.deadline.saturating_duration_since(Instant::now());
            let frame = match tokio::time::timeout(self.idle.min(left), self.inner.frame()).await {
                Ok(None) => return Ok(None),
                Ok(Some(Ok(frame))) => frame,
                Ok(Some(Err(e))) => {
                    let message = format!("reading the answer from {} failed: {e}", self.url);
                    return Err(transport(self.provider, message));
                }
                Err(_) if self.idle < left => {
                    let message = format!("no data from {} for {:?}", self.url, self.idle);
                    return Err(transport(self.provider, message));
                }
                Err(_) => {
                    let message = format!(
                        "the answer from {} took longer than {:?}",
                        self.url, self.timeout
                    );
                    return Err(transport(self.provider, message));
                }
            };
            if let Ok(data) = frame.into_data() {
                self.read += data.len();
                if self.read > MAX_BODY {
                    let message = format!("the answer from {} exceeds {MAX_BODY} bytes", self.url);
                    return Err(transport(self.provider, message));
                }
                return Ok(Some(data));
            }
        }
    }

    /// The whole body as JSON.
    pub(crate) async fn json(mut self) -> Result<Value, ModelError> {
        let mut all = Vec::new();
        while let Some(chunk) = self.chunk().await? {
            all.extend_from_slice(&chunk);
        }
        serde_json::from_slice(&all).map_err(|e| {
            let start = String::from_utf8_lossy(&all[..all.len().min(200)]).into_owned();
            malformed(
                self.provider,
                format!("the body is not JSON ({e}); it starts with {start:?}"),
            )
        })
    }

    /// Up to `max` bytes of the body, as much as could be read.
    async fn prefix(mut self, max: usize) -> Vec<u8> {
        let mut all = Vec::new();
        while all.len() < max {
            match self.chunk().await {
                Ok(Some(chunk)) => all.extend_from_slice(&chunk),
                Ok(None) | Err(_) => break,
            }
        }
        all.truncate(max);
        all
    }
}

/// The message of an error answer: the provider's `error.message` (Chat
/// Completions `{"error":{"message",...}}`, Anthropic `{"type":"error","error":{...}}`,
/// some compatible servers `{"error":"..."}`), else the start of the body,
/// else the status's reason.
fn error_message(body: &[u8], status: http::StatusCode) -> String {
    if let Ok(value) = serde_json::from_slice::<Value>(body) {
        let message = match value.get("error") {
            Some(Value::String(message)) => Some(message.as_str()),
            Some(error) => error.get("message").and_then(Value::as_str),
            None => value.get("message").and_then(Value::as_str),
        };
        if let Some(message) = message {
            return message.to_owned();
        }
    }
    let text = String::from_utf8_lossy(body);
    let text = text.trim();
    if text.is_empty() {
        return status.canonical_reason().unwrap_or("no message").to_owned();
    }
    let mut short: String = text.chars().take(ERROR_TEXT_CHARS).collect();
    if short.len() < text.len() {
        short.push_str("...");
    }
    short
}

/// An error object sent in place of an answer (a 200 body, a stream event,
/// a failed Responses API response): a [`ModelError::Status`] with the
/// status its `code` (a number, or a name such as `rate_limit_exceeded`) or
/// `type` corresponds to (Anthropic's `overloaded_error` is 529, as it would
/// have been before the stream started), 500 when it names none.
pub(crate) fn error_object(provider: &'static str, error: &Value) -> ModelError {
    let message = match error {
        Value::String(message) => message.clone(),
        _ => error
            .get("message")
            .and_then(Value::as_str)
            .map_or_else(|| error.to_string(), str::to_owned),
    };
    let code = error.get("code");
    let number = code
        .and_then(Value::as_u64)
        .and_then(|code| u16::try_from(code).ok())
        .filter(|code| (400..600).contains(code));
    let named = |value: Option<&Value>| value.and_then(Value::as_str).and_then(status_of);
    ModelError::Status {
        provider: provider.to_owned(),
        status: number
            .or_else(|| named(error.get("type")))
            .or_else(|| named(code))
            .unwrap_or(500),
        message,
        retry_after: None,
    }
}

/// The HTTP status an error type or code stands for (the names of both
/// APIs).
fn status_of(kind: &str) -> Option<u16> {
    Some(match kind {
        "invalid_request_error" | "invalid_prompt" => 400,
        "authentication_error" => 401,
        "permission_error" => 403,
        "not_found_error" => 404,
        "request_too_large" => 413,
        "rate_limit_error" | "rate_limit_exceeded" => 429,
        "api_error" | "server_error" => 500,
        "timeout_error" => 504,
        "overloaded_error" => 529,
        _ => return None,
    })
}

fn request_failed(
    provider: &'static str,
    url: &str,
    e: &(dyn std::error::Error + 'static),
) -> ModelError {
    let mut message = format!("HTTP request to {url} failed: {e}");
    let mut source = e.source();
    while let Some(cause) = source {
        message.push_str(": ");
        message.push_str(&cause.to_string());
        source = cause.source();
    }
    transport(provider, message)
}

/// A [`ModelError::Transport`].
pub(crate) fn transport(provider: &str, message: String) -> ModelError {
    ModelError::Transport {
        provider: provider.to_owned(),
        message,
    }
}

/// A [`ModelError::Malformed`].
pub(crate) fn malformed(provider: &str, message: impl Into<String>) -> ModelError {
    ModelError::Malformed {
        provider: provider.to_owned(),
        message: message.into(),
    }
}

/// A [`ModelError::Config`].
pub(crate) fn config(provider: &str, message: impl Into<String>) -> ModelError {
    ModelError::Config {
        provider: provider.to_owned(),
        message: message.into(),
    }
}

/// The constructors from the environment and the builder methods every
/// provider has, over its fields `api_key`, `model`, `http` and `streaming`
/// and its `new(api_key, model)`: `from_env`, `from_env_with`, `api_key`,
/// `base_url`, `streaming` and `model`. `$endpoint` is its [`Endpoint`];
/// the docs name its variables' prefix, its host and the header of its key,
/// and `$base_url` documents `base_url`.
macro_rules! endpoint_methods {
    (
        endpoint: $endpoint:expr,
        env: $env:literal,
        host: $host:literal,
        key_header: $key_header:literal,
        base_url: $base_url:literal $(,)?
    ) => {
        #[doc = concat!(
            "A model from `", $env, "_BASE_URL` (optional), `", $env, "_API_KEY` (optional\n",
            "when the base URL is not `", $host, "`) and `", $env, "_MODEL`.\n\n",
            "# Errors\n\n",
            "[`ModelError::Config`](crate::chat::ModelError::Config) naming the variable that is missing."
        )]
        pub fn from_env() -> Result<Self, crate::chat::ModelError> {
            Self::from_env_with(|name| std::env::var(name).ok())
        }

        /// [`from_env`](Self::from_env) reading the variables through `var`
        /// (an empty value counts as unset).
        pub fn from_env_with(
            var: impl Fn(&str) -> Option<String>,
        ) -> Result<Self, crate::chat::ModelError> {
            let (api_key, base_url, model) = $endpoint.settings(var)?;
            Ok(Self::new(String::new(), model)
                .api_key(api_key)
                .base_url(base_url))
        }

        #[doc = concat!("The API key (`None`: no `", $key_header, "` header).")]
        pub fn api_key(mut self, api_key: Option<String>) -> Self {
            self.api_key = api_key.filter(|k| !k.is_empty());
            self
        }

        #[doc = $base_url]
        pub fn base_url(mut self, url: impl Into<String>) -> Self {
            self.http.base_url = url.into();
            self
        }

        /// Whether to ask for an event stream (default `true`).
        pub fn streaming(mut self, streaming: bool) -> Self {
            self.streaming = streaming;
            self
        }

        /// The model's name.
        pub fn model(&self) -> &str {
            &self.model
        }
    };
}

pub(crate) use endpoint_methods;

/// The builder methods every provider shares, setting `self.http`.
macro_rules! http_builder_methods {
    () => {
        /// Retries after a rate limit (429) or an overload (503, 529) before
        /// giving up with the status (default 3).
        pub fn max_retries(mut self, retries: u32) -> Self {
            self.http.retry.max_retries = retries;
            self
        }

        /// The longest wait before a retry (default 60 s): a `Retry-After`
        /// asking for more gives up at once with the error.
        pub fn max_retry_wait(mut self, wait: std::time::Duration) -> Self {
            self.http.retry.max_wait = wait;
            self
        }

        /// How long one request may take, from sending it to the last byte
        /// of the answer, retries included (default 10 minutes).
        pub fn timeout(mut self, timeout: std::time::Duration) -> Self {
            self.http.timeout = timeout;
            self
        }

        /// How long the answer may go without data once its headers came
        /// (default 5 minutes).
        pub fn idle_timeout(mut self, timeout: std::time::Duration) -> Self {
            self.http.idle_timeout = timeout;
            self
        }

        /// An extra header sent with every request, replacing one of the same
        /// name. An invalid name or value fails the requests with
        /// [`ModelError::Config`](crate::chat::ModelError::Config).
        pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
            self.http.headers.push((name.into(), value.into()));
            self
        }

        /// The TLS configuration for https (default: rustls with Mozilla's
        /// root certificates).
        pub fn tls_config(
            mut self,
            tls: std::sync::Arc<oxmcp_client::rustls::ClientConfig>,
        ) -> Self {
            self.http.set_tls(tls);
            self
        }
    };
}

pub(crate) use http_builder_methods;

#[cfg(test)]
mod tests {
    use super::*;
    use http::StatusCode;
    use serde_json::json;

    #[test]
    fn error_messages_come_from_either_provider() {
        let openai = br#"{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}"#;
        assert_eq!(
            error_message(openai, StatusCode::TOO_MANY_REQUESTS),
            "Rate limit reached"
        );
        let anthropic =
            br#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#;
        assert_eq!(error_message(anthropic, StatusCode::OK), "Overloaded");
        assert_eq!(
            error_message(br#"{"error":"model not found"}"#, StatusCode::NOT_FOUND),
            "model not found"
        );
        assert_eq!(error_message(b"", StatusCode::BAD_GATEWAY), "Bad Gateway");
        let long = "x".repeat(2000);
        assert_eq!(
            error_message(long.as_bytes(), StatusCode::BAD_GATEWAY).len(),
            ERROR_TEXT_CHARS + 3
        );
    }

    #[test]
    fn error_objects_carry_a_status() {
        let status = |v: Value| match error_object("p", &v) {
            ModelError::Status {
                status, message, ..
            } => (status, message),
            other => panic!("{other:?}"),
        };
        assert_eq!(
            status(json!({"type": "overloaded_error", "message": "Overloaded"})),
            (529, "Overloaded".into())
        );
        assert_eq!(
            status(json!({"message": "bad", "code": 400})),
            (400, "bad".into())
        );
        assert_eq!(status(json!("boom")), (500, "boom".into()));
        assert_eq!(
            status(json!({"code": "rate_limit_exceeded", "message": "slow down", "type": null})),
            (429, "slow down".into())
        );
        assert_eq!(
            status(
                json!({"code": "rate_limit_exceeded", "message": "m", "type": "invalid_request_error"})
            ),
            (400, "m".into())
        );
    }

    #[test]
    fn urls_and_keys() {
        let options = HttpOptions::new("http://localhost:8080/v1/".into());
        assert_eq!(
            options.url("chat/completions"),
            "http://localhost:8080/v1/chat/completions"
        );
        assert!(needs_key("https://api.openai.com/v1", "api.openai.com"));
        assert!(!needs_key("http://localhost:11434/v1", "api.openai.com"));
        assert!(parse_url("p", "ftp://x").is_err());
        assert!(parse_url("p", "not a url").is_err());
    }
}
