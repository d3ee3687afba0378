//! Decoding a `tools/call`'s arguments into the tool's parameter types.

use std::fmt::Write as _;

use mcp_types::{CallToolResult, JsonObject};
use serde::de::{self, DeserializeOwned, Deserializer, Visitor};

/// The arguments of one call, consumed parameter by parameter.
///
/// Every problem is recorded rather than returned at once, so one result can
/// name every bad argument.
#[derive(Debug, Default)]
pub struct Args {
    map: JsonObject,
    errors: Vec<String>,
}

impl Args {
    /// Wraps the `arguments` object of a call (absent means none).
    pub fn new(map: Option<JsonObject>) -> Self {
        Args {
            map: map.unwrap_or_default(),
            errors: Vec::new(),
        }
    }

    /// Takes parameter `name`. Absent is fine when `T` accepts it (`Option<T>`).
    pub fn take<T: DeserializeOwned>(&mut self, name: &str) -> Option<T> {
        let result = match self.map.remove(name) {
            Some(value) => {
                T::deserialize(value).map_err(|e| format!("invalid argument `{name}`: {e}"))
            }
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
        match self.map.get(name) {
            None | Some(serde_json::Value::Null) => {
                self.map.remove(name);
                Some(default())
            }
            Some(_) => self.take(name),
        }
    }

    /// Takes the whole arguments object as one value (dynamic tools).
    pub fn into_object(self) -> JsonObject {
        self.map
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
    use serde_json::json;

    #[test]
    fn collects_every_problem() {
        let mut args = Args::new(json!({"a": "x"}).as_object().cloned());
        let a: Option<f64> = args.take("a");
        let b: Option<f64> = args.take("b");
        let c: Option<Option<f64>> = args.take("c");
        assert!(a.is_none() && b.is_none());
        assert_eq!(c, Some(None));
        let r = args.error_result();
        assert!(r.is_error());
        let text = r.content[0].as_text().unwrap();
        assert!(text.contains("invalid argument `a`"), "{text}");
        assert!(text.contains("missing required argument `b`"), "{text}");
    }

    #[test]
    fn defaults_fill_absent_and_null() {
        let mut args = Args::new(json!({"n": null}).as_object().cloned());
        assert_eq!(args.take_or::<u32>("n", || 5), Some(5));
        assert_eq!(args.take_or::<u32>("m", || 7), Some(7));
        assert!(args.is_ok());
    }

    #[test]
    fn absence() {
        assert!(accepts_absent::<Option<String>>());
        assert!(!accepts_absent::<String>());
        assert!(!accepts_absent::<Vec<u8>>());
    }
}
