//! What is read of a request before it is dispatched: the parameter that the
//! 2026-07-28 `Mcp-Name` header mirrors, and the `_meta` protocol version
//! that marks a request of that era. Both sides use the same rules: the
//! client to write the headers, the server to check them and to route.

use std::borrow::Cow;

use oxmcp_types::jsonrpc::code;
use oxmcp_types::jsonrpc::RawJson;
use oxmcp_types::method;
use serde::Deserialize;
use serde_json::value::RawValue;

/// The request parameter whose value the `Mcp-Name` header carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameParam {
    /// `params.name` (`tools/call`, `prompts/get`).
    Name,
    /// `params.uri` (`resources/read`).
    Uri,
    /// `params.taskId` (`tasks/get`, `tasks/update`, `tasks/cancel`: the
    /// tasks extension routes them by task).
    TaskId,
}

impl NameParam {
    /// The parameter `method` mirrors in `Mcp-Name`, if any.
    pub fn of(method_name: &str) -> Option<NameParam> {
        match method_name {
            method::TOOLS_CALL | method::PROMPTS_GET => Some(NameParam::Name),
            method::RESOURCES_READ => Some(NameParam::Uri),
            method::TASKS_GET | method::TASKS_UPDATE | method::TASKS_CANCEL => {
                Some(NameParam::TaskId)
            }
            _ => None,
        }
    }

    /// The parameter's key in `params`.
    pub fn key(self) -> &'static str {
        match self {
            NameParam::Name => "name",
            NameParam::Uri => "uri",
            NameParam::TaskId => "taskId",
        }
    }
}

/// The fields of a request's params read before dispatch, borrowed from
/// the body as raw JSON (nothing is allocated for them).
#[derive(Debug, Default)]
pub struct Peek<'a> {
    name: Option<RawJson<'a>>,
    uri: Option<RawJson<'a>>,
    task_id: Option<RawJson<'a>>,
    protocol_version: Option<RawJson<'a>>,
}

/// The serde path of [`Peek::read`], for params the scanner declines.
#[derive(Deserialize, Default)]
struct PeekSerde<'a> {
    #[serde(borrow, default)]
    name: Option<&'a RawValue>,
    #[serde(borrow, default)]
    uri: Option<&'a RawValue>,
    #[serde(borrow, rename = "taskId", default)]
    task_id: Option<&'a RawValue>,
    /// Read as [`PeekMeta`] only when it is an object: serde's derived
    /// visitor would read an array positionally.
    #[serde(borrow, rename = "_meta", default)]
    meta: Option<&'a RawValue>,
}

#[derive(Deserialize, Default)]
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

/// The key of the `_meta` protocol version.
const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";

impl<'a> Peek<'a> {
    /// Reads `params`; anything that is not an object (absent, an array,
    /// malformed) peeks as empty, and dispatch answers it.
    pub fn read(params: Option<RawJson<'a>>) -> Peek<'a> {
        let Some(params) = params.filter(|p| is_object(*p)) else {
            return Peek::default();
        };
        Self::read_fast(params).unwrap_or_else(|| Self::read_serde(params))
    }

    /// The fast path: the members as the scanner reads them; `None` leaves
    /// them to [`read_serde`](Self::read_serde). Equivalence:
    /// `tests::read_fast_matches_read_serde`.
    fn read_fast(params: RawJson<'a>) -> Option<Peek<'a>> {
        let mut peek = Peek::default();
        let mut meta = None;
        params.members(|key, value| match key {
            "name" => peek.name = Some(value),
            "uri" => peek.uri = Some(value),
            "taskId" => peek.task_id = Some(value),
            "_meta" => meta = Some(value),
            _ => {}
        })?;
        if let Some(meta) = meta.filter(|m| is_object(*m)) {
            meta.members(|key, value| {
                if key == PROTOCOL_VERSION {
                    peek.protocol_version = Some(value);
                }
            })?;
        }
        Some(peek)
    }

    /// The reference: serde reads the members; params it refuses peek as empty.
    fn read_serde(params: RawJson<'a>) -> Peek<'a> {
        let p: PeekSerde<'a> = serde_json::from_str(params.get()).unwrap_or_default();
        Peek {
            name: p.name.map(RawJson::from),
            uri: p.uri.map(RawJson::from),
            task_id: p.task_id.map(RawJson::from),
            protocol_version: p
                .meta
                .map(RawJson::from)
                .filter(|m| is_object(*m))
                .and_then(|m| serde_json::from_str::<PeekMeta<'a>>(m.get()).ok())
                .and_then(|m| m.protocol_version)
                .map(RawJson::from),
        }
    }

    /// The `_meta` protocol version as raw JSON, even `null`.
    pub fn protocol_version(&self) -> Option<RawJson<'a>> {
        self.protocol_version
    }

    /// Whether the request is of the 2026-07-28 era: its `_meta` names a
    /// protocol version (a `null` one too; dispatch then answers -32602).
    pub fn is_modern(&self) -> bool {
        self.protocol_version.is_some()
    }

    /// The value `Mcp-Name` must carry for a request of `method_name`,
    /// if the method has one and the body holds it as a string.
    pub fn name_for(&self, method_name: &str) -> Option<Cow<'a, str>> {
        let raw = match NameParam::of(method_name)? {
            NameParam::Name => self.name,
            NameParam::Uri => self.uri,
            NameParam::TaskId => self.task_id,
        };
        raw.and_then(json_str)
    }
}

/// Whether raw JSON is an object (raw values start at their first byte).
pub fn is_object(raw: RawJson<'_>) -> bool {
    raw.get().starts_with('{')
}

/// A raw JSON string's text: borrowed when it has no escapes; `None` for
/// anything that is not a string.
pub fn json_str(raw: RawJson<'_>) -> Option<Cow<'_, str>> {
    match raw.as_plain_str() {
        Some(text) => Some(Cow::Borrowed(text)),
        None => serde_json::from_str::<String>(raw.get())
            .map(Cow::Owned)
            .ok(),
    }
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

    fn read(p: &RawValue) -> Peek<'_> {
        Peek::read(Some(RawJson::from(p)))
    }

    /// What the scanner reads is what serde reads, over a corpus and every
    /// one-byte change of it.
    #[test]
    fn read_fast_matches_read_serde() {
        let corpus = [
            r#"{"name":"add","arguments":{"name":"x","uri":1},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","progressToken":1}}"#,
            r#"{"uri":"file:///a b","_meta":{"io.modelcontextprotocol/protocolVersion":null}}"#,
            r#"{"taskId":"t\u0031","_meta":[1],"other":{"_meta":{}}}"#,
        ];
        let mut taken = 0;
        for text in corpus {
            for at in 0..=text.len() {
                for b in (0u8..=0x7f).chain([b' ']) {
                    let mut changed = text.as_bytes().to_vec();
                    if at == text.len() {
                        changed.push(b);
                    } else {
                        changed[at] = b;
                    }
                    let Ok(r) = String::from_utf8(changed).map(RawValue::from_string) else {
                        continue;
                    };
                    let Ok(r) = r else { continue };
                    if !is_object(RawJson::from(&*r)) {
                        continue;
                    }
                    if let Some(fast) = Peek::read_fast(RawJson::from(&*r)) {
                        taken += 1;
                        let slow = Peek::read_serde(RawJson::from(&*r));
                        assert_eq!(format!("{fast:?}"), format!("{slow:?}"), "{}", r.get());
                    }
                }
            }
        }
        assert!(taken > 500, "{taken}");
    }

    #[test]
    fn peeks_names_and_versions_borrowed_and_escaped() {
        let p = raw(
            r#"{"name":"add","arguments":{"name":"x"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}"#,
        );
        let peek = read(&p);
        assert!(peek.is_modern());
        assert!(matches!(
            peek.name_for(method::TOOLS_CALL),
            Some(Cow::Borrowed("add"))
        ));
        assert_eq!(peek.name_for(method::TOOLS_LIST), None);

        let p = raw(r#"{"uri":"file:///a\u0020b","name":"n"}"#);
        let peek = read(&p);
        assert!(!peek.is_modern());
        assert_eq!(
            peek.name_for(method::RESOURCES_READ).as_deref(),
            Some("file:///a b")
        );
        assert_eq!(peek.name_for(method::PROMPTS_GET).as_deref(), Some("n"));

        let p = raw(r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":null},"name":7}"#);
        let peek = read(&p);
        assert!(peek.is_modern(), "a null version still marks the era");
        assert_eq!(peek.name_for(method::TOOLS_CALL), None, "not a string");

        for p in [raw(r#"["add",{"_meta":{}}]"#), raw("null"), raw("7")] {
            assert!(!read(&p).is_modern());
        }
        assert!(!Peek::read(None).is_modern());
        // Declined by the scanner (an escaped key), read by serde alike.
        let p =
            raw(r#"{"n\u0061me":"add","_meta":{"io.modelcontextprotocol/protocolVersion":"v"}}"#);
        assert!(read(&p).is_modern());
        assert_eq!(
            read(&p).name_for(method::TOOLS_CALL).as_deref(),
            Some("add")
        );
    }
}
