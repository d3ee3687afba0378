//! One client method per tool: its parameters, the encoding of its
//! arguments and the decoding of its result, with the bounds they need.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;
use syn::{GenericArgument, Ident, Lifetime, PathArguments, Type};

use super::docs::method_doc;
use super::{Flavor, Gen};
use crate::ast::{ArgKind, Tool};
use crate::glue::erase_lifetimes;
use crate::symbol::{CLIENT_METHODS, DECLARED_CLIENT_METHODS};

/// `Name<T>` with exactly one type argument: `T`.
fn single_arg<'a>(ty: &'a Type, name: &str) -> Option<&'a Type> {
    let Type::Path(p) = peel(ty) else {
        return None;
    };
    if p.qself.is_some() {
        return None;
    }
    let segment = p.path.segments.last()?;
    let PathArguments::AngleBracketed(args) = &segment.arguments else {
        return None;
    };
    let mut types = args.args.iter().filter_map(|a| match a {
        GenericArgument::Type(t) => Some(t),
        _ => None,
    });
    let first = types.next()?;
    (segment.ident == name && args.args.len() == 1).then_some(first)
}

fn peel(ty: &Type) -> &Type {
    match ty {
        Type::Group(g) => peel(&g.elem),
        Type::Paren(p) => peel(&p.elem),
        _ => ty,
    }
}

/// A declared return type refused whatever its name (a reference, `impl
/// Trait`; reported by the checks): its stub method is left out.
fn refused_output(ty: &Type) -> bool {
    matches!(peel(ty), Type::Reference(_) | Type::ImplTrait(_))
}

/// The return type of a client method (`Result<_, CallError>`), the
/// expression that decodes `__mcp_result` into it, and (for a toolbox) the
/// bound that defers the check to the call site; all through the traits of
/// `oxmcp_types::call`: the compiler, not the macro, tells what the tool's
/// return type decodes into.
fn output(g: &Gen<'_>, tool: &Tool) -> (TokenStream, TokenStream, Option<TokenStream>) {
    let wire = tool.name();
    let span = tool.output_span;
    // Every token spanned on the return type, so that an error about it
    // points there (and once: rustc merges identical errors).
    let rt = match g.flavor {
        Flavor::Toolbox => quote_spanned!(span=> ::oxmcp_server::__private),
        Flavor::Declared => quote_spanned!(span=> ::oxmcp_client::__private),
    };
    let caller = Ident::new(&g.caller.to_string(), span);
    let output = erase_lifetimes(&tool.output);
    match g.flavor {
        // `fn(&()) -> R`: a return type with elided lifetimes (`&str`,
        // `Cow<str>`) can be named in the `where` clause that defers the
        // bound to the call site (a server's `Json<T>` needs no `Deserialize`).
        Flavor::Toolbox => {
            let returns = quote_spanned!(span=> fn(&()) -> #output);
            let ret = quote_spanned! {span=>
                ::core::result::Result<<#returns as #rt::Returns<#caller>>::Output, #rt::CallError>
            };
            let bound = quote_spanned!(span=> #returns: #rt::Returns<#caller>);
            // The server wraps a value whose schema's root is not an object
            // as `{"result": value}`: ask its output schema, as it does.
            let decode = quote_spanned! {span=>
                <#returns as #rt::Returns<#caller>>::decode(
                    #wire,
                    __mcp_result,
                    #rt::Wrapping::Rule(|| {
                        #rt::is_wrapped_output(
                            #rt::output_schema::<#output>()
                                .as_ref()
                                .map(#rt::Schema::as_value),
                        )
                    }),
                )
            };
            (ret, decode, Some(bound))
        }
        // The client's own types: checked at once, where the trait is declared.
        Flavor::Declared => {
            let ret = quote_spanned! {span=>
                ::core::result::Result<<#output as #rt::ToolOutput<#caller>>::Output, #rt::CallError>
            };
            let decode = quote_spanned! {span=>
                <#output as #rt::ToolOutput<#caller>>::decode(#wire, __mcp_result, #rt::Wrapping::Lenient)
            };
            (ret, decode, None)
        }
    }
}

/// `T: Trait`, spanned on `T`; a `T` with elided lifetimes (`&str`,
/// `Cow<'_, str>`), which a where clause cannot name, gets them bound by
/// `for<'__mcp>`.
fn deferred_bound(ty: &Type, tr: TokenStream) -> TokenStream {
    struct Namer(bool);
    impl VisitMut for Namer {
        fn visit_lifetime_mut(&mut self, lifetime: &mut Lifetime) {
            if lifetime.ident == "_" {
                *lifetime = Lifetime::new("'__mcp", lifetime.span());
                self.0 = true;
            }
        }
        fn visit_type_reference_mut(&mut self, reference: &mut syn::TypeReference) {
            if reference.lifetime.is_none() {
                reference.lifetime = Some(Lifetime::new("'__mcp", reference.and_token.span));
                self.0 = true;
            }
            syn::visit_mut::visit_type_reference_mut(self, reference);
        }
    }
    let mut ty = ty.clone();
    let mut namer = Namer(false);
    namer.visit_type_mut(&mut ty);
    let span = ty.span();
    if namer.0 {
        quote_spanned!(span=> for<'__mcp> #ty: #tr)
    } else {
        quote_spanned!(span=> #ty: #tr)
    }
}

/// One parameter of a client method.
pub(super) struct Param<'a> {
    pub(super) ident: &'a Ident,
    pub(super) wire: String,
    /// The type the method takes: `T`, or `Option<T>` for a defaulted `T`.
    pub(super) client_ty: TokenStream,
    /// The type of the value sent: `T` (also of an `Option<T>`).
    pub(super) sent_ty: Type,
    /// `None` leaves the argument out (`Option<T>`, or defaulted).
    pub(super) optional: bool,
    /// Defaulted: the server applies its default when it is left out.
    pub(super) defaulted: bool,
    pub(super) description: String,
}

pub(super) fn params(tool: &Tool) -> Vec<Param<'_>> {
    tool.args
        .iter()
        .filter_map(|arg| {
            let ArgKind::Param(info) = &arg.kind else {
                return None;
            };
            let ty = erase_lifetimes(&arg.ty);
            let description = info
                .description
                .as_ref()
                .map(syn::LitStr::value)
                .unwrap_or_default();
            let param = if info.default.is_some() {
                let span = arg.ty.span();
                Param {
                    client_ty: quote_spanned!(span=> ::core::option::Option<#ty>),
                    sent_ty: ty,
                    optional: true,
                    defaulted: true,
                    ident: &arg.ident,
                    wire: arg.wire_name(),
                    description,
                }
            } else if let Some(inner) = single_arg(&ty, "Option") {
                Param {
                    client_ty: ty.to_token_stream(),
                    sent_ty: inner.clone(),
                    optional: true,
                    defaulted: false,
                    ident: &arg.ident,
                    wire: arg.wire_name(),
                    description,
                }
            } else {
                Param {
                    client_ty: ty.to_token_stream(),
                    sent_ty: ty,
                    optional: false,
                    defaulted: false,
                    ident: &arg.ident,
                    wire: arg.wire_name(),
                    description,
                }
            };
            Some(param)
        })
        .collect()
}

/// One client method, or `None` beside errors for a declared tool whose
/// return type is refused or a method named like the client's own.
pub(super) fn method(g: &Gen<'_>, tool: &Tool) -> Option<TokenStream> {
    if g.stub {
        let ident = tool.ident.to_string();
        let ident = ident.trim_start_matches("r#");
        if CLIENT_METHODS.contains(&ident) || DECLARED_CLIENT_METHODS.contains(&ident) {
            return None;
        }
    }
    if g.flavor == Flavor::Declared && refused_output(&tool.output) {
        return None;
    }
    let rt = &g.rt;
    let caller = g.caller;
    let params = params(tool);
    let wire = tool.name();
    let ident = &tool.ident;
    // A stub has no bodies, so no bounds either: fewer errors beside the real ones.
    let deferred = g.flavor == Flavor::Toolbox && !g.stub;
    let mut bounds = Bounds::default();
    if deferred {
        for p in &params {
            bounds.add(deferred_bound(&p.sent_ty, quote!(#rt::EncodeFor<#caller>)));
        }
    }
    let pushes: Vec<TokenStream> = params.iter().map(|p| push(g, p)).collect();

    let (ret, decode, output_bound) = output(g, tool);
    if let Some(output_bound) = output_bound {
        // Also on a stub: its return type names the bound's projection.
        bounds.add(output_bound);
    }

    let idents: Vec<&Ident> = params.iter().map(|p| p.ident).collect();
    let body = if g.stub {
        quote! {
            let _ = (#(#idents,)*);
            ::core::unreachable!()
        }
    } else {
        let args = if pushes.is_empty() {
            quote!(#rt::JsonObject::new())
        } else {
            quote! {{
                let mut __mcp_args = #rt::CallArguments::new(#wire);
                #(#pushes)*
                __mcp_args.finish()?
            }}
        };
        quote! {
            let __mcp_result =
                #rt::ToolCaller::call_tool(&self.caller, #wire, #args).await?;
            #decode
        }
    };
    let where_clause = bounds.where_clause();
    let doc = method_doc(tool, &params);
    let cfgs = &tool.cfgs;
    let carried = &tool.carried;
    let args = params.iter().map(|p| {
        let ident = p.ident;
        let ty = &p.client_ty;
        quote!(#ident: #ty)
    });
    Some(quote! {
        #(#cfgs)*
        #(#carried)*
        #doc
        pub async fn #ident(&self, #(#args),*) -> #ret
            #where_clause
        {
            #body
        }
    })
}

/// One client method for a prompt of the toolbox: its arguments sent as
/// strings (`Display`, checked where the method is called), the rendered
/// `GetPromptResult` returned.
pub(super) fn prompt_method(g: &Gen<'_>, prompt: &Tool) -> TokenStream {
    let rt = &g.rt;
    let params = params(prompt);
    let wire = prompt.name();
    let ident = &prompt.ident;
    let mut bounds = Bounds::default();
    if !g.stub {
        for p in &params {
            let caller = g.caller;
            bounds.add(deferred_bound(
                &p.sent_ty,
                quote!(#rt::PromptArgFor<#caller>),
            ));
        }
    }
    let idents: Vec<&Ident> = params.iter().map(|p| p.ident).collect();
    let caller = g.caller;
    let body = if g.stub {
        quote! {
            let _ = (#(#idents,)*);
            ::core::unreachable!()
        }
    } else {
        let inserts = params.iter().map(|p| {
            let name = &p.wire;
            let value = p.ident;
            if p.optional {
                quote! {
                    if let ::core::option::Option::Some(__mcp_value) = &#value {
                        __mcp_args.insert(::std::string::String::from(#name), #rt::PromptArgFor::<#caller>::text(__mcp_value));
                    }
                }
            } else {
                quote! {
                    __mcp_args.insert(::std::string::String::from(#name), #rt::PromptArgFor::<#caller>::text(&#value));
                }
            }
        });
        quote! {
            let mut __mcp_args = ::std::collections::BTreeMap::new();
            #(#inserts)*
            #rt::ToolCaller::get_prompt(&self.caller, #wire, __mcp_args).await
        }
    };
    let where_clause = bounds.where_clause();
    let description = prompt
        .description
        .as_ref()
        .map(syn::LitStr::value)
        .unwrap_or_default();
    let doc = format!("Gets the prompt `{wire}`: {}", description.trim());
    let cfgs = &prompt.cfgs;
    let args = params.iter().map(|p| {
        let ident = p.ident;
        let ty = &p.client_ty;
        quote!(#ident: #ty)
    });
    quote! {
        #(#cfgs)*
        #[doc = #doc]
        pub async fn #ident(&self, #(#args),*)
            -> ::core::result::Result<#rt::GetPromptResult, #rt::CallError>
            #where_clause
        {
            #body
        }
    }
}

/// The where clause of a client method, without repeats.
#[derive(Default)]
struct Bounds(Vec<TokenStream>);

impl Bounds {
    fn add(&mut self, bound: TokenStream) {
        let text = bound.to_string();
        if !self.0.iter().any(|b| b.to_string() == text) {
            self.0.push(bound);
        }
    }

    fn where_clause(&self) -> Option<TokenStream> {
        let bounds = &self.0;
        (!bounds.is_empty()).then(|| quote!(where #(#bounds,)*))
    }
}

/// Adds one argument to the call's arguments (`__mcp_args`); an optional
/// one only when it is `Some`.
fn push(g: &Gen<'_>, p: &Param<'_>) -> TokenStream {
    let caller = g.caller;
    let name = &p.wire;
    let sent = &p.sent_ty;
    let span = sent.span();
    let value = p.ident;
    // A toolbox's argument needs `Serialize` only where the method is
    // called; a declared one at once (it is the client's own type).
    let push = match g.flavor {
        Flavor::Toolbox => quote_spanned!(span=> push::<#sent, #caller>),
        Flavor::Declared => quote_spanned!(span=> push_serialize::<#sent>),
    };
    if p.optional {
        quote_spanned! {span=>
            if let ::core::option::Option::Some(__mcp_value) = &#value {
                __mcp_args.#push(#name, __mcp_value);
            }
        }
    } else {
        quote_spanned! {span=>
            __mcp_args.#push(#name, &#value);
        }
    }
}
