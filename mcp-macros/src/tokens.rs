//! Small pieces of generated code that know nothing of the model: an
//! `Option` as an expression, a `default = ...` (or a `one_of` value) as a
//! value of its parameter's type. A leaf: it imports no module of the
//! crate, so the parameter rules (below the model) and the generators
//! (above it) share it.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::{Expr, ExprLit, Lit, Type};

/// `Option::Some(value)` or `Option::None`, as an expression.
pub(crate) fn option<T: ToTokens>(value: Option<T>) -> TokenStream {
    if let Some(value) = value {
        quote!(::core::option::Option::Some(#value))
    } else {
        quote!(::core::option::Option::None)
    }
}

/// A `default = ...` as the value of a parameter of type `ty`: a string
/// literal through `StrDefault` (so `default = ", "` makes a `String`, and
/// `Some` of one for an `Option<String>`), anything else as written (so an
/// integer literal takes the parameter's type).
pub(crate) fn default_value(default: &Expr, ty: &Type) -> TokenStream {
    if is_str_lit(default) {
        quote_spanned! {default.span()=> {
            #[allow(unused_imports)]
            use ::oxmcp_server::__private::{StrLiteralOption as _, StrLiteralPlain as _};
            ::oxmcp_server::__private::str_value(
                (&&::oxmcp_server::__private::StrLiteral::<#ty>::new()).kind(),
                #default,
            )
        }}
    } else {
        default.to_token_stream()
    }
}

/// Whether `expr` is a string literal.
pub(crate) fn is_str_lit(expr: &Expr) -> bool {
    matches!(
        expr,
        Expr::Lit(ExprLit {
            lit: Lit::Str(_),
            ..
        })
    )
}
