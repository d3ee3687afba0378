//! Reading messages: one classifier decides what an input is (a request, a
//! notification, a response, an error, or invalid), for the borrowed
//! [`RawMessage`] and the owned [`Message`] alike; and batches.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::Value;

use super::scan::RawJson;
use super::{ErrorObject, ErrorResponse, Notification, Request, RequestId, Response, V2};

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
        params: Option<RawJson<'a>>,
    },
    /// A notification: never answered.
    Notification {
        /// The method.
        method: Cow<'a, str>,
        /// The unparsed params.
        params: Option<RawJson<'a>>,
    },
    /// A successful response to a request we sent.
    Response {
        /// The id of our request.
        id: RequestId,
        /// The unparsed result.
        result: RawJson<'a>,
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
        match Self::parse_fast(input) {
            Some(message) => Ok(message),
            None => Self::parse_serde(input),
        }
    }

    /// The reference: serde reads the envelope, and every error is named.
    pub(super) fn parse_serde(input: &'a str) -> Result<RawMessage<'a>, DecodeError> {
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

    /// The fast path, for the requests and notifications that make up a
    /// session's traffic: the envelope as the scanner reads it, when it reads
    /// it and the message is plainly valid. `None` sends the input down the
    /// serde path, which accepts the same messages and names every error.
    /// Equivalence: `tests::parse_fast_matches_parse_serde`.
    pub(super) fn parse_fast(input: &'a str) -> Option<RawMessage<'a>> {
        let (mut jsonrpc, mut id, mut method, mut params) = (None, None, None, None);
        let mut declined = false;
        super::scan::members(input, |key, value| {
            let slot = match key {
                "jsonrpc" => &mut jsonrpc,
                "id" => &mut id,
                "method" => &mut method,
                "params" => &mut params,
                // A response, or a message with both: the serde path's.
                "result" | "error" => {
                    declined = true;
                    return;
                }
                _ => return,
            };
            // A repeated member is an error the serde path names.
            declined |= slot.replace(value).is_some();
        })?;
        if declined || jsonrpc.map(RawJson::get) != Some("\"2.0\"") {
            return None;
        }
        let method = Cow::Borrowed(method?.as_plain_str()?);
        let params = match params {
            Some(p) if p.get() == "null" => None,
            Some(p) if p.get().starts_with(['{', '[']) => Some(p),
            Some(_) => return None,
            None => None,
        };
        let Some(id) = id else {
            return Some(RawMessage::Notification { method, params });
        };
        let id = match id.as_plain_str() {
            Some(s) => RequestId::String(s.to_owned()),
            // A non-negative integer; anything else (null, negative, a
            // fraction) goes down the serde path.
            None => RequestId::Number(i64::try_from(id.get().parse::<u64>().ok()?).ok()?),
        };
        Some(RawMessage::Request { id, method, params })
    }

    fn classify(mut env: Envelope<'a>) -> Result<RawMessage<'a>, DecodeError> {
        let id = envelope_id(env.id)?;
        match env.jsonrpc.map(RawValue::get) {
            Some("\"2.0\"") => {}
            Some(_) => return Err(invalid(id.as_ref(), "`jsonrpc` must be \"2.0\"")),
            None => return Err(invalid(id.as_ref(), "missing `jsonrpc: \"2.0\"`")),
        }
        if let Some(method) = env.method.take() {
            Self::call(&env, method, id)
        } else {
            Self::reply(&env, id)
        }
    }

    /// A request or a notification: `method` is present.
    fn call(
        env: &Envelope<'a>,
        method: Cow<'a, str>,
        id: Option<RequestId>,
    ) -> Result<RawMessage<'a>, DecodeError> {
        if env.result.is_some() || env.error.is_some() {
            return Err(invalid(
                id.as_ref(),
                "a message cannot have both `method` and `result`/`error`",
            ));
        }
        let params = match env.params {
            Some(p) if p.get() == "null" => None,
            Some(p) if !(p.get().starts_with('{') || p.get().starts_with('[')) => {
                return Err(invalid(
                    id.as_ref(),
                    "`params` must be an object or an array",
                ))
            }
            other => other.map(RawJson::from),
        };
        match (env.id, id) {
            (None, _) => Ok(RawMessage::Notification { method, params }),
            (Some(_), Some(id)) => Ok(RawMessage::Request { id, method, params }),
            (Some(_), None) => Err(invalid(None, "request `id` must not be null")),
        }
    }

    /// A response or an error response: no `method`.
    fn reply(env: &Envelope<'a>, id: Option<RequestId>) -> Result<RawMessage<'a>, DecodeError> {
        match (env.result, env.error) {
            (Some(result), None) => match id {
                Some(id) => Ok(RawMessage::Response {
                    id,
                    result: result.into(),
                }),
                None => Err(invalid(id.as_ref(), "a response needs an `id`")),
            },
            (None, Some(error)) => match serde_json::from_str::<ErrorObject>(error.get()) {
                Ok(error) => Ok(RawMessage::Error { id, error }),
                Err(e) => Err(invalid(id.as_ref(), &format!("malformed `error`: {e}"))),
            },
            (Some(_), Some(_)) => Err(invalid(
                id.as_ref(),
                "a response cannot have both `result` and `error`",
            )),
            (None, None) => Err(invalid(
                id.as_ref(),
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
        let value = |raw: Option<RawJson<'_>>| {
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
                result: value(Some(*result)).unwrap_or(Value::Null),
            }),
            RawMessage::Error { id, error } => {
                Message::Error(ErrorResponse::new(id.clone(), error.clone()))
            }
        }
    }
}

/// The envelope's `id`: a string, an integer, `null` (none) or absent.
fn envelope_id(raw: Option<&RawValue>) -> Result<Option<RequestId>, DecodeError> {
    let Some(raw) = raw else { return Ok(None) };
    match serde_json::from_str::<RequestId>(raw.get()) {
        Ok(id) => Ok(Some(id)),
        Err(_) if raw.get() == "null" => Ok(None),
        Err(_) => Err(DecodeError::Invalid {
            id: None,
            reason: format!("`id` must be a string or an integer, not {}", raw.get()),
        }),
    }
}

fn invalid(id: Option<&RequestId>, reason: &str) -> DecodeError {
    DecodeError::Invalid {
        id: id.cloned(),
        reason: reason.to_owned(),
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
