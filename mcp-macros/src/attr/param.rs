//! `#[param(...)]`: the parameter's name (above the method), its
//! description, `default`, `rename`, and the rules (parsed by [`ParamRules`]).

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::parse::{ParseStream, Parser};
use syn::punctuated::Punctuated;
use syn::{Attribute, Expr, ExprLit, Ident, Lit, LitStr, Meta, Token};

use super::suggest::unknown_key;
use super::Attr;
use crate::ctxt::Ctxt;
use crate::param_rules::{is_rule_key, ParamRules};
use crate::symbol::{DEFAULT, ONE_OF, PARAM_KEYS, RENAME};

/// `#[param(...)]`, in either form: `#[param(name, "text", default = expr,
/// rename = "wireName")]` above a method, or `#[param("text", default = expr,
/// rename = "wireName")]` on an argument.
pub(crate) struct ParamAttr {
    /// The attribute itself, for errors about it as a whole.
    pub(crate) tokens: TokenStream,
    pub(crate) name: Option<Ident>,
    pub(crate) description: Option<LitStr>,
    pub(crate) default: Option<Expr>,
    /// `rename = "dryRun"`: the parameter's name on the wire (checked in `check`).
    pub(crate) rename: Option<LitStr>,
    /// `min = 1, max = 16, pattern = "...", one_of(...)`, ...
    pub(crate) rules: ParamRules,
}

pub(crate) fn param(cx: &Ctxt, attr: &Attribute) -> Option<ParamAttr> {
    let tokens_of_attr = attr.to_token_stream();
    let tokens = match &attr.meta {
        Meta::List(list) => list.tokens.clone(),
        Meta::Path(path) => {
            cx.error_spanned_by(
                path,
                "#[param] needs a description: #[param(\"...\")] on the argument, or #[param(name, \"...\")] above the method",
            );
            return None;
        }
        Meta::NameValue(nv) => {
            cx.error_spanned_by(nv, "expected parentheses: #[param(\"...\")]");
            return None;
        }
    };
    let parser = |input: ParseStream<'_>| -> syn::Result<ParamAttr> {
        let mut out = ParamAttr {
            tokens: tokens_of_attr.clone(),
            name: None,
            description: None,
            default: None,
            rename: None,
            rules: ParamRules::default(),
        };
        if input.peek(Ident) && !input.peek2(Token![=]) {
            out.name = Some(input.parse()?);
            if input.is_empty() {
                return Ok(out);
            }
            input.parse::<Token![,]>()?;
        }
        if input.peek(LitStr) {
            out.description = Some(input.parse()?);
            if input.is_empty() {
                return Ok(out);
            }
            input.parse::<Token![,]>()?;
        }
        param_keys(cx, input, &mut out)?;
        Ok(out)
    };
    match parser.parse2(tokens) {
        Ok(parsed) => Some(parsed),
        Err(err) => {
            cx.syn_error(syn::Error::new(
                err.span(),
                format!(
                    "{err}: write #[param(\"...\")] on the argument, or #[param(name, \"...\")] above the method (optionally followed by `, default = <expr>`, `, rename = \"wireName\"` and rules such as `, min = 1, max = 16`)"
                ),
            ));
            None
        }
    }
}

/// The keys after a `#[param]`'s description: `default`, `rename` and the
/// rules (`min = 1`, `one_of(..)`, ...), into `out`.
fn param_keys(cx: &Ctxt, input: ParseStream<'_>, out: &mut ParamAttr) -> syn::Result<()> {
    let mut default = Attr::none(DEFAULT);
    let mut rename = Attr::none(RENAME);
    while !input.is_empty() {
        let key: Ident = input.call(syn::ext::IdentExt::parse_any)?;
        if key == ONE_OF && input.peek(syn::token::Paren) {
            let list;
            syn::parenthesized!(list in input);
            let values = Punctuated::<Expr, Token![,]>::parse_terminated(&list)?;
            out.rules.set_one_of(cx, key, values);
            if input.is_empty() {
                break;
            }
            input.parse::<Token![,]>()?;
            continue;
        }
        input.parse::<Token![=]>()?;
        let value: Expr = input.parse()?;
        if is_rule_key(&key) {
            out.rules.set(cx, key, value);
        } else if key == ONE_OF {
            cx.error_spanned_by(
                &key,
                "expected the values in parentheses: one_of(\"celsius\", \"fahrenheit\")",
            );
        } else if key == DEFAULT {
            default.set(cx, &key, value);
        } else if key == RENAME {
            if let Expr::Lit(ExprLit {
                lit: Lit::Str(lit), ..
            }) = value
            {
                rename.set(cx, &key, lit);
            } else {
                cx.error_spanned_by(
                    &value,
                    "expected the parameter's name on the wire as a string literal: #[param(\"...\", rename = \"dryRun\")]",
                );
            }
        } else {
            unknown_key(cx, &key.clone().into(), "#[param(...)]", PARAM_KEYS);
        }
        if input.is_empty() {
            break;
        }
        input.parse::<Token![,]>()?;
    }
    out.default = default.get();
    out.rename = rename.get();
    out.rules.check(cx);
    if let Some(default) = &out.default {
        out.rules.check_default(cx, default);
    }
    Ok(())
}
