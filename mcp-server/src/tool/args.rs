//! Decoding a `tools/call`'s arguments into the tool's parameter types.

use std::borrow::Cow;
use std::fmt::{self, Write as _};
use std::ops::Range;

use oxmcp_types::jsonrpc::RawJson;
use oxmcp_types::{CallToolResult, JsonObject};
use serde::de::{self, DeserializeOwned, Deserializer, MapAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;
use smallvec::SmallVec;

use crate::tool::rules::{JsonArg, Params};

/// The arguments of one call, consumed parameter by parameter.
///
/// Every problem is recorded rather than returned at once, so one result can
/// name every bad argument. A call that runs at once reads its arguments
/// where the request holds them (`'a`); one that may wait owns them
/// (`Args<'static>`).
#[derive(Debug, Default)]
pub struct Args<'a> {
    source: Source<'a>,
    errors: Vec<String>,
}

/// Where the arguments are: a map (from middleware or a test), or the
/// request's own text, each value decoded only when its parameter is taken.
#[derive(Debug)]
enum Source<'a> {
    Map(JsonObject),
    Text(TextArgs<'a>),
}

impl Default for Source<'_> {
    fn default() -> Self {
        Source::Map(JsonObject::new())
    }
}

/// The members of an `arguments` object as JSON text: where each key (as it
/// reads, without escapes) and each value lie in `text`.
#[derive(Default)]
pub(crate) struct TextArgs<'a> {
    text: Cow<'a, str>,
    /// Most tools take a few parameters: kept inline, no allocation.
    fields: SmallVec<[Field; 4]>,
}

#[derive(Debug)]
struct Field {
    key: Range<u32>,
    value: Range<u32>,
    taken: bool,
}

impl Field {
    fn key(&self) -> Range<usize> {
        self.key.start as usize..self.key.end as usize
    }

    fn value(&self) -> Range<usize> {
        self.value.start as usize..self.value.end as usize
    }
}

/// The members as they read (key, value text, taken), however they are held.
impl fmt::Debug for TextArgs<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(
                self.fields
                    .iter()
                    .map(|m| (self.key(m), &self.text[m.value()], m.taken)),
            )
            .finish()
    }
}

impl<'a> TextArgs<'a> {
    fn key(&self, f: &Field) -> &str {
        &self.text[f.key()]
    }

    /// The fast path: the members of `object`, read in place; `None` when the
    /// scanner declines it (a key with escapes, for one) or it is over 4 GiB,
    /// and its reference, the `Deserialize` impl, reads it instead.
    /// Equivalence: `tests::read_fast_matches_deserialize`.
    pub(crate) fn read_fast(object: RawJson<'a>) -> Option<Self> {
        let text = object.get();
        let len = u32::try_from(text.len()).ok()?;
        let base = text.as_ptr() as usize;
        // Members are slices of `text`: their offsets are where they lie in
        // it, which fits in a `u32` as `text`'s length does.
        #[allow(
            clippy::cast_possible_truncation,
            reason = "offsets within `text`, whose length fits in a u32"
        )]
        let range = |part: &str| {
            let start = (part.as_ptr() as usize - base) as u32;
            start..start + part.len() as u32
        };
        let mut fields = SmallVec::new();
        object.members(|key, value| {
            fields.push(Field {
                key: range(key),
                value: range(value.get()),
                taken: false,
            });
        })?;
        debug_assert!(fields.iter().all(|f: &Field| f.value.end <= len));
        Some(TextArgs {
            text: Cow::Borrowed(text),
            fields,
        })
    }

    /// Adds a member: its key (unescaped) and its value's JSON text,
    /// copied to the end of `text`.
    fn push(&mut self, key: &str, value: &str) -> Option<()> {
        let text = self.text.to_mut();
        let mut append = |part: &str| {
            let start = u32::try_from(text.len()).ok()?;
            text.push_str(part);
            Some(start..u32::try_from(text.len()).ok()?)
        };
        let field = Field {
            key: append(key)?,
            value: append(value)?,
            taken: false,
        };
        self.fields.push(field);
        Some(())
    }

    fn into_owned(self) -> TextArgs<'static> {
        TextArgs {
            text: Cow::Owned(self.text.into_owned()),
            fields: self.fields,
        }
    }

    /// The value of the last member named `name` (as a JSON object read into a
    /// map keeps the last), marking every member of that name taken.
    fn take(&mut self, name: &str) -> Option<Range<usize>> {
        let mut found = None;
        for f in self.fields.iter_mut().rev() {
            if !f.taken && self.text[f.key()] == *name {
                found.get_or_insert(f.value());
                f.taken = true;
            }
        }
        found
    }

    fn peek(&self, name: &str) -> Option<&str> {
        self.fields
            .iter()
            .rev()
            .find(|f| !f.taken && self.key(f) == name)
            .map(|f| &self.text[f.value()])
    }
}

impl<'a> Args<'a> {
    /// Wraps the `arguments` object of a call (absent means none).
    pub fn new(map: Option<JsonObject>) -> Self {
        Args {
            source: Source::Map(map.unwrap_or_default()),
            errors: Vec::new(),
        }
    }

    /// The arguments as the request carried them; nothing is decoded
    /// until a parameter is taken.
    pub(crate) fn from_text(text: Option<TextArgs<'a>>) -> Self {
        Args {
            source: Source::Text(text.unwrap_or_default()),
            errors: Vec::new(),
        }
    }

    /// The same arguments, no longer borrowed from the request (for a call
    /// that may wait).
    pub(crate) fn into_owned(self) -> Args<'static> {
        Args {
            source: match self.source {
                Source::Map(map) => Source::Map(map),
                Source::Text(text) => Source::Text(text.into_owned()),
            },
            errors: self.errors,
        }
    }

    /// Takes parameter `name`. Absent is fine when `T` accepts it (`Option<T>`).
    pub fn take<T: DeserializeOwned>(&mut self, name: &str) -> Option<T> {
        let decoded = match &mut self.source {
            Source::Map(map) => map
                .remove(name)
                .map(|value| T::deserialize(value).map_err(|e| e.to_string())),
            Source::Text(args) => args
                .take(name)
                .map(|range| from_text::<T>(&args.text[range])),
        };
        let result = match decoded {
            Some(r) => r.map_err(|e| format!("invalid argument `{name}`: {e}")),
            None => {
                T::deserialize(Absent).map_err(|_| format!("missing required argument `{name}`"))
            }
        };
        result.map_err(|e| self.errors.push(e)).ok()
    }

    /// Takes parameter `name`, or `default()` when it is absent or null.
    pub fn take_or<T: DeserializeOwned>(
        &mut self,
        name: &str,
        default: impl FnOnce() -> T,
    ) -> Option<T> {
        let absent = self.absent(name);
        if absent {
            Some(default())
        } else {
            self.take(name)
        }
    }

    /// Takes parameter `i` of `params`: decoded, checked against its rules,
    /// and any problem worded for the model ("`days` must be an integer
    /// from 1 to 16 (got 20)"). Absent is fine when `T` accepts it (`Option<T>`).
    pub fn param<T: DeserializeOwned>(&mut self, params: &Params, i: usize) -> Option<T> {
        let param = params.get(i)?;
        let name = param.name.as_str();
        let outcome = match &mut self.source {
            Source::Map(map) => map.remove(name).map(|value| {
                let arg = JsonArg::Value(&value);
                T::deserialize(&value)
                    .map_err(|e| param.undecodable(&arg, &e.to_string()))
                    .and_then(|v| param.check(&arg).map(|()| v))
            }),
            Source::Text(args) => args.take(name).map(|range| {
                let text = &args.text[range];
                let arg = JsonArg::Text(text);
                from_text::<T>(text)
                    .map_err(|e| param.undecodable(&arg, &e))
                    .and_then(|v| param.check(&arg).map(|()| v))
            }),
        };
        let result = match outcome {
            Some(r) => r,
            None => T::deserialize(Absent).map_err(|_| param.missing()),
        };
        result.map_err(|e| self.errors.push(e)).ok()
    }

    /// Takes parameter `i` of `params`, or `default()` when it is absent or null.
    pub fn param_or<T: DeserializeOwned>(
        &mut self,
        params: &Params,
        i: usize,
        default: impl FnOnce() -> T,
    ) -> Option<T> {
        let name = params.get(i)?.name.as_str();
        if self.absent(name) {
            Some(default())
        } else {
            self.param(params, i)
        }
    }

    /// Records an error naming every argument that is none of `params`
    /// (each parameter taken so far, as generated code takes them all
    /// first): a misspelled optional argument would otherwise silently
    /// take its default. Allocates nothing when there is none.
    pub fn refuse_unknown(&mut self, params: &Params) {
        /// How many unknown names the error lists (a call may send thousands).
        const LISTED: usize = 10;
        let mut unknown = String::new();
        let mut count = 0;
        let mut note = |key: &str| {
            if !params.accepts(key) {
                if count > 0 && count < LISTED {
                    unknown.push_str(", ");
                }
                if count < LISTED {
                    let _ = write!(unknown, "`{key}`");
                }
                count += 1;
            }
        };
        match &self.source {
            Source::Map(map) => map.keys().for_each(|k| note(k)),
            Source::Text(args) => args
                .fields
                .iter()
                .filter(|f| !f.taken)
                .for_each(|f| note(args.key(f))),
        }
        if count > LISTED {
            let _ = write!(unknown, " and {} more", count - LISTED);
        }
        if count > 0 {
            let s = if count == 1 { "" } else { "s" };
            let accepted = params.accepted();
            self.errors
                .push(format!("unknown argument{s} {unknown} ({accepted})"));
        }
    }

    /// Whether `name` is absent or null; if null, it is taken.
    fn absent(&mut self, name: &str) -> bool {
        match &mut self.source {
            Source::Map(map) => match map.get(name) {
                None | Some(Value::Null) => {
                    map.remove(name);
                    true
                }
                Some(_) => false,
            },
            Source::Text(args) => match args.peek(name) {
                None | Some("null") => {
                    args.take(name);
                    true
                }
                Some(_) => false,
            },
        }
    }

    /// Takes the whole arguments object as one value (dynamic tools, middleware).
    ///
    /// # Errors
    ///
    /// A value that a [`Value`] cannot hold (a number beyond `f64`, nesting
    /// deeper than `serde_json`'s limit of 128) is an input validation error,
    /// named as [`take`](Self::take) names it: return it as the tool's result.
    pub fn into_object(self) -> Result<JsonObject, crate::ToolError> {
        match self.source {
            Source::Map(map) => Ok(map),
            Source::Text(args) => {
                // Inserted one by one: `collect` would build a sort for this iterator alone.
                let mut object = JsonObject::new();
                for f in args.fields.iter().filter(|f| !f.taken) {
                    let key = args.key(f);
                    let value = from_text::<Value>(&args.text[f.value()]).map_err(|e| {
                        crate::ToolError::new(format!(
                            "invalid arguments: invalid argument `{key}`: {e}"
                        ))
                    })?;
                    object.insert(key.to_owned(), value);
                }
                Ok(object)
            }
        }
    }

    /// Whether every parameter taken so far decoded.
    pub fn is_ok(&self) -> bool {
        self.errors.is_empty()
    }

    /// The `isError` result naming every bad argument.
    pub fn error_result(&self) -> CallToolResult {
        let mut text = String::from("invalid arguments: ");
        for (i, e) in self.errors.iter().enumerate() {
            if i > 0 {
                text.push_str("; ");
            }
            let _ = write!(text, "{e}");
        }
        CallToolResult::error(text)
    }
}

/// Decodes one argument's JSON text. The message is serde's without the
/// position, which in a single value says nothing the caller can use.
fn from_text<T: DeserializeOwned>(text: &str) -> Result<T, String> {
    serde_json::from_str(text).map_err(|e| {
        let message = e.to_string();
        let at = format!(" at line {} column {}", e.line(), e.column());
        match message.strip_suffix(&at) {
            Some(bare) => bare.to_owned(),
            None => message,
        }
    })
}

/// A call's `arguments` object as serde reads it: its members' keys
/// (unescaped) and values copied side by side into one string. Any other
/// JSON value is an error.
impl<'de> Deserialize<'de> for TextArgs<'_> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Members;
        impl<'de> Visitor<'de> for Members {
            type Value = TextArgs<'static>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object of arguments")
            }
            fn visit_map<M: MapAccess<'de>>(
                self,
                mut map: M,
            ) -> Result<TextArgs<'static>, M::Error> {
                let mut args = TextArgs::default();
                while let Some(key) = map.next_key::<Key<'de>>()? {
                    let value = map.next_value::<&'de RawValue>()?.get();
                    args.push(&key.0, value)
                        .ok_or_else(|| de::Error::custom("arguments over 4 GiB"))?;
                }
                Ok(args)
            }
        }
        d.deserialize_map(Members)
    }
}

/// An object key, borrowed unless it had escapes.
struct Key<'a>(Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for Key<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct KeyVisitor<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for KeyVisitor<'a> {
            type Value = Key<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<Key<'a>, E> {
                Ok(Key(Cow::Borrowed(s)))
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Key<'a>, E> {
                Ok(Key(Cow::Owned(s.to_owned())))
            }
        }
        d.deserialize_str(KeyVisitor(std::marker::PhantomData))
    }
}

/// Whether a parameter of type `T` may be left out of the arguments.
pub(crate) fn accepts_absent<T: DeserializeOwned>() -> bool {
    T::deserialize(Absent).is_ok()
}

/// A deserializer for an argument that is not there: it is `None` to an
/// `Option` and an error to everything else.
struct Absent;

impl<'de> Deserializer<'de> for Absent {
    type Error = de::value::Error;

    fn deserialize_any<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value, Self::Error> {
        Err(de::Error::custom("missing"))
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_none()
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same arguments, from a map and from request text.
    fn both(text: &str) -> [Args<'static>; 2] {
        let map = serde_json::from_str::<JsonObject>(text).unwrap();
        let raw = serde_json::from_str::<TextArgs<'static>>(text).unwrap();
        [Args::new(Some(map)), Args::from_text(Some(raw))]
    }

    #[test]
    fn collects_every_problem() {
        for mut args in both(r#"{"a": "x"}"#) {
            let a: Option<f64> = args.take("a");
            let b: Option<f64> = args.take("b");
            let c: Option<Option<f64>> = args.take("c");
            assert!(a.is_none() && b.is_none());
            assert_eq!(c, Some(None));
            let r = args.error_result();
            assert!(r.is_error());
            let text = r.content[0].as_text().unwrap();
            assert_eq!(
                text,
                "invalid arguments: invalid argument `a`: invalid type: string \"x\", \
                 expected f64; missing required argument `b`"
            );
        }
    }

    #[test]
    fn defaults_fill_absent_and_null() {
        for mut args in both(r#"{"n": null}"#) {
            assert_eq!(args.take_or::<u32>("n", || 5), Some(5));
            assert_eq!(args.take_or::<u32>("m", || 7), Some(7));
            assert!(args.is_ok());
        }
    }

    /// Escaped keys, nested values, the last of duplicate members, and what
    /// is left for `into_object`, read alike from either source.
    #[test]
    fn text_reads_as_the_map_does() {
        let text =
            r#"{"a\u0062": [1, {"x": "y"}], "n": 1, "n": 2, "s": "h\u00e9", "rest": {"k": null}}"#;
        let [mut map, mut raw] = both(text);
        for args in [&mut map, &mut raw] {
            assert_eq!(
                args.take::<Value>("ab"),
                Some(serde_json::json!([1, {"x": "y"}]))
            );
            assert_eq!(args.take::<u8>("n"), Some(2));
            assert_eq!(args.take::<String>("s").as_deref(), Some("h\u{e9}"));
            assert_eq!(args.take::<Option<u8>>("n"), Some(None));
        }
        assert_eq!(map.into_object().unwrap(), raw.into_object().unwrap());
        let huge = Args::from_text(serde_json::from_str(r#"{"x": 1e400}"#).unwrap());
        assert_eq!(
            huge.into_object().unwrap_err().message(),
            "invalid arguments: invalid argument `x`: number out of range"
        );
        assert!(serde_json::from_str::<TextArgs<'static>>("[1]").is_err());
        assert!(serde_json::from_str::<TextArgs<'static>>("3").is_err());
    }

    /// Arguments read in place (more of them than are kept inline) take as
    /// the map's do, and keep doing so once owned.
    #[test]
    fn read_fast_matches_deserialize() {
        let text =
            r#"{"a": 1, "b": [true], "c": {"d": "e"}, "a": 2, "s": "x\"y", "n": null, "z": 0.5}"#;
        let raw: &RawValue = serde_json::from_str(text).unwrap();
        let scanned = TextArgs::read_fast(RawJson::from(raw)).unwrap();
        assert!(scanned.fields.spilled());
        let map = serde_json::from_str::<JsonObject>(text).unwrap();
        let borrowed = Args::from_text(Some(scanned));
        let owned = Args::from_text(TextArgs::read_fast(RawJson::from(raw))).into_owned();
        for mut args in [Args::new(Some(map)), borrowed, owned] {
            assert_eq!(args.take::<u8>("a"), Some(2));
            assert_eq!(args.take::<Vec<bool>>("b"), Some(vec![true]));
            assert_eq!(args.take::<String>("s").as_deref(), Some("x\"y"));
            assert_eq!(args.take_or::<u8>("n", || 9), Some(9));
            assert_eq!(args.take::<Option<u8>>("a"), Some(None));
            assert!(args.is_ok());
            assert_eq!(
                Value::Object(args.into_object().unwrap()),
                serde_json::json!({"c": {"d": "e"}, "z": 0.5})
            );
        }
        // An escaped key is left to serde.
        let raw: &RawValue = serde_json::from_str(r#"{"\u0061": 1}"#).unwrap();
        assert!(TextArgs::read_fast(RawJson::from(raw)).is_none());
    }

    #[test]
    fn absence() {
        assert!(accepts_absent::<Option<String>>());
        assert!(!accepts_absent::<String>());
        assert!(!accepts_absent::<Vec<u8>>());
    }
}
