//! Bounds on the text a span or a metric point carries: what a peer sends
//! (a tool name, a request id, an error message) is recorded at most
//! [`MAX_TEXT_LEN`] bytes long, and a session id only as its digest.
//!
//! Spans are exported and dropped, so a long value costs once; but a span
//! name or attribute of megabytes still reaches every backend, and a metric
//! attribute is kept for the life of the process. The callers also replace
//! values a peer could vary without bound by [`crate::conventions::OTHER`]
//! before they get here; this cap is the floor under that.

use sha2::{Digest as _, Sha256};

/// The most bytes of text recorded in one attribute or span name.
pub const MAX_TEXT_LEN: usize = 256;

/// `text` cut to at most [`MAX_TEXT_LEN`] bytes, on a char boundary.
pub fn cap(text: &str) -> &str {
    if text.len() <= MAX_TEXT_LEN {
        return text;
    }
    let mut end = MAX_TEXT_LEN;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// The same, for an owned string.
pub(crate) fn cap_owned(mut text: String) -> String {
    let kept = cap(&text).len();
    text.truncate(kept);
    text
}

/// A span name, `{operation} {target}` (`tools/call add`, `execute_tool
/// add`) or the operation alone, capped like every other text.
pub fn span_name(operation: &str, target: Option<&str>) -> String {
    let name = match target {
        Some(target) => format!("{} {}", cap(operation), cap(target)),
        None => cap(operation).to_owned(),
    };
    cap_owned(name)
}

/// What `mcp.session.id` records of a session id: the hex of the first 16
/// bytes of its SHA-256. Where a legacy session runs without authorization
/// its id is the only credential, and traces travel to places it must not;
/// the digest still tells one session's spans from another's (the same id,
/// the same digest), and is what an operator computes from an id to find
/// its spans.
pub fn session_digest(id: &str) -> String {
    use std::fmt::Write as _;
    let digest = Sha256::digest(id.as_bytes());
    digest[..16]
        .iter()
        .fold(String::with_capacity(32), |mut hex, b| {
            let _ = write!(hex, "{b:02x}"); // writing to a String cannot fail
            hex
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_text_is_kept_whole() {
        assert_eq!(cap("tools/call"), "tools/call");
        let exact = "a".repeat(MAX_TEXT_LEN);
        assert_eq!(cap(&exact), exact);
    }

    #[test]
    fn long_text_is_cut_on_a_char_boundary() {
        let long = "a".repeat(MAX_TEXT_LEN + 10);
        assert_eq!(cap(&long).len(), MAX_TEXT_LEN);
        // 'é' is two bytes: 255 of 'a' then 'é' straddles the limit.
        let straddling = format!("{}é", "a".repeat(MAX_TEXT_LEN - 1));
        assert_eq!(cap(&straddling), "a".repeat(MAX_TEXT_LEN - 1));
        assert_eq!(cap_owned(straddling).len(), MAX_TEXT_LEN - 1);
    }

    #[test]
    fn a_span_name_is_capped_whatever_its_parts() {
        assert_eq!(span_name("tools/call", Some("add")), "tools/call add");
        assert_eq!(span_name("ping", None), "ping");
        let long = "n".repeat(300);
        let name = span_name("tools/call", Some(&long));
        assert_eq!(name.len(), MAX_TEXT_LEN);
        assert!(name.starts_with("tools/call nnn"));
        assert_eq!(span_name(&long, None).len(), MAX_TEXT_LEN);
    }

    #[test]
    fn a_session_digest_is_stable_and_hides_the_id() {
        let digest = session_digest("session-1");
        assert_eq!(digest.len(), 32);
        assert!(digest.chars().all(|c| c.is_ascii_hexdigit()));
        assert_eq!(digest, session_digest("session-1"));
        assert_ne!(digest, session_digest("session-2"));
        // The SHA-256 of "abc", its first 16 bytes.
        assert_eq!(session_digest("abc"), "ba7816bf8f01cfea414140de5dae2223");
    }
}
