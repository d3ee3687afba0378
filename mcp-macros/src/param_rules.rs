//! The rules a `#[param]` declares on its parameter: `min`/`max` (and
//! `exclusive_min`/`exclusive_max`), `min_length`/`max_length`, `pattern`
//! and `one_of(...)`. Parsed and checked against each other here; whether
//! they stand on a tool's argument is checked with the rest of the item
//! (`check`); whether they fit the parameter's type is the compiler's
//! answer (the runtime's `Numeric`, `HasLength`, `Textual` traits), and the
//! code they generate writes them into the schema, which the runtime checks
//! each call against.

use proc_macro2::{Literal, Span, TokenStream};
use quote::{quote, quote_spanned, ToTokens};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Expr, ExprLit, ExprUnary, Ident, Lit, LitStr, Token, UnOp};

use crate::ctxt::Ctxt;
use crate::symbol::{
    EXCLUSIVE_MAX, EXCLUSIVE_MIN, MAX, MAX_LENGTH, MIN, MIN_LENGTH, PATTERN, RULE_KEYS,
};
use crate::tokens::{default_value, is_str_lit, option};

/// A number written as a bound: its value, and the key and tokens that set it.
pub(crate) struct NumBound {
    pub(crate) key: Ident,
    pub(crate) expr: Expr,
    pub(crate) value: Num,
}

#[derive(Clone, Copy, PartialEq, PartialOrd)]
pub(crate) enum Num {
    Int(i128),
    Float(f64),
}

impl Num {
    fn as_f64(self) -> f64 {
        match self {
            #[allow(clippy::cast_precision_loss, reason = "compared as floats")]
            Num::Int(i) => i as f64,
            Num::Float(f) => f,
        }
    }

    fn tokens(self) -> TokenStream {
        match self {
            Num::Int(i) => {
                let lit = Literal::i128_unsuffixed(i);
                quote!(::oxmcp_server::__private::Bound::Int(#lit))
            }
            Num::Float(f) => {
                let lit = Literal::f64_unsuffixed(f);
                quote!(::oxmcp_server::__private::Bound::Float(#lit))
            }
        }
    }
}

/// Whether a value breaks a bound: `(value, bound)`.
type Breaks = fn(f64, f64) -> bool;

/// A length bound: a whole number.
pub(crate) struct LenBound {
    pub(crate) key: Ident,
    pub(crate) value: u64,
}

/// Every rule of one `#[param]`.
#[derive(Default)]
pub(crate) struct ParamRules {
    pub(crate) min: Option<NumBound>,
    pub(crate) max: Option<NumBound>,
    pub(crate) exclusive_min: Option<NumBound>,
    pub(crate) exclusive_max: Option<NumBound>,
    pub(crate) min_length: Option<LenBound>,
    pub(crate) max_length: Option<LenBound>,
    pub(crate) pattern: Option<(Ident, LitStr)>,
    pub(crate) one_of: Option<(Ident, Vec<Expr>)>,
}

/// Whether `key = value` declares a rule (`one_of(...)` is a list).
pub(crate) fn is_rule_key(key: &Ident) -> bool {
    RULE_KEYS.iter().any(|k| key == k)
}

fn duplicate(cx: &Ctxt, key: &Ident) {
    cx.error_spanned_by(key, format!("duplicate `{key}`: remove one of the two"));
}

impl ParamRules {
    /// `key = value` for a rule key (see [`is_rule_key`]).
    pub(crate) fn set(&mut self, cx: &Ctxt, key: Ident, value: Expr) {
        if key == PATTERN {
            let Expr::Lit(ExprLit {
                lit: Lit::Str(lit), ..
            }) = &value
            else {
                cx.error_spanned_by(
                    &value,
                    "expected the regular expression as a string literal: #[param(\"...\", pattern = \"^[a-z]+$\")]",
                );
                return;
            };
            if self.pattern.is_some() {
                duplicate(cx, &key);
            } else {
                self.pattern = Some((key, lit.clone()));
            }
        } else if key == MIN_LENGTH || key == MAX_LENGTH {
            let Some(value) = whole_number(&value) else {
                cx.error_spanned_by(
                    &value,
                    format!("expected a whole number of characters or items: #[param(\"...\", {key} = 1)]"),
                );
                return;
            };
            let slot = if key == MIN_LENGTH {
                &mut self.min_length
            } else {
                &mut self.max_length
            };
            if slot.is_some() {
                duplicate(cx, &key);
            } else {
                *slot = Some(LenBound { key, value });
            }
        } else {
            let Some(num) = number(&value) else {
                cx.error_spanned_by(
                    &value,
                    format!("expected a number literal: #[param(\"...\", {key} = 1)]"),
                );
                return;
            };
            let slot = if key == MIN {
                &mut self.min
            } else if key == MAX {
                &mut self.max
            } else if key == EXCLUSIVE_MIN {
                &mut self.exclusive_min
            } else {
                &mut self.exclusive_max
            };
            if slot.is_some() {
                duplicate(cx, &key);
            } else {
                *slot = Some(NumBound {
                    key,
                    expr: value,
                    value: num,
                });
            }
        }
    }

    /// `one_of(a, b, ...)`.
    pub(crate) fn set_one_of(
        &mut self,
        cx: &Ctxt,
        key: Ident,
        values: Punctuated<Expr, Token![,]>,
    ) {
        if values.is_empty() {
            cx.error_spanned_by(
                &key,
                "`one_of()` lists no value: list the values the parameter takes, e.g. one_of(\"celsius\", \"fahrenheit\")",
            );
        } else if self.one_of.is_some() {
            duplicate(cx, &key);
        } else {
            self.one_of = Some((key, values.into_iter().collect()));
        }
    }

    /// The first key of any rule, for errors about all of them.
    pub(crate) fn first_key(&self) -> Option<&Ident> {
        [
            &self.min,
            &self.max,
            &self.exclusive_min,
            &self.exclusive_max,
        ]
        .into_iter()
        .flatten()
        .map(|b| &b.key)
        .chain(
            [&self.min_length, &self.max_length]
                .into_iter()
                .flatten()
                .map(|b| &b.key),
        )
        .chain(self.pattern.iter().map(|(k, _)| k))
        .chain(self.one_of.iter().map(|(k, _)| k))
        .next()
    }

    /// Rules that contradict each other: both `min` and `exclusive_min`, a
    /// least value above the greatest, a least length above the greatest.
    pub(crate) fn check(&self, cx: &Ctxt) {
        for (a, b) in [
            (&self.min, &self.exclusive_min),
            (&self.max, &self.exclusive_max),
        ] {
            if let (Some(a), Some(b)) = (a, b) {
                cx.error_spanned_by(
                    &b.key,
                    format!("both `{}` and `{}`: keep one of the two", a.key, b.key),
                );
            }
        }
        let low = self.min.as_ref().or(self.exclusive_min.as_ref());
        let high = self.max.as_ref().or(self.exclusive_max.as_ref());
        if let (Some(low), Some(high)) = (low, high) {
            let (l, h) = (low.value.as_f64(), high.value.as_f64());
            let touching = l.partial_cmp(&h).is_some_and(std::cmp::Ordering::is_eq)
                && (low.key == EXCLUSIVE_MIN || high.key == EXCLUSIVE_MAX);
            let (lt, ht) = (low.expr.to_token_stream(), high.expr.to_token_stream());
            let (lk, hk) = (&low.key, &high.key);
            if l > h {
                cx.error_spanned_by(
                    hk,
                    format!("no value is allowed: `{lk} = {lt}` is above `{hk} = {ht}`; swap the two bounds"),
                );
            } else if touching {
                cx.error_spanned_by(
                    hk,
                    format!("no value is allowed: `{lk} = {lt}` and `{hk} = {ht}` exclude the only value between them; lower the least bound or raise the greatest"),
                );
            }
        }
        if let (Some(low), Some(high)) = (&self.min_length, &self.max_length) {
            if low.value > high.value {
                cx.error_spanned_by(
                    &high.key,
                    format!(
                        "no length is allowed: `min_length = {}` is above `max_length = {}`; swap the two",
                        low.value, high.value
                    ),
                );
            }
        }
    }

    /// A literal `default` the rules would refuse: the schema would show a
    /// default no call may send, and the tool would get a value its rules
    /// exclude.
    pub(crate) fn check_default(&self, cx: &Ctxt, default: &Expr) {
        let mut broken: Vec<String> = Vec::new();
        if let Some(value) = number(default) {
            let v = value.as_f64();
            let rules: [(&Option<NumBound>, Breaks); 4] = [
                (&self.min, |v, b| v < b),
                (&self.exclusive_min, |v, b| v <= b),
                (&self.max, |v, b| v > b),
                (&self.exclusive_max, |v, b| v >= b),
            ];
            for (bound, breaks) in rules {
                if let Some(b) = bound.as_ref().filter(|b| breaks(v, b.value.as_f64())) {
                    broken.push(format!("`{} = {}`", b.key, b.expr.to_token_stream()));
                }
            }
        }
        if let Expr::Lit(ExprLit {
            lit: Lit::Str(lit), ..
        }) = default
        {
            let chars = lit.value().chars().count() as u64;
            if let Some(b) = self.min_length.as_ref().filter(|b| chars < b.value) {
                broken.push(format!("`{} = {}`", b.key, b.value));
            }
            if let Some(b) = self.max_length.as_ref().filter(|b| chars > b.value) {
                broken.push(format!("`{} = {}`", b.key, b.value));
            }
            if let Some((key, values)) = &self.one_of {
                let listed = values.iter().all(is_str_lit);
                let found = values.iter().any(|v| {
                    matches!(v, Expr::Lit(ExprLit { lit: Lit::Str(s), .. }) if s.value() == lit.value())
                });
                if listed && !found {
                    broken.push(format!("`{key}(...)`"));
                }
            }
        }
        if !broken.is_empty() {
            cx.error_spanned_by(
                default,
                format!(
                    "this default breaks {}: the tool would run with a value its rules refuse, and the schema would offer it to the model; change the default or the rule",
                    broken.join(" and ")
                ),
            );
        }
    }

    /// The calls that write the rules into the schema of the parameter just
    /// added, each spanned on its key, so that a rule the type cannot take
    /// (a length on a number) is reported there.
    pub(crate) fn schema_calls(&self, ty: &syn::Type) -> TokenStream {
        let mut out = TokenStream::new();
        let bounds = [
            (&self.min, "minimum", false),
            (&self.exclusive_min, "minimum", true),
            (&self.max, "maximum", false),
            (&self.exclusive_max, "maximum", true),
        ];
        for (bound, method, exclusive) in bounds {
            if let Some(b) = bound {
                let method = Ident::new(method, b.key.span());
                let value = b.value.tokens();
                out.extend(quote_spanned! {b.key.span()=>
                    __mcp_schema.#method::<#ty>(#value, #exclusive);
                });
            }
        }
        if self.min_length.is_some() || self.max_length.is_some() {
            let span = self
                .min_length
                .as_ref()
                .or(self.max_length.as_ref())
                .map_or_else(Span::call_site, |b| b.key.span());
            let min = option(self.min_length.as_ref().map(|b| b.value));
            let max = option(self.max_length.as_ref().map(|b| b.value));
            out.extend(quote_spanned! {span=>
                __mcp_schema.length::<#ty>(#min, #max);
            });
        }
        if let Some((key, lit)) = &self.pattern {
            out.extend(quote_spanned! {key.span()=>
                __mcp_schema.pattern::<#ty>(#lit);
            });
        }
        if let Some((key, values)) = &self.one_of {
            // Each value as a value of the parameter's type (of `U`, for an
            // `Option<U>`): a string literal makes a `String`, an integer
            // literal takes the type.
            let values = values.iter().map(|v| {
                if is_str_lit(v) {
                    default_value(v, ty)
                } else {
                    quote_spanned! {v.span()=> {
                        #[allow(unused_imports)]
                        use ::oxmcp_server::__private::{AllowedOption as _, AllowedPlain as _};
                        (&&::oxmcp_server::__private::Allowed::<#ty>::new()).value(#v)
                    }}
                }
            });
            out.extend(quote_spanned! {key.span()=>
                __mcp_schema.one_of(&[#(#values),*]);
            });
        }
        out
    }
}

/// An integer or float literal, possibly negated.
fn number(expr: &Expr) -> Option<Num> {
    match expr {
        Expr::Lit(ExprLit {
            lit: Lit::Int(i), ..
        }) => i.base10_parse::<i128>().ok().map(Num::Int),
        Expr::Lit(ExprLit {
            lit: Lit::Float(f), ..
        }) => f.base10_parse::<f64>().ok().map(Num::Float),
        Expr::Unary(ExprUnary {
            op: UnOp::Neg(_),
            expr,
            ..
        }) => match number(expr)? {
            Num::Int(i) => Some(Num::Int(-i)),
            Num::Float(f) => Some(Num::Float(-f)),
        },
        Expr::Group(g) => number(&g.expr),
        _ => None,
    }
}

fn whole_number(expr: &Expr) -> Option<u64> {
    match expr {
        Expr::Lit(ExprLit {
            lit: Lit::Int(i), ..
        }) => i.base10_parse::<u64>().ok(),
        _ => None,
    }
}
