//! The fast path for reading messages: a validating scanner that finds an
//! object's members and where each value's text lies, without decoding them.
//!
//! It accepts only JSON that RFC 8259 allows, and it declines (returns
//! `None`) anything it does not handle: invalid input, a key written with
//! escapes, nesting deeper than `serde_json`'s limit. A caller that is declined
//! takes the serde path, which reads the same inputs and names the errors; so
//! the scanner decides nothing that serde would decide differently.

/// Nesting deeper than this is left to serde (whose limit is 128).
const MAX_DEPTH: usize = 128;

/// JSON text known to hold exactly one valid value, borrowed from the
/// message it came in.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct RawJson<'a>(&'a str);

impl<'a> RawJson<'a> {
    /// The text, as it came in.
    pub fn get(self) -> &'a str {
        self.0
    }

    /// The contents of this value when it is a string written without
    /// escapes (so they are its text as it is); `None` otherwise.
    pub fn as_plain_str(self) -> Option<&'a str> {
        let inner = self.0.strip_prefix('"')?.strip_suffix('"')?;
        (!inner.contains('\\')).then_some(inner)
    }

    /// The members of this value, when it is an object the scanner reads:
    /// `each(key, value)` in order; `None` when it is declined.
    ///
    /// The text is known to be valid, so values are skipped without being
    /// checked again.
    pub fn members(self, each: impl FnMut(&'a str, RawJson<'a>)) -> Option<()> {
        members_with(self.0, each, |b, i| Some(skip_valid(b, i)))
    }
}

impl<'a> From<&'a serde_json::value::RawValue> for RawJson<'a> {
    fn from(raw: &'a serde_json::value::RawValue) -> Self {
        RawJson(raw.get())
    }
}

impl std::fmt::Debug for RawJson<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}

impl std::fmt::Display for RawJson<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}

/// Reads `text` as one JSON object, with whitespace around it, calling
/// `each(key, value)` for its members in order (a repeated key is passed
/// each time). Keys are passed as written, so a key with an escape is
/// declined. `None` when declined: `each` may then have seen some members.
pub(crate) fn members<'a>(text: &'a str, each: impl FnMut(&'a str, RawJson<'a>)) -> Option<()> {
    members_with(text, each, |b, i| value(b, i, 1))
}

/// [`members`], with `value_end(bytes, i)` finding where the value at `i`
/// ends (checking it, or not when the text is known to be valid).
fn members_with<'a>(
    text: &'a str,
    mut each: impl FnMut(&'a str, RawJson<'a>),
    value_end: impl Fn(&[u8], usize) -> Option<usize>,
) -> Option<()> {
    let b = text.as_bytes();
    let mut i = ws(b, 0);
    if b.get(i) != Some(&b'{') {
        return None;
    }
    i = ws(b, i + 1);
    if b.get(i) == Some(&b'}') {
        return (ws(b, i + 1) == b.len()).then_some(());
    }
    loop {
        if b.get(i) != Some(&b'"') {
            return None;
        }
        let key_end = plain_string(b, i)?;
        let key = &text[i + 1..key_end - 1];
        i = ws(b, key_end);
        if b.get(i) != Some(&b':') {
            return None;
        }
        let start = ws(b, i + 1);
        let end = value_end(b, start)?;
        each(key, RawJson(&text[start..end]));
        i = ws(b, end);
        match b.get(i) {
            Some(b',') => i = ws(b, i + 1),
            Some(b'}') => return (ws(b, i + 1) == b.len()).then_some(()),
            _ => return None,
        }
    }
}

/// The end of the value at `start` in text known to be valid JSON: strings
/// and brackets are followed, nothing is checked.
fn skip_valid(b: &[u8], start: usize) -> usize {
    let mut depth = 0usize;
    let mut i = start;
    while let Some(&c) = b.get(i) {
        match c {
            b'"' => {
                i += 1;
                while let Some(&c) = b.get(i) {
                    i += 1;
                    match c {
                        b'"' => break,
                        b'\\' => i += 1,
                        _ => {}
                    }
                }
                if depth == 0 {
                    return i;
                }
                continue;
            }
            b'{' | b'[' => depth += 1,
            // A scalar ends where its container goes on or closes.
            b'}' | b']' | b',' | b' ' | b'\t' | b'\n' | b'\r' if depth == 0 => return i,
            b'}' | b']' => {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    i
}

/// Skips whitespace from `i`.
#[inline]
fn ws(b: &[u8], mut i: usize) -> usize {
    // Compact JSON has none: every byte above a space is not whitespace.
    while b
        .get(i)
        .is_some_and(|&c| c <= b' ' && matches!(c, b' ' | b'\t' | b'\n' | b'\r'))
    {
        i += 1;
    }
    i
}

/// The end of the value that starts at `i`.
fn value(b: &[u8], i: usize, depth: usize) -> Option<usize> {
    match *b.get(i)? {
        b'"' => string(b, i),
        b'{' => object(b, i, depth + 1),
        b'[' => array(b, i, depth + 1),
        b't' => literal(b, i, b"true"),
        b'f' => literal(b, i, b"false"),
        b'n' => literal(b, i, b"null"),
        b'-' | b'0'..=b'9' => number(b, i),
        _ => None,
    }
}

fn literal(b: &[u8], i: usize, word: &[u8]) -> Option<usize> {
    b[i..].starts_with(word).then_some(i + word.len())
}

/// The bytes a string's text stops at: its end, an escape, and the
/// control characters, which must be escaped.
const STOPS_STRING: [bool; 256] = {
    let mut stops = [false; 256];
    let mut c = 0;
    while c < 0x20 {
        stops[c] = true;
        c += 1;
    }
    stops[b'"' as usize] = true;
    stops[b'\\' as usize] = true;
    stops
};

/// The first byte at or after `i` that a string's text stops at
/// ([`STOPS_STRING`]), or the end of `b`: eight bytes at a time while they
/// last (the bit tricks flag a byte below 0x20 or equal to `"` or `\`; a
/// false flag can only follow a true one, so the lowest flag is right).
fn string_stop(b: &[u8], mut i: usize) -> usize {
    const ONES: u64 = u64::from_le_bytes([1; 8]);
    const HIGHS: u64 = ONES << 7;
    const QUOTES: u64 = ONES * b'"' as u64;
    const BACKSLASHES: u64 = ONES * b'\\' as u64;
    while let Some(&word) = b.get(i..).and_then(|rest| rest.first_chunk::<8>()) {
        let x = u64::from_le_bytes(word);
        let zero_byte = |y: u64| y.wrapping_sub(ONES) & !y;
        let control = x.wrapping_sub(ONES * 0x20) & !x;
        let hits = (control | zero_byte(x ^ QUOTES) | zero_byte(x ^ BACKSLASHES)) & HIGHS;
        if hits != 0 {
            return i + (hits.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while b.get(i).is_some_and(|&c| !STOPS_STRING[usize::from(c)]) {
        i += 1;
    }
    i
}

/// The end of the string that starts at `i`, when it has no escapes.
fn plain_string(b: &[u8], i: usize) -> Option<usize> {
    let end = string_stop(b, i + 1);
    (b.get(end) == Some(&b'"')).then_some(end + 1)
}

/// The end (past the closing quote) of the string that starts at `i`.
fn string(b: &[u8], i: usize) -> Option<usize> {
    let mut i = i + 1;
    loop {
        // Most bytes need no attention: skip them eight at a time.
        i = string_stop(b, i);
        match *b.get(i)? {
            b'"' => return Some(i + 1),
            b'\\' => {
                i += 1;
                match *b.get(i)? {
                    b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => i += 1,
                    b'u' => {
                        let hex = b.get(i + 1..i + 5)?;
                        if !hex.iter().all(u8::is_ascii_hexdigit) {
                            return None;
                        }
                        i += 5;
                    }
                    _ => return None,
                }
            }
            // A control character, which must be escaped.
            _ => return None,
        }
    }
}

/// The end of the number that starts at `i`: `-? (0 | [1-9][0-9]*)
/// (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
fn number(b: &[u8], mut i: usize) -> Option<usize> {
    let digits = |b: &[u8], mut i: usize| {
        let start = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        (i > start).then_some(i)
    };
    if b[i] == b'-' {
        i += 1;
    }
    i = match *b.get(i)? {
        b'0' => i + 1,
        b'1'..=b'9' => digits(b, i)?,
        _ => return None,
    };
    if b.get(i) == Some(&b'.') {
        i = digits(b, i + 1)?;
    }
    if let Some(b'e' | b'E') = b.get(i) {
        i += 1;
        if let Some(b'+' | b'-') = b.get(i) {
            i += 1;
        }
        i = digits(b, i)?;
    }
    Some(i)
}

fn object(b: &[u8], i: usize, depth: usize) -> Option<usize> {
    if depth > MAX_DEPTH {
        return None;
    }
    let mut i = ws(b, i + 1);
    if b.get(i) == Some(&b'}') {
        return Some(i + 1);
    }
    loop {
        if b.get(i) != Some(&b'"') {
            return None;
        }
        i = ws(b, string(b, i)?);
        if b.get(i) != Some(&b':') {
            return None;
        }
        i = ws(b, value(b, ws(b, i + 1), depth)?);
        match b.get(i) {
            Some(b',') => i = ws(b, i + 1),
            Some(b'}') => return Some(i + 1),
            _ => return None,
        }
    }
}

fn array(b: &[u8], i: usize, depth: usize) -> Option<usize> {
    if depth > MAX_DEPTH {
        return None;
    }
    let mut i = ws(b, i + 1);
    if b.get(i) == Some(&b']') {
        return Some(i + 1);
    }
    loop {
        i = ws(b, value(b, i, depth)?);
        match b.get(i) {
            Some(b',') => i = ws(b, i + 1),
            Some(b']') => return Some(i + 1),
            _ => return None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::value::RawValue;

    /// What the scanner reads of `text`, or `None`.
    fn scan(text: &str) -> Option<Vec<(String, String)>> {
        let mut seen = Vec::new();
        members(text, |k, v| seen.push((k.to_owned(), v.get().to_owned())))?;
        Some(seen)
    }

    /// What serde reads of `text` as an object of raw members, or `None`.
    fn serde(text: &str) -> Option<Vec<(String, String)>> {
        struct Members(Vec<(String, String)>);
        impl<'de> serde::Deserialize<'de> for Members {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> serde::de::Visitor<'de> for V {
                    type Value = Members;
                    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                        f.write_str("an object")
                    }
                    fn visit_map<M: serde::de::MapAccess<'de>>(
                        self,
                        mut map: M,
                    ) -> Result<Members, M::Error> {
                        let mut out = Vec::new();
                        while let Some(k) = map.next_key::<String>()? {
                            let v: &RawValue = map.next_value()?;
                            out.push((k, v.get().to_owned()));
                        }
                        Ok(Members(out))
                    }
                }
                d.deserialize_map(V)
            }
        }
        serde_json::from_str::<Members>(text).ok().map(|m| m.0)
    }

    /// Whatever the scanner accepts, serde reads the same way, and so does
    /// the scan of text known to be valid.
    fn agrees(text: &str) {
        if let Some(ours) = scan(text) {
            let mut trusted = Vec::new();
            RawJson(text.trim_matches([' ', '\t', '\n', '\r']))
                .members(|k, v| trusted.push((k.to_owned(), v.get().to_owned())))
                .unwrap();
            assert_eq!(ours, trusted, "{text:?}");
            assert_eq!(Some(ours), serde(text), "{text:?}");
        }
    }

    #[test]
    fn string_stops_where_the_byte_loop_stops() {
        let slow = |b: &[u8], mut i: usize| {
            while b.get(i).is_some_and(|&c| !STOPS_STRING[usize::from(c)]) {
                i += 1;
            }
            i
        };
        let mut state = 0x2545_F491_4F6C_DD1D_u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for round in 0..20_000 {
            let len = usize::try_from(next() % 40).unwrap();
            // Mostly plain text, with a stop byte (or any byte) here and there.
            let text: Vec<u8> = (0..len)
                .map(|_| match next() % 16 {
                    0 => [b'"', b'\\', 0x1f, 0x00, b'\n'][usize::try_from(next() % 5).unwrap()],
                    1 => next().to_le_bytes()[0],
                    _ => b'a' + u8::try_from(next() % 26).unwrap(),
                })
                .collect();
            let start = if len == 0 { 0 } else { round % len };
            assert_eq!(
                string_stop(&text, start),
                slow(&text, start),
                "{text:?} from {start}"
            );
        }
    }

    #[test]
    fn reads_members_as_serde_does() {
        for text in [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}"#,
            " {\t\"a\" :\n[1, -0.5e+3, 0, -0, 1E9, \"x\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\"] , \"b\":{}}\r\n",
            "{}",
            r#"{"a":true,"b":false,"c":null,"a":[[],{}]}"#,
            r#"{"é😀":"é😀"}"#,
        ] {
            assert!(scan(text).is_some(), "{text}");
            agrees(text);
        }
    }

    #[test]
    fn declines_what_is_not_valid() {
        for text in [
            "",
            "[]",
            "{",
            "{}x",
            "{} {}",
            r#"{"a"}"#,
            r#"{"a":}"#,
            r#"{"a":1,}"#,
            r#"{,"a":1}"#,
            r#"{"a":1 "b":2}"#,
            "{a:1}",
            r#"{"a":01}"#,
            r#"{"a":1.}"#,
            r#"{"a":.5}"#,
            r#"{"a":1e}"#,
            r#"{"a":+1}"#,
            r#"{"a":-}"#,
            r#"{"a":tru}"#,
            r#"{"a":nul}"#,
            r#"{"a":"\x"}"#,
            r#"{"a":"\u12"}"#,
            r#"{"a":"\u12g4"}"#,
            "{\"a\":\"\u{1}\"}",
            "{\"a\":\"tab\there\"}",
            r#"{"a":[1,]}"#,
            r#"{"a":[,1]}"#,
            r#"{"a":{"b"}}"#,
            r#"{"a":'x'}"#,
            r#"{"a":"unterminated}"#,
            // Valid, but left to serde: an escaped key, and deep nesting.
            r#"{"\u0061":1}"#,
        ] {
            assert_eq!(scan(text), None, "{text}");
        }
        let deep = format!(r#"{{"a":{}1{}}}"#, "[".repeat(200), "]".repeat(200));
        assert_eq!(scan(&deep), None);
        let fine = format!(r#"{{"a":{}1{}}}"#, "[".repeat(100), "]".repeat(100));
        agrees(&fine);
        assert!(scan(&fine).is_some());
    }

    /// Every prefix and every one-byte change of valid messages: whatever
    /// the scanner accepts, serde reads alike.
    #[test]
    fn never_accepts_what_serde_refuses() {
        let samples = [
            r#"{"jsonrpc":"2.0","id":"x\"y","method":"a/b","params":{"n":[1.5e-3,-2,true,null,{"k":"\u00e9"}]}}"#,
            r#"{"a":[{"b":[]},{}],"c":"\\","d":-0.0E+1}"#,
        ];
        let bytes: Vec<u8> = (0u8..=0x7f).collect();
        for sample in samples {
            for end in 0..=sample.len() {
                if let Some(prefix) = sample.get(..end) {
                    agrees(prefix);
                }
            }
            for at in 0..sample.len() {
                for &b in &bytes {
                    let mut changed = sample.as_bytes().to_vec();
                    changed[at] = b;
                    if let Ok(text) = String::from_utf8(changed) {
                        agrees(&text);
                    }
                }
            }
        }
    }
}
