//! The reply writer of `tools/call`: a call's result as the response bytes,
//! one plain text block written directly, everything else by serde.

use oxmcp_types::jsonrpc::Response;
use oxmcp_types::{CallToolResult, ContentBlock, RequestId, ResultType};

use crate::dispatch::{encode, failed, Outcome, ServerCore};
use crate::policy::CallOutcome;

/// The reply to a call: its result, or the error a layer answered with.
pub(super) fn answer_call(
    core: &ServerCore,
    id: RequestId,
    outcome: CallOutcome,
    modern: bool,
) -> Outcome {
    match outcome {
        Ok(result) => Outcome::Reply(call_reply(core, id, result, modern)),
        Err(e) => failed(id, e),
    }
}

/// The response to a call's result, with the server's identity in the
/// modern era's `_meta`.
pub(super) fn call_reply(
    core: &ServerCore,
    id: RequestId,
    mut result: CallToolResult,
    modern: bool,
) -> Vec<u8> {
    if !modern {
        return reply_fast(&id, &result, false, 0)
            .unwrap_or_else(|| reply_serde(id, result, false));
    }
    if result.meta.is_none() {
        let meta = &core.server_info_meta_json;
        if let Some(mut bytes) = reply_fast(&id, &result, true, meta.len() + 16) {
            splice_meta(&mut bytes, meta);
            return bytes;
        }
    }
    if let Some(meta) = &mut result.meta {
        // The tool set its own `_meta`: add the server's identity to it.
        for (k, v) in &core.server_info_meta {
            meta.entry(k.clone()).or_insert_with(|| v.clone());
        }
        return reply_serde(id, result, true);
    }
    // Splice the pre-serialized `_meta` into the result object instead
    // of building and serializing it for every call.
    let mut bytes = reply_serde(id, result, true);
    splice_meta(&mut bytes, &core.server_info_meta_json);
    bytes
}

/// Adds `"_meta": meta` as the last member of a response's result object.
fn splice_meta(bytes: &mut Vec<u8>, meta: &[u8]) {
    if bytes.ends_with(b"}}") {
        bytes.truncate(bytes.len() - 2);
        bytes.extend_from_slice(b",\"_meta\":");
        bytes.extend_from_slice(meta);
        bytes.extend_from_slice(b"}}");
    }
}

/// The reference: serde writes the response to a call's result (with
/// `resultType: "complete"` when `modern`).
fn reply_serde(id: RequestId, mut result: CallToolResult, modern: bool) -> Vec<u8> {
    if modern {
        result.result_type = Some(ResultType::Complete);
    }
    encode(&Response::new(id, result))
}

/// The fast path: the response to a call whose result is one plain text
/// block (the commonest result), written directly, the same bytes as
/// [`reply_serde`] without its generic machinery. `None` for any other
/// result. `room` is what the caller will add. Equivalence:
/// `tests::reply_fast_matches_reply_serde`.
fn reply_fast(
    id: &RequestId,
    result: &CallToolResult,
    modern: bool,
    room: usize,
) -> Option<Vec<u8>> {
    let [ContentBlock::Text(text)] = result.content.as_slice() else {
        return None;
    };
    if text.annotations.is_some()
        || text.meta.is_some()
        || result.structured_content.is_some()
        || result.result_type.is_some()
        || result.meta.is_some()
    {
        return None;
    }
    let mut out = Vec::with_capacity(96 + text.text.len() + room);
    out.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
    serde_json::to_writer(&mut out, id).ok()?;
    out.extend_from_slice(br#","result":{"content":[{"type":"text","text":"#);
    serde_json::to_writer(&mut out, &text.text).ok()?;
    out.extend_from_slice(b"}]");
    match result.is_error {
        Some(true) => out.extend_from_slice(br#","isError":true"#),
        Some(false) => out.extend_from_slice(br#","isError":false"#),
        None => {}
    }
    if modern {
        out.extend_from_slice(br#","resultType":"complete""#);
    }
    out.extend_from_slice(b"}}");
    Some(out)
}

#[cfg(test)]
mod tests {
    use oxmcp_types::{CallToolResult, ContentBlock, RequestId};

    use super::{reply_fast, reply_serde};

    /// The direct writer and serde agree byte for byte, and it declines
    /// every result it does not write.
    #[test]
    fn reply_fast_matches_reply_serde() {
        let ids = [RequestId::Number(7), RequestId::String("a\"b\u{e9}".into())];
        let texts = [
            "3",
            "",
            "quote \" backslash \\ newline \n tab \t nul \u{0} é 😀",
        ];
        for id in &ids {
            for text in texts {
                for is_error in [None, Some(false), Some(true)] {
                    for modern in [false, true] {
                        let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
                        result.is_error = is_error;
                        let fast = reply_fast(id, &result, modern, 0).unwrap();
                        assert_eq!(
                            String::from_utf8(fast).unwrap(),
                            String::from_utf8(reply_serde(id.clone(), result, modern)).unwrap()
                        );
                    }
                }
            }
        }
        let id = RequestId::Number(1);
        let two = CallToolResult::success(vec![ContentBlock::text("a"), ContentBlock::text("b")]);
        assert!(reply_fast(&id, &two, false, 0).is_none());
        let mut structured = CallToolResult::success(vec![ContentBlock::text("a")]);
        structured.structured_content = Some(serde_json::json!({"x": 1}));
        assert!(reply_fast(&id, &structured, false, 0).is_none());
        let mut meta = CallToolResult::success(vec![ContentBlock::text("a")]);
        meta.meta = Some(oxmcp_types::Meta::default());
        assert!(reply_fast(&id, &meta, false, 0).is_none());
        assert!(reply_fast(&id, &CallToolResult::success(vec![]), false, 0).is_none());
    }
}
