//! The hyper client behind both HTTP transports: plain connections, and
//! TLS with rustls when the `tls` feature is on; endpoint URLs.

use http::Uri;
use oxmcp_types::call::CallError;

use crate::error::transport;

pub(crate) use oxmcp_wire::http_client::{http_client, HttpClient};

/// Parses an MCP endpoint URL.
pub(crate) fn parse_url(url: &str) -> Result<Uri, CallError> {
    let uri: Uri = url
        .parse()
        .map_err(|e| transport(format!("invalid URL `{url}`: {e}")))?;
    match uri.scheme_str() {
        Some("https") if uri.authority().is_some() && !cfg!(feature = "tls") => Err(transport(
            format!("`{url}` needs TLS, and oxmcp-client was built without its `tls` feature"),
        )),
        Some("http" | "https") if uri.authority().is_some() => Ok(uri),
        _ => Err(transport(format!(
            "`{url}` is not an http:// or https:// URL with a host"
        ))),
    }
}

/// Describes a hyper-util client error with its causes: the request
/// reached no server ([`is_unreachable`](crate::is_unreachable)).
pub(super) fn request_failed(url: &Uri, e: &(dyn std::error::Error + 'static)) -> CallError {
    CallError::Transport(Box::new(crate::error::Unreachable(format!(
        "HTTP request to {url} failed: {}",
        oxmcp_types::error::Chain(e)
    ))))
}
