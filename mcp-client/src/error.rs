//! Building [`CallError`]s: the one error type of the client, shared with
//! typed clients through `oxmcp-types`.
//!
//! The types here are the causes under [`CallError::Transport`] (which
//! displays `transport failed` and returns them from `source()`). Each is a
//! leaf: its message says everything, `source()` is `None`.

use std::fmt;

use oxmcp_types::call::CallError;

/// A transport failure described in words (a dead process, a closed stream).
#[derive(Debug)]
pub(crate) struct TransportError(pub(crate) String);

impl fmt::Display for TransportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for TransportError {}

/// An HTTP response with an error status whose body is not a JSON-RPC
/// answer to the request: what era detection and the HTTP+SSE fallback look at.
#[derive(Debug)]
pub(crate) struct HttpStatusError {
    pub(crate) status: http::StatusCode,
    /// The start of the body, for the message.
    pub(crate) body: String,
    /// The body is a JSON-RPC error with a code only the modern era defines.
    pub(crate) modern_error: bool,
}

impl fmt::Display for HttpStatusError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the server answered HTTP {}", self.status)?;
        if !self.body.is_empty() {
            write!(f, ": {}", self.body)?;
        }
        Ok(())
    }
}

impl std::error::Error for HttpStatusError {}

/// The server ended the legacy session this request was sent in (HTTP 404
/// to a request with a session id): the connection core opens a new
/// session and sends the request again.
#[derive(Debug)]
pub(crate) struct SessionEnded;

impl fmt::Display for SessionEnded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the server ended the session (HTTP 404)")
    }
}

impl std::error::Error for SessionEnded {}

/// An HTTP request that reached no server: no connection (refused, reset,
/// a name that does not resolve, no route), or one that broke before an answer.
#[derive(Debug)]
pub(crate) struct Unreachable(pub(crate) String);

impl fmt::Display for Unreachable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Unreachable {}

/// Whether `e` says that no server answered: the request could not be
/// delivered (the connection was refused or broke, the name does not
/// resolve), no answer came in time, or a gateway in front said the server
/// behind it is unavailable (HTTP 502, 503, 504). Trying again later may
/// work. Anything else means something answered, and not as a working MCP
/// server would: another HTTP status, a page that is not JSON-RPC, a
/// JSON-RPC error, a process that exited.
///
/// ```
/// use oxmcp_client::{is_unreachable, Client};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// // Nothing listens on port 9 of this machine.
/// let e = Client::builder().connect_http("http://127.0.0.1:9/mcp").await.unwrap_err();
/// assert!(is_unreachable(&e), "{e}");
/// # }
/// ```
pub fn is_unreachable(e: &CallError) -> bool {
    match e {
        CallError::Timeout(_) => true,
        CallError::Transport(inner) => {
            inner.is::<Unreachable>()
                || http_status(e).is_some_and(|s| matches!(s.status.as_u16(), 502..=504))
        }
        _ => false,
    }
}

/// A [`CallError::Transport`] saying the server ended the session.
#[cfg(feature = "http")]
pub(crate) fn session_ended() -> CallError {
    CallError::Transport(Box::new(SessionEnded))
}

/// Whether `e` says the server ended the session.
pub(crate) fn is_session_ended(e: &CallError) -> bool {
    matches!(e, CallError::Transport(inner) if inner.is::<SessionEnded>())
}

/// A [`CallError::Transport`] with this message.
pub(crate) fn transport(message: impl Into<String>) -> CallError {
    CallError::Transport(Box::new(TransportError(message.into())))
}

/// The HTTP status of a transport error, when it is one.
pub(crate) fn http_status(e: &CallError) -> Option<&HttpStatusError> {
    match e {
        CallError::Transport(inner) => inner.downcast_ref::<HttpStatusError>(),
        _ => None,
    }
}

pub(crate) use oxmcp_wire::route::is_modern_error_code as is_modern_code;

#[cfg(test)]
mod tests {
    use super::*;
    use oxmcp_types::error::assert_each_level_once;

    #[test]
    fn transport_error_prints_each_level_once() {
        let e = transport("the server process exited (exit status: 3)");
        assert_eq!(e.to_string(), "transport failed");
        assert_eq!(
            assert_each_level_once(&e),
            "transport failed: the server process exited (exit status: 3)"
        );
    }

    #[test]
    fn http_status_error_prints_each_level_once() {
        let e = CallError::Transport(Box::new(HttpStatusError {
            status: http::StatusCode::NOT_FOUND,
            body: "no such endpoint".to_owned(),
            modern_error: false,
        }));
        assert!(http_status(&e).is_some());
        assert_eq!(
            assert_each_level_once(&e),
            "transport failed: the server answered HTTP 404 Not Found: no such endpoint"
        );
    }

    #[test]
    fn session_ended_prints_each_level_once() {
        let e = CallError::Transport(Box::new(SessionEnded));
        assert!(is_session_ended(&e));
        assert_eq!(
            assert_each_level_once(&e),
            "transport failed: the server ended the session (HTTP 404)"
        );
    }
}
