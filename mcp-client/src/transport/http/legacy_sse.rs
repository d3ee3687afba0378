//! The HTTP+SSE transport of revision 2024-11-05 (deprecated, still served
//! by older servers): `GET` the SSE URL, whose first event, `endpoint`, names
//! where to POST; every server message arrives as a `message` event.

use std::ops::ControlFlow;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http::header::{self, HeaderMap};
use http::{Method, Request, Uri};
use http_body_util::Full;
use oxmcp_types::call::{BoxFuture, CallError};
use tokio::task::AbortHandle;

use super::sse::SseParser;
use super::{
    error_status, get_request, kind_of, on_message, pump, request_failed, send_for_status,
    HttpClient, Kind,
};
use crate::connection::{Closed, Shared};
use crate::error::transport;
use crate::transport::{Outgoing, Transport};

/// An open HTTP+SSE session.
pub(crate) struct SseTransport {
    client: HttpClient,
    endpoint: Uri,
    headers: HeaderMap,
    reader: AbortHandle,
}

impl std::fmt::Debug for SseTransport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SseTransport")
            .field("endpoint", &self.endpoint)
            .finish_non_exhaustive()
    }
}

/// Resolves the `endpoint` event's URI against the SSE URL; it must stay on
/// the same origin (a server must not redirect the client's messages elsewhere).
fn resolve(base: &Uri, endpoint: &str) -> Result<Uri, CallError> {
    let endpoint = endpoint.trim();
    let uri: Uri = if endpoint.starts_with("http://") || endpoint.starts_with("https://") {
        endpoint
            .parse()
            .map_err(|e| transport(format!("invalid endpoint `{endpoint}`: {e}")))?
    } else {
        let path = if endpoint.starts_with('/') {
            endpoint.to_owned()
        } else {
            let dir = base.path().rsplit_once('/').map_or("", |(dir, _)| dir);
            format!("{dir}/{endpoint}")
        };
        let scheme = base.scheme_str().unwrap_or("http");
        let authority = base.authority().map_or("", |a| a.as_str());
        format!("{scheme}://{authority}{path}")
            .parse()
            .map_err(|e| transport(format!("invalid endpoint `{endpoint}`: {e}")))?
    };
    if uri.scheme() != base.scheme() || uri.authority() != base.authority() {
        return Err(transport(format!(
            "the server named an endpoint on another origin ({uri}); refusing it"
        )));
    }
    Ok(uri)
}

impl SseTransport {
    /// Opens the stream and waits (up to `wait`) for the `endpoint` event.
    pub(crate) async fn connect(
        client: HttpClient,
        url: Uri,
        headers: HeaderMap,
        shared: &Arc<Shared>,
        max_message: usize,
        wait: Duration,
    ) -> Result<SseTransport, CallError> {
        let request = get_request(&url, headers.clone(), None)?;
        let response = tokio::time::timeout(wait, client.request(request))
            .await
            .map_err(|_| CallError::Timeout(wait))?
            .map_err(|e| request_failed(&url, &e))?;
        if !response.status().is_success() {
            return Err(error_status(response, None).await);
        }
        if !matches!(kind_of(response.headers()), Kind::Sse) {
            return Err(transport(format!(
                "{url} is not an SSE endpoint (no text/event-stream response)"
            )));
        }
        let mut body = response.into_body();
        let mut parser = SseParser::new(max_message);
        let mut endpoint = None;
        let found = tokio::time::timeout(
            wait,
            pump(&mut body, &mut parser, |event| {
                if event.event == "endpoint" {
                    endpoint = Some(event.data);
                    ControlFlow::Break(())
                } else {
                    on_message(shared, &event, None);
                    ControlFlow::Continue(())
                }
            }),
        )
        .await
        .map_err(|_| CallError::Timeout(wait))?;
        let endpoint = match (found, endpoint) {
            (Ok(true), Some(endpoint)) => resolve(&url, &endpoint)?,
            (Err(e), _) => return Err(transport(format!("the SSE stream broke: {e}"))),
            _ => {
                return Err(transport(
                    "the SSE stream ended without an `endpoint` event",
                ))
            }
        };
        tracing::debug!(%endpoint, "HTTP+SSE session open");
        let reader_shared = Arc::clone(shared);
        let reader = tokio::spawn(async move {
            let ended = pump(&mut body, &mut parser, |event| {
                on_message(&reader_shared, &event, None);
                ControlFlow::Continue(())
            })
            .await;
            let reason = match ended {
                Err(e) => format!("the server's SSE stream broke: {e}"),
                Ok(_) => "the server closed the SSE stream".to_owned(),
            };
            reader_shared.close(Closed::Failed(reason));
        })
        .abort_handle();
        Ok(SseTransport {
            client,
            endpoint,
            headers,
            reader,
        })
    }

    async fn post(&self, body: Vec<u8>) -> Result<(), CallError> {
        let mut request = Request::builder()
            .method(Method::POST)
            .uri(self.endpoint.clone())
            .header(header::CONTENT_TYPE, "application/json")
            .body(Full::new(Bytes::from(body)))
            .map_err(|e| transport(format!("cannot build the HTTP request: {e}")))?;
        request.headers_mut().extend(self.headers.clone());
        send_for_status(&self.client, request, &self.endpoint).await
    }
}

impl Transport for SseTransport {
    #[cfg(feature = "otel")]
    fn network(&self) -> oxmcp_otel::instrumentation::Transport {
        oxmcp_otel::instrumentation::Transport::Http
    }

    fn request(&self, request: Outgoing) -> BoxFuture<'_, Result<(), CallError>> {
        Box::pin(self.post(request.body))
    }

    fn send(&self, message: Vec<u8>) -> BoxFuture<'_, Result<(), CallError>> {
        Box::pin(self.post(message))
    }

    fn close(&self) -> BoxFuture<'_, ()> {
        // Closing the stream ends the session.
        self.reader.abort();
        Box::pin(async {})
    }
}

impl Drop for SseTransport {
    fn drop(&mut self) {
        self.reader.abort();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_resolve_on_the_same_origin_only() {
        let base: Uri = "http://127.0.0.1:8080/mcp/sse".parse().unwrap();
        assert_eq!(
            resolve(&base, "/messages?session_id=ab")
                .unwrap()
                .to_string(),
            "http://127.0.0.1:8080/messages?session_id=ab"
        );
        assert_eq!(
            resolve(&base, "messages?x=1").unwrap().to_string(),
            "http://127.0.0.1:8080/mcp/messages?x=1"
        );
        assert_eq!(
            resolve(&base, "http://127.0.0.1:8080/m")
                .unwrap()
                .to_string(),
            "http://127.0.0.1:8080/m"
        );
        assert!(resolve(&base, "http://evil.example/m").is_err());
    }
}
