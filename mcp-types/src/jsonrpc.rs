//! The JSON-RPC 2.0 envelope: requests, notifications, responses and errors.
//!
//! Two views of an incoming message are offered:
//! - [`RawMessage`] borrows from the input line and leaves `params` / `result`
//!   as unparsed [`RawValue`]s, so a server parses each payload exactly once,
//!   into the type its method needs;
//! - [`Message`] owns everything, for clients and tests.
//!
//! Both are produced by one classifier, so they agree on what is a request,
//! a notification, a response or an invalid message.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::value::RawValue;
use serde_json::Value;

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

/// Why an input could not be read as a JSON-RPC message.
///
/// A leaf error: the parser's reason is kept as text in the message, and
/// `source()` is `None`.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum DecodeError {
    /// Not JSON at all: answer -32700 with a null id.
    Parse(String),
    /// JSON, but not a JSON-RPC message: answer -32600, with the id when it was readable.
    Invalid {
        /// The request id, when one could be read.
        id: Option<RequestId>,
        /// What is wrong.
        reason: String,
    },
}

impl DecodeError {
    /// The error response the spec names for this failure.
    pub fn to_response(&self) -> ErrorResponse {
        match self {
            DecodeError::Parse(msg) => ErrorResponse::new(
                None,
                ErrorObject::parse_error(format!("parse error: {msg}")),
            ),
            DecodeError::Invalid { id, reason } => ErrorResponse::new(
                id.clone(),
                ErrorObject::invalid_request(format!("invalid request: {reason}")),
            ),
        }
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeError::Parse(msg) => write!(f, "parse error: {msg}"),
            DecodeError::Invalid { reason, .. } => write!(f, "invalid request: {reason}"),
        }
    }
}

impl std::error::Error for DecodeError {}

/// An incoming message that borrows from its input; payloads stay unparsed.
#[derive(Debug, Clone)]
pub enum RawMessage<'a> {
    /// A request: it must be answered.
    Request {
        /// The id.
        id: RequestId,
        /// The method.
        method: Cow<'a, str>,
        /// The unparsed params.
        params: Option<&'a RawValue>,
    },
    /// A notification: never answered.
    Notification {
        /// The method.
        method: Cow<'a, str>,
        /// The unparsed params.
        params: Option<&'a RawValue>,
    },
    /// A successful response to a request we sent.
    Response {
        /// The id of our request.
        id: RequestId,
        /// The unparsed result.
        result: &'a RawValue,
    },
    /// An error response to a request we sent (or to something we sent that was unreadable).
    Error {
        /// The id of our request, if the peer could read it.
        id: Option<RequestId>,
        /// The error.
        error: ErrorObject,
    },
}

/// Deserializes a field that may be absent (→ `None`) or `null` (→ `Some("null")`).
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&'de RawValue>::deserialize(d).map(Some)
}

#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(default, borrow, deserialize_with = "present")]
    jsonrpc: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "present")]
    id: Option<&'a RawValue>,
    #[serde(default, borrow)]
    method: Option<Cow<'a, str>>,
    #[serde(default, borrow, deserialize_with = "present")]
    params: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "present")]
    result: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "present")]
    error: Option<&'a RawValue>,
}

impl<'a> RawMessage<'a> {
    /// Reads one JSON-RPC message (not a batch) from `input`.
    ///
    /// # Errors
    ///
    /// [`DecodeError::Parse`] when `input` is not JSON, [`DecodeError::Invalid`]
    /// when it is JSON but not an object that is a valid JSON-RPC 2.0 message.
    pub fn parse(input: &'a str) -> Result<RawMessage<'a>, DecodeError> {
        // Valid JSON of the wrong shape is an invalid request; anything else a parse error.
        let refuse = |reason: String| match serde_json::from_str::<&RawValue>(input) {
            Ok(_) => DecodeError::Invalid { id: None, reason },
            Err(e) => DecodeError::Parse(e.to_string()),
        };
        // serde's derived visitor would also read an array, positionally, as
        // an envelope; a message is an object and nothing else.
        if !input
            .trim_start_matches([' ', '\t', '\n', '\r'])
            .starts_with('{')
        {
            return Err(refuse(
                "a JSON-RPC message must be a JSON object".to_owned(),
            ));
        }
        let env: Envelope<'a> = match serde_json::from_str(input) {
            Ok(env) => env,
            // A field of the wrong type.
            Err(e) if e.is_data() => return Err(refuse(e.to_string())),
            Err(e) => return Err(DecodeError::Parse(e.to_string())),
        };
        Self::classify(env)
    }

    fn classify(env: Envelope<'a>) -> Result<RawMessage<'a>, DecodeError> {
        let id = match env.id {
            None => None,
            Some(raw) => match serde_json::from_str::<RequestId>(raw.get()) {
                Ok(id) => Some(id),
                Err(_) if raw.get() == "null" => None,
                Err(_) => {
                    return Err(DecodeError::Invalid {
                        id: None,
                        reason: format!("`id` must be a string or an integer, not {}", raw.get()),
                    })
                }
            },
        };
        let invalid = |id: &Option<RequestId>, reason: &str| DecodeError::Invalid {
            id: id.clone(),
            reason: reason.to_owned(),
        };
        match env.jsonrpc.map(RawValue::get) {
            Some("\"2.0\"") => {}
            Some(_) => return Err(invalid(&id, "`jsonrpc` must be \"2.0\"")),
            None => return Err(invalid(&id, "missing `jsonrpc: \"2.0\"`")),
        }
        if let Some(method) = env.method {
            if env.result.is_some() || env.error.is_some() {
                return Err(invalid(
                    &id,
                    "a message cannot have both `method` and `result`/`error`",
                ));
            }
            let params = match env.params {
                Some(p) if p.get() == "null" => None,
                Some(p) if !(p.get().starts_with('{') || p.get().starts_with('[')) => {
                    return Err(invalid(&id, "`params` must be an object or an array"))
                }
                other => other,
            };
            return match (env.id, id) {
                (None, _) => Ok(RawMessage::Notification { method, params }),
                (Some(_), Some(id)) => Ok(RawMessage::Request { id, method, params }),
                (Some(_), None) => Err(invalid(&None, "request `id` must not be null")),
            };
        }
        match (env.result, env.error) {
            (Some(result), None) => match id {
                Some(id) => Ok(RawMessage::Response { id, result }),
                None => Err(invalid(&id, "a response needs an `id`")),
            },
            (None, Some(error)) => match serde_json::from_str::<ErrorObject>(error.get()) {
                Ok(error) => Ok(RawMessage::Error { id, error }),
                Err(e) => Err(invalid(&id, &format!("malformed `error`: {e}"))),
            },
            (Some(_), Some(_)) => Err(invalid(
                &id,
                "a response cannot have both `result` and `error`",
            )),
            (None, None) => Err(invalid(
                &id,
                "neither a request, a notification nor a response",
            )),
        }
    }

    /// The request id, for requests and responses.
    pub fn id(&self) -> Option<&RequestId> {
        match self {
            RawMessage::Request { id, .. } | RawMessage::Response { id, .. } => Some(id),
            RawMessage::Error { id, .. } => id.as_ref(),
            RawMessage::Notification { .. } => None,
        }
    }

    /// Copies the message out of its input.
    pub fn to_owned(&self) -> Message {
        let value = |raw: Option<&RawValue>| {
            raw.map(|r| serde_json::from_str::<Value>(r.get()).unwrap_or(Value::Null))
        };
        match self {
            RawMessage::Request { id, method, params } => Message::Request(Request {
                jsonrpc: V2,
                id: id.clone(),
                method: Cow::Owned(method.clone().into_owned()),
                params: value(*params),
            }),
            RawMessage::Notification { method, params } => Message::Notification(Notification {
                jsonrpc: V2,
                method: Cow::Owned(method.clone().into_owned()),
                params: value(*params),
            }),
            RawMessage::Response { id, result } => Message::Response(Response {
                jsonrpc: V2,
                id: id.clone(),
                result: value(Some(result)).unwrap_or(Value::Null),
            }),
            RawMessage::Error { id, error } => {
                Message::Error(ErrorResponse::new(id.clone(), error.clone()))
            }
        }
    }
}

/// Any JSON-RPC message, owned.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Message {
    /// A request.
    Request(Request),
    /// A notification.
    Notification(Notification),
    /// A successful response.
    Response(Response),
    /// An error response.
    Error(ErrorResponse),
}

impl Message {
    /// Reads one message, telling a parse error (-32700) from an invalid message (-32600).
    ///
    /// # Errors
    ///
    /// As [`RawMessage::parse`].
    pub fn parse(input: &str) -> Result<Message, DecodeError> {
        RawMessage::parse(input).map(|raw| raw.to_owned())
    }
}

impl<'de> Deserialize<'de> for Message {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        // Go through text so that both views share one classifier.
        let value = Value::deserialize(deserializer)?;
        let text = value.to_string();
        Message::parse(&text).map_err(de::Error::custom)
    }
}

/// Splits a JSON-RPC batch (a JSON array) into its elements.
///
/// Returns `None` when `input` is not an array. Batches are legal only in
/// revision 2025-03-26; deciding whether to accept one is the caller's job.
pub fn split_batch(input: &str) -> Option<Result<Vec<&RawValue>, DecodeError>> {
    if !input.trim_start().starts_with('[') {
        return None;
    }
    Some(
        serde_json::from_str::<Vec<&RawValue>>(input)
            .map_err(|e| DecodeError::Parse(e.to_string())),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_each_kind() {
        let m = RawMessage::parse(r#"{"jsonrpc":"2.0","id":"a","method":"ping"}"#).unwrap();
        assert!(matches!(m, RawMessage::Request { id: RequestId::String(ref s), .. } if s == "a"));
        let m =
            RawMessage::parse(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).unwrap();
        assert!(matches!(m, RawMessage::Notification { .. }));
        let m = RawMessage::parse(r#"{"jsonrpc":"2.0","id":3,"result":{}}"#).unwrap();
        assert!(matches!(m, RawMessage::Response { .. }));
        let m = RawMessage::parse(
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}"#,
        )
        .unwrap();
        assert!(matches!(m, RawMessage::Error { id: None, .. }));
    }

    #[test]
    fn only_an_object_is_a_message() {
        for input in [
            r#"["2.0", 1, "ping"]"#,
            r#" ["2.0", 1, "ping"]"#,
            "\"ping\"",
            "7",
            "null",
        ] {
            let err = RawMessage::parse(input).unwrap_err();
            assert_eq!(
                err.to_response().error.code,
                code::INVALID_REQUEST,
                "{input}"
            );
        }
        let err = RawMessage::parse("[\"2.0\", 1,").unwrap_err();
        assert_eq!(err.to_response().error.code, code::PARSE_ERROR);
    }

    #[test]
    fn bad_input_gets_the_right_code_and_keeps_the_id() {
        let err = RawMessage::parse("{not json").unwrap_err();
        assert_eq!(err.to_response().error.code, code::PARSE_ERROR);
        assert_eq!(err.to_response().id, None);

        let err = RawMessage::parse(r#"{"jsonrpc":"1.0","id":7,"method":"ping"}"#).unwrap_err();
        let resp = err.to_response();
        assert_eq!(resp.error.code, code::INVALID_REQUEST);
        assert_eq!(resp.id, Some(RequestId::Number(7)));

        for bad in [
            r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":3}"#,
            r#"{"jsonrpc":"2.0","id":1}"#,
            r#"{"id":1,"method":"ping"}"#,
            r#""just a string""#,
            r#"{"jsonrpc":"2.0","method":5}"#,
        ] {
            let err = RawMessage::parse(bad).unwrap_err();
            assert_eq!(err.to_response().error.code, code::INVALID_REQUEST, "{bad}");
        }
    }

    #[test]
    fn extra_fields_are_ignored() {
        let m = RawMessage::parse(r#"{"jsonrpc":"2.0","id":1,"method":"ping","x":{"y":[1]}}"#);
        assert!(m.is_ok());
    }

    #[test]
    fn owned_round_trip() {
        let text = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add"}}"#;
        let msg = Message::parse(text).unwrap();
        let back: Message = serde_json::from_str(&serde_json::to_string(&msg).unwrap()).unwrap();
        assert_eq!(msg, back);
        let err = ErrorResponse::new(None, ErrorObject::parse_error("x"));
        let json = serde_json::to_value(&err).unwrap();
        assert_eq!(json["id"], Value::Null);
    }
}
