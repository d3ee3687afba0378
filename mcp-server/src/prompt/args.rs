//! String-valued arguments: a prompt's arguments and a resource template's
//! variables are strings on the wire, parsed into the parameter's type.

use std::collections::BTreeMap;
use std::fmt::Display;
use std::marker::PhantomData;
use std::str::FromStr;

use crate::error::RequestError;

/// The string arguments of one `prompts/get` (or the variables a resource
/// template bound): what the generated code parses its parameters from, and
/// what a dynamic prompt's handler reads.
#[derive(Debug, Clone, Default)]
pub struct StringArgs {
    values: BTreeMap<String, String>,
    errors: Vec<String>,
}

impl StringArgs {
    /// Arguments by name.
    pub fn new(values: BTreeMap<String, String>) -> Self {
        StringArgs {
            values,
            errors: Vec::new(),
        }
    }

    /// One argument's value.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.values.get(name).map(String::as_str)
    }

    /// Every argument, by name.
    pub fn values(&self) -> &BTreeMap<String, String> {
        &self.values
    }

    /// Parses the argument `name` as `kind` says (required, optional, or
    /// with a default); `None` when it is missing or does not parse, and
    /// the error is kept for [`error`](Self::error), worded as a tool's
    /// argument errors are, from what `words` gives (see [`Words`]):
    /// "`n` must be an integer from 0 to 255 (got \"ten\")".
    #[doc(hidden)]
    #[allow(clippy::needless_pass_by_value)] // the kind is a zero-sized marker
    pub fn arg<K: ArgKind>(
        &mut self,
        name: &str,
        kind: K,
        words: fn() -> Option<String>,
    ) -> Option<K::Out> {
        let value = self.values.get(name).map(String::as_str);
        match kind.parse(value) {
            Ok(v) => Some(v),
            Err(refused) => {
                let expected = words();
                self.errors
                    .push(refused.explain(name, value, expected.as_deref()));
                None
            }
        }
    }

    /// Like [`arg`](Self::arg), with `default` for a missing argument.
    #[doc(hidden)]
    pub fn arg_or<K: ArgKind>(
        &mut self,
        name: &str,
        kind: K,
        words: fn() -> Option<String>,
        default: impl FnOnce() -> K::Out,
    ) -> Option<K::Out> {
        match self.values.get(name) {
            None => Some(default()),
            Some(_) => self.arg(name, kind, words),
        }
    }

    /// The invalid-params error of every argument that failed.
    #[doc(hidden)]
    pub fn error(&self) -> RequestError {
        RequestError::invalid_params(self.errors.join("; "))
    }
}

/// A type a string argument parses into: every `FromStr` type whose error
/// is `Display` (`String`, numbers, `bool`, `char`, `PathBuf`, addresses,
/// your own types).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a prompt argument or a template variable: those are strings on the wire",
    label = "parsed from a string",
    note = "implement `std::str::FromStr` for `{Self}` (with an error that implements `Display`), or take a `String` and convert it in the body"
)]
pub trait FromArgument: Sized {
    /// Parses the value.
    fn from_argument(value: &str) -> Result<Self, String>;
}

#[diagnostic::do_not_recommend]
impl<T> FromArgument for T
where
    T: FromStr,
    T::Err: Display,
{
    fn from_argument(value: &str) -> Result<Self, String> {
        value.parse().map_err(|e: T::Err| e.to_string())
    }
}

/// Why an argument was refused.
#[doc(hidden)]
#[derive(Debug, PartialEq, Eq)]
pub enum Refused {
    /// It is required and was not sent.
    Missing,
    /// It did not parse; the type's own words.
    Invalid(String),
}

impl Refused {
    /// The error for argument `name`, sent as `value`, in the words tools
    /// use when `expected` says what the type takes; a type without a
    /// schema is explained by its own `FromStr` error. The value is shown
    /// back (unlike a tool's string argument): it is a string, always,
    /// so its type would say nothing, and it is the caller's own text.
    fn explain(self, name: &str, value: Option<&str>, expected: Option<&str>) -> String {
        use crate::tool::rules::{missing_argument, must_be, shown};
        match (self, expected) {
            (Refused::Missing, expected) => missing_argument(name, expected),
            (Refused::Invalid(_), Some(expected)) => {
                must_be(name, expected, &shown(value.unwrap_or_default()))
            }
            (Refused::Invalid(why), None) => format!(
                "`{name}` is not valid: {why} (got {})",
                shown(value.unwrap_or_default())
            ),
        }
    }
}

/// How a parameter reads its argument: [`Required`] or [`Optional`].
#[doc(hidden)]
pub trait ArgKind {
    /// The parameter's value.
    type Out;
    /// Whether the client must send it.
    fn required(&self) -> bool;
    /// Parses the argument (absent: `None`).
    fn parse(&self, value: Option<&str>) -> Result<Self::Out, Refused>;
}

/// A parameter of type `T`: the argument must be there.
#[doc(hidden)]
#[derive(Debug)]
pub struct Required<T>(PhantomData<T>);

/// A parameter of type `Option<T>`: the argument may be missing.
#[doc(hidden)]
#[derive(Debug)]
pub struct Optional<T>(PhantomData<T>);

impl<T: FromArgument> ArgKind for Required<T> {
    type Out = T;

    fn required(&self) -> bool {
        true
    }

    fn parse(&self, value: Option<&str>) -> Result<T, Refused> {
        T::from_argument(value.ok_or(Refused::Missing)?).map_err(Refused::Invalid)
    }
}

impl<T: FromArgument> ArgKind for Optional<T> {
    type Out = Option<T>;

    fn required(&self) -> bool {
        false
    }

    fn parse(&self, value: Option<&str>) -> Result<Option<T>, Refused> {
        value
            .map(T::from_argument)
            .transpose()
            .map_err(Refused::Invalid)
    }
}

/// Finds a parameter's [`ArgKind`] from its type, as the compiler resolves
/// methods: `(&&Probe::<Option<T>>::new()).kind()` is [`Optional<T>`], and
/// for any other `T` it is [`Required<T>`] (autoref specialization).
#[doc(hidden)]
#[derive(Debug)]
pub struct Probe<T>(PhantomData<T>);

impl<T> Probe<T> {
    /// The probe of a parameter of type `T`.
    pub fn new() -> Self {
        Probe(PhantomData)
    }
}

impl<T> Default for Probe<T> {
    fn default() -> Self {
        Probe::new()
    }
}

/// Picked first: `Option<T>` parameters.
#[doc(hidden)]
pub trait ProbeOptional {
    /// The kind.
    type Kind;
    /// The kind.
    fn kind(&self) -> Self::Kind;
}

impl<T> ProbeOptional for &Probe<Option<T>> {
    type Kind = Optional<T>;

    fn kind(&self) -> Optional<T> {
        Optional(PhantomData)
    }
}

/// Picked otherwise: every other parameter.
#[doc(hidden)]
pub trait ProbeRequired {
    /// The kind.
    type Kind;
    /// The kind.
    fn kind(&self) -> Self::Kind;
}

impl<T> ProbeRequired for Probe<T> {
    type Kind = Required<T>;

    fn kind(&self) -> Required<T> {
        Required(PhantomData)
    }
}

/// Finds the words that say what a parameter's type takes, as the
/// compiler resolves methods: `(&&Words::<T>::new()).words()` describes
/// `T`'s JSON Schema when it has one ([`WordsSchema`]: numbers, `bool`,
/// `char`, strings, addresses, a type deriving `JsonSchema`), and gives
/// nothing otherwise ([`WordsNone`]). The words are made only for an error.
#[doc(hidden)]
#[derive(Debug)]
pub struct Words<T>(PhantomData<T>);

impl<T> Words<T> {
    /// The words of a parameter of type `T`.
    pub fn new() -> Self {
        Words(PhantomData)
    }
}

impl<T> Default for Words<T> {
    fn default() -> Self {
        Words::new()
    }
}

/// Picked first: types with a JSON Schema.
#[doc(hidden)]
pub trait WordsSchema {
    /// What makes the words.
    fn words(&self) -> fn() -> Option<String>;
}

impl<T: schemars::JsonSchema> WordsSchema for &Words<T> {
    fn words(&self) -> fn() -> Option<String> {
        || Some(crate::tool::schema::expected_of::<T>())
    }
}

/// Picked otherwise: no words.
#[doc(hidden)]
pub trait WordsNone {
    /// What makes the words.
    fn words(&self) -> fn() -> Option<String>;
}

impl<T> WordsNone for Words<T> {
    fn words(&self) -> fn() -> Option<String> {
        || None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[allow(clippy::needless_borrow)] // the point of the probe
    fn the_probe_tells_optional_from_required() {
        #[allow(unused_imports)]
        use super::{ProbeOptional as _, ProbeRequired as _};
        let k = (&&Probe::<Option<u32>>::new()).kind();
        assert!(!k.required());
        assert_eq!(k.parse(None), Ok(None));
        assert_eq!(k.parse(Some("7")), Ok(Some(7)));
        let k = (&&Probe::<u32>::new()).kind();
        assert!(k.required());
        assert_eq!(k.parse(None), Err(Refused::Missing));
        assert!(matches!(k.parse(Some("x")), Err(Refused::Invalid(_))));
    }

    /// A type that parses from a string and has no schema.
    #[derive(Debug)]
    struct Odd;

    impl FromStr for Odd {
        type Err = &'static str;
        fn from_str(s: &str) -> Result<Odd, &'static str> {
            (s == "odd").then_some(Odd).ok_or("only `odd` is odd")
        }
    }

    #[test]
    #[allow(clippy::needless_borrow)] // the point of the probe
    fn errors_say_what_tools_say() {
        #[allow(unused_imports)]
        use super::{WordsNone as _, WordsSchema as _};
        let values = [("n", "ten"), ("o", "even")];
        let mut args = StringArgs::new(
            values
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect(),
        );
        let n = (&&Words::<u8>::new()).words();
        assert_eq!(args.arg("n", Required::<u8>(PhantomData), n), None);
        let m = (&&Words::<String>::new()).words();
        assert_eq!(args.arg("m", Required::<String>(PhantomData), m), None);
        assert_eq!(
            args.arg_or("k", Required::<u8>(PhantomData), n, || 3),
            Some(3)
        );
        let o = (&&Words::<Odd>::new()).words();
        assert!(args.arg("o", Required::<Odd>(PhantomData), o).is_none());
        assert_eq!(
            args.errors,
            [
                "`n` must be an integer from 0 to 255 (got \"ten\")",
                "missing required argument `m` (a string)",
                "`o` is not valid: only `odd` is odd (got \"even\")",
            ]
        );
    }
}
