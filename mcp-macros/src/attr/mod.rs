//! Parsing of the attributes: `#[tool(...)]` (on an impl, a method or a function),
//! `#[describe("...")]` and `#[param(...)]`.
//!
//! Parsers return values and push problems to the [`Ctxt`], so the user sees
//! every bad attribute at once (`serde_derive`: `internals/attr.rs`).
//!
//! | module | parses |
//! |---|---|
//! | this one | which helper an attribute is, `#[describe]`, and what the others share |
//! | [`tool`] | the options of a `#[tool(...)]`: which keys it takes where, into which slot |
//! | [`values`] | the value of each `#[tool(...)]` key, parsed and checked |
//! | [`param`](mod@param) | `#[param(...)]`: name, description, `default`, `rename` and rules |
//! | [`suggest`] | the wording for an unknown key or name: the keys expected, "did you mean" |

mod param;
mod suggest;
mod tool;
mod values;

pub(crate) use param::{param, ParamAttr};
pub(crate) use suggest::similar;
pub(crate) use tool::{
    impl_options, method_tool_options, tool_options, ClientOption, Container, Position, ToolOptions,
};

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::{Attribute, LitStr, Meta, Token};

use crate::ctxt::Ctxt;
use crate::symbol::{Symbol, DESCRIBE, PARAM, TOOL};

/// One attribute value, remembering the tokens that set it (serde `attr.rs` `Attr`).
pub(crate) struct Attr<T> {
    name: Symbol,
    value: Option<T>,
}

impl<T> Attr<T> {
    fn none(name: Symbol) -> Self {
        Attr { name, value: None }
    }

    /// Sets the value; a second setting is reported at its own tokens.
    fn set<A: ToTokens>(&mut self, cx: &Ctxt, obj: A, value: T) {
        if self.value.is_some() {
            cx.error_spanned_by(
                obj,
                format!("duplicate `{}`: remove one of the two", self.name),
            );
        } else {
            self.value = Some(value);
        }
    }

    fn get(self) -> Option<T> {
        self.value
    }
}

/// Parses the arguments of an attribute written as `key = value, flag, ...`.
fn metas(cx: &Ctxt, tokens: TokenStream) -> Vec<Meta> {
    match Punctuated::<Meta, Token![,]>::parse_terminated.parse2(tokens) {
        Ok(list) => list.into_iter().collect(),
        Err(err) => {
            cx.syn_error(err);
            Vec::new()
        }
    }
}

/// The arguments of a helper attribute (`#[tool]` alone has none).
fn attr_tokens(cx: &Ctxt, attr: &Attribute, example: &str) -> TokenStream {
    match &attr.meta {
        Meta::Path(_) => TokenStream::new(),
        Meta::List(list) => list.tokens.clone(),
        Meta::NameValue(nv) => {
            cx.error_spanned_by(nv, format!("expected parentheses: {example}"));
            TokenStream::new()
        }
    }
}

/// A key's path as written, without spaces (`requires_client`).
pub(crate) fn path_text(path: &syn::Path) -> String {
    path.to_token_stream().to_string().replace(' ', "")
}

/// `#[describe("...")]`: the text, or `None` after reporting a malformed attribute.
pub(crate) fn describe(cx: &Ctxt, attr: &Attribute) -> Option<LitStr> {
    const EXAMPLE: &str = "#[describe(\"What the tool does\")]";
    match &attr.meta {
        Meta::List(list) => {
            let parsed = syn::parse2::<LitStr>(list.tokens.clone());
            if parsed.is_err() {
                cx.error_spanned_by(
                    &list.tokens,
                    format!("expected one string literal: {EXAMPLE}"),
                );
            }
            parsed.ok()
        }
        Meta::Path(path) => {
            cx.error_spanned_by(path, format!("#[describe] needs the text: {EXAMPLE}"));
            None
        }
        Meta::NameValue(nv) => {
            cx.error_spanned_by(nv, format!("expected parentheses: {EXAMPLE}"));
            None
        }
    }
}

/// Which helper an attribute is, if any.
#[derive(Copy, Clone, PartialEq, Eq)]
pub(crate) enum Helper {
    Tool,
    Describe,
    Param,
}

pub(crate) fn helper(attr: &Attribute) -> Option<Helper> {
    let path = attr.path();
    if path == &TOOL {
        Some(Helper::Tool)
    } else if path == &DESCRIBE {
        Some(Helper::Describe)
    } else if path == &PARAM {
        Some(Helper::Param)
    } else {
        None
    }
}
