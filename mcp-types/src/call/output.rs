//! What a typed client returns for each kind of tool result, decoded
//! through traits the compiler resolves ([`ToolOutput`]), and the
//! structured-result wrapper [`Json`].

use crate::content::ContentBlock;
use crate::tool::CallToolResult;

use super::codec::{
    decode_content, decode_parsed, decode_structured, decode_structured_lenient, decode_text,
    decode_unit, decode_whole, DecodeFor,
};
use super::CallError;

/// A structured tool result: on a server, serialized into `structuredContent`
/// and described by an `outputSchema` generated from `T`; in a typed client,
/// the return type that decodes `T` from `structuredContent`.
///
/// ```
/// use oxmcp_types::call::Json;
///
/// #[derive(serde::Serialize, serde::Deserialize)]
/// struct Sum { total: f64 }
///
/// let Json(sum) = Json(Sum { total: 3.0 });
/// assert_eq!(sum.total, 3.0);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Json<T>(pub T);

/// Whether a structured result may come wrapped as `{"result": value}`
/// (servers wrap a value whose schema's root is not an object).
#[derive(Debug, Clone, Copy)]
pub enum Wrapping {
    /// A server built with this framework: wrapped exactly when this says so
    /// (when the tool's output schema's root is not an object). Asked only for
    /// a value that looks wrapped, since the answer takes generating the
    /// tool's output schema.
    Rule(fn() -> bool),
    /// A server written elsewhere: the value itself when it decodes, else its
    /// `result`.
    Lenient,
}

/// What a typed client returns for a tool that returns `Self`, and how it
/// decodes it from the tool's result: the client-side mirror of the server's
/// `IntoToolResult`.
///
/// | the tool returns | the client returns |
/// |---|---|
/// | `()` | `()` |
/// | `String`, `&str`, `Cow<str>` | `String` (the text) |
/// | a number, `bool`, `char` | itself, parsed from the text |
/// | [`Json<T>`] | `T`, decoded from `structuredContent` |
/// | `ContentBlock`, `Vec<ContentBlock>` | `Vec<ContentBlock>` |
/// | `CallToolResult` | `CallToolResult` |
/// | `Result<T, E>` | as `T` (an `isError` result is [`CallError::Tool`]) |
///
/// The caller type `C` is there only to defer the check: a generated
/// method says `where R: ToolOutput<C>`, checked where the method is called
/// (a client that is never called must not require its server's output
/// types to be `Deserialize`).
#[diagnostic::on_unimplemented(
    message = "a typed client cannot decode a tool's result as `{Self}`",
    label = "not a tool result type",
    note = "for a structured result, write `Json<{Self}>`: the client's method then returns `{Self}`, decoded from `structuredContent`",
    note = "a tool returns `()`, `String`, a number, `bool`, `char`, `Json<T>`, `ContentBlock`, `Vec<ContentBlock>`, `CallToolResult`, or a `Result<_, E>` of one of these"
)]
pub trait ToolOutput<C> {
    /// What the client's method returns.
    type Output;

    /// Decodes the result of tool `tool`; an `isError` result is [`CallError::Tool`].
    fn decode(
        tool: &str,
        result: CallToolResult,
        wrapping: Wrapping,
    ) -> Result<Self::Output, CallError>;
}

impl<C> ToolOutput<C> for () {
    type Output = ();

    fn decode(tool: &str, result: CallToolResult, _: Wrapping) -> Result<(), CallError> {
        decode_unit(tool, result)
    }
}

macro_rules! text_output {
    ($($t:ty),*) => {$(
        impl<C> ToolOutput<C> for $t {
            type Output = String;

            fn decode(tool: &str, result: CallToolResult, _: Wrapping) -> Result<String, CallError> {
                decode_text(tool, result)
            }
        }
    )*};
}

text_output!(String, &str, std::borrow::Cow<'_, str>);

macro_rules! parsed_output {
    ($($t:ty),*) => {$(
        impl<C> ToolOutput<C> for $t {
            type Output = $t;

            fn decode(tool: &str, result: CallToolResult, _: Wrapping) -> Result<$t, CallError> {
                decode_parsed(tool, result)
            }
        }
    )*};
}

parsed_output!(
    char, bool, i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize, f32, f64
);

impl<T: DecodeFor<C>, C> ToolOutput<C> for Json<T> {
    type Output = T;

    fn decode(tool: &str, result: CallToolResult, wrapping: Wrapping) -> Result<T, CallError> {
        match wrapping {
            Wrapping::Rule(wrapped) => decode_structured::<T, C>(tool, result, wrapped),
            Wrapping::Lenient => decode_structured_lenient::<T, C>(tool, result),
        }
    }
}

macro_rules! content_output {
    ($($t:ty),*) => {$(
        impl<C> ToolOutput<C> for $t {
            type Output = Vec<ContentBlock>;

            fn decode(
                tool: &str,
                result: CallToolResult,
                _: Wrapping,
            ) -> Result<Vec<ContentBlock>, CallError> {
                decode_content(tool, result)
            }
        }
    )*};
}

content_output!(ContentBlock, Vec<ContentBlock>);

impl<C> ToolOutput<C> for CallToolResult {
    type Output = CallToolResult;

    fn decode(
        tool: &str,
        result: CallToolResult,
        _: Wrapping,
    ) -> Result<CallToolResult, CallError> {
        decode_whole(tool, result)
    }
}

/// An `Err` is an `isError` result, which every output decodes as [`CallError::Tool`].
impl<T: ToolOutput<C>, E, C> ToolOutput<C> for Result<T, E> {
    type Output = T::Output;

    fn decode(
        tool: &str,
        result: CallToolResult,
        wrapping: Wrapping,
    ) -> Result<T::Output, CallError> {
        T::decode(tool, result, wrapping)
    }
}
