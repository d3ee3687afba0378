//! The JSON-RPC 2.0 envelope: requests, notifications, responses and errors.
//!
//! Two views of an incoming message are offered:
//! - [`RawMessage`] borrows from the input line and leaves `params` / `result`
//!   as unparsed [`RawJson`] text, so a server parses each payload exactly
//!   once, into the type its method needs;
//! - [`Message`] owns everything, for clients and tests.
//!
//! Both are produced by one classifier, so they agree on what is a request,
//! a notification, a response or an invalid message.
//!
//! The envelope types are here; reading messages ([`RawMessage::parse`],
//! [`split_batch`]) is in `parse`.

mod parse;
mod scan;

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::Value;

pub use parse::{split_batch, DecodeError, Message, RawMessage};
pub use scan::RawJson;

/// JSON-RPC and MCP error codes.
pub mod code {
    /// Invalid JSON was received.
    pub const PARSE_ERROR: i32 = -32700;
    /// The JSON sent is not a valid request object.
    pub const INVALID_REQUEST: i32 = -32600;
    /// The method does not exist or is not available.
    pub const METHOD_NOT_FOUND: i32 = -32601;
    /// Invalid method parameters (also: unknown tool, bad cursor, missing `_meta`).
    pub const INVALID_PARAMS: i32 = -32602;
    /// Internal JSON-RPC error.
    pub const INTERNAL_ERROR: i32 = -32603;
    /// Resource not found (legacy era only; 2026-07-28 uses -32602).
    pub const RESOURCE_NOT_FOUND: i32 = -32002;
    /// URL elicitation required (2025-11-25).
    pub const URL_ELICITATION_REQUIRED: i32 = -32042;
    /// 2026-07-28: an HTTP header disagrees with the body.
    pub const HEADER_MISMATCH: i32 = -32020;
    /// 2026-07-28: the request needs a client capability that was not declared.
    pub const MISSING_REQUIRED_CLIENT_CAPABILITY: i32 = -32021;
    /// 2026-07-28: the requested protocol version is not supported.
    pub const UNSUPPORTED_PROTOCOL_VERSION: i32 = -32022;
}

/// The `"jsonrpc": "2.0"` marker: serializes as `"2.0"` and accepts nothing else.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct V2;

impl Serialize for V2 {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str("2.0")
    }
}

impl<'de> Deserialize<'de> for V2 {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let s = <Cow<'de, str>>::deserialize(deserializer)?;
        if s == "2.0" {
            Ok(V2)
        } else {
            Err(de::Error::custom(format_args!(
                "`jsonrpc` must be \"2.0\", not {s:?}"
            )))
        }
    }
}

/// A request id: a string or an integer, never null (MCP forbids null ids).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum RequestId {
    /// An integer id.
    Number(i64),
    /// A string id.
    String(String),
}

impl From<i64> for RequestId {
    fn from(n: i64) -> Self {
        RequestId::Number(n)
    }
}

impl From<&str> for RequestId {
    fn from(s: &str) -> Self {
        RequestId::String(s.to_owned())
    }
}

impl From<String> for RequestId {
    fn from(s: String) -> Self {
        RequestId::String(s)
    }
}

impl RequestId {
    /// The id as its own text: a number's digits, a string's characters
    /// without quotes (`Display` quotes strings, to tell `"7"` from `7`).
    pub fn as_text(&self) -> std::borrow::Cow<'_, str> {
        match self {
            RequestId::Number(n) => std::borrow::Cow::Owned(n.to_string()),
            RequestId::String(s) => std::borrow::Cow::Borrowed(s),
        }
    }
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestId::Number(n) => write!(f, "{n}"),
            RequestId::String(s) => write!(f, "{s:?}"),
        }
    }
}

impl Serialize for RequestId {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            RequestId::Number(n) => serializer.serialize_i64(*n),
            RequestId::String(s) => serializer.serialize_str(s),
        }
    }
}

impl<'de> Deserialize<'de> for RequestId {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct IdVisitor;
        impl Visitor<'_> for IdVisitor {
            type Value = RequestId;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string or an integer request id")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<RequestId, E> {
                Ok(RequestId::Number(v))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<RequestId, E> {
                i64::try_from(v)
                    .map(RequestId::Number)
                    .map_err(|_| E::custom("request id out of the 64-bit integer range"))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<RequestId, E> {
                Ok(RequestId::String(v.to_owned()))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<RequestId, E> {
                Ok(RequestId::String(v))
            }
        }
        deserializer.deserialize_any(IdVisitor)
    }
}

/// The `error` member of an error response.
///
/// As an error it is a leaf: `Display` is `message (code)` and `source()` is `None`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorObject {
    /// One of the [`code`] constants, or an implementation-defined code.
    pub code: i32,
    /// A short description of the error.
    pub message: String,
    /// Additional information, as the spec defines per code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl ErrorObject {
    /// An error with a code and a message.
    pub fn new(code: i32, message: impl Into<String>) -> Self {
        ErrorObject {
            code,
            message: message.into(),
            data: None,
        }
    }

    /// Attaches `data`.
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    /// -32700: the input is not valid JSON.
    pub fn parse_error(message: impl Into<String>) -> Self {
        ErrorObject::new(code::PARSE_ERROR, message)
    }

    /// -32600: the input is JSON but not a valid JSON-RPC message.
    pub fn invalid_request(message: impl Into<String>) -> Self {
        ErrorObject::new(code::INVALID_REQUEST, message)
    }

    /// -32601: the method is unknown or not available.
    pub fn method_not_found(method: &str) -> Self {
        ErrorObject::new(
            code::METHOD_NOT_FOUND,
            format!("method not found: {method}"),
        )
    }

    /// -32602: the parameters are invalid.
    pub fn invalid_params(message: impl Into<String>) -> Self {
        ErrorObject::new(code::INVALID_PARAMS, message)
    }

    /// -32603: an internal error.
    pub fn internal(message: impl Into<String>) -> Self {
        ErrorObject::new(code::INTERNAL_ERROR, message)
    }
}

impl fmt::Display for ErrorObject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message, self.code)
    }
}

impl std::error::Error for ErrorObject {}

/// An outgoing or owned request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Request<P = Value> {
    /// Always `"2.0"`.
    pub jsonrpc: V2,
    /// The request id.
    pub id: RequestId,
    /// The method name (see [`crate::method`]).
    pub method: Cow<'static, str>,
    /// The parameters, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<P>,
}

impl<P> Request<P> {
    /// A request with parameters.
    pub fn new(id: impl Into<RequestId>, method: impl Into<Cow<'static, str>>, params: P) -> Self {
        Request {
            jsonrpc: V2,
            id: id.into(),
            method: method.into(),
            params: Some(params),
        }
    }
}

/// An outgoing or owned notification.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Notification<P = Value> {
    /// Always `"2.0"`.
    pub jsonrpc: V2,
    /// The notification name (see [`crate::method`]).
    pub method: Cow<'static, str>,
    /// The parameters, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<P>,
}

impl<P> Notification<P> {
    /// A notification with parameters.
    pub fn new(method: impl Into<Cow<'static, str>>, params: P) -> Self {
        Notification {
            jsonrpc: V2,
            method: method.into(),
            params: Some(params),
        }
    }
}

/// A successful response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Response<R = Value> {
    /// Always `"2.0"`.
    pub jsonrpc: V2,
    /// The id of the request this answers.
    pub id: RequestId,
    /// The result.
    pub result: R,
}

impl<R> Response<R> {
    /// A response to request `id`.
    pub fn new(id: RequestId, result: R) -> Self {
        Response {
            jsonrpc: V2,
            id,
            result,
        }
    }
}

/// An error response. `id` is `null` only when the request's id could not be read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorResponse {
    /// Always `"2.0"`.
    pub jsonrpc: V2,
    /// The id of the request this answers, or `None` (serialized as `null`).
    pub id: Option<RequestId>,
    /// The error.
    pub error: ErrorObject,
}

impl ErrorResponse {
    /// An error response to request `id`.
    pub fn new(id: Option<RequestId>, error: ErrorObject) -> Self {
        ErrorResponse {
            jsonrpc: V2,
            id,
            error,
        }
    }
}

#[cfg(test)]
mod tests;
