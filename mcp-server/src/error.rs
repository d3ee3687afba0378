//! Error types: [`ToolError`] for a tool's own failures, [`RequestError`]
//! for a prompt's or a resource's, [`Error`] for the server's.

use std::fmt;

use oxmcp_types::{CallToolResult, ContentBlock, ErrorObject};

/// A tool's failure, reported to the model as a result with `isError: true`.
///
/// Any `std::error::Error` converts into it, so `?` works in tools:
///
/// ```
/// use oxmcp_server::ToolError;
///
/// fn parse(text: &str) -> Result<i64, ToolError> {
///     let n: i64 = text.parse()?;               // ParseIntError → ToolError
///     if n < 0 {
///         return Err(ToolError::new("the number must not be negative"));
///     }
///     Ok(n)
/// }
/// assert!(parse("x").is_err());
/// ```
///
/// Like `anyhow::Error`, it does not implement `std::error::Error` itself
/// (that would conflict with the blanket conversion).
pub struct ToolError {
    content: Vec<ContentBlock>,
}

impl ToolError {
    /// An error with a message for the model.
    pub fn new(message: impl Into<String>) -> Self {
        ToolError {
            content: vec![ContentBlock::text(message)],
        }
    }

    /// An error carrying arbitrary content blocks.
    pub fn with_content(content: Vec<ContentBlock>) -> Self {
        ToolError { content }
    }

    /// The message (the text of the first text block).
    pub fn message(&self) -> &str {
        self.content
            .iter()
            .find_map(ContentBlock::as_text)
            .unwrap_or("")
    }

    /// The `isError: true` result this error becomes.
    pub fn into_result(self) -> CallToolResult {
        CallToolResult {
            content: self.content,
            is_error: Some(true),
            ..CallToolResult::default()
        }
    }
}

impl fmt::Debug for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("ToolError").field(&self.message()).finish()
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}

/// The message is the error with its causes, `": "`-joined
/// ([`Chain`](oxmcp_types::error::Chain)): the model reads every level.
impl<E: std::error::Error> From<E> for ToolError {
    fn from(err: E) -> Self {
        ToolError::new(oxmcp_types::error::Chain(&err).to_string())
    }
}

/// A prompt's, a resource's or a completion's failure, answered with a
/// JSON-RPC error (unlike a tool's, which the model reads as a result).
///
/// Any `std::error::Error` converts into it (as an internal error whose
/// message is the error's chain), so `?` works:
///
/// ```
/// use oxmcp_server::RequestError;
///
/// fn read_note(id: u32) -> Result<String, RequestError> {
///     if id == 0 {
///         return Err(RequestError::not_found()); // -32602 with `data.uri`
///     }
///     let text = std::fs::read_to_string(format!("/nonexistent/{id}.md"))?; // -32603
///     Ok(text)
/// }
/// assert!(read_note(0).is_err());
/// ```
pub struct RequestError {
    kind: RequestErrorKind,
}

enum RequestErrorKind {
    /// The resource does not exist: -32602 with the requested URI in `data.uri`.
    NotFound,
    /// An error object as it stands.
    Object(ErrorObject),
}

impl RequestError {
    /// The resource asked for does not exist (`resources/read`): -32602,
    /// with `data.uri` (the 2026-07-28 rule, applied in every era).
    pub fn not_found() -> Self {
        RequestError {
            kind: RequestErrorKind::NotFound,
        }
    }

    /// The request's parameters are wrong: -32602 with this message.
    pub fn invalid_params(message: impl Into<String>) -> Self {
        RequestError::object(ErrorObject::invalid_params(message))
    }

    /// The server failed: -32603 with this message.
    pub fn internal(message: impl Into<String>) -> Self {
        RequestError::object(ErrorObject::internal(message))
    }

    /// This JSON-RPC error, as it stands. (`?` on an [`ErrorObject`] makes
    /// an internal error of it, like any other error.)
    pub fn object(error: ErrorObject) -> Self {
        RequestError {
            kind: RequestErrorKind::Object(error),
        }
    }

    /// The JSON-RPC error this becomes, for a request about `uri` (if any).
    pub(crate) fn into_object(self, uri: Option<&str>) -> ErrorObject {
        match self.kind {
            // A resource read refused for its parameters (a template variable
            // that does not parse, say) names the URI like a missing one.
            RequestErrorKind::Object(mut e) => {
                if let (Some(uri), None) = (uri, &e.data) {
                    if e.code == oxmcp_types::jsonrpc::code::INVALID_PARAMS {
                        e.data = Some(serde_json::json!({ "uri": uri }));
                    }
                }
                e
            }
            RequestErrorKind::NotFound => resource_not_found(uri.unwrap_or_default()),
        }
    }
}

/// -32602 "resource not found" with `data.uri`.
pub(crate) fn resource_not_found(uri: &str) -> ErrorObject {
    let mut e = ErrorObject::invalid_params(format!("resource not found: {uri}"));
    e.data = Some(serde_json::json!({ "uri": uri }));
    e
}

impl fmt::Debug for RequestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            RequestErrorKind::NotFound => f.write_str("RequestError::NotFound"),
            RequestErrorKind::Object(e) => f.debug_tuple("RequestError").field(e).finish(),
        }
    }
}

impl fmt::Display for RequestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            RequestErrorKind::NotFound => f.write_str("resource not found"),
            RequestErrorKind::Object(e) => f.write_str(&e.message),
        }
    }
}

/// The message is the error with its causes, `": "`-joined.
impl<E: std::error::Error> From<E> for RequestError {
    fn from(err: E) -> Self {
        RequestError::internal(oxmcp_types::error::Chain(&err).to_string())
    }
}

/// An error that stops a server (I/O on its transport, a bad configuration).
///
/// `Display` says what failed at this level only: [`Error::Io`] returns the
/// I/O error from `source()`; the other variants are leaves whose message
/// says everything. Print the chain with [`Chain`](oxmcp_types::error::Chain).
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// Reading from or writing to the transport failed.
    Io(std::io::Error),
    /// The server was configured inconsistently (e.g. two tools with one name).
    Config(String),
    /// A tool definition was refused (bad name, empty description, invalid schema).
    InvalidTool(String),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Io(_) => f.write_str("transport i/o failed"),
            Error::Config(what) => write!(f, "invalid server configuration: {what}"),
            Error::InvalidTool(what) => write!(f, "invalid tool: {what}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io(e) => Some(e),
            Error::Config(_) | Error::InvalidTool(_) => None,
        }
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::Io(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use oxmcp_types::error::assert_each_level_once;
    use std::error::Error as _;

    #[test]
    fn error_prints_each_level_once() {
        let e = Error::from(std::io::Error::new(
            std::io::ErrorKind::BrokenPipe,
            "the pipe broke",
        ));
        assert_eq!(e.to_string(), "transport i/o failed");
        assert_eq!(
            assert_each_level_once(&e),
            "transport i/o failed: the pipe broke"
        );
        let e = Error::Config("two tools are named `add`".to_owned());
        assert!(e.source().is_none());
        assert_each_level_once(&e);
        let e = Error::InvalidTool("`` is not a valid name".to_owned());
        assert!(e.source().is_none());
        assert_each_level_once(&e);
    }

    #[test]
    fn tool_error_keeps_each_level_once() {
        // A tool's `?` on an error with a cause: the model reads the chain.
        let e = Error::from(std::io::Error::other("the disk is full"));
        let rendered = assert_each_level_once(&e);
        let tool_error = ToolError::from(e);
        assert_eq!(tool_error.message(), rendered);
        assert_eq!(
            tool_error.to_string(),
            "transport i/o failed: the disk is full"
        );
    }
}
