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
    /// the error is kept for [`error`](Self::error).
    #[doc(hidden)]
    #[allow(clippy::needless_pass_by_value)] // the kind is a zero-sized marker
    pub fn arg<K: ArgKind>(&mut self, name: &str, kind: K) -> Option<K::Out> {
        match kind.parse(self.values.get(name).map(String::as_str)) {
            Ok(v) => Some(v),
            Err(why) => {
                self.errors.push(format!("argument `{name}`: {why}"));
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
        default: impl FnOnce() -> K::Out,
    ) -> Option<K::Out> {
        match self.values.get(name) {
            None => Some(default()),
            Some(_) => self.arg(name, kind),
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

/// How a parameter reads its argument: [`Required`] or [`Optional`].
#[doc(hidden)]
pub trait ArgKind {
    /// The parameter's value.
    type Out;
    /// Whether the client must send it.
    fn required(&self) -> bool;
    /// Parses the argument (absent: `None`).
    fn parse(&self, value: Option<&str>) -> Result<Self::Out, String>;
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

    fn parse(&self, value: Option<&str>) -> Result<T, String> {
        T::from_argument(value.ok_or("missing (it is required)")?)
    }
}

impl<T: FromArgument> ArgKind for Optional<T> {
    type Out = Option<T>;

    fn required(&self) -> bool {
        false
    }

    fn parse(&self, value: Option<&str>) -> Result<Option<T>, String> {
        value.map(T::from_argument).transpose()
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
        assert!(k.parse(None).unwrap_err().contains("missing"));
        assert!(k.parse(Some("x")).is_err());
    }

    #[test]
    fn errors_name_the_argument() {
        let mut args = StringArgs::new([("n".to_owned(), "x".to_owned())].into());
        assert_eq!(args.arg("n", Required::<u8>(PhantomData)), None);
        assert_eq!(args.arg("m", Required::<String>(PhantomData)), None);
        assert_eq!(args.arg_or("k", Required::<u8>(PhantomData), || 3), Some(3));
        let e = args.error().to_string();
        assert!(e.contains("argument `n`: invalid digit"), "{e}");
        assert!(e.contains("argument `m`: missing"), "{e}");
    }
}
