//! What a `#[param]` bound may apply to, checked when the code compiles:
//! `min`/`max` a number ([`Numeric`]), `min_length`/`max_length` a string
//! or a list ([`HasLength`]), `pattern` a string ([`Textual`]). A bound on
//! anything else is a compile error that names the fix.

use std::borrow::Cow;

use super::rules::LengthOf;

/// A parameter `#[param(min = .., max = ..)]` may bound: a number.
#[diagnostic::on_unimplemented(
    message = "`min`/`max` bound a number, and `{Self}` is not one",
    label = "this parameter is not a number",
    note = "for the length of a string or a list write `min_length`/`max_length`; for the values allowed, `one_of(...)`"
)]
pub trait Numeric {}

macro_rules! numeric {
    ($($t:ty),*) => {$( impl Numeric for $t {} )*};
}
numeric!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize, f32, f64);
impl<T: Numeric> Numeric for Option<T> {}

/// A parameter `#[param(min_length = .., max_length = ..)]` may bound: a
/// string (its characters) or a list (its items).
#[diagnostic::on_unimplemented(
    message = "`min_length`/`max_length` count the characters of a string or the items of a list, and `{Self}` is neither",
    label = "this parameter has no length",
    note = "for a number's range write `min = ..`/`max = ..`"
)]
pub trait HasLength {
    /// What the length counts.
    const LENGTH_OF: LengthOf;
}

impl HasLength for String {
    const LENGTH_OF: LengthOf = LengthOf::Chars;
}
impl HasLength for Cow<'_, str> {
    const LENGTH_OF: LengthOf = LengthOf::Chars;
}
impl<T> HasLength for Vec<T> {
    const LENGTH_OF: LengthOf = LengthOf::Items;
}
impl<T: HasLength> HasLength for Option<T> {
    const LENGTH_OF: LengthOf = T::LENGTH_OF;
}

/// A parameter `#[param(pattern = "..")]` may match: a string.
#[diagnostic::on_unimplemented(
    message = "`pattern` matches a string, and `{Self}` is not one",
    label = "this parameter is not a string",
    note = "for a number's range write `min = ..`/`max = ..`; for the values allowed, `one_of(...)`"
)]
pub trait Textual {}
impl Textual for String {}
impl Textual for Cow<'_, str> {}
impl<T: Textual> Textual for Option<T> {}
