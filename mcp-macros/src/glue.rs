//! Code-generation pieces that the toolbox expansion ([`crate::expand`]),
//! the prompts and resources beside its tools ([`crate::items`]), its
//! fallback beside errors ([`crate::fallback`]) and the typed clients
//! ([`crate::client`]) share.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;
use syn::{Generics, Lifetime, Type};

use crate::ast::{Access, Tool, ToolFn};

/// The impl's generics, plus `Self: Send + Sync + 'static` when it has any
/// (the toolbox is shared among its tools' futures).
pub(crate) fn toolbox_generics(self_ty: &Type, generics: &Generics) -> Generics {
    let mut generics = generics.clone();
    if !generics.params.is_empty() {
        generics
            .make_where_clause()
            .predicates
            .push(syn::parse_quote!(
                #self_ty: ::core::marker::Send + ::core::marker::Sync + 'static
            ));
    }
    generics
}

/// The unit struct that stands for a tool function.
pub(crate) fn unit_struct(model: &ToolFn, tool: &Tool) -> TokenStream {
    let vis = &model.vis;
    let ident = &model.struct_ident;
    let cfgs = &tool.cfgs;
    let doc = format!(
        "The tool `{}` (the function `{}`), as a toolbox: register it with `.toolbox({ident})`.",
        tool.name(),
        tool.ident,
    );
    quote! {
        #(#cfgs)*
        #[doc = #doc]
        #[derive(
            ::core::fmt::Debug,
            ::core::clone::Clone,
            ::core::marker::Copy,
            ::core::default::Default,
        )]
        #vis struct #ident;
    }
}

/// An argument without a description: injected through `Inject`, which a
/// type that is not the context lacks (reported on the argument's type).
pub(crate) fn inject(ty: &Type) -> TokenStream {
    let ty = erase_lifetimes(ty);
    quote_spanned!(ty.span()=> <#ty as ::oxmcp_server::__private::Inject<'_>>::inject(&__mcp_ctx))
}

/// Replaces every named lifetime but `'static` with `'_`, so a type written in a
/// signature (`&'a str`) can be named inside the generated body.
pub(crate) fn erase_lifetimes(ty: &Type) -> Type {
    struct Eraser;
    impl VisitMut for Eraser {
        fn visit_lifetime_mut(&mut self, lifetime: &mut Lifetime) {
            if lifetime.ident != "static" {
                lifetime.ident = syn::Ident::new("_", lifetime.ident.span());
            }
        }
    }
    let mut ty = ty.clone();
    Eraser.visit_type_mut(&mut ty);
    ty
}

/// `scopes: &[...],` of a spec (tool, prompt, resource): the block's
/// `scopes("...")`, then the item's own, each once; nothing without any.
pub(crate) fn scopes_field(item: &Tool) -> Option<TokenStream> {
    let mut scopes: Vec<String> = Vec::new();
    let own = item.options.scopes.iter().flat_map(|s| s.values.iter());
    for lit in item.block_scopes.iter().chain(own) {
        let value = lit.value();
        if !scopes.contains(&value) {
            scopes.push(value);
        }
    }
    (!scopes.is_empty()).then(|| quote!(scopes: &[#(#scopes),*],))
}

/// The call of the tool function, and what reaches the toolbox: the
/// captures of its `Arc` and the lock.
pub(crate) struct Call {
    pub(crate) capture: Option<TokenStream>,
    pub(crate) lock: Option<TokenStream>,
    pub(crate) expr: TokenStream,
}

impl Call {
    pub(crate) fn new(tool: &Tool, call_args: &[TokenStream]) -> Self {
        let ident = &tool.ident;
        let call_span = ident.span();
        let (capture, lock, call) = match tool.access {
            Access::Free => (
                None,
                None,
                quote_spanned!(call_span=> #ident(#(#call_args),*)),
            ),
            access => {
                let capture = quote!(let __mcp_shared = ::std::sync::Arc::clone(&__mcp_shared););
                let (lock, this) = if access == Access::Exclusive {
                    (
                        quote!(let mut __mcp_this = __mcp_shared.write().await;),
                        quote!(&mut *__mcp_this),
                    )
                } else {
                    (
                        quote!(let __mcp_this = __mcp_shared.read().await;),
                        quote!(&*__mcp_this),
                    )
                };
                let call = quote_spanned!(call_span=> Self::#ident(#this, #(#call_args),*));
                (Some(capture), Some(lock), call)
            }
        };
        let call = if tool.is_async {
            quote_spanned!(call_span=> #call.await)
        } else {
            call
        };
        Call {
            capture,
            lock,
            expr: call,
        }
    }
}
