//! The cap on what one tool result may carry: a result over it is cut
//! where it stays valid, with a marker saying how much was cut.
//!
//! - Text blocks are kept in order up to the cap, the last one cut on a
//!   character boundary; the blocks after it go. Images, audio and links
//!   count for nothing and stay.
//! - `structuredContent` over the cap loses items from its longest list
//!   until it fits; without a list to shorten it is dropped, and when the
//!   tool declares an output schema (which every success must match) the
//!   result becomes an `isError` result saying why.
//! - A marker text block ends a cut result: how many characters there were,
//!   how many are shown, and how to get the rest.

use oxmcp_types::{CallToolResult, ContentBlock};

use crate::kept::Keeper;
use serde_json::Value;

pub use crate::common::DEFAULT_MAX_RESULT_CHARS;

/// The largest cap: what Claude hosts accept in
/// `_meta["anthropic/maxResultSizeChars"]`.
pub const MAX_RESULT_CHARS: usize = 500_000;

/// The `_meta` key announcing a tool's larger cap to Claude hosts.
pub const ANTHROPIC_MAX_RESULT_SIZE: &str = "anthropic/maxResultSizeChars";

/// What cutting a result did, for its marker.
#[derive(Debug, Default, PartialEq, Eq)]
struct Cut {
    text_total: usize,
    text_shown: usize,
    items_total: usize,
    items_shown: usize,
    structured_dropped: bool,
}

/// Cuts `result` to `cap` characters; `schema_declared` says whether the
/// tool has an output schema; `keeper`, where the whole result goes when
/// the tool offers it (the cut result then links to it). Cheap for a
/// result under the cap: its bytes are summed, and characters counted only
/// when the bytes exceed the cap.
pub(crate) fn cap_result(
    result: &mut CallToolResult,
    cap: usize,
    schema_declared: bool,
    keeper: Option<&Keeper>,
) {
    let full = keeper
        .filter(|_| text_over(result, cap) || structured_over(result, cap))
        .map(|_| result.clone());
    let mut cut = Cut::default();
    cap_text(result, cap, &mut cut);
    cap_structured(result, cap, schema_declared, &mut cut);
    if cut != Cut::default() {
        let link = keeper.zip(full.as_ref()).and_then(|(k, f)| k.keep(f));
        let whole = link.as_ref().and_then(|l| match l {
            ContentBlock::ResourceLink(l) => {
                Some((l.uri.as_str(), keeper.map_or(0, |k| k.ttl.as_secs())))
            }
            _ => None,
        });
        result
            .content
            .push(ContentBlock::text(marker(&cut, cap, whole)));
        result.content.extend(link);
    }
}

/// `result` cut to `cap` characters as a server cuts it, with the same
/// marker; `None` when it fits. For what a client passes on (an agent's
/// model context): the structured content is dropped rather than the
/// result made an error when it cannot shrink.
pub fn fit_to_cap(result: &CallToolResult, cap: usize) -> Option<CallToolResult> {
    if !(text_over(result, cap) || structured_over(result, cap)) {
        return None;
    }
    let mut cut = result.clone();
    cap_result(&mut cut, cap, false, None);
    Some(cut)
}

/// The text blocks' characters, when they exceed `cap` (bytes first: a
/// character is at least one).
fn text_chars_over(result: &CallToolResult, cap: usize) -> Option<usize> {
    let bytes: usize = result
        .content
        .iter()
        .filter_map(ContentBlock::as_text)
        .map(str::len)
        .sum();
    if bytes <= cap {
        return None;
    }
    let total: usize = result
        .content
        .iter()
        .filter_map(ContentBlock::as_text)
        .map(|t| t.chars().count())
        .sum();
    (total > cap).then_some(total)
}

fn text_over(result: &CallToolResult, cap: usize) -> bool {
    text_chars_over(result, cap).is_some()
}

/// Whether the structured content's JSON exceeds `cap` (a lower bound
/// first: most results are far under it, and are not serialized an extra
/// time to know it).
fn structured_over(result: &CallToolResult, cap: usize) -> bool {
    result
        .structured_content
        .as_ref()
        .is_some_and(|s| at_least(s, cap + 1) > cap && json_len(s) > cap)
}

fn cap_text(result: &mut CallToolResult, cap: usize, cut: &mut Cut) {
    let Some(total) = text_chars_over(result, cap) else {
        return;
    };
    let mut left = cap;
    let mut kept = Vec::with_capacity(result.content.len());
    for block in result.content.drain(..) {
        let Some(text) = block.as_text() else {
            kept.push(block);
            continue;
        };
        if left == 0 {
            continue;
        }
        let chars = text.chars().count();
        if chars <= left {
            left -= chars;
            kept.push(block);
        } else {
            let end = text.char_indices().nth(left).map_or(text.len(), |(i, _)| i);
            kept.push(ContentBlock::text(&text[..end]));
            left = 0;
        }
    }
    result.content = kept;
    cut.text_total = total;
    cut.text_shown = cap - left;
}

fn cap_structured(result: &mut CallToolResult, cap: usize, schema_declared: bool, cut: &mut Cut) {
    if !structured_over(result, cap) {
        return;
    }
    let Some(structured) = result.structured_content.as_mut() else {
        return;
    };
    if let Some((total, path)) = longest_path(structured, &[]) {
        let all = array_at(structured, &path)
            .map(std::mem::take)
            .unwrap_or_default();
        // The longest prefix that fits, found by halving.
        let (mut lo, mut hi) = (0, total);
        while lo < hi {
            let mid = (lo + hi).div_ceil(2);
            if let Some(list) = array_at(structured, &path) {
                *list = all[..mid].to_vec();
            }
            if json_len(structured) <= cap {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        if let Some(list) = array_at(structured, &path) {
            *list = all[..lo].to_vec();
        }
        if json_len(structured) <= cap {
            cut.items_total = total;
            cut.items_shown = lo;
            return;
        }
    }
    result.structured_content = None;
    cut.structured_dropped = true;
    if schema_declared {
        result.is_error = Some(true);
    }
}

/// A lower bound of the length of `value`'s JSON text, counted up to
/// `limit` (the walk stops there): a string's characters, a key's, one for
/// every other value.
fn at_least(value: &Value, limit: usize) -> usize {
    fn walk(value: &Value, limit: usize, sum: &mut usize) {
        if *sum >= limit {
            return;
        }
        match value {
            Value::String(s) => *sum += s.len().min(limit),
            Value::Array(items) => {
                for item in items {
                    walk(item, limit, sum);
                    *sum += 1;
                }
            }
            Value::Object(fields) => {
                for (k, v) in fields {
                    *sum += k.len() + 3;
                    walk(v, limit, sum);
                }
            }
            _ => *sum += 1,
        }
    }
    let mut sum = 0;
    walk(value, limit, &mut sum);
    sum
}

/// The serialized length of `value`, in characters of its JSON text.
fn json_len(value: &Value) -> usize {
    serde_json::to_string(value).map_or(usize::MAX, |s| s.chars().count())
}

/// The array at `path` in `value`.
fn array_at<'a>(value: &'a mut Value, path: &[Step]) -> Option<&'a mut Vec<Value>> {
    let mut at = value;
    for step in path {
        at = match (at, step) {
            (Value::Object(m), Step::Key(k)) => m.get_mut(k)?,
            (Value::Array(a), Step::Index(i)) => a.get_mut(*i)?,
            _ => return None,
        };
    }
    match at {
        Value::Array(a) => Some(a),
        _ => None,
    }
}

/// A step into a JSON value.
#[derive(Clone)]
enum Step {
    Key(String),
    Index(usize),
}

/// The length and path of the longest array under `value`.
fn longest_path(value: &Value, here: &[Step]) -> Option<(usize, Vec<Step>)> {
    let mut best: Option<(usize, Vec<Step>)> = None;
    let mut consider = |candidate: Option<(usize, Vec<Step>)>| {
        if let Some(c) = candidate {
            if best.as_ref().is_none_or(|b| c.0 > b.0) {
                best = Some(c);
            }
        }
    };
    match value {
        Value::Array(items) => {
            consider(Some((items.len(), here.to_vec())));
            for (i, item) in items.iter().enumerate() {
                let mut next = here.to_vec();
                next.push(Step::Index(i));
                consider(longest_path(item, &next));
            }
        }
        Value::Object(fields) => {
            for (k, v) in fields {
                let mut next = here.to_vec();
                next.push(Step::Key(k.clone()));
                consider(longest_path(v, &next));
            }
        }
        _ => {}
    }
    best
}

/// The marker ending a cut result; `whole`: where the whole result is
/// kept, and for how many seconds.
fn marker(cut: &Cut, cap: usize, whole: Option<(&str, u64)>) -> String {
    let mut parts = Vec::new();
    if cut.text_total > 0 {
        parts.push(format!(
            "the text had {} characters; the first {} are shown",
            cut.text_total, cut.text_shown
        ));
    }
    if cut.items_total > 0 {
        parts.push(format!(
            "the structured result's longest list had {} items; the first {} are kept",
            cut.items_total, cut.items_shown
        ));
    }
    if cut.structured_dropped {
        parts.push("the structured result was too large to send and was left out".to_owned());
    }
    let rest = match whole {
        Some((uri, secs)) => {
            format!("The whole result is at resource {uri} (resources/read, for the next {secs} s)")
        }
        None => "Ask for less (a narrower query, or the tool's paging arguments if it has them)"
            .to_owned(),
    };
    format!(
        "[result cut at {cap} characters: {}. {rest}.]",
        parts.join("; ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn texts(r: &CallToolResult) -> Vec<&str> {
        r.content.iter().filter_map(ContentBlock::as_text).collect()
    }

    #[test]
    fn a_result_under_the_cap_is_untouched() {
        let mut r = CallToolResult::text("héllo");
        r.structured_content = Some(json!({"a": [1, 2, 3]}));
        let before = r.clone();
        cap_result(&mut r, 100, true, None);
        assert_eq!(r, before);
    }

    #[test]
    fn text_is_cut_on_a_character_boundary_and_marked() {
        let mut r = CallToolResult::text("ééééé");
        r.content.push(ContentBlock::image("aGk=", "image/png"));
        r.content.push(ContentBlock::text("more"));
        cap_result(&mut r, 3, false, None);
        let t = texts(&r);
        assert_eq!(t[0], "ééé");
        assert_eq!(t.len(), 2, "the second text went, the marker came: {t:?}");
        assert!(
            t[1].contains("the text had 9 characters; the first 3 are shown"),
            "{}",
            t[1]
        );
        // The image stays.
        assert!(r.content.iter().any(|b| b.as_text().is_none()));
    }

    #[test]
    fn a_long_list_loses_items_until_it_fits() {
        let items: Vec<Value> = (0..1000)
            .map(|i| json!({"id": i, "name": format!("item {i}")}))
            .collect();
        let mut r = CallToolResult::text("ok");
        r.structured_content = Some(json!({"total": 1000, "items": items}));
        cap_result(&mut r, 2000, true, None);
        let s = r.structured_content.as_ref().unwrap();
        let kept = s["items"].as_array().unwrap().len();
        assert!(kept > 0 && kept < 1000, "{kept}");
        assert!(json_len(s) <= 2000);
        assert_eq!(s["total"], 1000, "the other fields stay");
        assert!(r.is_error.is_none());
        let marker = texts(&r).last().unwrap().to_string();
        assert!(
            marker.contains(&format!("had 1000 items; the first {kept} are kept")),
            "{marker}"
        );
    }

    #[test]
    fn structure_that_cannot_shrink_is_dropped_and_an_output_schema_makes_it_an_error() {
        let big = "x".repeat(500);
        let mut r = CallToolResult::text("ok");
        r.structured_content = Some(json!({"blob": big}));
        let mut without_schema = r.clone();
        cap_result(&mut without_schema, 100, false, None);
        assert!(without_schema.structured_content.is_none());
        assert!(without_schema.is_error.is_none());
        cap_result(&mut r, 100, true, None);
        assert!(r.structured_content.is_none());
        assert_eq!(r.is_error, Some(true));
        assert!(texts(&r)
            .last()
            .unwrap()
            .contains("too large to send and was left out"));
    }
}
