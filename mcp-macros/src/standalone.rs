//! `#[describe]` and `#[param]` met on their own: `#[tool]` strips them from
//! the items it processes, so reaching these means no `#[tool]` is in charge.

use proc_macro2::{Ident, Span, TokenStream};
use quote::{quote, ToTokens};
use syn::{Attribute, Item, TraitItemFn};

use crate::ast::strip_helpers;
use crate::attr::{self, Helper};

pub(crate) fn describe(args: TokenStream, input: TokenStream) -> TokenStream {
    outside(Helper::Describe, args, input)
}

pub(crate) fn param(args: TokenStream, input: TokenStream) -> TokenStream {
    outside(Helper::Param, args, input)
}

fn outside(which: Helper, args: TokenStream, input: TokenStream) -> TokenStream {
    let name = if which == Helper::Describe {
        "describe"
    } else {
        "param"
    };
    let parsed = syn::parse2::<Item>(input.clone());
    // A method of a trait without `#[tool]` (a declaration missing its
    // macro); syn reads a method without a body as a verbatim item.
    if matches!(parsed, Ok(Item::Verbatim(_)) | Err(_)) {
        if let Ok(mut method) = syn::parse2::<TraitItemFn>(input.clone()) {
            strip_helpers(&mut method.attrs, &mut method.sig);
            let message = format!(
                "`#[{name}]` only works on a method of a `#[tool]` trait, impl block or function: add `#[tool(description = \"...\")]` to the trait to declare a server's tools"
            );
            let err = syn::Error::new(Span::call_site(), message).into_compile_error();
            return quote!(#method #err);
        }
    }
    let Ok(mut item) = parsed else {
        let err = error(name, None);
        return quote!(#input #err);
    };

    // `#[describe(..)] #[tool] fn f()`: the `#[tool]` below us is in charge, it
    // just comes second. Put it first and let it see this attribute.
    if let Some(attrs) = attrs_mut(&mut item) {
        if let Some(index) = attrs
            .iter()
            .position(|a| attr::helper(a) == Some(Helper::Tool))
        {
            let tool = attrs.remove(index);
            let ident = Ident::new(name, Span::call_site());
            let this = if args.is_empty() {
                quote!(#[#ident])
            } else {
                quote!(#[#ident(#args)])
            };
            return quote!(#tool #this #item);
        }
    }

    let err = match &mut item {
        Item::Fn(f) => {
            strip_helpers(&mut f.attrs, &mut f.sig);
            error(name, Some(f.sig.receiver().is_some()))
        }
        _ => error(name, None),
    };
    let item = item.into_token_stream();
    quote!(#item #err)
}

/// The error, at the attribute. `method`: whether the item is a method (has `self`).
fn error(name: &str, method: Option<bool>) -> TokenStream {
    let fix = match method {
        Some(true) => "add `#[tool(description = \"...\")]` to the impl block",
        Some(false) => {
            "add `#[tool]` above the function (or, for a method, `#[tool(description = \"...\")]` on its impl block)"
        }
        None => "add `#[tool(description = \"...\")]` to the impl block, or `#[tool]` above the function",
    };
    let message = format!(
        "`#[{name}]` only works on a method of a `#[tool]` impl block or on a `#[tool]` function: {fix}"
    );
    syn::Error::new(Span::call_site(), message).into_compile_error()
}

fn attrs_mut(item: &mut Item) -> Option<&mut Vec<Attribute>> {
    match item {
        Item::Fn(f) => Some(&mut f.attrs),
        Item::Impl(i) => Some(&mut i.attrs),
        _ => None,
    }
}

/// `#[prompt]`, `#[resource]` or `#[complete]` met on their own: the item is
/// given back with an error at the attribute.
pub(crate) fn kind_outside(name: &str, _args: TokenStream, input: TokenStream) -> TokenStream {
    let message = format!(
        "`#[{name}]` only works on a method of a `#[tool(description = \"...\")]` impl block: put the method in such a block"
    );
    let err = syn::Error::new(Span::call_site(), message).into_compile_error();
    quote!(#input #err)
}
