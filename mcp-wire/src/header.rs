//! MCP's HTTP header names and the encoding of their values.
//!
//! Names are lowercase, as `http::HeaderName::from_static` requires and as
//! HTTP/2 sends them; HTTP/1 header names are case-insensitive.

/// `Mcp-Session-Id`: the legacy era's session.
pub const SESSION_ID: &str = "mcp-session-id";
/// `MCP-Protocol-Version`: the negotiated (legacy) or requested (2026-07-28) revision.
pub const PROTOCOL_VERSION: &str = "mcp-protocol-version";
/// `Mcp-Method` (2026-07-28): the request's method, mirrored from the body.
pub const MCP_METHOD: &str = "mcp-method";
/// `Mcp-Name` (2026-07-28): the tool or prompt name, or the resource URI.
pub const MCP_NAME: &str = "mcp-name";
/// `Last-Event-ID`: where a resumed SSE stream starts again.
pub const LAST_EVENT_ID: &str = "last-event-id";
/// The prefix of the 2026-07-28 `Mcp-Param-{Name}` headers (`x-mcp-header`).
pub const MCP_PARAM_PREFIX: &str = "Mcp-Param-";

const SENTINEL_START: &str = "=?base64?";
const SENTINEL_END: &str = "?=";

/// A header value as the 2026-07-28 Value Encoding rule wants it: as it is
/// when it is visible ASCII (inner spaces and tabs allowed) without
/// surrounding whitespace and does not look like the sentinel, otherwise
/// `=?base64?{standard Base64 of the UTF-8 bytes}?=`.
pub fn encode_value(value: &str) -> String {
    let visible = value
        .bytes()
        .all(|b| (0x20..=0x7e).contains(&b) || b == b'\t');
    let padded = value.starts_with([' ', '\t']) || value.ends_with([' ', '\t']);
    let sentinel = value.starts_with(SENTINEL_START) && value.ends_with(SENTINEL_END);
    if !value.is_empty() && visible && !padded && !sentinel {
        value.to_owned()
    } else {
        format!(
            "{SENTINEL_START}{}{SENTINEL_END}",
            base64::encode(value.as_bytes())
        )
    }
}

/// The value a header carries: decoded when it uses the `=?base64?…?=`
/// sentinel, as it is otherwise; `None` when the sentinel holds no valid
/// Base64 of UTF-8 text.
pub fn decode_value(value: &str) -> Option<std::borrow::Cow<'_, str>> {
    match value
        .strip_prefix(SENTINEL_START)
        .and_then(|v| v.strip_suffix(SENTINEL_END))
    {
        Some(b64) => String::from_utf8(base64::decode(b64)?)
            .ok()
            .map(std::borrow::Cow::Owned),
        None => Some(std::borrow::Cow::Borrowed(value)),
    }
}

/// Base64 (RFC 4648). Encoding writes the standard alphabet with padding;
/// decoding also takes the URL-safe alphabet and missing padding.
pub mod base64 {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

    /// Standard Base64 with padding.
    pub fn encode(input: &[u8]) -> String {
        let mut out = String::with_capacity(input.len().div_ceil(3) * 4);
        for chunk in input.chunks(3) {
            let b = [
                chunk[0],
                chunk.get(1).copied().unwrap_or(0),
                chunk.get(2).copied().unwrap_or(0),
            ];
            let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
            for i in 0..4 {
                if i <= chunk.len() {
                    out.push(char::from(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize]));
                } else {
                    out.push('=');
                }
            }
        }
        out
    }

    /// The bytes `input` encodes, or `None` if it is not Base64.
    pub fn decode(input: &str) -> Option<Vec<u8>> {
        fn val(c: u8) -> Option<u32> {
            Some(match c {
                b'A'..=b'Z' => u32::from(c - b'A'),
                b'a'..=b'z' => u32::from(c - b'a') + 26,
                b'0'..=b'9' => u32::from(c - b'0') + 52,
                b'+' | b'-' => 62,
                b'/' | b'_' => 63,
                _ => return None,
            })
        }
        let bytes = input.trim_end_matches('=').as_bytes();
        let mut out = Vec::with_capacity(bytes.len() * 3 / 4);
        for chunk in bytes.chunks(4) {
            if chunk.len() < 2 {
                return None;
            }
            let mut acc = 0u32;
            for (i, &c) in chunk.iter().enumerate() {
                acc |= val(c)? << (18 - 6 * i);
            }
            let [_, a, b, c] = acc.to_be_bytes();
            out.push(a);
            if chunk.len() > 2 {
                out.push(b);
            }
            if chunk.len() > 3 {
                out.push(c);
            }
        }
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_values_per_the_spec_table() {
        assert_eq!(encode_value("us-west1"), "us-west1");
        assert_eq!(
            encode_value("Hello, 世界"),
            "=?base64?SGVsbG8sIOS4lueVjA==?="
        );
        assert_eq!(encode_value(" padded "), "=?base64?IHBhZGRlZCA=?=");
        assert_eq!(encode_value("line1\nline2"), "=?base64?bGluZTEKbGluZTI=?=");
        assert_eq!(
            encode_value("=?base64?literal?="),
            "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="
        );
        assert_eq!(encode_value(""), "=?base64??=");
    }

    #[test]
    fn decoding_inverts_encoding() {
        for v in [
            "us-west1",
            "Hello, 世界",
            " padded ",
            "a\nb",
            "=?base64?x?=",
            "",
            "ab",
            "abc",
        ] {
            assert_eq!(decode_value(&encode_value(v)).as_deref(), Some(v), "{v:?}");
        }
        assert_eq!(decode_value("=?base64?SGk?=").as_deref(), Some("Hi"));
        assert_eq!(decode_value("=?base64?S?="), None);
        assert_eq!(decode_value("=?base64?*?="), None);
        assert_eq!(decode_value("=?base64?/w==?="), None, "not UTF-8");
    }
}
