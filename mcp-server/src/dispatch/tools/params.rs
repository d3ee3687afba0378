//! The `tools/call` params reader: a scanner for the common shape, serde for
//! the rest and for every error.

use std::borrow::Cow;

use oxmcp_types::jsonrpc::RawJson;
use oxmcp_types::modern::RawRequestMeta;
use oxmcp_types::ErrorObject;
use serde_json::Value;

use crate::dispatch::era::params;
use crate::tool::TextArgs;

/// `tools/call` params read leniently first, so a missing `name` is a clear
/// -32602; the arguments stay JSON text until the tool takes them.
#[derive(serde::Deserialize, Default, Debug)]
pub(super) struct CallParams<'a> {
    #[serde(default, borrow)]
    pub(super) name: Option<Cow<'a, str>>,
    #[serde(default)]
    pub(super) arguments: Option<TextArgs<'a>>,
    #[serde(rename = "_meta", default, borrow)]
    pub(super) meta: Option<RawRequestMeta<'a>>,
    /// 2026-07-28 input rounds: the answers, and the state of earlier rounds.
    #[serde(rename = "inputResponses", default)]
    pub(super) input_responses: Option<Value>,
    #[serde(rename = "requestState", default, borrow)]
    pub(super) request_state: Option<Cow<'a, str>>,
}

impl<'a> CallParams<'a> {
    /// The params, by [`read_fast`](Self::read_fast) when it reads them, else
    /// by [`read_serde`](Self::read_serde).
    pub(super) fn read(raw: Option<RawJson<'a>>) -> Result<Self, ErrorObject> {
        match raw.and_then(Self::read_fast) {
            Some(p) => Ok(p),
            None => Self::read_serde(raw),
        }
    }

    /// The reference: serde reads the params and names every error.
    fn read_serde(raw: Option<RawJson<'a>>) -> Result<Self, ErrorObject> {
        params::<CallParams<'_>>(raw)
    }

    /// The fast path: params whose members the scanner reads and that are
    /// plainly what [`read_serde`](Self::read_serde) would make of them;
    /// `None` leaves them to it. Equivalence: `tests::read_fast_matches_read_serde`.
    fn read_fast(raw: RawJson<'a>) -> Option<Self> {
        let mut p = CallParams::default();
        let mut seen = [false; 5];
        let mut plain = true;
        raw.members(|key, value| {
            let (slot, ok) = match key {
                "name" => (0, set_str(&mut p.name, value)),
                "arguments" => (1, set_arguments(&mut p.arguments, value)),
                "_meta" => (2, set_meta(&mut p.meta, value)),
                "inputResponses" => (3, set_parsed(&mut p.input_responses, value)),
                "requestState" => (4, set_str(&mut p.request_state, value)),
                _ => return,
            };
            // A repeated member is an error serde names.
            plain &= ok && !std::mem::replace(&mut seen[slot], true);
        })?;
        plain.then_some(p)
    }
}

/// A string member without escapes (or `null`); `false` for anything else.
fn set_str<'a>(slot: &mut Option<Cow<'a, str>>, value: RawJson<'a>) -> bool {
    if value.get() == "null" {
        return true;
    }
    match value.as_plain_str() {
        Some(text) => {
            *slot = Some(Cow::Borrowed(text));
            true
        }
        None => false,
    }
}

/// The `arguments` object (or `null`), its members read in place.
fn set_arguments<'a>(slot: &mut Option<TextArgs<'a>>, value: RawJson<'a>) -> bool {
    if value.get() == "null" {
        return true;
    }
    *slot = TextArgs::read_fast(value);
    slot.is_some()
}

/// `_meta` (or `null`), its protocol fields kept as text.
fn set_meta<'a>(slot: &mut Option<RawRequestMeta<'a>>, value: RawJson<'a>) -> bool {
    if value.get() == "null" {
        return true;
    }
    *slot = RawRequestMeta::read_fast(value);
    slot.is_some()
}

/// A member serde reads by itself; `false` when it cannot.
fn set_parsed<'a, T: serde::Deserialize<'a>>(slot: &mut Option<T>, value: RawJson<'a>) -> bool {
    match serde_json::from_str(value.get()) {
        Ok(v) => {
            *slot = v;
            true
        }
        Err(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use oxmcp_types::jsonrpc::RawJson;

    use super::CallParams;

    /// The scanned params are what serde reads, over a corpus and every
    /// one-byte change of it.
    #[test]
    fn read_fast_matches_read_serde() {
        let corpus = [
            r#"{"name":"add","arguments":{"a":1,"b":[2,{"c":"d"}]}}"#,
            r#"{"arguments":null,"name":"x y","_meta":{"progressToken":7,"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}"#,
            r#"{"name":"t","requestState":"s","inputResponses":{"k":{"action":"accept"}},"other":[1]}"#,
            r#"{"name":null,"requestState":null,"arguments":{}}"#,
        ];
        let mut taken = 0;
        for text in corpus {
            assert!(CallParams::read_fast(RawJson::from(&*raw(text))).is_some());
            for at in 0..=text.len() {
                for b in (0u8..=0x7f).chain([b' ']) {
                    let mut changed = text.as_bytes().to_vec();
                    if at == text.len() {
                        changed.push(b);
                    } else {
                        changed[at] = b;
                    }
                    let Ok(t) = String::from_utf8(changed) else {
                        continue;
                    };
                    let Ok(r) = serde_json::value::RawValue::from_string(t.clone()) else {
                        continue;
                    };
                    if let Some(fast) = CallParams::read_fast(RawJson::from(&*r)) {
                        taken += 1;
                        let slow =
                            CallParams::read_serde(Some(RawJson::from(&*r))).unwrap_or_else(|e| {
                                panic!("{t}: scanned, but serde says {}", e.message)
                            });
                        assert_eq!(format!("{fast:?}"), format!("{slow:?}"), "{t}");
                    }
                }
            }
        }
        assert!(taken > 500, "{taken}");
        // Left to serde: a repeated member, an escaped name, arguments that
        // are not an object.
        for text in [
            r#"{"name":"a","name":"b"}"#,
            r#"{"name":"\u0061"}"#,
            r#"{"name":"a","arguments":[1]}"#,
            r#"{"name":7}"#,
        ] {
            assert!(
                CallParams::read_fast(RawJson::from(&*raw(text))).is_none(),
                "{text}"
            );
        }
    }

    fn raw(text: &str) -> Box<serde_json::value::RawValue> {
        serde_json::value::RawValue::from_string(text.to_owned()).unwrap()
    }
}
