//! Typed clients' encoding of arguments and decoding of results.
//!
//! The clients that `#[tool]` generates (for an impl block, through
//! `oxmcp_server::__private`; for a trait declaring a foreign server's tools,
//! through `oxmcp_client::__private`) call these. They are public so both
//! runtimes can re-export them, and hidden from the docs: they are not meant
//! to be called by hand.

use std::fmt::Display;
use std::str::FromStr;

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

use crate::content::ContentBlock;
use crate::structured::unwrapped as as_wrapped;
use crate::tool::CallToolResult;
use crate::JsonObject;

use super::CallError;

/// A value a typed client can send as a tool argument: anything `Serialize`.
///
/// The caller type `C` is there only to defer the check. A server's argument
/// types need `Deserialize`, not `Serialize`; a generated client method says
/// `where Point: EncodeFor<C>`, a bound that mentions the method's generic `C`
/// and is therefore checked where the method is called, not where the client
/// is generated (a bound on concrete types alone would be checked at once, and
/// the server would not compile).
// For generated code only: hidden from the docs at its re-export in `call`.
#[diagnostic::on_unimplemented(
    message = "a typed client cannot send `{Self}`: it does not implement `serde::Serialize`",
    label = "this argument's type needs `Serialize`",
    note = "a tool's argument types need only `Deserialize` on the server; the client serializes them, so derive or implement `Serialize` for `{Self}` to call this method"
)]
pub trait EncodeFor<C> {
    /// The argument as JSON.
    fn encode(&self) -> Result<Value, serde_json::Error>;
}

impl<T: Serialize + ?Sized, C> EncodeFor<C> for T {
    fn encode(&self) -> Result<Value, serde_json::Error> {
        serde_json::to_value(self)
    }
}

/// A typed client's prompt argument: sent as its `Display` text. The bound
/// names the caller `C` so that it is checked where the method is called.
#[diagnostic::on_unimplemented(
    message = "a typed client cannot send `{Self}` as a prompt argument: it does not implement `Display`",
    label = "prompt arguments are strings on the wire",
    note = "the server parses this argument with `FromStr`; implement `Display` for `{Self}` (its inverse) to call this method"
)]
pub trait PromptArgFor<C> {
    /// The argument's text.
    fn text(&self) -> String;
}

impl<T: std::fmt::Display + ?Sized, C> PromptArgFor<C> for T {
    fn text(&self) -> String {
        self.to_string()
    }
}

/// A value a typed client can decode from a tool's structured result:
/// anything `DeserializeOwned`.
///
/// As with [`EncodeFor`], `C` defers the check to the call site: a server's
/// output types need `Serialize`, not `Deserialize`, and a client method
/// that is never called must not require it.
// For generated code only: hidden from the docs at its re-export in `call`.
#[diagnostic::on_unimplemented(
    message = "a typed client cannot decode `{Self}`: it does not implement `serde::Deserialize`",
    label = "this tool's result needs `Deserialize`",
    note = "a `Json<T>` result needs only `Serialize` on the server; the client deserializes it, so derive or implement `Deserialize` for `{Self}` to call this method"
)]
pub trait DecodeFor<C>: Sized {
    /// Decodes the value.
    fn decode(value: Value) -> Result<Self, serde_json::Error>;
}

// Not recommended: an error then names `DecodeFor` (whose message says what
// the client needs) rather than serde's trait.
#[diagnostic::do_not_recommend]
impl<T: DeserializeOwned, C> DecodeFor<C> for T {
    fn decode(value: Value) -> Result<Self, serde_json::Error> {
        serde_json::from_value(value)
    }
}

/// The `arguments` object of one typed call, built argument by argument.
///
/// The first argument that cannot be encoded is remembered and reported by
/// [`finish`](Self::finish).
// For generated code only: hidden from the docs at its re-export in `call`.
#[derive(Debug)]
pub struct CallArguments {
    tool: &'static str,
    map: JsonObject,
    error: Option<String>,
}

impl CallArguments {
    /// No arguments yet, for tool `tool`.
    pub fn new(tool: &'static str) -> Self {
        CallArguments {
            tool,
            map: JsonObject::new(),
            error: None,
        }
    }

    /// Adds argument `name`.
    pub fn push<T: EncodeFor<C> + ?Sized, C>(&mut self, name: &str, value: &T) {
        if self.error.is_some() {
            return;
        }
        match value.encode() {
            Ok(value) => {
                self.map.insert(name.to_owned(), value);
            }
            Err(e) => self.error = Some(format!("argument `{name}` could not be encoded: {e}")),
        }
    }

    /// Adds argument `name`, of a type the caller chose (a declared tool's):
    /// its `Serialize` is required at once.
    pub fn push_serialize<T: Serialize + ?Sized>(&mut self, name: &str, value: &T) {
        self.push::<T, ()>(name, value);
    }

    /// The finished object.
    ///
    /// # Errors
    ///
    /// [`CallError::Decode`] naming the first argument that could not be encoded
    /// (`serde_json` refuses, say, a map whose keys are not strings).
    pub fn finish(self) -> Result<JsonObject, CallError> {
        match self.error {
            None => Ok(self.map),
            Some(message) => Err(CallError::Decode {
                tool: self.tool.to_owned(),
                message,
            }),
        }
    }
}

/// The result itself, or [`CallError::Tool`] when it reports a failure (`isError: true`).
// For generated code only: hidden from the docs at its re-export in `call`.
pub fn check_result(result: CallToolResult) -> Result<CallToolResult, CallError> {
    if result.is_error() {
        Err(CallError::Tool(result))
    } else {
        Ok(result)
    }
}

fn decode_error(tool: &str, message: impl Into<String>) -> CallError {
    CallError::Decode {
        tool: tool.to_owned(),
        message: message.into(),
    }
}

/// The text of the result's text blocks, joined by newlines; `None` if it has none.
fn text_of(result: &CallToolResult) -> Option<String> {
    let mut texts = result.content.iter().filter_map(ContentBlock::as_text);
    let first = texts.next()?;
    let mut text = first.to_owned();
    for more in texts {
        text.push('\n');
        text.push_str(more);
    }
    Some(text)
}

/// For a tool that returns nothing: succeeds unless the result is an error.
// For generated code only: hidden from the docs at its re-export in `call`.
pub fn decode_unit(tool: &str, result: CallToolResult) -> Result<(), CallError> {
    let _ = tool;
    check_result(result).map(drop)
}

/// For a tool that returns text: the text content (text blocks joined by newlines).
// For generated code only: hidden from the docs at its re-export in `call`.
pub fn decode_text(tool: &str, result: CallToolResult) -> Result<String, CallError> {
    let result = check_result(result)?;
    text_of(&result)
        .ok_or_else(|| decode_error(tool, "expected text, but the result has no text content"))
}

/// For a tool that returns a number, a `bool` or a `char`: its text, parsed.
// For generated code only: hidden from the docs at its re-export in `call`.
pub fn decode_parsed<T>(tool: &str, result: CallToolResult) -> Result<T, CallError>
where
    T: FromStr,
    T::Err: Display,
{
    let text = decode_text(tool, result)?;
    text.trim().parse().map_err(|e| {
        decode_error(
            tool,
            format!(
                "expected {}, got the text {text:?}: {e}",
                std::any::type_name::<T>()
            ),
        )
    })
}

/// For a tool that returns content blocks: the content.
// For generated code only: hidden from the docs at its re-export in `call`.
pub fn decode_content(tool: &str, result: CallToolResult) -> Result<Vec<ContentBlock>, CallError> {
    let _ = tool;
    check_result(result).map(|r| r.content)
}

/// For a tool that returns a whole `CallToolResult`: the result (an error still is one).
// For generated code only: hidden from the docs at its re-export in `call`.
pub fn decode_whole(tool: &str, result: CallToolResult) -> Result<CallToolResult, CallError> {
    let _ = tool;
    check_result(result)
}

/// Whether a server built with this framework wraps structured results as
/// `{"result": value}` for a tool with this output schema: when the schema's
/// root is not an object (the legacy revisions require an object). The same
/// rule as the server's.
// For generated code only: hidden from the docs at its re-export in `call`.
pub fn is_wrapped_output(output_schema: Option<&Value>) -> bool {
    output_schema.is_some_and(crate::structured::is_wrapped)
}

/// The structured value of a result: `structuredContent`, or else the text
/// parsed as JSON (for servers that send only the text copy). The flag tells
/// whether it came from `structuredContent` (only that may be wrapped).
fn structured_value(tool: &str, result: CallToolResult) -> Result<(Value, bool), CallError> {
    let result = check_result(result)?;
    if let Some(value) = result.structured_content {
        return Ok((value, true));
    }
    let Some(text) = text_of(&result) else {
        return Err(decode_error(
            tool,
            "expected a structured result, but the result has neither structuredContent nor text",
        ));
    };
    serde_json::from_str(&text).map(|v| (v, false)).map_err(|e| {
        decode_error(
            tool,
            format!("expected a structured result, but the result has no structuredContent and its text is not JSON ({e})"),
        )
    })
}

/// For a tool of this framework that returns `Json<T>`: `T`, decoded from
/// `structuredContent`, unwrapped from `{"result": ...}` when `wrapped()`
/// says the server wrapped it (see [`is_wrapped_output`]).
// For generated code only: hidden from the docs at its re-export in `call`.
pub fn decode_structured<T: DecodeFor<C>, C>(
    tool: &str,
    result: CallToolResult,
    wrapped: impl FnOnce() -> bool,
) -> Result<T, CallError> {
    let (mut value, from_structured) = structured_value(tool, result)?;
    if from_structured && as_wrapped(&value).is_some() && wrapped() {
        if let Value::Object(mut map) = value {
            value = map.remove(crate::structured::RESULT).unwrap_or(Value::Null);
        }
    }
    T::decode(value).map_err(|e| decode_error(tool, format!("invalid structured content: {e}")))
}

/// For a tool of a foreign server that returns `Json<T>`: `T`, decoded
/// from `structuredContent` (or from the text, as JSON). A server that
/// wrapped a non-object result as `{"result": value}` (this framework, the
/// Python SDK) is understood: when the object itself does not decode as `T`,
/// its `result` does.
// For generated code only: hidden from the docs at its re-export in `call`.
pub fn decode_structured_lenient<T: DecodeFor<C>, C>(
    tool: &str,
    result: CallToolResult,
) -> Result<T, CallError> {
    let (value, from_structured) = structured_value(tool, result)?;
    let inner = if from_structured {
        as_wrapped(&value).cloned()
    } else {
        None
    };
    match T::decode(value) {
        Ok(v) => Ok(v),
        Err(first) => inner
            .and_then(|inner| T::decode(inner).ok())
            .ok_or_else(|| decode_error(tool, format!("invalid structured content: {first}"))),
    }
}
