//! What is read of a request before it is dispatched: the parameter that the
//! 2026-07-28 `Mcp-Name` header mirrors, and the `_meta` protocol version
//! that marks a request of that era. Both sides use the same rules: the
//! client to write the headers, the server to check them and to route.

use std::borrow::Cow;

use mcp_types::jsonrpc::code;
use mcp_types::method;
use serde::Deserialize;
use serde_json::value::RawValue;

/// The request parameter whose value the `Mcp-Name` header carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameParam {
    /// `params.name` (`tools/call`, `prompts/get`).
    Name,
    /// `params.uri` (`resources/read`).
    Uri,
}

impl NameParam {
    /// The parameter `method` mirrors in `Mcp-Name`, if any.
    pub fn of(method_name: &str) -> Option<NameParam> {
        match method_name {
            method::TOOLS_CALL | method::PROMPTS_GET => Some(NameParam::Name),
            method::RESOURCES_READ => Some(NameParam::Uri),
            _ => None,
        }
    }

    /// The parameter's key in `params`.
    pub fn key(self) -> &'static str {
        match self {
            NameParam::Name => "name",
            NameParam::Uri => "uri",
        }
    }
}

/// The fields of a request's params read before dispatch, borrowed from
/// the body as raw JSON (nothing is allocated for them).
#[derive(Debug, Deserialize, Default)]
pub struct Peek<'a> {
    #[serde(borrow, default)]
    name: Option<&'a RawValue>,
    #[serde(borrow, default)]
    uri: Option<&'a RawValue>,
    #[serde(borrow, rename = "_meta", default)]
    meta: Option<PeekMeta<'a>>,
}

#[derive(Debug, Deserialize, Default)]
struct PeekMeta<'a> {
    #[serde(
        borrow,
        rename = "io.modelcontextprotocol/protocolVersion",
        default,
        deserialize_with = "present"
    )]
    protocol_version: Option<&'a RawValue>,
}

/// A field that is there, even as `null` (a plain `Option` reads `null` as absent).
fn present<'de: 'a, 'a, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<&'a RawValue>, D::Error> {
    <&RawValue>::deserialize(d).map(Some)
}

impl<'a> Peek<'a> {
    /// Reads `params`; anything that is not an object (absent, an array,
    /// malformed) peeks as empty, and dispatch answers it.
    pub fn read(params: Option<&'a RawValue>) -> Peek<'a> {
        params
            .filter(|p| is_object(p))
            .and_then(|p| serde_json::from_str(p.get()).ok())
            .unwrap_or_default()
    }

    /// The `_meta` protocol version as raw JSON, even `null`.
    pub fn protocol_version(&self) -> Option<&'a RawValue> {
        self.meta.as_ref().and_then(|m| m.protocol_version)
    }

    /// Whether the request is of the 2026-07-28 era: its `_meta` names a
    /// protocol version (a `null` one too; dispatch then answers -32602).
    pub fn is_modern(&self) -> bool {
        self.protocol_version().is_some()
    }

    /// The value `Mcp-Name` must carry for a request of `method_name`,
    /// if the method has one and the body holds it as a string.
    pub fn name_for(&self, method_name: &str) -> Option<Cow<'a, str>> {
        let raw = match NameParam::of(method_name)? {
            NameParam::Name => self.name,
            NameParam::Uri => self.uri,
        };
        raw.and_then(json_str)
    }
}

/// Whether raw JSON is an object (raw values start at their first byte).
pub fn is_object(raw: &RawValue) -> bool {
    raw.get().starts_with('{')
}

/// A raw JSON string's text: borrowed when it has no escapes; `None` for
/// anything that is not a string.
pub fn json_str(raw: &RawValue) -> Option<Cow<'_, str>> {
    serde_json::from_str::<&str>(raw.get())
        .map(Cow::Borrowed)
        .or_else(|_| serde_json::from_str::<String>(raw.get()).map(Cow::Owned))
        .ok()
}

/// Whether `code` is an error only a 2026-07-28 server sends: what tells a
/// client probing an unknown server that it speaks that era.
pub fn is_modern_error_code(code: i32) -> bool {
    matches!(
        code,
        code::HEADER_MISMATCH
            | code::MISSING_REQUIRED_CLIENT_CAPABILITY
            | code::UNSUPPORTED_PROTOCOL_VERSION
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(s: &str) -> Box<RawValue> {
        RawValue::from_string(s.to_owned()).unwrap()
    }

    #[test]
    fn peeks_names_and_versions_borrowed_and_escaped() {
        let p = raw(
            r#"{"name":"add","arguments":{"name":"x"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}"#,
        );
        let peek = Peek::read(Some(&p));
        assert!(peek.is_modern());
        assert!(matches!(
            peek.name_for(method::TOOLS_CALL),
            Some(Cow::Borrowed("add"))
        ));
        assert_eq!(peek.name_for(method::TOOLS_LIST), None);

        let p = raw(r#"{"uri":"file:///a\u0020b","name":"n"}"#);
        let peek = Peek::read(Some(&p));
        assert!(!peek.is_modern());
        assert_eq!(
            peek.name_for(method::RESOURCES_READ).as_deref(),
            Some("file:///a b")
        );
        assert_eq!(peek.name_for(method::PROMPTS_GET).as_deref(), Some("n"));

        let p = raw(r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":null},"name":7}"#);
        let peek = Peek::read(Some(&p));
        assert!(peek.is_modern(), "a null version still marks the era");
        assert_eq!(peek.name_for(method::TOOLS_CALL), None, "not a string");

        for p in [raw(r#"["add",{"_meta":{}}]"#), raw("null"), raw("7")] {
            assert!(!Peek::read(Some(&p)).is_modern());
        }
        assert!(!Peek::read(None).is_modern());
    }
}
